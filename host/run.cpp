// The chunked run loop: advance → write the window's samples → update the progress bar.
#include "run.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <future>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cpu_lanes.hpp"
#include "ensemble_factory.hpp"
#include "progress.hpp"
#include "shard.hpp"
#ifdef QUATSTEP_WITH_CUDA
#include "kernels/device_statistics.hpp"
#endif

namespace quatstep {
namespace {

using namespace pacing;
constexpr double device_window_bytes = 512 << 20;  // samples of a launch that stay on the GPU (its statistics)

/// Sets the OpenMP thread count for the lifetime of the object.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadCount() { omp_set_num_threads(previous_); }

 private:
  int previous_;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// "9.6 MB", "1.2 GB".
std::string bytes_text(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) bytes /= 1000, ++u;
  std::ostringstream os;
  os << std::setprecision(3) << bytes << " " << units[u];
  return os.str();
}

/// Bytes of the trajectories of `bodies` bodies: every sample of every channel written.
double trajectory_bytes(const Scenario& sc, index_t bodies) {
  int scalars = 0;
  for (const Channel& c : sample_channels(sc))
    if (std::find(sc.channels.begin(), sc.channels.end(), c.name) != sc.channels.end()) scalars += c.size;
  return double(sc.samples()) * double(bodies) * double(scalars) * sizeof(double);
}

/// "1st", "2nd", "3rd", "100th".
std::string ordinal(index_t k) {
  const index_t tens = k % 100, units = k % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th" : units == 1 ? "st" : units == 2 ? "nd" : units == 3 ? "rd" : "th";
  return std::to_string(k) + suffix;
}

/// /parameters (every key an [ensemble] table sets, then the records of the body_shape draws) and
/// /redraws, a block of bodies at a time, drawn in parallel; the redraw counts go to the result.
void write_parameters(const Scenario& sc, RunOutput& out, RunResult& result) {
  if (sc.ensemble_keys.empty() && !sc.redraws) return;
  constexpr index_t block = index_t(1) << 14;
  const ModelView& view = sc.model_view();
  const index_t n = sc.ensemble_size;
  const std::vector<sampling::ShapeRecord> records = sc.plan.shape_records();
  const std::size_t keys = sc.ensemble_keys.size();
  std::vector<std::vector<double>> values(keys + records.size());
  std::vector<std::int32_t> redraws;
  for (index_t first = 0; first < n; first += block) {
    const index_t count = std::min(block, n - first);
    for (std::size_t p = 0; p < values.size(); ++p)
      values[p].resize(std::size_t(count * (p < keys ? view.keys[sc.ensemble_keys[p]].size : records[p - keys].size)));
    redraws.resize(std::size_t(count));
#pragma omp parallel for schedule(dynamic, 256)
    for (index_t i = 0; i < count; ++i) {
      int r = 0;
      std::vector<sampling::Assignment> shapes;
      const std::vector<double> body = body_parameters(sc, first + i, &r, &shapes);
      redraws[std::size_t(i)] = r;
      for (std::size_t p = 0; p < keys; ++p) {
        const KeyInfo& k = view.keys[sc.ensemble_keys[p]];
        std::copy(body.begin() + k.offset, body.begin() + k.offset + k.size, values[p].begin() + i * k.size);
      }
      for (std::size_t p = 0; p < records.size(); ++p) {
        const auto at = values[keys + p].begin() + i * records[p].size;
        if (p < shapes.size()) std::copy(shapes[p].value.begin(), shapes[p].value.end(), at);
        else std::fill(at, at + records[p].size, std::numeric_limits<double>::quiet_NaN());  // not drawn
      }
    }
    for (std::size_t p = 0; p < values.size(); ++p) out.write_parameters(int(p), first, count, values[p].data());
    if (sc.redraws) out.write_redraws(first, count, redraws.data());
    for (std::int32_t r : redraws) result.redrawn_bodies += r > 0, result.redraws += r;
  }
  if (sc.redraws) {
    out.integer_attribute("redrawn_bodies", result.redrawn_bodies);
    out.integer_attribute("redraws", result.redraws);
  }
}

/// The bodies' records after a window: a copy, since the next advance changes them while the
/// window is written.
struct Records {
  std::vector<Status> status;
  std::vector<index_t> failed_step, newton_iterations;
  std::vector<index_t> attempts;  ///< adaptive steps: per body, the steps accepted and rejected
};

/// Writes finished sample windows on a thread of its own, so that the next advance (the CPU's
/// OpenMP loop, or the GPU's kernel) overlaps the last window's output (HDF5 and statistics). One
/// window is written at a time, in order; HDF5 is touched by no other thread meanwhile (drain()
/// first). An exception of a write is rethrown by the next submit() or drain().
class WindowWriter {
 public:
  ~WindowWriter() {
    if (pending_.valid()) pending_.wait();
  }
  void submit(std::function<void()> write) {
    drain();
    pending_ = std::async(std::launch::async, std::move(write));
  }
  void drain() {
    if (pending_.valid()) pending_.get();
  }

