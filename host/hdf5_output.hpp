// The HDF5 result file of a run (nt = samples, N = bodies of the run, M = bodies with trajectories;
// row-major, as h5py shows it):
//   /time (nt)
//   /<channel> (nt×M for a one-scalar channel, nt×M×k for k scalars) for every channel written
//     ([output] channels; the model's and the method's channels, channels.hpp: quaternion (scalar
//     first), omega_body, position, velocity, energy, angular_momentum, constraint_violation,
//     local_error, generalized_energy, …), each with a "description" attribute; absent when no body
//     has trajectories
//   /trajectory_bodies (M, int64)  the ensemble indices of the bodies with trajectories, when they
//     are not all the bodies of the run ([output] trajectories)
//   /status (N, int32; attribute "codes" lists the meanings)            /newton_iterations (N, int64)
//   /failed_step (N, int64, −1 if none; with adaptive steps, the number of steps the body had accepted)
//   /accepted_steps, /rejected_steps (N, int64)   adaptive steps ([time] adaptive = true): per body,
//   /smallest_step, /largest_step (N, float64)    the steps accepted and the attempts rejected, the
//                                                 smallest and largest accepted step [s]
//   /bodies (N, int64)              the ensemble indices of the bodies run, with a body selection (--bodies)
//   /parameters/<key> (N, or N×k)   every model key an [ensemble] table sets ("model.inertia", …), per body
//   /parameters/<key>.shape_dimensions, .shape_mass, .shape_density (N×2 or N×3, N, N)
//                                   what a body_shape law drew for <key> besides its moments
//   /redraws (N, int32)             invalid draws thrown away per body (when a law redraws; root
//                                   attributes redrawn_bodies and redraws: their count and sum)
//   /statistics/…                   per-sample ensemble statistics (layout in host/statistics.hpp)
//   root attributes: scenario (TOML text), quatstep_version, method, model, backend (what ran it,
//   e.g. "cuda: NVIDIA H100 …"), precision ("double" | "float"), dt (the step, or with adaptive steps
//   the output spacing), t_start, t_end, stride, bodies
//   (N), trajectories (what [output] trajectories chose, in words), complete (1, or 0 for an
//   interrupted run) and samples_written (samples 0 … samples_written − 1 are in the file)
//   /checkpoint/…                   an interrupted run's state (Checkpoint), removed when it completes
// A shard file (`--shard i/K`, an MPI rank; shard.hpp) is the result file of its bodies (N = its
// range [shard_first, shard_end); /trajectory_bodies, when not all are kept, in ensemble indices)
// plus what merging needs to give the single run's bits:
//   root attributes shard_index, shard_count (i, K), shard_first, shard_end (its bodies
//     [first, end) of the ensemble) and ensemble_bodies (the ensemble's size)
//   /shard/statistics/<observable>/  the rest of the accumulators whose summaries /statistics holds
//     (count, nonfinite, min, max, histogram, below, above are those):
//     sum, sum_of_squares (nt × 68, int64)  the exact sums' limbs (statistics/exact_sum.hpp), carries
//                                           propagated; sum_special, sum_of_squares_special (nt,
//                                           float64) their non-finite parts
//     values (nt × N, float64)               with quantiles: row j's first count[j] entries are the
//                                           finite values of sample j (the rest unused)
// A merged file (merge.hpp) is the single run's file; with bodies missing (a shard absent or
// incomplete) it also has /missing_bodies (m × 2, int64: [first, end) ranges) and the root and
// /statistics attribute missing_bodies (their count): their /status is −1, their parameters and
// trajectories NaN, newton_iterations and failed_step −1, their step records −1 (counts) and NaN
// (steps), their other
// per-body values (a mechanism's assembly corrections) NaN, and the statistics count only the bodies
// present.
// An interrupted file is a valid HDF5 file: its body results are those at the interruption, the
// samples and statistics from samples_written on are not written yet.
// The sampled datasets are chunked and written a window of samples at a time, so a long run never
// sits in memory whole.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quatstep/channels.hpp"
#include "quatstep/ensemble.hpp"
#include "shard_range.hpp"
#include "statistics.hpp"
#include "step_records.hpp"

