// Running a scenario: build the ensemble, advance it in chunks, stream the samples (the chosen
// bodies' trajectories) and the per-sample ensemble statistics to HDF5, show progress, summarise.
// The library entry point of the `quatstep run` command.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "hdf5_output.hpp"
#include "quatstep/ensemble.hpp"
#include "scenario.hpp"

namespace quatstep {

enum class ProgressMode {
  automatic,  ///< on stderr if it is a terminal and the run is estimated to last more than ~2 s
  always,
  never,
};

struct RunOptions {
  int threads = 0;     ///< OpenMP threads; 0 keeps the OpenMP default. Default: 0.
  std::string output;  ///< output file; empty: the scenario's [output] file. Default: empty.
  ProgressMode progress = ProgressMode::automatic;
  /// At most this many steps per advance (0: as the run loop chooses, ~0.25 s each). The results do
  /// not depend on it; tests use it to check that. Default: 0.
  index_t max_chunk_steps = 0;
  /// Set (by a signal handler) to stop the run after the chunk in flight: the file gets a checkpoint
  /// and complete = 0 (RunResult::interrupted). Null: never. Default: null.
  const volatile std::sig_atomic_t* interrupt = nullptr;
  /// `output` is an interrupted run's file (complete = 0): continue it from its checkpoint; the
  /// scenario must be load_interrupted_scenario(output). Default: false.
  bool resume = false;
};

/// How a run paces its chunks (single bodies) or windows of samples (mechanisms).
namespace pacing {
inline constexpr double chunk_seconds = 0.25;           ///< progress and interrupts a few times a second
inline constexpr double progress_threshold_s = 2.0;     ///< runs estimated shorter than this show no bar
inline constexpr double sample_buffer_bytes = 64 << 20;  ///< samples held between two HDF5 writes
inline constexpr double first_chunk_body_steps = 1e4;   ///< enough to time, short enough to be negligible
}  // namespace pacing

/// The bodies of a run whose trajectories are written ([output] trajectories), and why.
struct TrajectorySelection {
  std::vector<index_t> rows;  ///< bodies of the run, increasing
  std::string description;    ///< "all 1000 bodies (9.6 MB)", "every 100th body: …", "none"
};
/// What [output] trajectories chooses for `scenario`.
TrajectorySelection select_trajectories(const Scenario& scenario);
/// A run of chosen members (--bodies; `selection` non-empty, not a shard's range) writes every one's
/// trajectory, whatever `choice` says for the whole ensemble: they are chosen to be looked at (a
/// statistics-only study's "none" included; their rows are the full run's, bit for bit). Sets
/// `choice` to all and returns true where that changes it.
bool chosen_alone(const std::vector<index_t>& selection, bool shard, TrajectoryChoice& choice);
/// What `choice` keeps of a run of `n` members: `member(i)` is member i's ensemble index (the list
/// names those), `bytes(rows)` the size of that many members' trajectories; `noun` is a member and
/// `nouns` several in the description.
TrajectorySelection select_trajectories(const TrajectoryChoice& choice, index_t n,
                                        const std::function<index_t(index_t)>& member,
                                        const std::function<double(index_t)>& bytes, const std::string& noun,
                                        const std::string& nouns);

/// The layout and attributes of the result file of `scenario` (a merge of shards writes the same).
OutputLayout output_layout(const Scenario& scenario, const TrajectorySelection& trajectories);
/// The /statistics datasets of `spec` (names, definitions, histogram edges, quantile levels) in `layout`.
void add_statistics(const statistics::StatisticsSpec& spec, OutputLayout& layout);
OutputAttributes output_attributes(const Scenario& scenario, const std::string& backend,
                                   const TrajectorySelection& trajectories);
/// Rows of per-sample statistics: per sample, per observable.
struct StatisticsRows {
  std::vector<std::vector<statistics::Summary>> summaries;
  std::vector<std::vector<statistics::AccumulatorState>> states;  ///< a shard's, to be merged
};

/// The times of samples [first, first + count): t_start + j·stride·dt.
std::vector<double> sample_times(const Scenario& scenario, index_t first, index_t count);

/// An observable's histogram at the sample where the largest share of its finite values fell
/// outside the edges: a range that misses what it was meant to bin, which the summary reports.
struct HistogramMiss {
  std::string observable;
  double low = 0, high = 0;  ///< the edges
  double time = 0;           ///< of that sample
  std::int64_t below = 0, above = 0, count = 0;
};
/// Folds rows of samples at `times` (StatisticsRows::summaries, in `spec`'s order) into `misses`:
/// one per observable with bins, the sample with most values outside kept (the first of equals).
void track_histogram_misses(const statistics::StatisticsSpec& spec, const StatisticsRows& rows, const double* times,
                            std::vector<HistogramMiss>& misses);
/// The summary's line for the histograms with values outside ("axis_tilt 43 % of 100000 values
/// outside [1, 2.2] at t = 4.5 (0 below, 42853 above); …"), empty if every value fell inside.
std::string histogram_misses_summary(const std::vector<HistogramMiss>& misses);

struct RunResult {
  index_t bodies = 0, steps = 0, samples = 0;
  int threads = 0;
  index_t bodies_in_lanes = 0;     ///< CPU: bodies stepped in SIMD lanes (host/cpu_lanes.hpp)
  BackendChoice backend;           ///< what ran the bodies
  double wall_seconds = 0;         ///< setup, integration and output
  double loop_seconds = 0;         ///< the integration loop alone: advances and the output overlapped with them
  index_t newton_iterations = 0;   ///< all bodies, all steps
  std::vector<Status> status;      ///< per body
  std::vector<index_t> failed_step;  ///< per body, −1 if none
  std::string output_file;
  index_t redrawn_bodies = 0;      ///< bodies with at least one invalid draw thrown away
  index_t redraws = 0;             ///< invalid draws thrown away, all bodies
  std::string trajectories;        ///< TrajectorySelection::description
  int statistics = 0;              ///< observables with statistics
  double write_seconds = 0;        ///< writing samples to HDF5, overlapped with the integration
  double statistics_seconds = 0;   ///< accumulating and writing statistics, overlapped likewise
  double statistics_gpu_seconds = 0;   ///< CUDA: the GPU's time reducing the statistics (CUDA events)
  double integration_gpu_seconds = 0;  ///< CUDA: the GPU's time in the integration kernels (CUDA events)
  bool interrupted = false;        ///< stopped by RunOptions::interrupt before the end
  index_t first_step = 0;          ///< the step this process started from (> 0 when resumed)
  index_t steps_done = 0;          ///< steps taken (all of them unless interrupted)
  index_t samples_written = 0;     ///< samples 0 … samples_written − 1 are in the file
  StepRecords step_records;        ///< adaptive steps: per body ([time] adaptive = true)
  std::vector<HistogramMiss> histogram_misses;  ///< per observable with bins, over this process' samples