 private:
  std::future<void> pending_;
};

/// Per sample: summaries reduced where the samples are (cuda::DeviceStatistics).
using ReducedRows = std::vector<statistics::ReducedSample>;

/// The run's ensemble statistics: the observables of the sample's channels, accumulated from each
/// sample window (or reduced on the GPU, reduce_on_device), and those of the per-sample Newton
/// iterations (iterations per step since the previous sample, from the bodies' running totals — the
/// loop then ends every advance at a sample; with adaptive steps, per step attempted, accepted or
/// rejected, as the run's summary counts them).
class RunStatistics {
 public:
  RunStatistics(const Scenario& sc, const std::vector<Channel>& layout, index_t bodies)
      : spec_(*sc.statistics), layout_(statistics::ChannelLayout::of(layout)), bodies_(bodies), stride_(sc.stride),
        scalars_(channel_scalars(layout)), adaptive_(sc.time.adaptive) {
    statistics::StatisticsSpec sampled{{}, spec_.quantile_levels}, newton{{}, spec_.quantile_levels};
    for (const statistics::ObservableSpec& o : spec_.observables) {
      const bool from_newton = o.observable.channel() == newton_iterations_channel;
      statistics::StatisticsSpec& part = from_newton ? newton : sampled;
      order_.emplace_back(from_newton, part.observables.size());
      part.observables.push_back(o);
    }
    sampled_.emplace(sampled, layout_, sc.samples(), sc.stride, 0, bodies);
    if (!newton.observables.empty()) {
      newton_.emplace(newton, statistics::ChannelLayout({{newton_iterations_channel, 0, 1}}), sc.samples(), sc.stride, 0,
                      bodies);
      iterations_at_sample_.assign(std::size_t(bodies), 0);
      if (adaptive_) attempts_at_sample_.assign(std::size_t(bodies), 0);
      per_step_.resize(std::size_t(bodies));
    }
  }

  /// Whether every advance must end at a sample (the Newton iterations per sample).
  bool needs_sample_aligned_chunks() const { return newton_.has_value(); }

  /// The statistics reduced on the GPU, where a CUDA ensemble makes its samples and keeps its
  /// records (kernels/device_statistics.hpp, the same bits), when it can: not for a shard (its file
  /// keeps the values themselves, to be merged) nor for a spec the reduction does not support. True:
  /// from now on take_reduced() has each sample's summaries, and neither the samples nor the
  /// records need leave the GPU for them.
  bool reduce_on_device([[maybe_unused]] Ensemble& ensemble, [[maybe_unused]] const BackendChoice& backend,
                        [[maybe_unused]] bool shard) {
#ifdef QUATSTEP_WITH_CUDA
    const statistics::StatisticsSpec& spec = sampled_->spec();
    // Adaptive steps: the health rule is the sample's (add()), which the device's reduction does not know.
    if (backend.backend != Backend::cuda || shard || adaptive_ || !cuda::DeviceStatistics::supports(spec, layout_, bodies_))
      return false;
    device_ = std::make_unique<cuda::DeviceStatistics>(spec, layout_, newton_ ? newton_->spec() : statistics::StatisticsSpec{},
                                                       bodies_, stride_);
    if (ensemble.attach_statistics(device_.get())) return true;
    device_.reset();
#endif
    return false;
  }
  /// The device's summaries of samples [first, first + count) (none without reduce_on_device):
  /// waits for their reductions, not for what the GPU was given after them.
  ReducedRows take_reduced([[maybe_unused]] index_t first, [[maybe_unused]] index_t count) {
#ifdef QUATSTEP_WITH_CUDA
    if (device_) {
      index_t from = -1;
      ReducedRows rows = device_->take(from, first + count);
      if (index_t(rows.size()) != count || (count > 0 && from != first))
        throw std::logic_error("RunStatistics: the GPU reduced samples " + std::to_string(from) + " + " +
                               std::to_string(rows.size()) + ", expected " + std::to_string(first) + " + " + std::to_string(count));
      return rows;
    }
#endif
    return {};
  }

  /// The GPU's time in the reductions taken so far (0 when they are not on the GPU).
  double gpu_seconds() const {
#ifdef QUATSTEP_WITH_CUDA
    if (device_) return device_->gpu_seconds();
#endif
    return 0;
  }

