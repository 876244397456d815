// Exact, order-independent sums of doubles: a superaccumulator of int64 limbs covering the whole
// double range (Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel
// reduction on many- and multi-core architectures", Parallel Computing 49, 2015; Neal, "Fast exact
// summation using small and large superaccumulators", arXiv:1505.05571, 2015).
//
// Every finite double is m·2^(p − 1074) with integers m < 2^53, 0 <= p <= 2045, so a sum of doubles is
// an integer times 2^-1074. It is held as Σ d_i·2^(32 i − 1074) in 68 int64 limbs: a value adds its
// mantissa, split at 32-bit boundaries, into three limbs (no rounding anywhere); carries are propagated
// every 2^30 additions and before the limbs are read. Integer addition is associative, so the sum —
// and everything computed from it — is the same bits for any order of the values, any split into
// chunks or shards and any order of merging them. Why not a binned sum (ReproBLAS, Demmel & Nguyen):
// it is reproducible but not exact, and the variance below needs the exact sums: n·Σx² − (Σx)²
// cancels almost completely when the spread is far below the mean (energies of 10² with a spread of
// 10⁻¹², the case of energy conservation).
//
// Results are correctly rounded (to nearest, ties to even) from the exact integers, using
// Boost.Multiprecision's cpp_int for the few multiplications and divisions of the final step:
//   exact_mean     = round(Σx / n)
//   exact_variance = round((n·Σx² − (Σx)²) / (n (n − 1)))   (the unbiased variance)
// Σx² is exact too: x·x = p + e exactly (p = fl(x·x), e = fma(x, x, −p)), both added; e loses bits only
// when it falls below the smallest subnormal (|x| < ~1e-154), and x² overflows for |x| > ~1.3e154
// (then the variance is inf). The sums themselves hold up to ~2^64 values of any finite magnitude.
#pragma once

#include <array>
#include <cstdint>

namespace quatstep::statistics {

class ExactSum {
 public:
  static constexpr int limb_bits = 32;
  static constexpr int limbs = 68;  ///< bits 0 … 2175 above 2^-1074: the double range, 2^64 values

  /// Adds x. Non-finite values are summed apart in floating point (inf + −inf = NaN, in any order)
  /// and that is the result when there is any.
  void add(double x);
  /// Adds x² exactly (two terms).
  void add_square(double x);
  /// Adds another sum: the result is the sum of both sets of values, exactly.
  void merge(const ExactSum& other);
  /// The sum correctly rounded to a double (±inf beyond the double range).
  double value() const;

  /// What a sum holds, to store it (shard files) and continue it elsewhere: the limbs with their
  /// carries propagated, and the sum of the non-finite values.
  struct Parts {
    std::array<std::int64_t, limbs> limb{};
    double special = 0;
  };
  Parts parts() const;
  /// The sum of `parts`: merging it gives the same bits as merging the sum that gave them.
  static ExactSum from_parts(const Parts& parts);

  friend double exact_mean(const ExactSum& sum, std::int64_t n);
  friend double exact_variance(const ExactSum& sum, const ExactSum& sum_of_squares, std::int64_t n);

 private:
  /// Carries propagated: limbs 0 … limbs − 2 in [0, 2^32), the top one signed.
  void normalize();
  std::array<std::int64_t, limbs> limb_{};
  std::int64_t bound_ = 0;  ///< |limb| < (bound_ + 1)·2^32
  double special_ = 0;      ///< the sum of the non-finite values added
};

/// Σx/n correctly rounded; NaN for n = 0.
double exact_mean(const ExactSum& sum, std::int64_t n);
/// (n·Σx² − (Σx)²)/(n(n − 1)) correctly rounded, >= 0; NaN for n < 2.
double exact_variance(const ExactSum& sum, const ExactSum& sum_of_squares, std::int64_t n);

}  // namespace quatstep::statistics
