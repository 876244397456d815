// Runs whose results stay in memory, for the Python module (python/) and any C++ caller that wants
// arrays rather than a file:
//   * run_in_memory: a parsed scenario run to its end by `quatstep run`'s loop (run_scenario), the
//     datasets its file would hold kept as arrays instead — the same trajectories, statistics,
//     parameters and records, bit for bit; run_mechanisms_in_memory the same for a mechanism
//     scenario (run_mechanism_scenario);
//   * BodyEnsemble: an ensemble made from per-body parameter arrays, no scenario file (model and
//     method by registry name, settings by key), advanced step by step on the CPU or the GPU
//     (make_ensemble's ensembles), with its state storage open to zero-copy views.
// Inputs are checked as the scenario parser checks them, with its messages ("key 'model.inertia':
// component 2 is -1, must be > 0", "key 'integrator.alpha': …"); a problem is a ScenarioError.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ensemble_factory.hpp"
#include "run.hpp"
#include "quatstep/channels.hpp"
#include "quatstep/ensemble.hpp"
#include "scenario.hpp"

namespace quatstep {

struct MechanismScenario;  // mechanism_scenario.hpp, not included: nvcc compiles this header (python/src/device_stepper.cu)

/// Samples [first_sample, first_sample + samples) of a run in one buffer, SampleView's layout
/// [sample][scalar][body]; a sample holds every channel of `layout`.
struct SampleBuffer {
  std::vector<Channel> layout;  ///< the model's channels, then the method's (sample_channels)
  index_t bodies = 0, first_sample = 0, samples = 0, stride = 1;
  std::vector<double> time;  ///< per sample: t_start + j·stride·dt
  std::vector<double> data;

  SampleBuffer(std::vector<Channel> layout, index_t bodies, index_t first_sample, index_t samples, index_t stride,
               double t_start, double dt);
  SampleView<double> view() { return {data.data(), bodies, first_sample, samples, stride, channel_scalars(layout)}; }
  /// The first scalar of channel `name` in a sample (std::invalid_argument if it has none).
  int offset(const std::string& name) const;
};

/// Per-body records at the end of a run.
struct BodyRecords {
  std::vector<Status> status;
  std::vector<index_t> newton_iterations;  ///< all steps
  std::vector<index_t> failed_step;        ///< −1 if none
};

/// One observable's per-sample statistics: the columns of /statistics/<name>/ (statistics.hpp).
struct StatisticsColumns {
  std::string name, definition;
  std::vector<double> edges;                          ///< histogram edges (nb + 1); empty: no histogram
  std::vector<std::int64_t> count, nonfinite;         ///< per sample
  std::vector<double> mean, std, min, max;            ///< per sample
  std::vector<double> quantiles;                      ///< samples × levels
  std::vector<std::int64_t> histogram, below, above;  ///< samples × nb, per sample, per sample
};

/// A run's results in memory: the datasets `quatstep run` writes (hdf5_output.hpp, a mechanism run's
/// mechanism_run.hpp) as arrays of the same shapes and values.
struct InMemoryRun {
  OutputLayout layout;          ///< channels, written channels, trajectory rows and bodies, parameters, …
  OutputAttributes attributes;  ///< scenario text, method, model, backend, precision, times, trajectories
  /// The channels' descriptions, which layout.channels' doc point to (a mechanism's are made for its run).
  std::vector<std::string> channel_docs;
  /// Root integer attributes: redrawn_bodies and redraws when a law redraws.
  std::vector<std::pair<std::string, std::int64_t>> integer_attributes;
  std::vector<double> time;     ///< /time (samples)
  /// /<channel> for every written channel (layout.written, in sample order) when some body has
  /// trajectories: samples × M × k values, M = layout.trajectory_rows.size(), k the channel's scalars.
  std::vector<std::pair<Channel, std::vector<double>>> trajectories;
  std::vector<std::vector<double>> parameters;  ///< /parameters/<key> per layout.parameters: N × size
  std::vector<std::int32_t> redraws;            ///< /redraws (N) when a law redraws
  std::vector<StatisticsColumns> statistics;    ///< per observable, layout.statistics' order
  BodyRecords records;                          ///< /status, /newton_iterations, /failed_step
  StepRecords step_records;  ///< /accepted_steps, /rejected_steps, /smallest_step, /largest_step (layout.step_records)
  /// /<name> (N) per body of the run: a mechanism run's /assembly_position_correction, /assembly_velocity_correction
  std::vector<std::pair<std::string, std::vector<double>>> body_values;
};

/// The scenario run to its end by run_scenario (the loop of `quatstep run`), its results kept in
/// memory rather than written: the same trajectory selection, statistics, parameters and records,
/// bit for bit the command's datasets. `threads` > 0 sets the OpenMP thread count for the run (the
/// results do not depend on it).
std::unique_ptr<InMemoryRun> run_in_memory(const Scenario& scenario, int threads = 0);
/// The mechanism scenario run to its end by run_mechanism_scenario (the mechanisms of `quatstep
/// run`), its results kept in memory: the file's trajectories, parameters, records and assembly
/// corrections, bit for bit. Errors as run_mechanism_scenario's (ScenarioError before any step).
std::unique_ptr<InMemoryRun> run_mechanisms_in_memory(const MechanismScenario& scenario, int threads = 0);

/// A setting given by key outside a file: a number (or several), a boolean or a choice's name.
struct SettingValue {
  enum class Kind { numbers, boolean, text } kind = Kind::numbers;
  std::vector<double> numbers;
  bool flag = false;
  std::string text;
};

/// An ensemble from arrays. `parameters` holds `bodies` rows of the model's flat parameters
/// (ModelView::keys give each key's offset; a row starts as ModelView::defaults); `given` names the
/// keys the caller set (a required key left out is an error, as in a scenario).
struct BodyEnsembleSpec {
  std::string source = "quatstep.Ensemble";  ///< who asks, as the errors name it (a scenario's file)
  std::string model, method, variant;  ///< registry names; variant "" is the method's default
  std::vector<std::pair<std::string, SettingValue>> settings;  ///< [integrator] keys, the rest default
  Precision precision = Precision::double_precision;
  Backend backend = Backend::cpu;  ///< "auto" and "cuda" as a scenario's [run] backend
  double dt = 0, t_start = 0;  ///< with adaptive steps dt is the spacing of the output times
  /// [time] adaptive = true: each body takes steps of its own size (HHT family); step_control holds
  /// [time]'s step-control keys by name (rotation_atol, control, …), the rest default.
  bool adaptive = false;
  std::vector<std::pair<std::string, SettingValue>> step_control;
  index_t bodies = 0;
  std::vector<double> parameters;  ///< bodies × ModelView::defaults.size(), body-major
  std::vector<std::string> given;
};

class BodyEnsemble {
 public:
  virtual ~BodyEnsemble() = default;