  /// The carried values (no sample is pending between two windows).
  void save(Checkpoint& c) const {
    if (sampled_->pending() || (newton_ && newton_->pending())) throw std::logic_error("RunStatistics: a sample is pending");
    for (std::size_t k = 0; k < sampled_->spec().observables.size(); ++k) c.statistics_initial.push_back(initial_values(k));
    c.iterations_at_sample = iterations_at_sample_;
#ifdef QUATSTEP_WITH_CUDA
    if (device_ && newton_) c.iterations_at_sample = device_->iterations_at_sample();
#endif
  }
  void restore(const Checkpoint& c) {
    if (c.statistics_initial.size() != sampled_->spec().observables.size() ||
        c.iterations_at_sample.size() != iterations_at_sample_.size() ||
        (newton_ && adaptive_ && c.steps.accepted.size() != attempts_at_sample_.size()))
      throw std::runtime_error("the checkpoint's statistics do not match the scenario's");
    if (newton_ && adaptive_)  // a checkpoint is taken at a sample
      for (std::size_t i = 0; i < attempts_at_sample_.size(); ++i)
        attempts_at_sample_[i] = c.steps.accepted[i] + c.steps.rejected[i];
    for (std::size_t k = 0; k < c.statistics_initial.size(); ++k) {
#ifdef QUATSTEP_WITH_CUDA
      if (device_) {
        device_->restore_initial_values(k, c.statistics_initial[k]);
        continue;
      }
#endif
      sampled_->restore_initial_values(k, c.statistics_initial[k]);
    }
#ifdef QUATSTEP_WITH_CUDA
    if (device_ && newton_) device_->restore_iterations_at_sample(c.iterations_at_sample);
#endif
    iterations_at_sample_ = c.iterations_at_sample;
  }

  /// Samples [first, first + count) of a window of all bodies ([sample][scalar][body]) with the
  /// records after it: one row of summaries per sample, in the spec's order, and with `states` (a
  /// shard) one row of the accumulators too.
  StatisticsRows add(index_t first, index_t count, const double* samples, const Records& records, bool states,
                     ReducedRows reduced) {
    const std::vector<Status>* status = &records.status;
    const std::vector<index_t>* failed = &records.failed_step;
    StatisticsRows rows;
    for (index_t j = first; j < first + count; ++j) {
      if (adaptive_ && reduced.empty()) {  // failed_step counts accepted steps, not the samples' grid
        statistics::health_from_sample(samples + (j - first) * scalars_ * bodies_, bodies_, health_, never_);
        status = &health_, failed = &never_;
      }
      std::vector<statistics::Summary> sampled, newton;
      std::vector<statistics::AccumulatorState> sampled_states, newton_states;
      if (!reduced.empty()) {
        sampled = std::move(reduced.at(std::size_t(j - first)).sampled);
        newton = std::move(reduced.at(std::size_t(j - first)).newton);
      } else {
        const double* sample = samples + (j - first) * scalars_ * bodies_;
        sampled_->add(j, {sample, bodies_, 0, bodies_, status->data(), failed->data()});
        sampled = sampled_->summarize(j);
        if (states) sampled_states = sampled_->states(j);
        sampled_->release(j);
      }
      if (newton_ && reduced.empty()) {
        if (count != 1) throw std::logic_error("RunStatistics: Newton iterations need one sample per advance");
        const std::vector<index_t>& total = records.newton_iterations;
        for (std::size_t i = 0; i < std::size_t(bodies_); ++i) {
          const index_t steps = adaptive_ ? records.attempts.at(i) - attempts_at_sample_[i] : stride_;
          per_step_[i] = j == 0 || steps == 0 ? std::numeric_limits<double>::quiet_NaN()  // no step yet
                                              : double(total[i] - iterations_at_sample_[i]) / double(steps);
          iterations_at_sample_[i] = total[i];
          if (adaptive_) attempts_at_sample_[i] = records.attempts[i];
        }
        newton_->add(j, {per_step_.data(), bodies_, 0, bodies_, status->data(), failed->data()});
        newton = newton_->summarize(j);
        if (states) newton_states = newton_->states(j);
        newton_->release(j);
      }
      std::vector<statistics::Summary> row;
      std::vector<statistics::AccumulatorState> state_row;
      for (const auto& [from_newton, k] : order_) {
        row.push_back(std::move((from_newton ? newton : sampled)[k]));
        if (states) state_row.push_back(std::move((from_newton ? newton_states : sampled_states)[k]));
      }
      rows.summaries.push_back(std::move(row));
      if (states) rows.states.push_back(std::move(state_row));
    }
    return rows;
  }

 private:
  std::vector<double> initial_values(std::size_t k) const {
#ifdef QUATSTEP_WITH_CUDA
    if (device_) return device_->initial_values(k);
#endif
    return sampled_->initial_values(k);
  }

  statistics::StatisticsSpec spec_;
  statistics::ChannelLayout layout_;
  index_t bodies_, stride_;
  int scalars_;
  bool adaptive_;                    ///< health from each sample (health_from_sample), not from failed_step
  std::vector<Status> health_;       // its scratch, per body
  std::vector<index_t> never_;
  std::vector<std::pair<bool, std::size_t>> order_;  ///< per observable: (Newton part?, index in its part)
  std::optional<statistics::EnsembleStatistics> sampled_, newton_;
  std::vector<index_t> iterations_at_sample_, attempts_at_sample_;  ///< per body, at the previous sample
  std::vector<double> per_step_;
#ifdef QUATSTEP_WITH_CUDA
  std::unique_ptr<cuda::DeviceStatistics> device_;
#endif
};

}  // namespace

