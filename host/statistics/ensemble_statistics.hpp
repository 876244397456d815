// Per-sample statistics of an ensemble, computed where the samples are: the run loop hands each
// sample's [channel][body] block (the SampleView layout of ensemble.hpp) to add(), reads the row
// with summarize() and frees it with release(). Chunks of bodies, shards and threads each fill their
// own EnsembleStatistics and merge() them in any order: the result is the same bits as one pass
// (accumulator.hpp says why), for any thread count.
//
// A body counts at sample j while it is healthy there: status ok, or it failed at a step k with
// j·steps_per_sample <= k (the samples before its failure). Bodies rejected before the run
// (invalid_input, failed_step −1) never count. Runs whose failures are off that grid (adaptive steps,
// mechanisms) pass the health read from each sample instead (health_from_sample).
//
// Where the run loop calls it (sketch):
//   EnsembleStatistics stats(spec, ChannelLayout::of(sample_channels(scenario)), samples, stride, 0, n);
//   stats.add(0, {buffer, n, 0, n, status, failed_step});   // sample 0 also keeps the drifts' x₀
//   write_row(0, stats.summarize(0)); stats.release(0);
//   ... after each advance, for each sample j of the window:
//   stats.add(j, {buffer + (j − first)·scalars·n, n, 0, n, status, failed_step}); ...
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "statistics/accumulator.hpp"
#include "statistics/observable.hpp"

namespace quatstep::statistics {

struct ObservableSpec {
  Observable observable;
  std::optional<Bins> bins;  ///< histogram bins; none: no histogram
};

struct StatisticsSpec {
  std::vector<ObservableSpec> observables;
  /// Quantile levels in [0, 1]; empty: no quantiles, and no values kept. Default: 1, 5, 25, 50, 75,
  /// 95, 99 %.
  std::vector<double> quantile_levels{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
};

/// One sample's summaries reduced where the samples are (cuda::DeviceStatistics): those of the
/// observables of the sampled channels and those of the per-step Newton iterations, each in its
/// spec's order.
struct ReducedSample {
  std::vector<Summary> sampled, newton;
};

/// One sample time of bodies [first_body, first_body + bodies).
struct SampleBlock {
  const double* data;   ///< channel number c of local body i at data[c·stride + i]
  index_t stride;       ///< >= bodies: the bodies of the buffer (SampleView::bodies)
  index_t first_body;   ///< global index of local body 0
  index_t bodies;
  const Status* status = nullptr;        ///< per local body; null: all healthy
  const index_t* failed_step = nullptr;  ///< per local body (−1: none); needed with status
};

/// A run's health read from one sample, where its failures do not fall on the samples' step grid
/// (adaptive steps, whose failed_step counts accepted steps; mechanisms): a body or mechanism counts
/// while its sample is not NaN, a failed one's samples being NaN from its failure on. Writes ok or
/// non_finite per body into `health` (n entries) and −1 into `never` (pass both as the block's
/// status and failed_step).
void health_from_sample(const double* sample, index_t n, std::vector<Status>& health, std::vector<index_t>& never);

class EnsembleStatistics {
 public:
  /// Observables bound to `layout` (StatisticsError naming one that cannot be); `samples` sample
  /// times, `steps_per_sample` steps apart (the output stride); this accumulation holds the drifts'
  /// x₀ of bodies [first_body, first_body + bodies).
  EnsembleStatistics(StatisticsSpec spec, const ChannelLayout& layout, index_t samples, index_t steps_per_sample,
                     index_t first_body, index_t bodies);

  /// Sample `sample` of the block's bodies (all within this accumulation's range). Sample 0 also
  /// keeps their x₀; a drift of a body whose sample 0 was not added here is NaN (non-finite).
  void add(index_t sample, const SampleBlock& block);
  /// Adds another accumulation of the same spec and sample count (other bodies).
  void merge(const EnsembleStatistics& other);
  /// One Summary per observable, in the spec's order.
  std::vector<Summary> summarize(index_t sample) const;
  /// One AccumulatorState per observable, in the spec's order: what a shard stores of a sample
  /// (Accumulator::from_state() with keeps_values() and bins(k) continues it).
  std::vector<AccumulatorState> states(index_t sample) const;
  bool keeps_values() const { return !spec_.quantile_levels.empty(); }
  const std::shared_ptr<const Bins>& bins(std::size_t k) const { return bins_.at(k); }
  /// Frees a sample's accumulators (its values, with quantiles) once it is written.
  void release(index_t sample);

  /// The drifts' x₀ of observable k (initial_width() per body, NaN where sample 0 was not added;
  /// empty for the others): with no sample pending (each added sample released), all a checkpoint
  /// of the accumulation needs.
  const std::vector<double>& initial_values(std::size_t k) const { return initial_.at(k); }
  /// Continue an accumulation from its checkpoint: observable k's initial_values().
  void restore_initial_values(std::size_t k, std::vector<double> values);
  /// Whether a sample has values added and not released.
  bool pending() const;

  const StatisticsSpec& spec() const { return spec_; }
  index_t samples() const { return index_t(accumulators_.size()); }

 private:
  std::vector<Accumulator>& row(index_t sample);

  StatisticsSpec spec_;
  std::vector<Observable> bound_;
  std::vector<std::shared_ptr<const Bins>> bins_;
  index_t steps_per_sample_, first_body_, bodies_;
  std::vector<std::vector<double>> initial_;           ///< per observable: initial_width() per body
  std::vector<std::vector<Accumulator>> accumulators_;  ///< per sample (empty until used): per observable
};

}  // namespace quatstep::statistics
