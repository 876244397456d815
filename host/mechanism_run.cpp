// The CPU run of a mechanism scenario (mechanism_run.hpp): build, assemble, initialise, step in
// windows of samples, write each window to the run's output (the HDF5 file or memory).
#include "mechanism_run.hpp"

#include <omp.h>

#include <algorithm>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "cpu_mechanism_lanes.hpp"
#include "ensemble_factory.hpp"
#include "hdf5_output.hpp"
#include "key_suggestion.hpp"
#include "mechanism_batch.hpp"
#include "mechanism_ensemble.hpp"
#include "progress.hpp"
#include "shard.hpp"
#include "quatstep/config.hpp"
#include "quatstep/mechanism/adaptive.hpp"
#include "quatstep/mechanism/batch.hpp"
#include "quatstep/mechanism/channels.hpp"
#include "statistics/ensemble_statistics.hpp"
#ifdef QUATSTEP_WITH_CUDA
#include "kernels/cuda_mechanisms.hpp"
#endif

namespace quatstep {

std::vector<Channel> mechanism_channels(const MechanismDescription& d, std::vector<std::string>& docs,
                                        const MechanismMethodView& method) {
  const int nb = int(d.bodies.size());
  std::string names;
  for (const MechanismBodySpec& b : d.bodies) names += (names.empty() ? "'" : ", '") + b.name + "'";
  docs.clear();
  for (const mechanism::MechanismChannel& c : mechanism::mechanism_channels)
    if (c.per_body) docs.push_back(std::string(c.channel.doc) + ", per body (" + names + ") in that order");
  std::vector<Channel> channels;
  std::size_t doc = 0;
  for (const mechanism::MechanismChannel& c : mechanism::mechanism_channels) {
    Channel channel = c.channel;
    if (c.per_body) channel.size *= nb, channel.doc = docs[doc++].c_str();
    channels.push_back(channel);
  }
  channels.push_back(Channel{"sample_newton_iterations", 1, "Newton iterations since the previous sample", false});
  channels.insert(channels.end(), method.channels.begin(), method.channels.end());
  return channels;
}

namespace {

using mechanism::AssemblyReport;
using mechanism::AssemblySettings;

/// The statistics rows of samples [first, first + count) of a window ([sample][scalar][mechanism]),
/// and with `states` (a shard) the accumulators too. A mechanism counts at a sample while that sample
/// is not NaN: a failed mechanism's samples are NaN from its failure on, whichever the steps (fixed,
/// adaptive) or the backend.
StatisticsRows summarize(statistics::EnsembleStatistics& stats, index_t first, index_t count, const double* window,
                         int scalars, index_t n, bool states) {
  std::vector<Status> health;
  std::vector<index_t> never;  // the NaN says when
  StatisticsRows rows;
  for (index_t j = first; j < first + count; ++j) {
    const double* sample = window + (j - first) * scalars * n;
    statistics::health_from_sample(sample, n, health, never);
    stats.add(j, {sample, n, 0, n, health.data(), never.data()});
    rows.summaries.push_back(stats.summarize(j));
    if (states) rows.states.push_back(stats.states(j));
    stats.release(j);
  }
  return rows;
}

/// The reject policy's verdict: empty when the input is on the constraints to the tolerance.
template <class Cap>
std::string rejection(const BuiltMechanism<Cap>& built, const AssemblyReport<double>& r,
                      const AssemblySettings<double>& s) {
  const std::string accepts = "; assemble = \"reject\" accepts at most assembly_tolerance = " + validation::format(s.tolerance);
  // the violation first: a projection that fails (a correction above max_correction, a key of
  // assemble = "project") says nothing to a run that projects nothing
  if (r.position_violation > s.tolerance)
    return "assembly: " + built.builder.row_label(built.mech, r.worst_row) + " is violated by " +
           validation::format(r.position_violation) + " (lengths relative to the mechanism size " +
           validation::format(built.mech.length_scale) + ")" + accepts;
  if (r.status != Status::ok) return built.builder.assembly_problem(built.mech, r, s);
  if (r.velocity_violation > s.tolerance)
    return "assembly: the velocity constraint of " + built.builder.row_label(built.mech, r.worst_velocity_row) +
           " is violated by " + validation::format(r.velocity_violation) + " (relative to the largest speed)" + accepts;
  return {};
}

/// Fixed steps: the mechanisms through a window by the core's advance_mechanism
/// (include/quatstep/mechanism/batch.hpp), the function the GPU kernel calls, or on the CPU in blocks
/// of SIMD lanes where the method has a lane step (Blocks, cpu_mechanism_lanes.hpp: the same bits);
/// advance() steps one of Blocks' units through a window.
template <class Integrator>
struct FixedSteps {
  using State = typename Integrator::State;
  using Blocks = lanes::MechanismBlocks<Integrator>;
  Integrator method;
  double t0, h;

  const Integrator& device() const { return method; }  ///< what the GPU's kernel steps with

  template <class Mech, class Kinematics>
  Status initialize(const Mech& m, const Kinematics& k, State& s) const {
    return method.initialize(m, k, t0, s);
  }
  /// Every unit of `blocks` through the window `out`, one OpenMP iteration each.
  template <class Mech>
  void advance(Blocks& blocks, const std::vector<Mech>& mechs, State* states, const BodyRecord& record,
               const SampleView<double>& out, MechanismRunResult&) const {
    const index_t units = blocks.units();
#pragma omp parallel for schedule(dynamic, 1)
    for (index_t u = 0; u < units; ++u) blocks.advance(u, method, mechs, states, record, t0, h, out);
  }
};

/// The same with adaptive steps (include/quatstep/mechanism/adaptive.hpp) by the core's
/// advance_mechanism_adaptive: each mechanism keeps its own t and h, steps past each output time and
/// is sampled there by dense output; its accepted and rejected steps and its smallest and largest step
/// go to r.step_records, and a failure's step is the number of steps it had accepted (as for single
/// bodies, adaptive_ensemble.hpp); or on the CPU in blocks of SIMD lanes with the same bits.
template <class Integrator>
struct AdaptiveSteps {
  using State = typename AdaptiveHht<Integrator>::State;
  using Blocks = lanes::MechanismBlocks<AdaptiveHht<Integrator>>;
  AdaptiveHht<Integrator> stepper;
  double t0, h;

