// Running a mechanism scenario (mechanism_scenario.hpp): every mechanism of the ensemble is built,
// assembled by the scenario's policy and given consistent accelerations and multipliers on the CPU,
// then stepped with the HHT family of include/quatstep/mechanism/hht.hpp or the Livens schemes of
// include/quatstep/mechanism/livens.hpp, one mechanism — or a block in SIMD lanes,
// cpu_mechanism_lanes.hpp — per OpenMP iteration, or one per GPU thread (kernels/cuda_mechanisms.cuh;
// either capacity, fixed or adaptive steps). A mechanism whose step fails stops with its status (its
// later samples are NaN) and touches no other. The samples go to the same outputs as single bodies' (hdf5_output.hpp's
// RunOutput: the HDF5 writer, or memory for the Python module, session.hpp), one row per mechanism
// of [output] trajectories (all by default; /trajectory_bodies names them when not all), the
// channels of [output] channels (all by default):
//   /time (nt)
//   /quaternion (nt×N×4B), /position, /omega_body, /velocity (nt×N×3B): body b of the mechanism
//     (the [[mechanism.body]] order) at components 4b…4b+3 (3b…3b+2); the channel's "description"
//     attribute names the bodies
//   /energy, /position_residual, /velocity_residual, /sample_newton_iterations (nt×N: since the previous sample);
//     with method livens_em or livens_midpoint also /generalized_energy (nt×N, Kinon eq. 74: what EML conserves),
//     and the momenta are the scheme's momentum maps, from its momenta p (Kinon eq. 64; its end-point
//     velocities satisfy the velocity constraints only at the midpoints, Kinon Remark 4.8);
//     /linear_momentum, /angular_momentum (nt×N×3): mechanism-wide (observables.hpp)
//   /status (N, int32), /newton_iterations (N, all steps), /failed_step (N, −1 if none), as for bodies
//   /accepted_steps, /rejected_steps, /smallest_step, /largest_step (N): with [time] adaptive = true,
//     where each mechanism takes its own steps (include/quatstep/mechanism/adaptive.hpp) and the samples
//     at the output times t_start + j·stride·dt are its dense output; /failed_step is then the number of
//     steps it had accepted
//   /bodies (N, int64): with --bodies, the ensemble indices of the mechanisms run
//   /assembly_position_correction, /assembly_velocity_correction (N): the corrections of
//     assemble = "project" (0 with "reject")
//   /parameters/<key> (N or N×k): every swept or drawn key, per mechanism
//   /redraws (N, int32) and the root attributes redrawn_bodies, redraws: when a law redraws invalid
//     inertias (invalid = "redraw"), as for bodies
//   /statistics/<observable>/… with [output.statistics]: as for bodies (host/statistics.hpp), over
//     the mechanisms healthy at each sample (a failed mechanism's samples are NaN from its failure on)
//   root attributes as for bodies; model = "mechanism: B bodies ('name', …)"
//   /checkpoint/… of an interrupted run (complete = 0): every mechanism's integrator state (its bytes),
//     records and step records, the drifts' x₀; --resume continues from it
//   a shard's file (--shard i/K, an mpirun rank; shard.hpp): its mechanisms' rows, with the root
//     attributes and /shard/statistics of a single-body shard file (hdf5_output.hpp), for quatstep merge
// Windows of samples of about pacing::chunk_seconds each: a progress bar and interrupts between them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "mechanism_scenario.hpp"
#include "run.hpp"

