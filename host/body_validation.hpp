// Per-body input checks before a run, shared by every backend: a bad body is named with its field
// and either stops the run before anything is touched or is marked invalid_input and left out.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "quatstep/models/external_load.hpp"
#include "quatstep/models/validation.hpp"

namespace quatstep {

/// Checks every body's model and initial state. Without skip_invalid, throws std::invalid_argument
/// naming the first five bad bodies and their fields ("body 17: quaternion: not unit (norm 1.2)");
/// with it, returns the indices of the bad bodies for the caller to mark Status::invalid_input.
template <class Model, class Kinematics>
std::vector<index_t> invalid_bodies(const std::vector<Model>& models, const std::vector<Kinematics>& initial,
                                    bool skip_invalid) {
  if (initial.size() != models.size())
    throw std::invalid_argument("initial: one state per body required (" + std::to_string(initial.size()) +
                                " states for " + std::to_string(models.size()) + " bodies)");
  std::ostringstream problems;
  std::vector<index_t> bad;
  for (index_t i = 0; i < static_cast<index_t>(models.size()); ++i) {
    std::string p = model_problem(models[i]);  // next to each model
    if (p.empty()) p = kinematics_problem(initial[i]);
    if (p.empty()) continue;
    if (bad.size() < 5) problems << (bad.empty() ? "" : "; ") << "body " << i << ": " << p;
    bad.push_back(i);
  }
  if (!bad.empty() && !skip_invalid) {
    if (bad.size() > 5) problems << "; … (" << bad.size() << " bodies in all)";
    throw std::invalid_argument(problems.str());
  }
  return bad;
}

/// For the coupled step (BatchStepper): throws std::invalid_argument naming the first bad body when a
/// model cannot take the caller's loads (external_load_problem).
template <class Model>
void check_external_loads(const std::vector<Model>& models) {
  for (std::size_t i = 0; i < models.size(); ++i)
    if (std::string p = external_load_problem(models[i]); !p.empty())
      throw std::invalid_argument("body " + std::to_string(i) + ": " + p);
}

}  // namespace quatstep