  const AdaptiveHht<Integrator>& device() const { return stepper; }

  template <class Mech, class Kinematics>
  Status initialize(const Mech& m, const Kinematics& k, State& s) const {
    return stepper.initialize(m, k, t0, s);
  }
  /// Every unit of `blocks` through the window `out`, one output time after the other: the blocks by
  /// the mechanisms' next step sizes (MechanismBlocks::sort), then one OpenMP iteration per unit.
  template <class Mech>
  void advance(Blocks& blocks, const std::vector<Mech>& mechs, State* states, const BodyRecord& record,
               const SampleView<double>& out, MechanismRunResult& r) const {
    StepRecords& taken = r.step_records;
    const AdaptiveRecord<double> steps{taken.accepted.data(), taken.rejected.data(), taken.smallest.data(),
                                       taken.largest.data()};
    for (index_t j = out.first_sample; j < out.first_sample + out.samples; ++j) {
      const SampleView<double> at{out.data + (j - out.first_sample) * out.scalars * out.bodies, out.bodies, j, 1,
                                  out.stride, out.scalars};
      blocks.sort(mechs, states, steps);
      const index_t units = blocks.units();
#pragma omp parallel for schedule(dynamic, 1)
      for (index_t u = 0; u < units; ++u) blocks.advance_adaptive(u, stepper, mechs, states, record, steps, t0, h, at);
    }
  }
};

/// The run's mechanisms on the GPU, from their initial states (either capacity, fixed or adaptive
/// steps).
template <class Stepper, class Mech>
std::unique_ptr<MechanismBatch> cuda_mechanisms(const Stepper& stepper, const std::vector<Mech>& mechs,
                                                const std::vector<typename Stepper::State>& states,
                                                const MechanismRunResult& r, index_t stride, int scalars) {
#ifdef QUATSTEP_WITH_CUDA
  return cuda::make_cuda_mechanisms(cuda::MechanismBatchInput<std::decay_t<decltype(stepper.device())>>{
      stepper.device(), mechs, states, r.status, r.iterations, r.failed_step, r.step_records, stepper.t0, stepper.h,
      stride, scalars});
#else
  (void)stepper, (void)mechs, (void)states, (void)r, (void)stride, (void)scalars;
  throw std::logic_error("cuda_mechanisms: mechanism_backend chose the GPU in a build without CUDA");
#endif
}

/// The integrator states of a checkpoint: their bytes, as many doubles as they fill (read back by
/// the same build of quatstep alone, which --resume checks by the size). The states are fixed-size
/// Eigen vectors of scalars and plain numbers: copied bytewise, as the GPU's upload copies them.
template <class State>
std::vector<double> state_words(const std::vector<State>& states) {
  std::vector<double> words((states.size() * sizeof(State) + sizeof(double) - 1) / sizeof(double));
  if (!states.empty()) std::memcpy(words.data(), static_cast<const void*>(states.data()), states.size() * sizeof(State));
  return words;
}
template <class State>
void restore_states(const std::vector<double>& words, std::vector<State>& states) {
  if (words.size() != state_words(states).size())
    throw std::runtime_error("the checkpoint's mechanism states do not fit this scenario and build of quatstep (" +
                             std::to_string(words.size()) + " words, expected " +
                             std::to_string(state_words(states).size()) + ")");
  if (!states.empty()) std::memcpy(static_cast<void*>(states.data()), words.data(), states.size() * sizeof(State));
}

/// n mechanisms built from describe(i) — a description and where it comes from, for messages —,
/// assembled by the scenario's policy and given consistent initial accelerations and multipliers by
/// `stepper`: r's per-mechanism status, failed step and assembly corrections are set, and the assembled
/// kinematics kept in `assembled` when given. A mechanism that cannot be assembled is a ScenarioError
/// naming it, the joint and the violation.
template <class Cap, class Stepper, class Describe>
void prepare_mechanisms(const MechanismScenario& sc, index_t n, const Describe& describe, const Stepper& stepper,
                        std::vector<mechanism::Mechanism<double, Cap>>& mechs,
                        std::vector<typename Stepper::State>& states, MechanismRunResult& r,
                        std::vector<mechanism::MechanismKinematics<double, Cap::bodies>>* assembled = nullptr) {
  const double t0 = sc.time.t_start;
  const AssemblySettings<double> assembly{sc.mechanism.spec.assembly_tolerance, int(sc.mechanism.spec.assembly_iterations),
                                          sc.mechanism.spec.max_correction};
  r.status.assign(std::size_t(n), Status::ok);
  r.failed_step.assign(std::size_t(n), -1);
  r.iterations.assign(std::size_t(n), 0);
  r.position_correction.assign(std::size_t(n), 0.0);
  r.velocity_correction.assign(std::size_t(n), 0.0);
  mechs.resize(std::size_t(n));
  states.resize(std::size_t(n));
  for (index_t i = 0; i < n; ++i) {
    const auto [description, where] = describe(i);
    BuiltMechanism<Cap> built = build_mechanism<Cap>(description, where);
    mechanism::MechanismKinematics<double, Cap::bodies> k = built.initial;
    if (sc.mechanism.spec.assemble == AssemblyPolicy::project) {
      const AssemblyReport<double> report = mechanism::assemble(built.mech, k, t0, assembly);
      if (report.status != Status::ok) throw ScenarioError(where + built.builder.assembly_problem(built.mech, report, assembly));
      r.position_correction[i] = report.position_correction;
      r.velocity_correction[i] = report.velocity_correction;
    } else {
      mechanism::MechanismKinematics<double, Cap::bodies> projected = k;
      const std::string problem = rejection(built, mechanism::assemble(built.mech, projected, t0, assembly), assembly);
      if (!problem.empty()) throw ScenarioError(where + problem);
    }
    mechs[i] = built.mech;
    if (assembled) assembled->push_back(k);
    const Status s = stepper.initialize(mechs[i], k, states[i]);
    if (s != Status::ok) r.status[i] = s, r.failed_step[i] = 0;
  }
}

template <class Cap, class Stepper>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open,
                                const Stepper& stepper);

/// Method Entry (a mechanism registry entry) on Mechanism<double, Cap> with the scenario's settings.
template <class Cap, class Entry>
typename Entry::template Integrator<mechanism::Mechanism<double, Cap>> scenario_integrator(const MechanismScenario& sc) {
  typename Entry::Settings settings;
  KeyAssigner assign(sc.settings);
  settings.describe(assign);
  return typename Entry::template Integrator<mechanism::Mechanism<double, Cap>>(settings);
}

/// The run with method Entry (a mechanism registry entry) on Mechanism<double, Cap>: adaptive steps
/// with [time] adaptive = true (the HHT family), fixed ones otherwise.
template <class Cap, class Entry>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open) {
  using Integrator = typename Entry::template Integrator<mechanism::Mechanism<double, Cap>>;
  const Integrator integrator = scenario_integrator<Cap, Entry>(sc);
  if constexpr (takes_adaptive_steps<Integrator>::value)
    if (sc.time.adaptive)
      return run_ensemble<Cap>(sc, options, open, AdaptiveSteps<Integrator>{{integrator, sc.time.step_control}, sc.time.t_start, sc.time.dt});
  return run_ensemble<Cap>(sc, options, open, FixedSteps<Integrator>{integrator, sc.time.t_start, sc.time.dt});
}