namespace quatstep {

struct OutputAttributes {
  std::string scenario, method, model, backend, precision;
  double dt = 0, t_start = 0, t_end = 0;
  index_t stride = 1;
  std::string trajectories;  ///< what [output] trajectories chose, in words
};

/// A per-body parameter dataset: /parameters/<name>, `size` numbers per body.
struct ParameterDataset {
  std::string name;
  int size;
};

/// The statistics of one observable: its name, definition and histogram edges (empty: none).
struct StatisticsDataset {
  std::string name, definition;
  std::vector<double> edges;
};

/// What a result file holds, beside its attributes.
struct OutputLayout {
  index_t bodies = 0;   ///< N, the bodies of the run
  index_t samples = 0;  ///< nt
  std::vector<Channel> channels;           ///< the channels of a sample, in buffer order
  std::vector<std::string> written;        ///< the channels with trajectories
  std::vector<index_t> trajectory_rows;    ///< bodies of the run with trajectories (increasing)
  std::vector<index_t> trajectory_bodies;  ///< their ensemble indices; empty: all bodies, no dataset
  std::vector<index_t> body_indices;       ///< /bodies; empty: no selection, no dataset
  std::vector<ParameterDataset> parameters;
  bool redraws = false;                    ///< /redraws
  bool step_records = false;               ///< /accepted_steps, /rejected_steps, /smallest_step, /largest_step
  std::vector<std::string> body_values;    ///< per-body float64 datasets written whole (write_body_values)
  std::vector<double> quantile_levels;     ///< statistics: the levels
  std::vector<StatisticsDataset> statistics;  ///< empty: no /statistics
  bool shard_statistics = false;              ///< /shard/statistics (a shard file)
};

/// What an interrupted run needs to continue bit for bit: the ensemble's state and records after
/// `steps_done` steps (EnsembleState), and the statistics' carried values.
struct Checkpoint {
  index_t steps_done = 0;
  std::vector<double> state;
  std::vector<Status> status;
  std::vector<index_t> newton_iterations, failed_step;
  std::vector<index_t> iterations_at_sample;             ///< the Newton statistics' reference totals
  std::vector<std::vector<double>> statistics_initial;   ///< the drifts' x₀, per statistics observable
  StepRecords steps;                                     ///< adaptive runs
};

/// What a result file says of the run that wrote it: enough to run it again, or on.
struct StoredRun {
  std::string scenario, precision, backend, version;
  double t_end = 0;
  index_t stride = 0;           ///< the samples' stride (the scenario's, or the --stride that replaced it)
  std::vector<index_t> bodies;  ///< /bodies: the body selection; empty for none
  bool complete = false;
  index_t samples_written = 0;
  std::optional<ShardRange> shard;  ///< a shard file's range
  index_t ensemble_bodies = 0;      ///< a shard file's ensemble size
};
/// Reads `path`'s attributes (std::runtime_error naming the file and what is missing).
StoredRun read_stored_run(const std::string& path);

/// Status codes as /status stores them.
std::vector<std::int32_t> status_codes(const std::vector<Status>& status);

/// One channel of the trajectory bodies from a window of `count` samples: scalars [offset, offset +
/// size) of each sample of `samples` ([sample][scalar][body], `scalars` per body and sample, `bodies`
/// bodies) for the bodies `rows`, into `out` as [sample][row][component] — the dataset's layout.
void gather_trajectories(const double* samples, index_t count, index_t bodies, int scalars, int offset, int size,
                         const std::vector<index_t>& rows, double* out);

/// Where a run's results go, in the order run_scenario (or run_mechanism_scenario) produces them: the
/// HDF5 file (Hdf5Output) or memory (session.hpp's run_in_memory, run_mechanisms_in_memory). The
/// arguments are the file's datasets, described at the top (a mechanism run's in mechanism_run.hpp).
class RunOutput {
 public:
  virtual ~RunOutput() = default;
  /// Samples [first, first + count): `samples` in the SampleView layout [sample][scalar][body] of all
  /// N bodies (ensemble.hpp), `times` one per sample; the trajectory bodies' values are kept.
  virtual void write_samples(index_t first, index_t count, const double* samples, const double* times) = 0;
  /// Rows [first, first + count) of /parameters/<name> (ParameterDataset order `p`): count × size values.
  virtual void write_parameters(int p, index_t first, index_t count, const double* values) = 0;
  /// Rows [first, first + count) of /redraws.
  virtual void write_redraws(index_t first, index_t count, const std::int32_t* redraws) = 0;
  /// Samples [first, first + rows.size()) of every statistics dataset: rows[j][k] is observable k's
  /// summary at sample first + j.
  virtual void write_statistics(index_t first, const std::vector<std::vector<statistics::Summary>>& rows) = 0;
  virtual void write_body_results(const std::vector<Status>& status, const std::vector<index_t>& newton_iterations,
                                  const std::vector<index_t>& failed_step) = 0;
  /// The adaptive step records (a layout with step_records).
  virtual void write_step_records(const StepRecords& steps) = 0;
  /// /<name> (N, float64), one of OutputLayout::body_values: one value per body of the run, written
  /// whole (a mechanism run's assembly corrections).
  virtual void write_body_values(const std::string& name, const std::vector<double>& values) = 0;
  /// A shard's statistics accumulators of samples [first, first + rows.size()) (a layout with
  /// shard_statistics): rows[j][k] is observable k's accumulator at sample first + j.
  virtual void write_statistics_states(index_t first,
                                       const std::vector<std::vector<statistics::AccumulatorState>>& rows) = 0;
  /// A 64-bit integer root attribute (created or replaced): redrawn_bodies, redraws.
  virtual void integer_attribute(const std::string& name, std::int64_t value) = 0;
  /// An interrupted run's state, to continue from.
  virtual void write_checkpoint(const Checkpoint& checkpoint) = 0;
  /// The attributes complete and samples_written.
  virtual void mark_progress(bool complete, index_t samples_written) = 0;
  /// Everything written; errors surface here.
  virtual void close() = 0;
};

class Hdf5Output final : public RunOutput {
 public:
  enum class Mode { create, resume };
  /// create: creates (truncates) `path` with every dataset of `layout`; resume: opens the file an
  /// interrupted run of the same layout wrote, to write the rest. Throws std::runtime_error naming
  /// the file when HDF5 cannot.
  Hdf5Output(const std::string& path, const OutputLayout& layout, const OutputAttributes& attributes,
             Mode mode = Mode::create);
  ~Hdf5Output();
  Hdf5Output(const Hdf5Output&) = delete;
  Hdf5Output& operator=(const Hdf5Output&) = delete;