  virtual index_t bodies() const = 0;
  virtual Precision precision() const = 0;
  virtual index_t steps_done() const = 0;
  virtual double t_start() const = 0;
  virtual double dt() const = 0;
  virtual double time() const = 0;  ///< t_start + steps_done·dt
  virtual bool translates() const = 0;  ///< rigid body with position and velocity
  virtual std::vector<Channel> channels() const = 0;  ///< a sample's, in buffer order
  virtual const BackendChoice& backend() const = 0;

  /// The integrator's state where the ensemble stores it, not copied: component c of body i at
  /// [c·bodies() + i], in the ensemble's precision (float or double), in host memory or, on the
  /// GPU, in device memory (StateStorage::device).
  virtual StateStorage storage() const = 0;
  virtual const StateLayout& layout() const = 0;

  /// Advance every body by `steps` steps, writing the samples that fall into `out`'s window (none
  /// when out.samples is 0), as Ensemble::advance.
  virtual void advance(index_t steps, const SampleView<double>& out) = 0;
  /// The channels of the current state into sample steps_done() of `out` (stride 1).
  virtual void observe(const SampleView<double>& out) const = 0;
  /// Orientation, body angular velocity, and for translating models position and velocity of every
  /// body, body-major (bodies × 4, bodies × 3, …); null pointers are skipped. Rigid-body models only
  /// (std::invalid_argument otherwise).
  virtual void kinematics(double* quaternion, double* omega_body, double* position, double* velocity) const = 0;

  virtual const std::vector<Status>& status() const = 0;
  virtual const std::vector<index_t>& newton_iterations() const = 0;
  virtual const std::vector<index_t>& failed_step() const = 0;
  /// Adaptive steps: every body's step records (Ensemble::step_records); empty for fixed steps.
  virtual StepRecords step_records() const = 0;
  /// CPU: the bodies stepped in SIMD lanes (host/cpu_lanes.hpp), as `quatstep run`'s summary counts
  /// them; 0 on the GPU or where simd_lanes_available() (run.hpp) is false.
  virtual index_t bodies_in_lanes() const = 0;
};

/// A spec's names and settings as registry indices, checked as a scenario's are.
struct CheckedSpec {
  int model = 0;  ///< in model_views()
  IntegratorSpec integrator;
  AdaptiveSettings<double> step_control;  ///< with spec.adaptive
};
/// Checks the spec as a scenario is checked (names, settings, dt, step control, each body's keys and
/// the model's rules); throws ScenarioError naming the key (and body) at fault.
CheckedSpec check_spec(const BodyEnsembleSpec& spec);

/// Checks the spec as a scenario is checked (names, settings, each body's keys and the model's rules),
/// then builds the models on spec.backend (choose_backend: "auto" takes the GPU when one is usable,
/// "cuda" without one is a std::runtime_error saying why), computes the consistent initial state and
/// writes nothing. Throws ScenarioError naming the key (and body) at fault.
std::unique_ptr<BodyEnsemble> make_body_ensemble(const BodyEnsembleSpec& spec);

}  // namespace quatstep