/// The run on Mechanism<double, Cap>, advanced by Stepper (FixedSteps or AdaptiveSteps).
template <class Cap, class Stepper>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open,
                                const Stepper& stepper) {
  using Mech = mechanism::Mechanism<double, Cap>;
  using State = typename Stepper::State;
  const auto start = std::chrono::steady_clock::now();
  const index_t n = sc.runs();
  const double t0 = sc.time.t_start, h = sc.time.dt;

  MechanismRunResult r;
  r.mechanisms = n;
  r.bodies = int(sc.mechanism.bodies.size());
  r.steps = sc.time.steps;
  r.samples = sc.samples();
  r.backend = mechanism_backend(sc);
  if (sc.time.adaptive) r.step_records = StepRecords::before_first_step(n);

  // Build, assemble, initialise: every error before the file is created.
  std::vector<Mech> mechs;
  std::vector<State> states;
  prepare_mechanisms(
      sc, n,
      [&](index_t i) {
        const index_t j = sc.mechanism_index(i);
        return std::pair{mechanism_description(sc, j),
                         sc.source + ": " + (sc.ensemble_size > 1 ? "mechanism " + std::to_string(j) + ": " : "")};
      },
      stepper, mechs, states, r);

  const MechanismOutput file = mechanism_output(sc, r.backend.description);
  const OutputLayout& layout = file.layout;
  r.trajectories = file.trajectories.description;
  const std::vector<std::pair<std::string, int>> varied = varied_keys(sc);
  const OpenedOutput opened = open(layout, file.attributes);
  RunOutput& out = *opened.output;
  std::optional<statistics::EnsembleStatistics> stats;
  if (sc.statistics) stats.emplace(*sc.statistics, statistics::ChannelLayout::of(layout.channels), r.samples, sc.stride, 0, n);
  index_t samples_written = 0;
  if (opened.resume) {  // the checkpoint's states, records and drift references over the built ones
    const Checkpoint& c = opened.resume->checkpoint;
    restore_states(c.state, states);
    if (c.status.size() != std::size_t(n) || c.steps_done % sc.stride != 0 ||
        (stats && c.statistics_initial.size() != sc.statistics->observables.size()))
      throw std::runtime_error("the checkpoint does not fit the scenario's mechanisms, samples or statistics");
    r.status = c.status;
    r.iterations = c.newton_iterations;
    r.failed_step = c.failed_step;
    if (sc.time.adaptive) r.step_records = c.steps;
    for (std::size_t k = 0; stats && k < c.statistics_initial.size(); ++k)
      stats->restore_initial_values(k, c.statistics_initial[k]);
    samples_written = c.steps_done / sc.stride + 1;
    r.first_step = c.steps_done;
    r.redrawn_bodies = opened.resume->redrawn_bodies;
    r.redraws = opened.resume->redraws;
  } else {
    if (sc.shard) write_shard_attributes(*sc.shard, sc.ensemble_size, out);
    std::vector<std::vector<double>> values(varied.size());
    std::vector<std::int32_t> redraws(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
      int thrown_away = 0;
      MechanismDescription d = mechanism_description(sc, sc.mechanism_index(i), &thrown_away);
      redraws[std::size_t(i)] = thrown_away;
      for_each_parameter(d, [&](const std::string& key, double* v, int size) {
        for (std::size_t p = 0; p < varied.size(); ++p)
          if (key == varied[p].first) values[p].insert(values[p].end(), v, v + size);
      });
    }
    for (std::size_t p = 0; p < varied.size(); ++p) out.write_parameters(int(p), 0, n, values[p].data());
    if (sc.redraws) {
      out.write_redraws(0, n, redraws.data());
      for (std::int32_t k : redraws) r.redrawn_bodies += k > 0, r.redraws += k;
      out.integer_attribute("redrawn_bodies", r.redrawn_bodies);
      out.integer_attribute("redraws", r.redraws);
    }
  }

  // Windows of samples: on the GPU, or here with each mechanism, or block of them in SIMD lanes,
  // stepped through the window in one OpenMP iteration (adaptive steps: through each output time of
  // it). A window takes about pacing::chunk_seconds once the first has been timed: the
  // progress bar moves and an interrupt is answered a few times a second; the results do not depend
  // on the windows.
  std::unique_ptr<MechanismBatch> gpu;
  const int scalars = channel_scalars(layout.channels);
  if (r.backend.backend == Backend::cuda) gpu = cuda_mechanisms(stepper, mechs, states, r, sc.stride, scalars);
  // On the CPU: blocks of mechanisms in SIMD lanes and the mechanisms stepped alone.
  std::optional<typename Stepper::Blocks> blocks;
  if (!gpu) blocks.emplace(mechs);
  index_t max_window = std::max<index_t>(1, index_t(pacing::sample_buffer_bytes / (sizeof(double) * scalars * n)));
  if (options.max_chunk_steps > 0) max_window = std::min(max_window, std::max<index_t>(1, options.max_chunk_steps / sc.stride));
  // The first window is timed to size the others. With adaptive steps an output interval holds
  // as many steps as the mechanisms take, unknown before the run: it is the first sample and one
  // interval (the window of fixed steps' size was the whole run, which no interrupt could stop).
  index_t window = sc.time.adaptive ? std::min<index_t>(2, max_window)
                                    : std::clamp<index_t>(index_t(pacing::first_chunk_body_steps / double(n * sc.stride)),
                                                          1, max_window);
  const BodyRecord record{r.status.data(), r.iterations.data(), r.failed_step.data()};
  std::vector<double> buffer, times;
  const auto loop_start = std::chrono::steady_clock::now();
  const index_t start_sample = samples_written, done_before = r.first_step, remaining = sc.time.steps - done_before;
  std::optional<ProgressBar> bar;
  while (samples_written < r.samples) {
    const index_t first = samples_written, count = std::min(window, r.samples - first);
    buffer.assign(std::size_t(count * scalars * n), 0.0);
    times.resize(std::size_t(count));
    for (index_t j = 0; j < count; ++j) times[j] = t0 + double((first + j) * sc.stride) * h;
    if (gpu) {
      gpu->advance(first, count, buffer.data());
    } else {
      stepper.advance(*blocks, mechs, states.data(), record, SampleView<double>{buffer.data(), n, first, count, sc.stride, scalars}, r);
    }
    out.write_samples(first, count, buffer.data(), times.data());
    if (stats) {
      const StatisticsRows rows = summarize(*stats, first, count, buffer.data(), scalars, n, layout.shard_statistics);
      out.write_statistics(first, rows.summaries);
      track_histogram_misses(*sc.statistics, rows, times.data(), r.histogram_misses);
      if (layout.shard_statistics) out.write_statistics_states(first, rows.states);
    }
    const bool first_window = first == start_sample;
    samples_written = first + count;
    r.steps_done = (samples_written - 1) * sc.stride;

    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
    const double steps_per_second = double(r.steps_done - done_before) / std::max(elapsed, 1e-9);
    if (first_window && samples_written < r.samples && options.progress != ProgressMode::never) {
      const bool long_run = steps_per_second > 0 && double(remaining) / steps_per_second > pacing::progress_threshold_s;
      if (options.progress == ProgressMode::always || (long_run && isatty(STDERR_FILENO)))
        bar.emplace(stderr, remaining, n, "mechanism-steps/s");
    }
    if (bar) bar->update(r.steps_done - done_before, elapsed);
    window = std::clamp<index_t>(index_t(steps_per_second * pacing::chunk_seconds / double(sc.stride)), 1, max_window);
    if (options.interrupt && *options.interrupt && samples_written < r.samples) {  // the window in flight is written
      r.interrupted = true;
      break;
    }
  }
  const double loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  if (bar && !r.interrupted) bar->finish(loop_seconds);
  if (bar && r.interrupted) std::fputc('\n', stderr);
  if (gpu) gpu->records(r.status, r.iterations, r.failed_step, r.step_records);
  r.mechanisms_in_lanes = blocks ? blocks->mechanisms_in_lanes() : 0;
  if (r.interrupted) {
    if (gpu) gpu->states(states.data());
    Checkpoint c;
    c.steps_done = r.steps_done;
    c.state = state_words(states);
    c.status = r.status;
    c.newton_iterations = r.iterations;
    c.failed_step = r.failed_step;
    if (sc.time.adaptive) c.steps = r.step_records;
    for (std::size_t k = 0; stats && k < sc.statistics->observables.size(); ++k)
      c.statistics_initial.push_back(stats->initial_values(k));
    out.write_checkpoint(c);
  }
  out.write_body_results(r.status, r.iterations, r.failed_step);
  if (sc.time.adaptive) out.write_step_records(r.step_records);
  out.write_body_values("assembly_position_correction", r.position_correction);
  out.write_body_values("assembly_velocity_correction", r.velocity_correction);
  out.mark_progress(!r.interrupted, samples_written);
  r.samples_written = samples_written;
  out.close();
  for (index_t it : r.iterations) r.newton_iterations += it;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

/// The ensemble of make_mechanism_ensemble on Mechanism<double, Cap> with method Integrator, on the
/// CPU or — backend cuda — on the GPU: there the mechanisms' states and records live in device memory
/// (cuda_mechanisms: the run's batch), the caller's loads are uploaded for each coupled step, the
/// records come back after every call and the states when observed; building, assembly and the
/// consistent initial state stay the CPU's, as in a run.
template <class Cap, class Integrator>
class MechanismEnsembleOf final : public MechanismEnsemble {
 public:
  using Mech = mechanism::Mechanism<double, Cap>;

  template <class Describe>
  MechanismEnsembleOf(const MechanismScenario& sc, index_t n, const Describe& describe, const Integrator& integrator,
                      BackendChoice backend)
      : stepper_{integrator, sc.time.t_start, sc.time.dt},
        backend_(std::move(backend)),
        bodies_(int(sc.mechanism.bodies.size())),
        channels_(mechanism_channels(sc.mechanism, docs_, sc.method_view())),
        latest_(std::size_t(n), 0) {
    for (const MechanismBodySpec& b : sc.mechanism.bodies) body_names_.push_back(b.name);
    prepare_mechanisms(sc, n, describe, stepper_, mechs_, states_, r_, &assembled_);
    if (backend_.backend == Backend::cuda) gpu_ = cuda_mechanisms(stepper_, mechs_, states_, r_, 1, 0);
    use_lanes(true);
  }

  index_t mechanisms() const override { return index_t(mechs_.size()); }
  int bodies() const override { return bodies_; }
  index_t steps_done() const override { return steps_; }
  double t_start() const override { return stepper_.t0; }
  double dt() const override { return stepper_.h; }
  const std::vector<Channel>& channels() const override { return channels_; }

  void advance(index_t steps, const SampleView<double>& out) override {
    if (gpu_) return advance_on_gpu(steps, out, MechanismLoads{});
    const BodyRecord record{r_.status.data(), r_.iterations.data(), r_.failed_step.data()};
    const std::vector<index_t> before = r_.iterations;
    const index_t units = blocks_->units();
#pragma omp parallel for schedule(dynamic, 4)
    for (index_t u = 0; u < units; ++u)
      blocks_->advance(u, stepper_.method, mechs_, states_.data(), record, stepper_.t0, stepper_.h, steps_, steps, out);
    for (std::size_t i = 0; i < before.size(); ++i) latest_[i] = r_.iterations[i] - before[i];
    steps_ += steps;
    in_lanes_ = blocks_->mechanisms_in_lanes();
  }
  void use_lanes(bool on) override {
    lanes_ = on && !gpu_;
    blocks_.emplace(mechs_, lanes_);
    in_lanes_ = blocks_->mechanisms_in_lanes();
  }
  index_t mechanisms_in_lanes() const override { return in_lanes_; }
  /// The caller's loads held on every mechanism, then one step by blocks of mechanisms of one kind,
  /// made anew (the loads' zero pattern is part of a kind: lane_kind), then the loads released.
  void step(const MechanismLoads& loads) override {
    check_finite(loads);  // device loads: here on the GPU
    const index_t n = mechanisms();
    const SampleView<double> none{nullptr, n, 0, 0, 1, 0};
    if (gpu_) return advance_on_gpu(1, none, loads);
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) mechanism::hold_loads(mechs_[i], loads, i);
    const typename FixedSteps<Integrator>::Blocks blocks(mechs_, lanes_);
    const BodyRecord record{r_.status.data(), r_.iterations.data(), r_.failed_step.data()};
    const std::vector<index_t> before = r_.iterations;
    const index_t units = blocks.units();
#pragma omp parallel for schedule(dynamic, 4)
    for (index_t u = 0; u < units; ++u)
      blocks.advance(u, stepper_.method, mechs_, states_.data(), record, stepper_.t0, stepper_.h, steps_, 1, none);
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) {
      mechanism::hold_loads(mechs_[i], MechanismLoads{}, i);
      latest_[std::size_t(i)] = r_.iterations[i] - before[std::size_t(i)];
    }
    steps_ += 1;
    in_lanes_ = blocks.mechanisms_in_lanes();
  }
  void initialize(const MechanismLoads& loads) override {
    if (steps_ != 0)
      throw std::logic_error("MechanismEnsemble.initialize: after " + std::to_string(steps_) +
                             " steps (the initial state is made consistent before the first step only)");
    check_finite(loads);
    const index_t n = mechanisms();
    const HostLoads on_host(loads, *this);  // the consistent state is the CPU's
#pragma omp parallel for schedule(dynamic, 16)
    for (index_t i = 0; i < n; ++i) {
      r_.status[i] = Status::ok, r_.failed_step[i] = -1;
      mechanism::hold_loads(mechs_[i], on_host.loads, i);
      const Status s = stepper_.initialize(mechs_[i], assembled_[std::size_t(i)], states_[i]);
      if (s != Status::ok) r_.status[i] = s, r_.failed_step[i] = 0;
      mechanism::hold_loads(mechs_[i], MechanismLoads{}, i);
    }
    if (gpu_) gpu_->upload(states_.data(), r_.status, r_.failed_step);
  }
  void observe(const SampleView<double>& out) const override {
    if (gpu_ && !states_current_) {
      gpu_->states(states_.data());
      states_current_ = true;
    }
    const double t = stepper_.t0 + double(steps_) * stepper_.h;
    const index_t n = mechanisms();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i)
      mechanism::write_mechanism_sample(out, out.first_sample, i, stepper_.method, mechs_[i], states_[i], t,
                                        latest_[i], r_.status[i] == Status::ok);
  }

  const std::vector<Status>& status() const override { return r_.status; }
  const std::vector<index_t>& newton_iterations() const override { return r_.iterations; }
  const std::vector<index_t>& failed_step() const override { return r_.failed_step; }
  const std::vector<double>& position_correction() const override { return r_.position_correction; }
  const std::vector<double>& velocity_correction() const override { return r_.velocity_correction; }
  const std::string& backend() const override { return backend_.description; }

 private:
  /// advance() and step() on the GPU: the steps there, then the records back (the states when observed).
  void advance_on_gpu(index_t steps, const SampleView<double>& out, const MechanismLoads& loads) {
    const std::vector<index_t> before = r_.iterations;
    gpu_->advance_steps(steps_, steps, out, loads);
    StepRecords fixed_steps;  // none
    gpu_->records(r_.status, r_.iterations, r_.failed_step, fixed_steps);
    for (std::size_t i = 0; i < before.size(); ++i) latest_[i] = r_.iterations[i] - before[i];
    steps_ += steps;
    states_current_ = false;
  }
  /// Doubles in one kind of loads: mechanisms × bodies × 3.
  std::size_t load_values() const { return std::size_t(mechanisms()) * std::size_t(bodies_) * 3; }
  /// A ScenarioError naming the first value of `loads` that is not finite, found where the arrays
  /// are (device loads: on the GPU, for an ensemble there only).
  void check_finite(const MechanismLoads& loads) const {
    if (loads.device >= 0 && !gpu_)
      throw std::invalid_argument("MechanismEnsemble: loads in CUDA device memory need the ensemble on the GPU "
                                  "(backend 'cuda'); this one steps on the " + backend_.description);
    const std::pair<const double*, const char*> kinds[] = {
        {loads.force, "force"}, {loads.body_torque, "body_torque"}, {loads.spatial_torque, "spatial_torque"}};
    for (const auto& [a, name] : kinds) {
      if (!a) continue;
      std::pair<std::int64_t, double> bad{-1, 0.0};
      if (loads.device >= 0) {
        bad = gpu_->first_nonfinite(a, load_values());
      } else {
        for (std::size_t k = 0; k < load_values() && bad.first < 0; ++k)
          if (!std::isfinite(a[k])) bad = {std::int64_t(k), a[k]};
      }
      if (bad.first < 0) continue;
      const std::size_t k = std::size_t(bad.first), i = k / (3 * bodies_), b = k / 3 % bodies_;
      throw ScenarioError("MechanismEnsemble: mechanism " + std::to_string(i) + ", body '" + body_names_[b] + "': " +
                          name + "[" + std::to_string(k % 3) + "] = " + std::to_string(bad.second) +
                          " is not finite (no mechanism was changed)");
    }
  }
  /// Loads in host memory: the caller's, or copies of its device arrays.
  struct HostLoads {
    HostLoads(const MechanismLoads& given, const MechanismEnsembleOf& e) : loads(given) {
      if (given.device < 0) return;
      const auto copy = [&](const double* a, std::vector<double>& host) -> const double* {
        if (!a) return nullptr;
        host.resize(e.load_values());
        e.gpu_->download(a, host.size(), host.data());
        return host.data();
      };
      loads = {copy(given.force, force), copy(given.body_torque, body_torque), copy(given.spatial_torque, spatial_torque)};
    }
    MechanismLoads loads;
    std::vector<double> force, body_torque, spatial_torque;
  };

  FixedSteps<Integrator> stepper_;
  BackendChoice backend_;
  std::unique_ptr<MechanismBatch> gpu_;  ///< backend cuda: the mechanisms' states and records there
  mutable bool states_current_ = true;   ///< whether states_ holds the GPU's states
  std::optional<typename FixedSteps<Integrator>::Blocks> blocks_;  ///< advance()'s units of work (CPU)
  bool lanes_ = true;                                              ///< use_lanes()
  index_t in_lanes_ = 0;  ///< the mechanisms the latest advance() or step() stepped in lanes
  int bodies_;
  std::vector<std::string> body_names_;
  std::vector<std::string> docs_;  ///< the per-body channels' descriptions (channels_ points into them)
  std::vector<Channel> channels_;
  std::vector<Mech> mechs_;
  mutable std::vector<typename FixedSteps<Integrator>::State> states_;  ///< on the GPU: as of the last observe
  std::vector<mechanism::MechanismKinematics<double, Cap::bodies>> assembled_;  ///< the initial states
  MechanismRunResult r_;        ///< the records and the assembly corrections
  std::vector<index_t> latest_;  ///< Newton iterations of the latest advance, per mechanism
  index_t steps_ = 0;
};

