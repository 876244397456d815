#include "statistics/accumulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "sampling/sampling_error.hpp"

namespace quatstep::statistics {
namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();
}  // namespace

Bins::Bins(double low, double high, int count) {
  using sampling::format_number;
  if (!std::isfinite(low)) throw StatisticsError("low: " + format_number(low) + ", must be finite");
  if (!std::isfinite(high)) throw StatisticsError("high: " + format_number(high) + ", must be finite");
  if (!(low < high)) throw StatisticsError("low: " + format_number(low) + ", must be < high (" + format_number(high) + ")");
  if (!std::isfinite(high - low)) throw StatisticsError("high: too far from low: high - low overflows");
  if (count < 1) throw StatisticsError("bins: " + std::to_string(count) + ", must be >= 1");
  edges_.resize(std::size_t(count) + 1);
  for (int b = 0; b < count; ++b) edges_[b] = low + (high - low) * double(b) / double(count);
  edges_[count] = high;
}

int Bins::locate(double x) const { return locate_bin(edges_.data(), count(), x); }

bool total_less(double x, double y) { return x < y || (x == y && std::signbit(x) && !std::signbit(y)); }

Accumulator::Accumulator(bool keep_values, std::shared_ptr<const Bins> bins)
    : min_(inf), max_(-inf), keep_values_(keep_values), bins_(std::move(bins)), histogram_(bins_ ? bins_->count() : 0, 0) {}

void Accumulator::add(double x) {
  if (!std::isfinite(x)) {
    ++nonfinite_;
    return;
  }
  ++count_;
  sum_.add(x);
  sum_of_squares_.add_square(x);
  if (total_less(x, min_)) min_ = x;
  if (total_less(max_, x)) max_ = x;
  if (keep_values_) values_.push_back(x);
  if (bins_) {
    const int b = bins_->locate(x);
    if (b < 0) ++below_;
    else if (b >= bins_->count()) ++above_;
    else ++histogram_[b];
  }
}

void Accumulator::merge(const Accumulator& o) {
  count_ += o.count_;
  nonfinite_ += o.nonfinite_;
  sum_.merge(o.sum_);
  sum_of_squares_.merge(o.sum_of_squares_);
  if (total_less(o.min_, min_)) min_ = o.min_;
  if (total_less(max_, o.max_)) max_ = o.max_;
  values_.insert(values_.end(), o.values_.begin(), o.values_.end());
  for (std::size_t b = 0; b < histogram_.size(); ++b) histogram_[b] += o.histogram_[b];
  below_ += o.below_;
  above_ += o.above_;
}

AccumulatorState Accumulator::state() const {
  return {count_, nonfinite_, sum_.parts(), sum_of_squares_.parts(), min_, max_, values_, histogram_, below_, above_};
}

Accumulator Accumulator::from_state(AccumulatorState s, bool keep_values, std::shared_ptr<const Bins> bins) {
  Accumulator a(keep_values, std::move(bins));
  if (s.histogram.size() != a.histogram_.size())
    throw StatisticsError("a stored accumulator with " + std::to_string(s.histogram.size()) + " bins, needs " +
                          std::to_string(a.histogram_.size()));
  if (keep_values && s.values.size() != std::size_t(s.count))
    throw StatisticsError("a stored accumulator with " + std::to_string(s.values.size()) + " values for " +
                          std::to_string(s.count) + " finite ones");
  a.count_ = s.count;
  a.nonfinite_ = s.nonfinite;
  a.sum_ = ExactSum::from_parts(s.sum);
  a.sum_of_squares_ = ExactSum::from_parts(s.sum_of_squares);
  a.min_ = s.min;
  a.max_ = s.max;
  if (keep_values) a.values_ = std::move(s.values);
  a.histogram_ = std::move(s.histogram);
  a.below_ = s.below;
  a.above_ = s.above;
  return a;
}

Summary Accumulator::summary(const std::vector<double>& levels) const {
  Summary s;
  s.count = count_;
  s.nonfinite = nonfinite_;
  s.mean = exact_mean(sum_, count_);
  s.std = std::sqrt(exact_variance(sum_, sum_of_squares_, count_));
  s.min = count_ ? min_ : nan;
  s.max = count_ ? max_ : nan;
  if (!levels.empty()) {
    if (!keep_values_) throw StatisticsError("quantiles asked of an accumulator that keeps no values");
    std::vector<double> values = values_;
    s.quantiles = quantiles(values, levels);
  }
  s.histogram = histogram_;
  s.below = below_;
  s.above = above_;
  return s;
}

std::vector<double> quantiles(std::vector<double>& x, const std::vector<double>& levels) {
  const std::size_t n = x.size();
  std::vector<double> q(levels.size(), nan);
  if (n == 0) return q;
  // Levels in increasing order, each selection working above the previous one. Invariant: every
  // x[i < done] <= every x[i >= done], and the ranks asked since the last nth_element (all >= its
  // rank, as the levels increase) hold their order statistics.
  std::size_t done = 0;
  const auto order_statistic = [&](std::size_t k) {
    if (k < done) return x[k];
    if (k == done) {
      std::iter_swap(x.begin() + k, std::min_element(x.begin() + k, x.end(), total_less));
    } else {
      std::nth_element(x.begin() + done, x.begin() + k, x.end(), total_less);
    }
    done = k + 1;
    return x[k];
  };
  std::vector<std::size_t> order(levels.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return levels[a] < levels[b]; });
  for (std::size_t i : order) {
    const QuantileRank r = quantile_rank(n, levels[i]);
    const double lower = order_statistic(r.k);
    q[i] = quantile_value(r, lower, r.interpolates ? order_statistic(r.k + 1) : lower);
  }
  return q;
}

QuantileRank quantile_rank(std::size_t n, double p) {
  if (!(p >= 0 && p <= 1)) throw StatisticsError("quantile level " + sampling::format_number(p) + ", must be in [0, 1]");
  return quantile_rank_of_checked_level(n, p);
}

double quantile_value(const QuantileRank& r, double lower, double upper) {
  return r.interpolates ? lower + r.f * (upper - lower) : lower;
}

}  // namespace quatstep::statistics