TrajectorySelection select_trajectories(const TrajectoryChoice& choice, index_t n,
                                        const std::function<index_t(index_t)>& member,
                                        const std::function<double(index_t)>& bytes, const std::string& noun,
                                        const std::string& nouns) {
  TrajectorySelection t;
  const auto every = [&](index_t k) {
    for (index_t i = 0; i < n; i += k) t.rows.push_back(i);
  };
  const auto size = [&] { return " (" + bytes_text(bytes(index_t(t.rows.size()))) + ")"; };
  switch (choice.kind) {
    case Trajectories::all:
      every(1);
      t.description = "all " + std::to_string(n) + " " + nouns + size();
      break;
    case Trajectories::none:
      t.description = "none";
      break;
    case Trajectories::every:
      every(choice.every);
      t.description = "every " + ordinal(choice.every) + " " + noun + ": " + std::to_string(t.rows.size()) +
                      " of " + std::to_string(n) + size();
      break;
    case Trajectories::list:
      for (index_t i = 0; i < n; ++i)
        if (std::binary_search(choice.listed.begin(), choice.listed.end(), member(i))) t.rows.push_back(i);
      t.description = std::to_string(t.rows.size()) + " listed " + nouns + size();
      break;
    case Trajectories::automatic: {
      const double all = bytes(n);
      if (all <= choice.max_bytes) {
        every(1);
        t.description = "all " + std::to_string(n) + " " + nouns + size();
        break;
      }
      const std::string limit = " > max_trajectory_bytes " + bytes_text(choice.max_bytes);
      // the most rows that fit (the bytes grow with the rows in proportion), then the smallest k whose
      // every k-th row from row 0, ⌈n/k⌉ rows, are no more than those
      index_t fit = index_t(std::floor(choice.max_bytes / bytes(1)));
      while (fit > 0 && bytes(fit) > choice.max_bytes) --fit;
      if (fit == 0) {
        t.description = "none: one " + noun + "'s alone would take " + bytes_text(bytes(1)) + limit +
                        " (raise it, or choose trajectories = \"list\")";
        break;
      }
      const index_t k = (n + fit - 1) / fit;
      every(k);
      t.description = "every " + ordinal(k) + " " + noun + ": " + std::to_string(t.rows.size()) + " of " +
                      std::to_string(n) + size() + "; all would take " + bytes_text(all) + limit;
      break;
    }
  }
  return t;
}

TrajectorySelection select_trajectories(const Scenario& sc) {
  TrajectoryChoice choice{sc.trajectories, sc.trajectory_bodies, sc.trajectory_every, sc.max_trajectory_bytes};
  const bool chosen = chosen_alone(sc.selection, sc.shard.has_value(), choice);
  TrajectorySelection t = select_trajectories(
      choice, sc.ensemble_size, [&](index_t i) { return sc.body_index(i); },
      [&](index_t rows) { return trajectory_bytes(sc, rows); }, "body", "bodies");
  if (chosen) t.description += " (--bodies keeps every chosen body's trajectory)";
  return t;
}

bool chosen_alone(const std::vector<index_t>& selection, bool shard, TrajectoryChoice& choice) {
  if (selection.empty() || shard || choice.kind == Trajectories::all) return false;
  choice.kind = Trajectories::all;
  return true;
}

OutputLayout output_layout(const Scenario& sc, const TrajectorySelection& trajectories) {
  OutputLayout file;
  const index_t n = sc.ensemble_size;
  file.bodies = n;
  file.samples = sc.samples();
  file.channels = sample_channels(sc);
  file.written = sc.channels;
  file.trajectory_rows = trajectories.rows;
  if (index_t(trajectories.rows.size()) != n)  // else /bodies (or the row index itself) says which body it is
    for (index_t i : trajectories.rows) file.trajectory_bodies.push_back(sc.body_index(i));
  if (!sc.shard) file.body_indices = sc.selection;  // a shard's range: its attributes
  for (int k : sc.ensemble_keys) file.parameters.push_back({sc.model_view().keys[k].name, sc.model_view().keys[k].size});
  for (const sampling::ShapeRecord& r : sc.plan.shape_records()) file.parameters.push_back({r.name, r.size});
  file.redraws = sc.redraws;
  file.step_records = sc.time.adaptive;
  if (sc.statistics) {
    add_statistics(*sc.statistics, file);
    file.shard_statistics = sc.shard.has_value();
  }
  return file;
}

void add_statistics(const statistics::StatisticsSpec& spec, OutputLayout& layout) {
  layout.quantile_levels = spec.quantile_levels;
  for (const statistics::ObservableSpec& o : spec.observables)
    layout.statistics.push_back({o.observable.name(), o.observable.definition(), o.bins ? o.bins->edges() : std::vector<double>{}});
}

OutputAttributes output_attributes(const Scenario& sc, const std::string& backend, const TrajectorySelection& trajectories) {
  return {sc.text, sc.integrator.view().info.name, sc.model_view().info.name, backend, to_string(sc.precision),
          sc.time.dt, sc.time.t_start, sc.time.t_end, sc.stride, trajectories.description};
}

std::vector<double> sample_times(const Scenario& sc, index_t first, index_t count) {
  std::vector<double> times(static_cast<std::size_t>(std::max<index_t>(count, 0)));
  for (index_t j = 0; j < count; ++j)  // t_k = t0 + k·h as in advance_body
    times[std::size_t(j)] = sc.time.t_start + double((first + j) * sc.stride) * sc.time.dt;
  return times;
}