/// The spec's arrays checked against the scenario's keys and applied to mechanism i's description.
class MechanismArrays {
 public:
  MechanismArrays(const MechanismScenario& sc, const MechanismEnsembleSpec& spec) : spec_(spec) {
    const std::vector<std::pair<std::string, int>> keys = parameter_keys(sc.mechanism);
    for (const MechanismArray& a : spec.arrays) {
      const auto found = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == a.key; });
      if (found == keys.end()) {
        std::string listed = did_you_mean(a.key, key_names(keys));
        if (listed.empty())
          for (const auto& k : keys) listed += (listed.empty() ? "its keys: " : ", ") + k.first;
        throw ScenarioError(sc.source + ": parameters: '" + a.key + "' is not a numeric key of the mechanism (" +
                            listed + ")");
      }
      if (a.values.size() != std::size_t(spec.mechanisms) * std::size_t(found->second))
        throw ScenarioError(sc.source + ": parameters: key '" + a.key + "': " + std::to_string(a.values.size()) +
                            " values, expected " + std::to_string(found->second) + " per mechanism for " +
                            std::to_string(spec.mechanisms) + " mechanisms");
    }
  }
  void apply(MechanismDescription& d, index_t i) const {
    for_each_parameter(d, [&](const std::string& key, double* value, int size) {
      for (const MechanismArray& a : spec_.arrays)
        if (a.key == key) std::copy_n(a.values.begin() + std::ptrdiff_t(i) * size, size, value);
    });
  }

 private:
  const MechanismEnsembleSpec& spec_;
};

}  // namespace

