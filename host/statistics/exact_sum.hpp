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
#include <cmath>
#include <cstdint>
#include <cstring>

#include "quatstep/config.hpp"

namespace quatstep::statistics {

/// A finite x as ±(d[0] + d[1]·2^32 + d[2]·2^64)·2^(32·limb − 1074): the three pieces ExactSum::add
/// adds to (or, negative, subtracts from) limbs limb, limb + 1, limb + 2. QS_HD: the GPU reduction
/// (kernels/device_statistics.cu) splits values with the same lines.
struct LimbPieces {
  int limb;
  bool negative;
  std::int64_t d[3];
};
QS_HD inline LimbPieces limb_pieces(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = int((bits >> 52) & 0x7ff);
  std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
  if (biased != 0) m |= std::uint64_t(1) << 52;  // normal: implicit bit
  const int p = biased == 0 ? 0 : biased - 1;     // x = m·2^(p − 1074)
  const int shift = p % 32;
  // m·2^shift < 2^85 in three 32-bit pieces: the low 64 bits and what is shifted out above them.
  const std::uint64_t low = m << shift, high = shift ? m >> (64 - shift) : 0;
  return {p / 32, bool(bits >> 63), {std::int64_t(low & 0xffffffffu), std::int64_t(low >> 32), std::int64_t(high)}};
}

/// x·x = p + e exactly, p = fl(x·x), e = fma(x, x, −p), when p is finite (e = 0 otherwise): the
/// two terms ExactSum::add_square adds.
QS_HD inline void square_terms(double x, double& p, double& e) {
  using std::fma;
  using std::isfinite;
  p = x * x;
  e = isfinite(p) ? fma(x, x, -p) : 0.0;
}

/// Carries propagated through n limbs of 32 bits: limbs 0 … n − 2 end in [0, 2^32), the top one
/// signed (floor division by 2^32 with an arithmetic shift).
QS_HD inline void propagate_carries(std::int64_t* limb, int n) {
  for (int i = 0; i + 1 < n; ++i) {
    const std::int64_t carry = limb[i] >> 32;
    limb[i] -= carry * (std::int64_t(1) << 32);
    limb[i + 1] += carry;
  }
}

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

static_assert(ExactSum::limb_bits == 32, "limb_pieces and propagate_carries split at 32 bits");

/// Σx/n correctly rounded; NaN for n = 0.
double exact_mean(const ExactSum& sum, std::int64_t n);
/// (n·Σx² − (Σx)²)/(n(n − 1)) correctly rounded, >= 0; NaN for n < 2.
double exact_variance(const ExactSum& sum, const ExactSum& sum_of_squares, std::int64_t n);

}  // namespace quatstep::statistics
