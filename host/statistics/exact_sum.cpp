#include "statistics/exact_sum.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <boost/multiprecision/cpp_int.hpp>

namespace quatstep::statistics {
namespace {

using boost::multiprecision::cpp_int;
constexpr std::int64_t carry_every = std::int64_t(1) << 30;  // additions between carry propagations
constexpr int lowest_exponent = -1074;                         // weight of bit 0 of the integer

/// The exact integer I of a normalised sum: the sum is I·2^-1074.
cpp_int to_integer(const std::array<std::int64_t, ExactSum::limbs>& limb) {
  cpp_int x = limb.back();
  for (int i = ExactSum::limbs - 2; i >= 0; --i) x = (x << ExactSum::limb_bits) + limb[i];
  return x;
}

/// x·2^exponent correctly rounded to nearest (ties to even), with subnormals and overflow to ±inf.
double round_scaled(cpp_int x, long exponent) {
  if (x == 0) return 0.0;
  const bool negative = x < 0;
  if (negative) x = -x;
  const long top = long(boost::multiprecision::msb(x));            // x ∈ [2^top, 2^(top+1))
  const long keep = std::min<long>(53, top + exponent + 1075);       // significant bits the result can hold
  const long drop = top + 1 - keep;
  double r;
  if (drop <= 0) {
    r = std::ldexp(double(static_cast<std::uint64_t>(x)), int(exponent));  // x < 2^53: exact
  } else {
    cpp_int q = x >> drop;
    const cpp_int rest = x - (q << drop), half = cpp_int(1) << (drop - 1);
    if (rest > half || (rest == half && (q & 1) != 0)) ++q;
    r = std::ldexp(double(static_cast<std::uint64_t>(q)), int(drop + exponent));  // q <= 2^53
  }
  return negative ? -r : r;
}

/// (num/den)·2^exponent correctly rounded, den > 0: a quotient of at least 55 bits and a sticky bit
/// for the remainder decide the rounding exactly.
double round_quotient(const cpp_int& num, const cpp_int& den, long exponent) {
  if (num == 0) return 0.0;
  const cpp_int magnitude = num < 0 ? cpp_int(-num) : num;
  const long shift = std::max<long>(0, long(boost::multiprecision::msb(den)) - long(boost::multiprecision::msb(magnitude)) + 55);
  cpp_int q, r;
  boost::multiprecision::divide_qr(cpp_int(magnitude << shift), den, q, r);
  q = (q << 1) | cpp_int(r != 0 ? 1 : 0);
  const double result = round_scaled(q, exponent - shift - 1);
  return num < 0 ? -result : result;
}

}  // namespace

void ExactSum::add(double x) {
  if (!std::isfinite(x)) {
    special_ += x;
    return;
  }
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = int((bits >> 52) & 0x7ff);
  std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
  if (biased != 0) m |= std::uint64_t(1) << 52;       // normal: implicit bit
  const int p = biased == 0 ? 0 : biased - 1;          // x = m·2^(p − 1074)
  const int i = p / limb_bits, shift = p % limb_bits;
  // m·2^shift < 2^85 in three 32-bit pieces: the low 64 bits and what is shifted out above them.
  const std::uint64_t low = m << shift, high = shift ? m >> (64 - shift) : 0;
  const auto d0 = std::int64_t(low & 0xffffffffu), d1 = std::int64_t(low >> 32), d2 = std::int64_t(high);
  if (bits >> 63) {
    limb_[i] -= d0, limb_[i + 1] -= d1, limb_[i + 2] -= d2;
  } else {
    limb_[i] += d0, limb_[i + 1] += d1, limb_[i + 2] += d2;
  }
  if (++bound_ >= carry_every) normalize();
}

void ExactSum::add_square(double x) {
  const double p = x * x;
  add(p);
  if (std::isfinite(p)) add(std::fma(x, x, -p));  // the rounding error of p, exact below overflow
}

void ExactSum::merge(const ExactSum& other) {
  for (int i = 0; i < limbs; ++i) limb_[i] += other.limb_[i];
  special_ += other.special_;
  bound_ += other.bound_ + 1;
  if (bound_ >= carry_every) normalize();
}

void ExactSum::normalize() {
  for (int i = 0; i + 1 < limbs; ++i) {
    const std::int64_t carry = limb_[i] >> limb_bits;  // floor division by 2^32
    limb_[i] -= carry * (std::int64_t(1) << limb_bits);
    limb_[i + 1] += carry;
  }
  bound_ = 0;
}

ExactSum::Parts ExactSum::parts() const {
  ExactSum s = *this;
  s.normalize();
  return {s.limb_, s.special_};
}

ExactSum ExactSum::from_parts(const Parts& parts) {
  ExactSum s;
  s.limb_ = parts.limb;
  s.special_ = parts.special;
  s.bound_ = 1;  // normalised limbs: |limb| < 2^32
  return s;
}

double ExactSum::value() const {
  if (special_ != 0) return special_;
  ExactSum s = *this;
  s.normalize();
  return round_scaled(to_integer(s.limb_), lowest_exponent);
}

double exact_mean(const ExactSum& sum, std::int64_t n) {
  if (n <= 0) return std::numeric_limits<double>::quiet_NaN();
  if (sum.special_ != 0) return sum.special_;
  ExactSum s = sum;
  s.normalize();
  return round_quotient(to_integer(s.limb_), cpp_int(n), lowest_exponent);
}

double exact_variance(const ExactSum& sum, const ExactSum& sum_of_squares, std::int64_t n) {
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  if (sum.special_ != 0 || sum_of_squares.special_ != 0) return sum.special_ + sum_of_squares.special_;
  ExactSum s1 = sum, s2 = sum_of_squares;
  s1.normalize();
  s2.normalize();
  const cpp_int a = to_integer(s1.limb_), b = to_integer(s2.limb_);
  // n·Σx² − (Σx)² = (n·b·2^1074 − a²)·2^-2148
  const cpp_int numerator = cpp_int(n) * (b << -lowest_exponent) - a * a;
  if (numerator <= 0) return 0.0;  // only when Σx² lost bits below the subnormals (exact_sum.hpp)
  return round_quotient(numerator, cpp_int(n) * cpp_int(n - 1), 2 * lowest_exponent);
}

}  // namespace quatstep::statistics