void track_histogram_misses(const statistics::StatisticsSpec& spec, const StatisticsRows& rows, const double* times,
                            std::vector<HistogramMiss>& misses) {
  if (misses.empty())
    for (const statistics::ObservableSpec& o : spec.observables)
      if (o.bins) misses.push_back({o.observable.name(), o.bins->edges().front(), o.bins->edges().back()});
  for (std::size_t j = 0; j < rows.summaries.size(); ++j) {
    auto miss = misses.begin();
    for (std::size_t k = 0; k < spec.observables.size(); ++k) {
      if (!spec.observables[k].bins) continue;
      const statistics::Summary& s = rows.summaries[j][k];
      // more of the values outside than the worst sample so far, as a share (count > 0 then)
      if (s.below + s.above > 0 &&
          double(s.below + s.above) * double(std::max<std::int64_t>(miss->count, 1)) >
              double(miss->below + miss->above) * double(s.count))
        *miss = {miss->observable, miss->low, miss->high, times[j], s.below, s.above, s.count};
      ++miss;
    }
  }
}

std::string histogram_misses_summary(const std::vector<HistogramMiss>& misses) {
  std::ostringstream os;
  for (const HistogramMiss& m : misses) {
    if (m.below + m.above == 0) continue;
    if (os.tellp() > 0) os << "; ";
    const double percent = 100 * double(m.below + m.above) / double(m.count);
    os << m.observable << " " << std::setprecision(percent >= 1 ? 3 : 2) << percent << " % of "
       << m.count << " values outside [" << std::setprecision(6) << m.low << ", " << m.high << "] at t = " << m.time
       << " (" << m.below << " below, " << m.above << " above)";
  }
  return os.str();
}

index_t RunResult::failures() const {
  return std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
}