std::unique_ptr<MechanismEnsemble> make_mechanism_ensemble(const MechanismScenario& sc, const MechanismEnsembleSpec& spec) {
  if (sc.time.adaptive)
    throw ScenarioError(sc.source + ": key 'time.adaptive': a mechanism ensemble takes fixed steps (quatstep.run and "
                                    "`quatstep run` take adaptive ones)");
  const bool rows = spec.mechanisms > 0, arrays = !spec.arrays.empty();
  const index_t n = rows ? spec.mechanisms : sc.runs();
  if (rows && sc.runs() > 1 && n != sc.runs())
    throw ScenarioError(sc.source + ": parameters: " + std::to_string(n) + " rows, but the scenario has " +
                        std::to_string(sc.runs()) + " mechanisms (one row per mechanism, or any number for a "
                        "scenario of one)");
  if (arrays && !rows) throw ScenarioError(sc.source + ": parameters: arrays without their number of rows");
  const MechanismArrays given(sc, spec);
  const BackendChoice backend = choose_backend(spec.backend);
  const auto describe = [&](index_t i) {
    const index_t j = sc.mechanism_index(sc.runs() > 1 ? i : 0);
    const std::string where = sc.source + ": " + (n > 1 ? "mechanism " + std::to_string(rows ? i : j) + ": " : "");
    MechanismDescription d = mechanism_description(sc, j);
    if (arrays) {
      given.apply(d, i);
      check_mechanism_values(d, sc.source + (n > 1 ? ": mechanism " + std::to_string(i) : ""));
    }
    return std::pair{std::move(d), where};
  };
  return with_type(mechanism::MechanismMethods{}, sc.method, [&](auto tag) -> std::unique_ptr<MechanismEnsemble> {
    using Entry = tag_type<decltype(tag)>;
    const auto make = [&](auto capacity) -> std::unique_ptr<MechanismEnsemble> {
      using Cap = decltype(capacity);
      using Integrator = typename Entry::template Integrator<mechanism::Mechanism<double, Cap>>;
      return std::make_unique<MechanismEnsembleOf<Cap, Integrator>>(sc, n, describe, scenario_integrator<Cap, Entry>(sc),
                                                                    backend);
    };
    return fits_small_capacity(sc.mechanism) ? make(mechanism::SmallCapacity{}) : make(mechanism::LargeCapacity{});
  });
}