  // RunOutput, into the file.
  void write_samples(index_t first, index_t count, const double* samples, const double* times) override;
  void write_parameters(int p, index_t first, index_t count, const double* values) override;
  void write_redraws(index_t first, index_t count, const std::int32_t* redraws) override;
  void write_statistics(index_t first, const std::vector<std::vector<statistics::Summary>>& rows) override;
  void write_statistics_states(index_t first,
                               const std::vector<std::vector<statistics::AccumulatorState>>& rows) override;
  void write_body_results(const std::vector<Status>& status, const std::vector<index_t>& newton_iterations,
                          const std::vector<index_t>& failed_step) override;
  void write_step_records(const StepRecords& steps) override;
  void integer_attribute(const std::string& name, std::int64_t value) override;
  void write_body_values(const std::string& name, const std::vector<double>& values) override;
  // Merging shards (merge.cpp).
  /// /time of samples [first, first + count) alone.
  void write_times(index_t first, index_t count, const double* times);
  /// Trajectory rows [first_row, first_row + rows) of samples [first, first + count) of written
  /// channel `d` (OutputLayout::written order), `values` in the file's layout [sample][row][component].
  void write_trajectory_rows(std::size_t d, index_t first, index_t count, index_t first_row, index_t rows,
                             const double* values);
  /// Rows [first, first + status.size()) of /status (Status codes), /newton_iterations, /failed_step.
  void write_body_results(index_t first, const std::vector<std::int32_t>& status,
                          const std::vector<index_t>& newton_iterations, const std::vector<index_t>& failed_step);
  /// Rows [first, first + steps.accepted.size()) of the step records.
  void write_step_records(index_t first, const StepRecords& steps);
  /// Rows [first, first + values.size()) of /<name>, one of OutputLayout::body_values.
  void write_body_values(const std::string& name, index_t first, const std::vector<double>& values);
  /// /missing_bodies and the attributes missing_bodies of a merged file with bodies missing.
  void write_missing_bodies(const std::vector<std::pair<index_t, index_t>>& ranges);
  /// /checkpoint (replacing one there), and back.
  void write_checkpoint(const Checkpoint& checkpoint) override;
  Checkpoint read_checkpoint() const;
  /// A complete file also loses its /checkpoint.
  void mark_progress(bool complete, index_t samples_written) override;
  /// A 64-bit integer root attribute of the file (std::runtime_error if absent).
  std::int64_t read_integer_attribute(const std::string& name) const;
  /// Flush and close; errors surface here rather than in the destructor.
  void close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quatstep
