// From a Scenario to a running ensemble on the CPU or the GPU: the one place where the model ×
// method × precision × backend choice of a scenario becomes a concrete
// CpuEnsemble<Integrator<Model<S>>> or cuda::CudaEnsemble<…> (ensemble_builder.hpp). The rest of
// the host code sees only this interface.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "scenario.hpp"
#include "step_records.hpp"

namespace quatstep {

namespace cuda {
class DeviceStatistics;  // kernels/device_statistics.hpp (CUDA builds)
}

/// Everything an ensemble carries from one advance to the next: a checkpoint continues the run in
/// another process bit for bit (restore after initialize).
struct EnsembleState {
  index_t steps_done = 0;
  std::vector<double> state;  ///< State::size × bodies, [component][body]; a float run's values widened exactly
  std::vector<Status> status;
  std::vector<index_t> newton_iterations, failed_step;
  StepRecords steps;  ///< adaptive runs; empty otherwise
};

/// Whether a model's kinematics are one rigid body's (quaternion, ω, position, velocity); a mechanism's
/// are not, and its states are read through its channels (observe, samples).
template <class Kinematics>
struct is_rigid_body_kinematics : std::false_type {};
template <class S>
struct is_rigid_body_kinematics<RigidBodyKinematics<S>> : std::true_type {};

/// Where a kinematic quantity lies verbatim in an integrator's state: the first of its consecutive
/// components, or −1 when kinematics() computes it (e.g. the HHT family's ω from (e, ė)) and for
/// adaptive steps, whose bodies are each stored at its own time.
struct StateLayout {
  int quaternion = -1, omega_body = -1, position = -1, velocity = -1;
};

/// An ensemble's state where it lives, not copied: `components` values per body, component c of
/// body i at [c·bodies + i], in the run's precision, in host memory (device −1) or on CUDA device
/// `device`. The storage stays in place for the ensemble's life; advance and restore update it.
struct StateStorage {
  const void* data = nullptr;
  int components = 0;
  int device = -1;
};

/// Host memory for sample windows (Ensemble::host_buffer), freed as it was allocated.
using HostBuffer = std::unique_ptr<double[], void (*)(double*)>;

class Ensemble {
 public:
  virtual ~Ensemble() = default;
  /// Consistent initial state of every body; writes sample 0 into `out` when it holds it.
  virtual void initialize(const SampleView<double>& out) = 0;
  /// Advance every body by `steps` steps, writing the samples that fall into `out`'s window. With
  /// adaptive steps ([time] adaptive = true) a "step" is an output interval dt: each body takes steps
  /// of its own size through the next `steps` output times, and sample k is its state at t_start + k·dt.
  virtual void advance(index_t steps, const SampleView<double>& out) = 0;
  /// advance() queued where the backend can queue (CUDA: the kernel, the statistics' reduction
  /// and the window's copy), so that the caller prepares the next advance meanwhile: `out` holds
  /// the samples once complete() has returned for this launch (in order; at most two in flight).
  /// Elsewhere it advances at once.
  virtual void launch(index_t steps, const SampleView<double>& out) { advance(steps, out); }
  /// Waits for the oldest launch in flight, if any.
  virtual void complete() {}
  /// Whether launch() returns before the work is done (two launches then keep the GPU busy).
  virtual bool queues() const { return false; }
  /// Host memory for `count` samples' scalars that launch() copies into without the host waiting:
  /// page-locked (pinned) for CUDA, ordinary elsewhere.
  virtual HostBuffer host_buffer(std::size_t count) const;
  /// The GPU's time in the integration kernels so far (CUDA events); 0 on the CPU.
  virtual double device_seconds() const { return 0; }
  virtual const std::vector<Status>& status() const = 0;
  virtual const std::vector<index_t>& newton_iterations() const = 0;  ///< per body, total
  virtual const std::vector<index_t>& failed_step() const = 0;        ///< per body, −1 if none
  /// Adaptive runs: every body's step records; empty for fixed steps.
  virtual StepRecords step_records() const = 0;
  /// The state between two advances (a checkpoint), and back: restore() after initialize() continues
  /// exactly where save() was taken.
  virtual EnsembleState save() const = 0;
  virtual void restore(const EnsembleState& state) = 0;
  /// Statistics reduced where the samples are made: from now on every sample that initialize and
  /// advance produce (their `out` window; out.data null: produced for the statistics alone, not
  /// copied) feeds `statistics`, which the caller owns and keeps alive. False (and nothing changes)
  /// where the samples are on the host anyway: the caller reduces what it receives.
  virtual bool attach_statistics(cuda::DeviceStatistics* statistics) = 0;

  // What a caller that steps the ensemble itself reads between advances (host/session.hpp's
  // ensembles from arrays, quatstep.Ensemble in Python):
  virtual index_t steps_done() const = 0;
  virtual bool translates() const = 0;  ///< rigid bodies with a position and a velocity
  /// The state where it lives (CUDA: device memory), no copy.
  virtual StateStorage storage() const = 0;
  /// Which of the state's components are kinematic quantities as they are (probed on body 0).
  virtual const StateLayout& layout() const = 0;
  /// The channels of the current state (sample_channels; NaN for a failed body) into sample
  /// steps_done() of `out` (stride 1), computed on the host from the state.
  virtual void observe(const SampleView<double>& out) const = 0;
  /// Orientation, body angular velocity, and for translating models position and velocity of every
  /// body, body-major (bodies × 4, bodies × 3, …), computed on the host; null pointers are skipped.
  /// Rigid-body models only (std::invalid_argument otherwise).
  virtual void kinematics(double* quaternion, double* omega_body, double* position, double* velocity) const = 0;
  /// The bodies advance() steps in SIMD lanes (the CPU backend where the CPU has AVX2 or AVX-512,
  /// host/cpu_lanes.hpp); 0 where none is.
  virtual index_t bodies_in_lanes() const { return 0; }
};

/// The backend a run uses (never Backend::automatic) and what it is, for the summary and the
/// output file: "cuda: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, device 0)", "cpu (auto: no usable
/// CUDA device: …)".
struct BackendChoice {
  Backend backend = Backend::cpu;
  std::string description;
};

/// Make CUDA device `ordinal` modulo the device count this process's device (one GPU per MPI rank
/// on a node: the rank's local rank); returns a description, or why none ("no CUDA device …", or
/// "built without CUDA"). Call before the first ensemble.
std::string select_cuda_device(int ordinal);

/// "auto" → CUDA when this build has it and a device is usable, else the CPU (saying why);
/// "cuda" without a usable device → std::runtime_error with the reason.
BackendChoice choose_backend(Backend requested);
/// The same for a scenario's [run] backend: the error names `source` and the key.
BackendChoice choose_backend(Backend requested, const std::string& source);
/// The scenario's [run] backend (adaptive steps too: both backends run them, bit for bit alike in
/// strict mode, tests/gpu/adaptive_agreement_test.cu).
BackendChoice choose_backend(const Scenario& scenario);

/// Models and initial states of every body of the scenario, integrator settings from [integrator],
/// in the scenario's precision, on the chosen backend.
std::unique_ptr<Ensemble> make_ensemble(const Scenario& scenario, const BackendChoice& backend);

/// The CUDA half of make_ensemble (kernels/cuda_ensemble_shards.hpp; only in CUDA builds).
std::unique_ptr<Ensemble> make_cuda_ensemble(const Scenario& scenario);

}  // namespace quatstep