TrajectorySelection mechanism_trajectories(const MechanismScenario& sc) {
  std::vector<std::string> docs;
  int written_scalars = 0;
  for (const Channel& c : mechanism_channels(sc.mechanism, docs, sc.method_view()))
    if (std::find(sc.channels.begin(), sc.channels.end(), c.name) != sc.channels.end()) written_scalars += c.size;
  TrajectoryChoice choice = sc.trajectories;
  const bool chosen = chosen_alone(sc.selection, sc.shard.has_value(), choice);
  TrajectorySelection t = select_trajectories(
      choice, sc.runs(), [&](index_t i) { return sc.mechanism_index(i); },
      [&](index_t rows) { return double(sc.samples()) * double(rows) * double(written_scalars) * sizeof(double); },
      "mechanism", "mechanisms");
  if (chosen) t.description += " (--bodies keeps every chosen mechanism's trajectory)";
  return t;
}

MechanismOutput mechanism_output(const MechanismScenario& sc, const std::string& backend) {
  MechanismOutput o;
  o.trajectories = mechanism_trajectories(sc);
  OutputLayout& layout = o.layout;
  const index_t n = sc.runs();
  layout.bodies = n;
  layout.samples = sc.samples();
  layout.channels = mechanism_channels(sc.mechanism, o.channel_docs, sc.method_view());
  layout.written = sc.channels;
  layout.trajectory_rows = o.trajectories.rows;
  if (index_t(o.trajectories.rows.size()) != n)  // else the row is the mechanism (or /bodies says which)
    for (index_t i : o.trajectories.rows) layout.trajectory_bodies.push_back(sc.mechanism_index(i));
  if (!sc.shard) layout.body_indices = sc.selection;  // a shard's range: its attributes
  layout.step_records = sc.time.adaptive;
  layout.redraws = sc.redraws;
  layout.body_values = {"assembly_position_correction", "assembly_velocity_correction"};
  if (sc.statistics) {
    add_statistics(*sc.statistics, layout);
    layout.shard_statistics = sc.shard.has_value();
  }
  for (const auto& [key, size] : varied_keys(sc)) layout.parameters.push_back({key, size});
  OutputAttributes& a = o.attributes;
  a.scenario = sc.text;
  a.method = std::string(sc.method_view().info.name) + " (" + settings_summary(sc.method_view().keys, sc.settings) + ")";
  std::string names;
  for (const MechanismBodySpec& b : sc.mechanism.bodies) names += (names.empty() ? "'" : ", '") + b.name + "'";
  a.model = "mechanism: " + std::to_string(sc.mechanism.bodies.size()) + " bodies (" + names + ")";
  a.backend = backend;
  a.precision = "double";
  a.dt = sc.time.dt;
  a.t_start = sc.time.t_start;
  a.t_end = sc.time.t_end;
  a.stride = sc.stride;
  a.trajectories = o.trajectories.description;
  return o;
}