  index_t failures() const;
};

/// Run a validated scenario to its end (or its interruption) and write the HDF5 file. Throws
/// std::runtime_error (file problems) before any integration where it can; failed bodies are
/// results, not errors. Interrupted, the file holds a checkpoint from which a run with
/// RunOptions::resume ends with the same bits as an uninterrupted run.
/// What makes the run's ensemble: make_ensemble, or (tests) a wrapper of it.
using MakeEnsemble = std::function<std::unique_ptr<Ensemble>(const Scenario&, const BackendChoice&)>;
RunResult run_scenario(const Scenario& scenario, const RunOptions& options, const MakeEnsemble& make = make_ensemble);

/// Where an interrupted run left off (RunOptions::resume): its checkpoint and redraw counts.
struct ResumePoint {
  Checkpoint checkpoint;
  index_t redrawn_bodies = 0, redraws = 0;
};
/// A run's output, opened for the layout and attributes the run computes from its scenario; `resume`
/// when it continues an interrupted run.
struct OpenedOutput {
  std::unique_ptr<RunOutput> output;
  std::optional<ResumePoint> resume;
};
using OpenOutput = std::function<OpenedOutput(const OutputLayout&, const OutputAttributes&)>;

/// run_scenario into the output `open` gives (run_in_memory's arrays, session.hpp): the same loop,
/// chunks, trajectory selection, statistics, parameters and records as the file's run.
/// RunOptions::output and resume are left to `open`; RunResult::output_file is left empty.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options, const OpenOutput& open,
                       const MakeEnsemble& make = make_ensemble);

/// What an interrupted run's file says to parse its scenario again: its attributes (the TOML text),
/// and the overrides it ran with (t_end, stride, precision, bodies, and its backend unless `backend`
/// replaces it). std::runtime_error when the run is complete.
struct InterruptedRun {
  StoredRun run;
  ScenarioOverrides overrides;
};
InterruptedRun read_interrupted_run(const std::string& file, std::optional<Backend> backend = std::nullopt);
/// The scenario of an interrupted run's file, as it was run (its TOML text, t_end, stride, precision,
/// backend and body selection are in the file); `backend` replaces the stored one. Throws for a
/// complete file.
Scenario load_interrupted_scenario(const std::string& file, std::optional<Backend> backend = std::nullopt);

/// Bodies, steps (with adaptive steps: the output intervals, then the accepted and rejected steps and
/// the range of step sizes of all bodies), wall time, body-steps per second, Newton iterations per
/// step, failures (count and the first few bodies), redrawn bodies, trajectories, statistics, output
/// file.
void print_summary(std::ostream& out, const Scenario& scenario, const RunResult& result);

/// Whether the CPU steps blocks of bodies in SIMD lanes in this process: the build has them
/// (QUATSTEP_CPU_LANES), the CPU has AVX2, and QUATSTEP_SIMD is not "off" (lanes::available()).
bool simd_lanes_available();
/// The instruction set of those lanes, "AVX2" or "AVX-512" (lanes::best_isa()); empty without them.
std::string simd_lanes_isa();

}  // namespace quatstep
