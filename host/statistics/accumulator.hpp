// The statistics of one observable at one sample time over the bodies that reach it healthy:
// count, mean, standard deviation, min, max, quantiles and a fixed-bin histogram — each a function of
// the multiset of values alone, so that adding the values in any order, in any chunks, and merging
// partial accumulators in any order gives the same bits as one pass:
//   mean, std   exact sums (exact_sum.hpp), correctly rounded; std = √(unbiased variance), divisor n − 1
//   min, max    exact, in the total order that puts −0 before +0 (so ±0 do not depend on order)
//   quantiles   Hyndman & Fan's type 7 (numpy's and R's default): with the sorted values x_(0) … x_(n−1)
//               and h = (n − 1)·p, Q(p) = x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌊h⌋+1) − x_(⌊h⌋)). Exact order
//               statistics need the values: an accumulator asked for quantiles keeps them (8 bytes per
//               body) until it is summarised
//   histogram   counts per fixed bin (Bins), plus the values below and above the edges
// Values that are not finite (NaN, ±inf) are counted apart and left out of everything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "quatstep/config.hpp"
#include "statistics/exact_sum.hpp"

namespace quatstep::statistics {

struct StatisticsError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// `count` equal bins over [low, high]: bin b holds [e_b, e_{b+1}), the last one also high itself;
/// e_b = low + (high − low)·b/count, e_count = high.
class Bins {
 public:
  /// low < high, both finite, count >= 1; otherwise StatisticsError naming the parameter.
  Bins(double low, double high, int count);
  int count() const { return int(edges_.size()) - 1; }
  const std::vector<double>& edges() const { return edges_; }
  /// The bin of a finite x: −1 below low, count() above high.
  int locate(double x) const;

 private:
  std::vector<double> edges_;
};

/// One observable at one sample time.
struct Summary {
  std::int64_t count = 0;      ///< finite values
  std::int64_t nonfinite = 0;  ///< NaN or ±inf values, left out
  double mean, std, min, max;  ///< NaN without values (std: fewer than 2)
  std::vector<double> quantiles;        ///< one per level; NaN without values
  std::vector<std::int64_t> histogram;  ///< one per bin (empty without bins)
  std::int64_t below = 0, above = 0;    ///< finite values outside the bins' edges
};

/// x before y in the order −inf < … < −0 < +0 < … < +inf.
bool total_less(double x, double y);

/// An integer in total_less's order for every non-NaN double (its bits, the magnitude bits of the
/// negative ones flipped): min and max as integer atomics on the GPU (kernels/device_statistics.cu).
QS_HD inline std::int64_t total_order_key(double x) {
  std::int64_t k;
  std::memcpy(&k, &x, sizeof k);
  return k < 0 ? k ^ INT64_MAX : k;
}
QS_HD inline double from_total_order_key(std::int64_t k) {
  if (k < 0) k ^= INT64_MAX;
  double x;
  std::memcpy(&x, &k, sizeof x);
  return x;
}

/// Bins::locate on the edges e_0 … e_count (shared with the GPU reduction).
QS_HD inline int locate_bin(const double* edges, int count, double x) {
  if (x < edges[0]) return -1;
  if (x > edges[count]) return count;
  const double low = edges[0], high = edges[count];
  int b = int((x - low) / (high - low) * double(count));
  b = b < 0 ? 0 : b > count - 1 ? count - 1 : b;
  // The formula's guess, corrected against the edges themselves so that e_b <= x < e_{b+1}.
  while (b > 0 && x < edges[b]) --b;
  while (b < count - 1 && x >= edges[b + 1]) ++b;
  return b;
}

/// Where the type-7 quantile at level p of n sorted values lies: h = (n − 1)·p, k = ⌊h⌋ (at most
/// n − 1), f = h − k; Q(p) = x_(k), or x_(k) + f·(x_(k+1) − x_(k)) when `interpolates`.
struct QuantileRank {
  std::size_t k;
  double f;
  bool interpolates;
};
/// For n >= 1 values and a level p in [0, 1] (quantile_rank checks p); QS_HD: the GPU reduction
/// gathers the order statistics it names (kernels/device_statistics.cu).
QS_HD inline QuantileRank quantile_rank_of_checked_level(std::size_t n, double p) {
  const double h = double(n - 1) * p;
  const std::size_t k = std::size_t(h) < n - 1 ? std::size_t(h) : n - 1;
  const double f = h - double(k);
  return {k, f, f > 0 && k + 1 < n};
}
QuantileRank quantile_rank(std::size_t n, double p);
double quantile_value(const QuantileRank& r, double lower, double upper);

/// Everything an accumulator holds: a shard file stores it so that another process merges it with
/// the same bits as if the values had been added there.
struct AccumulatorState {
  std::int64_t count = 0, nonfinite = 0;
  ExactSum::Parts sum, sum_of_squares;
  double min, max;              ///< +inf and −inf without values
  std::vector<double> values;   ///< the finite values (kept for quantiles), any order
  std::vector<std::int64_t> histogram;
  std::int64_t below = 0, above = 0;
};

class Accumulator {
 public:
  /// keep_values: needed for quantiles; bins: null for no histogram.
  Accumulator(bool keep_values, std::shared_ptr<const Bins> bins);
  void add(double x);
  /// Adds the values of another accumulator of the same configuration.
  void merge(const Accumulator& other);
  /// The statistics; quantiles at `levels` (each in [0, 1]; needs keep_values).
  Summary summary(const std::vector<double>& levels) const;
  /// Values added, finite or not.
  std::int64_t added() const { return count_ + nonfinite_; }

  AccumulatorState state() const;
  /// The accumulator of `state` (StatisticsError when its histogram or values do not fit `bins` and
  /// `keep_values`).
  static Accumulator from_state(AccumulatorState state, bool keep_values, std::shared_ptr<const Bins> bins);

 private:
  std::int64_t count_ = 0, nonfinite_ = 0;
  ExactSum sum_, sum_of_squares_;
  double min_, max_;
  bool keep_values_;
  std::vector<double> values_;
  std::shared_ptr<const Bins> bins_;
  std::vector<std::int64_t> histogram_;
  std::int64_t below_ = 0, above_ = 0;
};

/// Type-7 quantiles of `values` (finite) at `levels`; reorders `values`.
std::vector<double> quantiles(std::vector<double>& values, const std::vector<double>& levels);

}  // namespace quatstep::statistics