BackendChoice mechanism_backend(const MechanismScenario& sc) { return choose_backend(sc.backend, sc.source); }

index_t MechanismRunResult::failures() const {
  return index_t(std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; }));
}

MechanismRunResult run_mechanism_scenario(const MechanismScenario& sc, const RunOptions& options) {
  const std::string path = options.output.empty() ? sc.output_file : options.output;
  MechanismRunResult r =
      run_mechanism_scenario(sc, options, [&](const OutputLayout& layout, const OutputAttributes& attributes) {
        auto file = std::make_unique<Hdf5Output>(path, layout, attributes,
                                                 options.resume ? Hdf5Output::Mode::resume : Hdf5Output::Mode::create);
        std::optional<ResumePoint> resume;
        if (options.resume) {
          resume = ResumePoint{file->read_checkpoint(), 0, 0};
          if (sc.redraws) {
            resume->redrawn_bodies = file->read_integer_attribute("redrawn_bodies");
            resume->redraws = file->read_integer_attribute("redraws");
          }
        }
        return OpenedOutput{std::move(file), std::move(resume)};
      });
  r.output_file = path;
  return r;
}

MechanismRunResult run_mechanism_scenario(const MechanismScenario& sc, const RunOptions& options,
                                          const OpenOutput& open) {
  const int previous = omp_get_max_threads();
  if (options.threads > 0) omp_set_num_threads(options.threads);
  MechanismRunResult r;
  try {
    r = with_type(mechanism::MechanismMethods{}, sc.method, [&](auto tag) {
      using Entry = tag_type<decltype(tag)>;
      return fits_small_capacity(sc.mechanism) ? run_ensemble<mechanism::SmallCapacity, Entry>(sc, options, open)
                                               : run_ensemble<mechanism::LargeCapacity, Entry>(sc, options, open);
    });
  } catch (...) {
    omp_set_num_threads(previous);
    throw;
  }
  r.threads = omp_get_max_threads();
  omp_set_num_threads(previous);
  return r;
}

