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
  const LimbPieces v = limb_pieces(x);
  for (int k = 0; k < 3; ++k) limb_[v.limb + k] += v.negative ? -v.d[k] : v.d[k];
  if (++bound_ >= carry_every) normalize();
}

void ExactSum::add_square(double x) {
  double p, e;
  square_terms(x, p, e);
  add(p);
  if (std::isfinite(p)) add(e);  // the rounding error of p, exact below overflow
}

void ExactSum::merge(const ExactSum& other) {
  for (int i = 0; i < limbs; ++i) limb_[i] += other.limb_[i];
  special_ += other.special_;
  bound_ += other.bound_ + 1;
  if (bound_ >= carry_every) normalize();
}

void ExactSum::normalize() {
  propagate_carries(limb_.data(), limbs);
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