RunResult run_scenario(const Scenario& sc, const RunOptions& options, const OpenOutput& open, const MakeEnsemble& make) {
  const auto start = Clock::now();
  const ThreadCount threads(options.threads);
  RunResult result;
  result.bodies = sc.ensemble_size;
  result.steps = sc.time.steps;
  result.samples = sc.samples();
  result.threads = omp_get_max_threads();
  const index_t n = result.bodies;

  const BackendChoice backend = choose_backend(sc);
  result.backend = backend;
  const std::vector<Channel> layout = sample_channels(sc);
  const int scalars = channel_scalars(layout);
  const TrajectorySelection trajectories = select_trajectories(sc);
  result.trajectories = trajectories.description;
  std::optional<RunStatistics> stats;
  if (sc.statistics) stats.emplace(sc, layout, n);

  const OutputLayout file = output_layout(sc, trajectories);
  result.statistics = int(file.statistics.size());
  OpenedOutput opened = open(file, output_attributes(sc, backend.description, trajectories));
  RunOutput& out = *opened.output;
  if (!opened.resume) {
    if (sc.shard) write_shard_attributes(*sc.shard, sc.declared_size, out);
    write_parameters(sc, out, result);
  } else {
    result.redrawn_bodies = opened.resume->redrawn_bodies;
    result.redraws = opened.resume->redraws;
  }
  const std::unique_ptr<Ensemble> ensemble = make(sc, backend);
  const bool device_statistics = stats && stats->reduce_on_device(*ensemble, backend, sc.shard.has_value());
  // Samples leave the ensemble for trajectories and for statistics reduced here; else (statistics
  // on the GPU, no trajectories) only the statistics do.
  const bool samples_out = !trajectories.rows.empty() || (stats && !device_statistics);

  const double window_bytes = samples_out ? sample_buffer_bytes : device_window_bytes;
  const index_t max_samples = std::clamp<index_t>(
      index_t(window_bytes / (sizeof(double) * scalars * std::max<index_t>(n, 1))), 1, std::max<index_t>(sc.samples(), 1));
  // The sample window of a chunk (done, done + k]: samples j with done < j·stride ≤ done + k, at
  // most max_samples of them. Two buffers, from the ensemble (pinned for the GPU, whose copies then
  // overlap the next launch): the writer thread writes one window while the ensemble fills the other.
  const std::size_t buffer_size = samples_out ? std::size_t(max_samples * scalars * n) : 0;
  const auto allocate = [&] { return buffer_size ? ensemble->host_buffer(buffer_size) : HostBuffer(nullptr, [](double*) {}); };
  const HostBuffer buffers[2] = {allocate(), allocate()};
  // An exception with launches in flight: they complete before the buffers they copy into are freed.
  struct CompleteOnExit {
    Ensemble& ensemble;
    ~CompleteOnExit() {
      try {
        ensemble.complete(), ensemble.complete();  // at most two in flight
      } catch (...) {  // the error in flight is not the one being reported
      }
    }
  } complete_on_exit{*ensemble};
  // The samples the ensemble takes: those the host reads, or those it reduces on the GPU (into its
  // own buffers; data is null then); none at all when nothing is recorded but the final records.
  const bool samples_taken = samples_out || device_statistics;
  const auto view = [&](int buffer, index_t first, index_t count) {
    return SampleView<double>{samples_out ? buffers[buffer].get() : nullptr, n, first, samples_taken ? count : 0,
                              sc.stride, scalars};
  };
  index_t samples_written = 0;
  WindowWriter writer;
  const auto consume = [&](index_t first, index_t count, const double* samples, const Records& records,
                           ReducedRows reduced) {
    const std::vector<double> times = sample_times(sc, first, count);
    const auto t0 = Clock::now();
    out.write_samples(first, count, samples, times.data());
    const auto t1 = Clock::now();
    if (stats && count > 0) {
      const StatisticsRows rows = stats->add(first, count, samples, records, file.shard_statistics, std::move(reduced));
      out.write_statistics(first, rows.summaries);
      track_histogram_misses(*sc.statistics, rows, times.data(), result.histogram_misses);
      if (file.shard_statistics) out.write_statistics_states(first, rows.states);
    }
    result.write_seconds += std::chrono::duration<double>(t1 - t0).count();  // one window at a time: no race
    result.statistics_seconds += seconds_since(t1);
  };
  const auto records = [&] {  // for the statistics reduced here (none on the GPU)
    if (!stats || device_statistics) return Records{};
    Records r{ensemble->status(), ensemble->failed_step(), {}, {}};
    if (stats->needs_sample_aligned_chunks()) {
      r.newton_iterations = ensemble->newton_iterations();
      if (sc.time.adaptive) {
        const StepRecords steps = ensemble->step_records();
        for (std::size_t i = 0; i < steps.accepted.size(); ++i) r.attempts.push_back(steps.accepted[i] + steps.rejected[i]);
      }
    }
    return r;
  };
  index_t done = 0;
  if (opened.resume) {  // the initial state, then the checkpoint over it
    ensemble->initialize(view(0, 0, 0));
    const Checkpoint& c = opened.resume->checkpoint;
    ensemble->restore({c.steps_done, c.state, c.status, c.newton_iterations, c.failed_step, c.steps});
    if (stats) stats->restore(c);
    done = c.steps_done;
    samples_written = done / sc.stride + 1;
  } else {
    ensemble->initialize(view(0, 0, 1));
    consume(0, 1, buffers[0].get(), records(), stats ? stats->take_reduced(0, 1) : ReducedRows{});
    samples_written = 1;
  }

  index_t max_chunk = max_samples * sc.stride;
  if (options.max_chunk_steps > 0) max_chunk = std::min(max_chunk, options.max_chunk_steps);
  const bool aligned = stats && stats->needs_sample_aligned_chunks();
  index_t chunk = std::clamp<index_t>(index_t(first_chunk_body_steps / double(std::max<index_t>(n, 1))), 1, max_chunk);
  const auto loop_start = Clock::now();
  const index_t done_before = done, remaining = sc.time.steps - done;
  std::optional<ProgressBar> bar;
  // Launches in flight: the ensemble queues a launch behind the running one where it can (the
  // GPU), so that it never waits for the host between windows — not where the statistics are
  // reduced here, which need each window's records as they are when it ends.
  const bool pipelined = ensemble->queues() && (!stats || device_statistics);
  struct Launch {
    index_t first, count, steps;
    int buffer;
  };
  std::deque<Launch> in_flight;
  index_t completed = done;  // steps of the completed launches
  int filling = 0, writing = -1;  // the buffer the next window goes to, the one the writer thread holds
  const auto complete_oldest = [&] {
    ensemble->complete();
    const Launch l = in_flight.front();
    in_flight.pop_front();
    completed += l.steps;
    if (l.count == 0) return;
    writer.submit([&consume, samples = buffers[l.buffer].get(), first = l.first, count = l.count, r = records(),
                   reduced = stats ? stats->take_reduced(l.first, l.count) : ReducedRows{}]() mutable {
      consume(first, count, samples, r, std::move(reduced));
    });
    writing = l.buffer;
    samples_written = l.first + l.count;
  };
  while (done < sc.time.steps) {
    index_t k = std::min(chunk, sc.time.steps - done);
    if (aligned) k = std::min(k, (done / sc.stride + 1) * sc.stride - done);  // end at the next sample at the latest
    const index_t first = done / sc.stride + 1, count = (done + k) / sc.stride - first + 1;
    if (count > 0 && writing == filling) {  // the writer still holds this buffer
      writer.drain();
      writing = -1;
    }
    ensemble->launch(k, view(filling, first, count));
    in_flight.push_back({first, count, k, filling});
    if (count > 0) filling = 1 - filling;  // the next launch fills the other buffer while this one is written
    const bool first_chunk = done == done_before;
    done += k;
    // One launch waits queued behind the running one; the first completes at once, to pace the chunks.
    if (!pipelined || in_flight.size() == 2 || completed == done_before) complete_oldest();

    const double elapsed = seconds_since(loop_start);
    const double steps_per_second = double(completed - done_before) / std::max(elapsed, 1e-9);
    if (first_chunk && done < sc.time.steps && options.progress != ProgressMode::never) {
      const bool long_run = double(remaining) / steps_per_second > progress_threshold_s;
      if (options.progress == ProgressMode::always || (long_run && isatty(STDERR_FILENO))) bar.emplace(stderr, remaining, n);
    }
    if (bar) bar->update(completed - done_before, elapsed);
    chunk = std::clamp<index_t>(index_t(steps_per_second * chunk_seconds), 1, max_chunk);
    if (options.interrupt && *options.interrupt && done < sc.time.steps) {  // the chunks in flight are written
      result.interrupted = true;
      break;
    }
  }
  while (!in_flight.empty()) complete_oldest();
  writer.drain();
  result.loop_seconds = seconds_since(loop_start);
  if (bar && !result.interrupted) bar->finish(seconds_since(loop_start));
  if (bar && result.interrupted) std::fputc('\n', stderr);

  if (result.interrupted) {
    const EnsembleState state = ensemble->save();
    Checkpoint c{state.steps_done, state.state, state.status, state.newton_iterations, state.failed_step, {}, {}, state.steps};
    if (stats) stats->save(c);
    out.write_checkpoint(c);
  }
  out.write_body_results(ensemble->status(), ensemble->newton_iterations(), ensemble->failed_step());
  if (sc.time.adaptive) out.write_step_records(ensemble->step_records());
  out.mark_progress(!result.interrupted, samples_written);
  out.close();
  result.samples_written = samples_written;
  result.first_step = done_before;
  result.steps_done = done;
  result.bodies_in_lanes = ensemble->bodies_in_lanes();
  result.integration_gpu_seconds = ensemble->device_seconds();
  if (stats) result.statistics_gpu_seconds = stats->gpu_seconds();
  result.status = ensemble->status();
  result.failed_step = ensemble->failed_step();
  result.step_records = ensemble->step_records();
  for (index_t it : ensemble->newton_iterations()) result.newton_iterations += it;
  result.wall_seconds = seconds_since(start);
  return result;
}

