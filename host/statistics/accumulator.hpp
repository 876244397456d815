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

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

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
