// What a coupled batch keeps besides its bodies' states, the same on both backends (the GPU's
// kernels/batch_stepper.cuh and the CPU's cpu_batch_stepper.hpp): the checks of its inputs, its
// clock, and the inertia-and-mass arrays a step reads instead of whole models (coupled_step.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "body_validation.hpp"
#include "quatstep/coupled_step.hpp"
#include "quatstep/settings_keys.hpp"

namespace quatstep {

/// Checks a coupled batch before anything is made: the integrator's settings against their ranges,
/// every body's model and initial state (invalid_bodies) and whether its model can take the caller's
/// loads (check_external_loads); std::invalid_argument naming the key or the body and its field.
template <class Integrator, class Model, class Kinematics>
const Integrator& checked_coupled_batch(const Integrator& integrator, const std::vector<Model>& models,
                                        const std::vector<Kinematics>& initial) {
  keys::check(integrator.settings);
  invalid_bodies(models, initial, false);
  check_external_loads(models);
  return integrator;
}

/// CoupledModels' inertia and mass of every body (inertial_scalars × bodies, on the host) where no
/// body has loads of its own, else empty: the steps then read the whole models.
template <class Model>
std::vector<typename Model::Scalar> coupled_inertial(const std::vector<Model>& models) {
  std::vector<typename Model::Scalar> inertial;
  if constexpr (has_unloaded_form<Model>::value) {
    const index_t n = static_cast<index_t>(models.size());
    if (n && std::none_of(models.begin(), models.end(), [](const Model& m) { return m.has_own_loads(); })) {
      inertial.resize(std::size_t(CoupledModels<Model>::inertial_scalars) * models.size());
      for (index_t i = 0; i < n; ++i) CoupledModels<Model>::store_inertial(models[i], inertial.data(), n, i);
    }
  }
  return inertial;
}

/// The clock of a coupled batch: step k runs from time() = t0 + (the steps before it) to time() + h.
/// time() is t_base + k·h over the k steps since h last changed, as CpuEnsemble's t0 + k·h (a running
/// sum drifted, by 0.67 s after 10⁶ float steps of 1e-4, and broke the bitwise equality of a model's
/// own time profiles in double).
template <class S>
class CoupledClock {
 public:
  explicit CoupledClock(S t0) : t_base_(t0) {
    if (!(std::abs(t0) < S(INFINITY)))
      throw std::invalid_argument("t0: " + validation::format(double(t0)) + ", must be finite");
  }
  S time() const { return t_base_ + S(k_same_) * h_same_; }
  index_t steps_done() const { return steps_; }

  /// One step of size h, which `who` names in its error (finite and > 0): calls
  /// step_all(k, t, h_previous) for step k from time t (h_previous: the size of step k − 1, 0 on the
  /// first step), then counts it.
  template <class StepAll>
  void take(S h, const char* who, StepAll&& step_all) {
    if (!(h > S(0) && h < S(INFINITY)))
      throw std::invalid_argument(std::string(who) + ": h = " + validation::format(double(h)) +
                                  ", must be finite and > 0");
    if (h != h_same_) t_base_ = time(), h_same_ = h, k_same_ = 0;
    step_all(steps_, time(), h_previous_);
    ++k_same_;
    h_previous_ = h;
    ++steps_;
  }

 private:
  S t_base_, h_same_ = S(0);  ///< the time when h last changed, and that h …
  index_t k_same_ = 0;        ///< … and the steps taken with it since
  S h_previous_ = S(0);       ///< the last step's size; 0 before the first
  index_t steps_ = 0;
};

/// A force given to bodies that do not translate is a mistake of the caller's: std::invalid_argument.
template <class Model>
void check_coupled_force(const void* force, const char* who) {
  if (force && !Model::translates)
    throw std::invalid_argument(std::string(who) + ": force given, but this model does not translate (pass none)");
}

/// A position or velocity asked of bodies that do not translate is a mistake of the caller's (the
/// array would be overwritten with zeros): std::invalid_argument.
template <class Model>
void check_coupled_kinematics(const void* position, const void* velocity, const char* who) {
  if ((position || velocity) && !Model::translates)
    throw std::invalid_argument(std::string(who) + ": " + (position ? "position" : "velocity") +
                                " asked for, but this model does not translate (pass none: the array would be "
                                "overwritten with zeros)");
}

/// `timing` where it is one of LoadTiming's values, else std::invalid_argument (an integer cast to it).
inline LoadTiming checked_timing(LoadTiming timing) {
  if (timing != LoadTiming::at_start && timing != LoadTiming::held)
    throw std::invalid_argument("timing: " + std::to_string(int(timing)) +
                                ", must be LoadTiming::at_start or LoadTiming::held");
  return timing;
}

}  // namespace quatstep
