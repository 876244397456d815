#include "statistics/ensemble_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sampling/sampling_error.hpp"

namespace quatstep::statistics {
namespace {
constexpr index_t parallel_threshold = index_t(1) << 16;  // values below which threads cost more than they save
}  // namespace

EnsembleStatistics::EnsembleStatistics(StatisticsSpec spec, const ChannelLayout& layout, index_t samples,
                                       index_t steps_per_sample, index_t first_body, index_t bodies)
    : spec_(std::move(spec)), steps_per_sample_(steps_per_sample), first_body_(first_body), bodies_(bodies),
      accumulators_(std::size_t(samples)) {
  if (samples < 1 || steps_per_sample < 1 || first_body < 0 || bodies < 0)
    throw StatisticsError("samples, steps_per_sample >= 1 and a body range of bodies >= 0 needed");
  for (double p : spec_.quantile_levels)
    if (!(p >= 0 && p <= 1)) throw StatisticsError("quantile level " + sampling::format_number(p) + ", must be in [0, 1]");
  for (std::size_t k = 0; k < spec_.observables.size(); ++k) {
    const ObservableSpec& o = spec_.observables[k];
    for (std::size_t j = 0; j < k; ++j)
      if (spec_.observables[j].observable.name() == o.observable.name())
        throw StatisticsError("observable '" + o.observable.name() + "' declared twice");
    bound_.push_back(o.observable.bind(layout));
    bins_.push_back(o.bins ? std::make_shared<const Bins>(*o.bins) : nullptr);
    initial_.emplace_back(std::size_t(bound_.back().initial_width() * bodies), std::numeric_limits<double>::quiet_NaN());
  }
}

std::vector<Accumulator>& EnsembleStatistics::row(index_t sample) {
  if (sample < 0 || sample >= samples())
    throw StatisticsError("sample " + std::to_string(sample) + " outside 0 … " + std::to_string(samples() - 1));
  std::vector<Accumulator>& r = accumulators_[std::size_t(sample)];
  if (r.empty())
    for (std::size_t k = 0; k < bound_.size(); ++k) r.emplace_back(keeps_values(), bins_[k]);
  return r;
}

void health_from_sample(const double* sample, index_t n, std::vector<Status>& health, std::vector<index_t>& never) {
  health.resize(std::size_t(n));
  never.assign(std::size_t(n), -1);
  for (index_t i = 0; i < n; ++i) health[std::size_t(i)] = std::isnan(sample[i]) ? Status::non_finite : Status::ok;
}

void EnsembleStatistics::add(index_t sample, const SampleBlock& b) {
  if (b.first_body < first_body_ || b.first_body + b.bodies > first_body_ + bodies_ || b.stride < b.bodies)
    throw StatisticsError("bodies " + std::to_string(b.first_body) + " … " + std::to_string(b.first_body + b.bodies - 1) +
                          " outside this accumulation's " + std::to_string(first_body_) + " … " +
                          std::to_string(first_body_ + bodies_ - 1) + " (or stride < bodies)");
  if (b.status && !b.failed_step) throw StatisticsError("a block with statuses needs failed_step");
  std::vector<Accumulator>& r = row(sample);
  const index_t last_valid_step = sample * steps_per_sample_;
  // One observable per thread at a time: each accumulator sees its values in body order whatever
  // the thread count (the result would not depend on it anyway). Small blocks stay on one thread.
#pragma omp parallel for schedule(dynamic) if (b.bodies * index_t(bound_.size()) >= parallel_threshold)
  for (std::size_t k = 0; k < bound_.size(); ++k) {
    const Observable& o = bound_[k];
    const int w = o.initial_width();
    for (index_t i = 0; i < b.bodies; ++i) {
      if (b.status && b.status[i] != Status::ok && b.failed_step[i] < last_valid_step) continue;
      double* initial = initial_[k].data() + (b.first_body - first_body_ + i) * w;
      if (sample == 0) o.capture_initial(b.data + i, b.stride, initial);
      r[k].add(o.evaluate(b.data + i, b.stride, initial));
    }
  }
}

void EnsembleStatistics::merge(const EnsembleStatistics& other) {
  if (other.samples() != samples() || other.bound_.size() != bound_.size())
    throw StatisticsError("merge: different sample counts or observables");
  for (std::size_t k = 0; k < bound_.size(); ++k)
    if (other.bound_[k].definition() != bound_[k].definition() || other.bound_[k].name() != bound_[k].name())
      throw StatisticsError("merge: observable " + std::to_string(k) + " differs ('" + bound_[k].name() + "', '" +
                            other.bound_[k].name() + "')");
  for (index_t j = 0; j < samples(); ++j) {
    const std::vector<Accumulator>& from = other.accumulators_[std::size_t(j)];
    if (from.empty()) continue;
    std::vector<Accumulator>& to = row(j);
    for (std::size_t k = 0; k < to.size(); ++k) to[k].merge(from[k]);
  }
}

std::vector<Summary> EnsembleStatistics::summarize(index_t sample) const {
  if (sample < 0 || sample >= samples()) throw StatisticsError("sample " + std::to_string(sample) + " out of range");
  const std::vector<Accumulator>& r = accumulators_[std::size_t(sample)];
  std::vector<Summary> out(bound_.size());
  const index_t values = r.empty() ? 0 : r.front().added();
#pragma omp parallel for schedule(dynamic) if (values * index_t(bound_.size()) >= parallel_threshold)
  for (std::size_t k = 0; k < bound_.size(); ++k)
    out[k] = r.empty() ? Accumulator(keeps_values(), bins_[k]).summary(spec_.quantile_levels)
                       : r[k].summary(spec_.quantile_levels);
  return out;
}

std::vector<AccumulatorState> EnsembleStatistics::states(index_t sample) const {
  if (sample < 0 || sample >= samples()) throw StatisticsError("sample " + std::to_string(sample) + " out of range");
  const std::vector<Accumulator>& r = accumulators_[std::size_t(sample)];
  std::vector<AccumulatorState> out;
  for (std::size_t k = 0; k < bound_.size(); ++k)
    out.push_back(r.empty() ? Accumulator(keeps_values(), bins_[k]).state() : r[k].state());
  return out;
}

void EnsembleStatistics::restore_initial_values(std::size_t k, std::vector<double> values) {
  if (values.size() != initial_.at(k).size())
    throw StatisticsError("observable '" + bound_[k].name() + "': " + std::to_string(values.size()) + " initial values, needs " +
                          std::to_string(initial_[k].size()));
  initial_[k] = std::move(values);
}

bool EnsembleStatistics::pending() const {
  return std::any_of(accumulators_.begin(), accumulators_.end(), [](const auto& row) { return !row.empty(); });
}

void EnsembleStatistics::release(index_t sample) {
  if (sample >= 0 && sample < samples()) std::vector<Accumulator>().swap(accumulators_[std::size_t(sample)]);
}

}  // namespace quatstep::statistics
