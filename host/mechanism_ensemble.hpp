// Mechanisms made into an ensemble that the caller advances step by step (the Python module's
// quatstep.MechanismEnsemble): a mechanism scenario's mechanisms — with its sweeps, draws and
// overrides — and, replacing those values, per-mechanism arrays over any of its numeric keys
// (for_each_parameter's "body.crank.mass", "spring.s.stiffness", …), built, assembled and initialised
// as `quatstep run` does them (mechanism_run.hpp), then stepped with fixed steps on the CPU by the
// run's own per-mechanism function (include/quatstep/mechanism/batch.hpp), or its blocks in SIMD
// lanes (cpu_mechanism_lanes.hpp), or on the GPU (MechanismEnsembleSpec::backend) by the run's
// kernels' functions: n steps, however split into calls, give the state of the run after n steps,
// bit for bit (on the GPU in a strict-mode build). A coupled code steps it one step at a time with
// its own loads on every body (step(MechanismLoads)).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mechanism_scenario.hpp"
#include "quatstep/channels.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/mechanism/batch.hpp"  // MechanismLoads

namespace quatstep {

/// One numeric mechanism key set per mechanism: `values` holds the mechanisms' rows of the key's size.
struct MechanismArray {
  std::string key;
  std::vector<double> values;
};

/// What the ensemble is made of beyond the scenario: `mechanisms` rows — the scenario's mechanisms one
/// for one, or its one mechanism repeated when it has a single one — each with the arrays' values
/// over its own; with mechanisms = 0 (no arrays then) the scenario's mechanisms (its ensemble, or its
/// --bodies selection) as they are.
struct MechanismEnsembleSpec {
  index_t mechanisms = 0;  ///< rows, and rows of every array; 0: the scenario's
  std::vector<MechanismArray> arrays;
  /// Where the ensemble steps, as BodyEnsembleSpec's: "cpu", or "cuda" and "auto" as a scenario's
  /// [run] backend (which is `quatstep run`'s and not read here).
  Backend backend = Backend::cpu;
};

class MechanismEnsemble {
 public:
  virtual ~MechanismEnsemble() = default;

  virtual index_t mechanisms() const = 0;
  virtual int bodies() const = 0;  ///< per mechanism
  virtual index_t steps_done() const = 0;
  virtual double t_start() const = 0;
  virtual double dt() const = 0;
  double time() const { return t_start() + double(steps_done()) * dt(); }
  /// A sample's channels, in buffer order: the run's (mechanism_channels).
  virtual const std::vector<Channel>& channels() const = 0;

  /// Every mechanism by `steps` fixed steps, writing the samples that fall into `out`'s window (none
  /// when out.samples is 0), each with the Newton iterations since the previous sample time (or this
  /// call's start, whichever is later).
  virtual void advance(index_t steps, const SampleView<double>& out) = 0;
  /// One step of every mechanism with `loads` acting over it besides the scenario's (zero-order hold,
  /// the coupled-step API's rule for single bodies): a constant load passed every step gives the run
  /// with that load in the scenario bit for bit, and the Livens schemes, which evaluate the loads at
  /// the step's midpoint, the run with a load profile when it is passed at t_n + h/2. The loads act on
  /// this step only. A value that is not finite is a ScenarioError naming the mechanism, the body and
  /// the load, and then no mechanism is stepped.
  virtual void step(const MechanismLoads& loads) = 0;
  /// Before the first step: the initial accelerations and multipliers made consistent with `loads`
  /// acting at t_start besides the scenario's, as the scenario's own loads make them (the HHT family
  /// keeps the accelerations in its state: with the loads of t_start given here, constant loads
  /// passed to step() are the scenario's run bit for bit). A mechanism whose initial state has no
  /// solution fails at step 0. std::logic_error after a step; loads checked as step() checks them.
  virtual void initialize(const MechanismLoads& loads) = 0;
  /// The channels of the current state into sample `out.first_sample` of `out`; its
  /// sample_newton_iterations are those of the latest advance (0 before any).
  virtual void observe(const SampleView<double>& out) const = 0;

  /// Turn the CPU's SIMD lanes off for advance() and step() (every mechanism its scalar step) or back
  /// on where this build, CPU and method have them (host/cpu_mechanism_lanes.hpp: blocks of
  /// mechanisms of one kind; for step(), of one kind with the step's loads held); the same bits
  /// either way. On by default.
  virtual void use_lanes(bool on) = 0;
  /// The mechanisms the latest advance() or step() stepped in lanes (before either, those advance()
  /// would; none on the GPU).
  virtual index_t mechanisms_in_lanes() const = 0;
  /// What steps the mechanisms: "cpu", "cuda: <device>", or for "auto" on the CPU why (choose_backend).
  virtual const std::string& backend() const = 0;

  virtual const std::vector<Status>& status() const = 0;
  virtual const std::vector<index_t>& newton_iterations() const = 0;  ///< all steps
  virtual const std::vector<index_t>& failed_step() const = 0;        ///< −1 if none
  virtual const std::vector<double>& position_correction() const = 0;  ///< of the assembly
  virtual const std::vector<double>& velocity_correction() const = 0;
};

/// The ensemble of `scenario` and `spec`, or a ScenarioError naming the scenario's source, the
/// mechanism and the key: an array over a key the mechanism does not have, of the wrong length, a
/// value the file could not hold (a mass ≤ 0, inertias off the triangle inequality, …), a mechanism
/// that cannot be assembled; a scenario with adaptive steps (the ensemble takes fixed steps; `quatstep
/// run` and quatstep.run take those). spec.backend "cuda" where no GPU is usable is a
/// std::runtime_error saying why (choose_backend).
std::unique_ptr<MechanismEnsemble> make_mechanism_ensemble(const MechanismScenario& scenario,
                                                           const MechanismEnsembleSpec& spec);

}  // namespace quatstep