RunResult run_scenario(const Scenario& sc, const RunOptions& options, const MakeEnsemble& make) {
  const std::string path = options.output.empty() ? sc.output_file : options.output;
  const auto open = [&](const OutputLayout& layout, const OutputAttributes& attributes) {
    auto file = std::make_unique<Hdf5Output>(path, layout, attributes,
                                             options.resume ? Hdf5Output::Mode::resume : Hdf5Output::Mode::create);
    OpenedOutput opened;
    if (options.resume) {
      opened.resume = ResumePoint{file->read_checkpoint(), 0, 0};
      if (sc.redraws) {
        opened.resume->redrawn_bodies = file->read_integer_attribute("redrawn_bodies");
        opened.resume->redraws = file->read_integer_attribute("redraws");
      }
    }
    opened.output = std::move(file);
    return opened;
  };
  RunResult result = run_scenario(sc, options, open, make);
  result.output_file = path;
  return result;
}

InterruptedRun read_interrupted_run(const std::string& file, std::optional<Backend> backend) {
  InterruptedRun r{read_stored_run(file), {}};
  if (r.run.complete) throw std::runtime_error(file + ": the run is complete (nothing to resume)");
  r.overrides.t_end = r.run.t_end;
  r.overrides.stride = r.run.stride;  // a --stride of the interrupted run (its samples were written at it)
  r.overrides.precision = parse_precision(r.run.precision);
  r.overrides.backend = backend ? *backend : r.run.backend.rfind("cuda", 0) == 0 ? Backend::cuda : Backend::cpu;
  r.overrides.bodies = r.run.bodies;
  return r;
}

Scenario load_interrupted_scenario(const std::string& file, std::optional<Backend> backend) {
  const InterruptedRun r = read_interrupted_run(file, backend);
  const Scenario sc = parse_scenario(r.run.scenario, file + " (its scenario)", r.overrides);
  return r.run.shard ? shard_scenario(sc, *r.run.shard) : sc;
}

bool simd_lanes_available() { return lanes::available(); }
std::string simd_lanes_isa() { return lanes::available() ? lanes::to_string(lanes::best_isa()) : ""; }

/// The summary's account of the CPU backend's SIMD lanes (cpu_lanes.hpp).
static std::string lanes_summary(const Scenario& sc, const RunResult& r) {
  const bool in_float = sc.precision == Precision::single_precision;
  const lanes::Isa isa = lanes::best_isa();
  const int width = in_float ? lanes::width<float>(isa) : lanes::width<double>(isa);
  if (r.bodies_in_lanes > 0)
    return std::string(lanes::to_string(isa)) + ", " + std::to_string(r.bodies_in_lanes) + " of " +
           std::to_string(r.bodies) + " bodies, " + std::to_string(width) + " per block";
  if (!lanes::built)
    return "none (built without them: QUATSTEP_CPU_LANES=OFF, as the README's first command builds, or a compiler "
           "or CPU family without AVX2; scripts/setup.sh --tests builds them)";
  if (in_float && !lanes::built_float) return "none (float lanes come with QUATSTEP_CPU_FLOAT=ON)";
  if (!lanes::available()) return "none (no AVX2 on this CPU, or QUATSTEP_SIMD=off)";
  if (r.bodies < width) return "none (fewer bodies than a block of " + std::to_string(width) + ")";
  return "none (no lane step for this method and model, or no block of bodies whose loads take the same branches)";
}

