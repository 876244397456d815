// From a Scenario to a running CPU ensemble: the one place where the model × method choice of a
// scenario becomes a concrete CpuEnsemble<Integrator<Model<double>>>. The rest of the host code sees
// only this interface.
#pragma once

#include <memory>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "scenario.hpp"

namespace quatstep {

class Ensemble {
 public:
  virtual ~Ensemble() = default;
  /// Consistent initial state of every body; writes sample 0 into `out` when it holds it.
  virtual void initialize(const SampleView<double>& out) = 0;
  /// Advance every body by `steps` steps, writing the samples that fall into `out`'s window.
  virtual void advance(index_t steps, const SampleView<double>& out) = 0;
  virtual const std::vector<Status>& status() const = 0;
  virtual const std::vector<index_t>& newton_iterations() const = 0;  ///< per body, total
  virtual const std::vector<index_t>& failed_step() const = 0;        ///< per body, −1 if none
};

/// Models and initial states of every body of the scenario, integrator settings from [integrator].
std::unique_ptr<Ensemble> make_ensemble(const Scenario& scenario);

}  // namespace quatstep