MechanismScenario load_interrupted_mechanism_scenario(const std::string& file, std::optional<Backend> backend) {
  const InterruptedRun r = read_interrupted_run(file, backend);
  const MechanismScenario sc = parse_mechanism_scenario(r.run.scenario, file + " (its scenario)", r.overrides);
  return r.run.shard ? shard_scenario(sc, *r.run.shard) : sc;
}

/// The summary's account of the CPU's SIMD lanes (cpu_mechanism_lanes.hpp).
static std::string lanes_summary(const MechanismScenario& sc, const MechanismRunResult& r) {
  const lanes::Isa isa = lanes::best_isa();
  const int width = lanes::width<double>(isa);
  if (r.mechanisms_in_lanes > 0)
    return std::string(lanes::to_string(isa)) + ", " + std::to_string(r.mechanisms_in_lanes) + " of " +
           std::to_string(r.mechanisms) + " mechanisms, " + std::to_string(width) + " per block";
  if (!lanes::built) return "none (built without them: QUATSTEP_CPU_LANES=OFF)";
  if (!lanes::available()) return "none (no AVX2 on this CPU, or QUATSTEP_SIMD=off)";
  if (r.mechanisms < width) return "none (fewer mechanisms than a block of " + std::to_string(width) + ")";
  return std::string("none (no block of mechanisms of one kind") + (sc.time.adaptive ? " whose loads have no windows" : "") +
         ", or less stack than a block's lane step takes: host/cpu_mechanism_lanes.hpp)";
}

void print_mechanism_summary(std::ostream& os, const MechanismScenario& sc, const MechanismRunResult& r) {
  const auto row = [&](const char* name) -> std::ostream& { return os << "  " << std::left << std::setw(24) << name; };
  const StepRecords::Totals taken = r.step_records.totals();
  const bool adaptive = sc.time.adaptive;
  // in this process (adaptive: all steps of the run, a resumed one's included)
  const double mechanism_steps = adaptive ? taken.accepted : double(r.mechanisms) * double(r.steps_done - r.first_step);
  os << "quatstep " << version << ": mechanism, " << sc.method_view().info.name << " ("
     << settings_summary(sc.method_view().keys, sc.settings) << ")"
     << (adaptive ? ", adaptive steps, output every " : ", dt ") << sc.time.dt << "\n";
  row("mechanisms") << r.mechanisms << " (" << r.bodies << " bodies each)\n";
  row(adaptive ? "output intervals" : "steps") << r.steps << " (t = " << sc.time.t_start << " .. " << sc.time.t_end << ")";
  const char* unit = adaptive ? "output time " : "step ";
  if (r.first_step > 0) os << ", resumed at " << unit << r.first_step;
  if (r.interrupted) os << ", interrupted at " << unit << r.steps_done;
  os << "\n";
  if (adaptive)
    row("adaptive steps") << taken.accepted << " accepted, " << taken.rejected << " rejected (all mechanisms), h in ["
                          << taken.smallest << ", " << taken.largest
                          << "] (/accepted_steps, /rejected_steps, /smallest_step, /largest_step)\n";
  row("backend") << r.backend.description << ", double\n";
  if (r.backend.backend == Backend::cpu) {
    row("threads") << r.threads << "\n";
    row("SIMD lanes") << lanes_summary(sc, r) << "\n";
  }
  row("wall time") << std::setprecision(3) << r.wall_seconds << " s\n";
  row("mechanism-steps/s") << std::setprecision(3) << mechanism_steps / std::max(r.wall_seconds, 1e-9) << "\n";
  row("Newton iterations/step") << std::fixed << std::setprecision(2)
                                << double(r.newton_iterations) /
                                       std::max(1.0, adaptive ? taken.accepted + taken.rejected : mechanism_steps)
                                << std::defaultfloat << std::setprecision(6) << "\n";
  if (sc.mechanism.spec.assemble == AssemblyPolicy::project)
    row("assembly correction") << "position " << *std::max_element(r.position_correction.begin(), r.position_correction.end())
                               << ", velocity "
                               << *std::max_element(r.velocity_correction.begin(), r.velocity_correction.end())
                               << " (largest; /assembly_*_correction)\n";
  row("failures") << r.failures();
  constexpr int shown = 5;
  int listed = 0;
  for (index_t i = 0; i < r.mechanisms && listed < shown; ++i) {
    if (r.status[i] == Status::ok) continue;
    os << (listed++ ? ", " : " (") << "mechanism " << i << ": " << to_string(r.status[i])
       << (adaptive ? " after accepted step " : " at step ") << r.failed_step[i];
  }
  if (listed) os << (r.failures() > shown ? ", ...)" : ")");
  os << "\n";
  if (sc.redraws)
    row("redrawn mechanisms") << r.redrawn_bodies << " (" << r.redraws << " invalid draws thrown away; /redraws)\n";
  row("trajectories") << r.trajectories << "\n";
  row("output") << r.output_file << " (" << r.samples << " samples"
                << (sc.statistics ? ", /statistics of " + std::to_string(sc.statistics->observables.size()) + " observables"
                                  : std::string())
                << ")\n";
  if (const std::string misses = histogram_misses_summary(r.histogram_misses); !misses.empty())
    row("histogram ranges") << misses << " ([output.statistics] low, high)\n";
}

}  // namespace quatstep