void print_summary(std::ostream& os, const Scenario& sc, const RunResult& r) {
  const auto [accepted, rejected, smallest, largest] = r.step_records.totals();
  // in this process (adaptive: all steps of the run, a resumed one's included)
  const double body_steps = sc.time.adaptive ? accepted : double(r.bodies) * double(r.steps_done - r.first_step);
  const auto row = [&](const char* name) -> std::ostream& { return os << "  " << std::left << std::setw(24) << name; };
  const MethodView& method = sc.integrator.view();
  os << "quatstep " << version << ": " << sc.model_view().info.name << ", " << method.info.name;
  if (method.has_variants()) os << " (variant " << method.variants[sc.integrator.variant].name << ")";
  os << " (" << settings_summary(sc.integrator.view().keys, sc.integrator.settings) << ")";
  os << (sc.time.adaptive ? ", adaptive steps, output every " : ", dt ") << sc.time.dt << "\n";
  row("bodies") << r.bodies << "\n";
  row(sc.time.adaptive ? "output intervals" : "steps") << r.steps << " (t = " << sc.time.t_start << " .. " << sc.time.t_end << ")";
  const char* unit = sc.time.adaptive ? "output time " : "step ";
  if (r.first_step > 0) os << ", resumed at " << unit << r.first_step;
  if (r.interrupted) os << ", interrupted at " << unit << r.steps_done;
  os << "\n";
  if (sc.time.adaptive)
    row("adaptive steps") << accepted << " accepted, " << rejected << " rejected (all bodies), h in [" << smallest << ", "
                          << largest << "] (/accepted_steps, /rejected_steps, /smallest_step, /largest_step)\n";
  row("backend") << r.backend.description << ", " << to_string(sc.precision) << "\n";
  if (r.backend.backend == Backend::cpu) {
    row("threads") << r.threads << "\n";
    row("SIMD lanes") << lanes_summary(sc, r) << "\n";
  }
  row("wall time") << std::setprecision(3) << r.wall_seconds << " s (integration loop " << r.loop_seconds
                    << " s, the rest setup and closing)\n";
  if (r.integration_gpu_seconds > 0) {
    row("GPU time") << std::setprecision(3) << r.integration_gpu_seconds << " s integrating";
    if (r.statistics_gpu_seconds > 0) os << ", " << r.statistics_gpu_seconds << " s reducing statistics";
    os << " (" << std::setprecision(3) << 100 * (r.integration_gpu_seconds + r.statistics_gpu_seconds) / std::max(r.loop_seconds, 1e-9)
       << " % of the loop)\n";
  }
  row("body-steps per second") << std::setprecision(3) << body_steps / std::max(r.wall_seconds, 1e-9) << " (loop alone "
                               << body_steps / std::max(r.loop_seconds, 1e-9) << ")\n";
  // Per step taken: a failed body took its steps up to the one that failed (that one's iterations
  // are counted too), not the run's.
  double taken = 0;
  for (index_t i = 0; i < r.bodies; ++i)
    taken += r.status[i] == Status::ok ? double(r.steps_done) : double(std::min(r.steps_done, r.failed_step[i] + 1));
  row("Newton iterations/step") << std::fixed << std::setprecision(2)
                                << double(r.newton_iterations) / std::max(1.0, sc.time.adaptive ? accepted + rejected : taken)
                                << std::defaultfloat << std::setprecision(6) << "\n";
  row("failures") << r.failures();
  constexpr int shown = 5;
  int listed = 0;
  for (index_t i = 0; i < r.bodies && listed < shown; ++i) {
    if (r.status[i] == Status::ok) continue;
    os << (listed++ ? ", " : " (") << "body " << i << ": " << to_string(r.status[i]) << " at step " << r.failed_step[i];
  }
  if (listed) os << (r.failures() > shown ? ", ...)" : ")");
  os << "\n";
  if (sc.redraws)
    row("redrawn bodies") << r.redrawn_bodies << " (" << r.redraws << " invalid draws thrown away; /redraws)\n";
  row("trajectories") << r.trajectories << "\n";
  if (r.statistics > 0) {
    row("statistics") << r.statistics << " observables";
    if (!sc.statistics->quantile_levels.empty()) os << ", " << sc.statistics->quantile_levels.size() << " quantiles";
    os << " (/statistics)\n";
    if (const std::string misses = histogram_misses_summary(r.histogram_misses); !misses.empty())
      row("histogram ranges") << misses << " ([output.statistics] low, high)\n";
  }
  row("output") << r.output_file << " (";
  if (r.interrupted) os << r.samples_written << " of ";  // what the file holds
  os << r.samples << " samples)\n";
}

}  // namespace quatstep