namespace quatstep {

struct MechanismRunResult {
  index_t mechanisms = 0, steps = 0, samples = 0;
  int bodies = 0;  ///< per mechanism
  int threads = 0;           ///< CPU threads (with the CPU backend)
  index_t mechanisms_in_lanes = 0;  ///< CPU: mechanisms stepped in SIMD lanes (host/cpu_mechanism_lanes.hpp)
  BackendChoice backend;     ///< what ran the mechanisms (mechanism_backend)
  double wall_seconds = 0;
  index_t newton_iterations = 0;  ///< all mechanisms, all steps
  std::vector<Status> status;     ///< per mechanism
  std::vector<index_t> failed_step, iterations;
  std::vector<double> position_correction, velocity_correction;  ///< of the assembly, per mechanism
  index_t redrawn_bodies = 0;  ///< mechanisms with at least one invalid draw thrown away (invalid = "redraw")
  index_t redraws = 0;         ///< invalid draws thrown away, all mechanisms
  StepRecords step_records;  ///< [time] adaptive = true: per mechanism (empty with fixed steps)
  std::vector<HistogramMiss> histogram_misses;  ///< per observable with bins, over this process' samples
  std::string trajectories;  ///< TrajectorySelection::description
  bool interrupted = false;  ///< stopped by RunOptions::interrupt before the end (a checkpoint was written)
  index_t first_step = 0;    ///< the step (output interval, adaptive) this process started from: > 0 when resumed
  index_t steps_done = 0;    ///< steps (output intervals) done at the end of this process
  index_t samples_written = 0;  ///< samples 0 … samples_written − 1 are in the output
  std::string output_file;

  index_t failures() const;
};

/// The mechanisms of `scenario` whose trajectories are written ([output] trajectories).
TrajectorySelection mechanism_trajectories(const MechanismScenario& scenario);

/// The layout and attributes of a mechanism scenario's result file, as run by `backend` (a merge of
/// its shards writes the same). Movable, not copyable: the layout's per-body channel descriptions
/// point into channel_docs.
struct MechanismOutput {
  MechanismOutput() = default;
  MechanismOutput(MechanismOutput&&) = default;
  MechanismOutput(const MechanismOutput&) = delete;
  MechanismOutput& operator=(const MechanismOutput&) = delete;
  std::vector<std::string> channel_docs;
  TrajectorySelection trajectories;
  OutputLayout layout;
  OutputAttributes attributes;
};
MechanismOutput mechanism_output(const MechanismScenario& scenario, const std::string& backend);

/// Where a mechanism scenario runs: [run] backend as for bodies (ensemble_factory.hpp's
/// choose_backend); the GPU takes every mechanism scenario.
BackendChoice mechanism_backend(const MechanismScenario& scenario);

/// Run a validated mechanism scenario to its end, or its interruption, and write the HDF5 file
/// (options: threads, output, max_chunk_steps, progress, interrupt, resume — as for bodies: an
/// interrupted run's file holds the samples written, complete = 0 and a /checkpoint of every
/// mechanism's integrator state and records, from which RunOptions::resume ends with the bits of an
/// uninterrupted run). Throws ScenarioError when a mechanism cannot be assembled (naming the
/// mechanism, the joint and the violation) and std::runtime_error for file problems, both before
/// any integration.
MechanismRunResult run_mechanism_scenario(const MechanismScenario& scenario, const RunOptions& options);
/// The same run into the output `open` gives for the run's layout and attributes (with a resume
/// point: the run goes on from it); MechanismRunResult::output_file is left empty.
MechanismRunResult run_mechanism_scenario(const MechanismScenario& scenario, const RunOptions& options,
                                          const OpenOutput& open);

/// The mechanism scenario of an interrupted run's file, as it was run (its TOML text, t_end and
/// mechanism selection; `backend` replaces the file's). std::runtime_error when the run is complete.
MechanismScenario load_interrupted_mechanism_scenario(const std::string& file, std::optional<Backend> backend = std::nullopt);

/// The sampled channels of the mechanisms `d` describes, in sample order: the mechanism's
/// (include/quatstep/mechanism/channels.hpp; the per-body ones hold every body, in the
/// [[mechanism.body]] order), sample_newton_iterations, then the method's own (the Livens schemes'
/// /generalized_energy); `docs` keeps the per-body descriptions alive.
std::vector<Channel> mechanism_channels(const MechanismDescription& d, std::vector<std::string>& docs,
                                        const MechanismMethodView& method);

/// Mechanisms, bodies, steps, wall time, mechanism-steps per second, Newton iterations per step,
/// the largest assembly correction, failures (count and the first few), output file.
void print_mechanism_summary(std::ostream& out, const MechanismScenario& scenario, const MechanismRunResult& result);

}  // namespace quatstep
