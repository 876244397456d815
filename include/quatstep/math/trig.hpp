// Portable sin and cos for float and double: only + − × ÷ on IEEE numbers, no FMA, no library
// call, so g++ (-ffp-contract=off) and nvcc (--fmad=false) return the same bits (strict mode).
//
// Method: x = k·π/2 + r, |r| ≤ π/4 (plus rounding), with k the nearest integer to x·2/π.
//   Reduction (Cody–Waite): π/2 = P1 + P2 + P3 + P4, where P1..P3 have few enough significant bits
//   that k·Pi is exact while |k| < 2^Q (Q = 20 for double, 12 for float). x − k·P1 is then exact
//   (Sterbenz), and each further piece is subtracted with an error-free sum, so r is carried as
//   hi + lo to about twice working precision, also when it nearly cancels (x near a multiple of π/2).
//   Kernels on [−π/4, π/4]: Taylor polynomials with coefficients ±1/n! (sin to r¹⁷, cos to r¹⁶ in
//   double; sin to r⁹, cos to r¹⁰ in float; truncation ≤ 0.03 ulp at π/4), corrected for lo.
// All constants come from scripts/trig_constants.py (π by Machin's formula in 400-bit integer
// arithmetic, each constant rounded to nearest at its bit count) and are written as hex floats,
// which the compiler reads exactly.
//
// Accuracy (tests/trig_test.cpp, against long double sinl/cosl; measured figures there):
//   |x| ≤ accurate_below (double 1.6e6, float 6400): < 0.8 ulp (measured max 0.78 in both).
//   accurate_below < |x| ≤ max_argument (double 2^50, float 2^21): k·P1 is rounded, so r is off by
//     up to ~ulp(x)/2 — as uncertain as the argument itself; absolute error ≤ ulp(x) (measured
//     0.50 ulp(x) in double, 0.65 in float).
//     Still the same bits on every platform.
//   |x| > max_argument: NaN (ulp(x) ≥ 0.25 rad there, no phase is left; a NaN marks the body as
//     failed rather than returning noise). NaN or ±Inf in → NaN out. sin(±0) = ±0, subnormals exact.
#pragma once

#include <limits>

#include "quatstep/config.hpp"

namespace quatstep::math {
namespace detail {

template <class S>
struct TrigConstants;

template <>
struct TrigConstants<double> {
  static constexpr double accurate_below = 1.6e6;     // |k| < 2^20: k·P1, k·P2, k·P3 exact
  static constexpr double max_argument = 0x1p+50;     // round-to-integer trick below needs |x·2/π| < 2^51
  static constexpr double round_magic = 0x1.8p+52;    // 1.5·2^52
  static constexpr double tiny = 0x1p-27;             // below: sin x = x, cos x = 1 after rounding
  static constexpr double pi_4 = 0x1.921fb54442d18p-1;  // π/4 rounded (only a branch point)
  static constexpr double two_over_pi = 0x1.45f306dc9c883p-1;
  static constexpr double pio2_1 = 0x1.921fb544p+0;         // 33 bits
  static constexpr double pio2_2 = 0x1.0b4611a6p-34;        // 33 bits
  static constexpr double pio2_3 = 0x1.3198a2ep-69;         // 33 bits
  static constexpr double pio2_4 = 0x1.b839a252049c1p-104;  // 53 bits; |π/2 − ΣPi| = 2^-160
  /// sin r = r + r·z·sin_poly(z), z = r²: coefficients of z⁰..z⁷ = −1/3!, +1/5!, …, +1/17!.
  template <class T>
  QS_HD static T sin_poly(T z) {
    return T(-0x1.5555555555555p-3) +
           z * (T(0x1.1111111111111p-7) +
                z * (T(-0x1.a01a01a01a01ap-13) +
                     z * (T(0x1.71de3a556c734p-19) +
                          z * (T(-0x1.ae64567f544e4p-26) +
                               z * (T(0x1.6124613a86d09p-33) + z * (T(-0x1.ae7f3e733b81fp-41) + z * T(0x1.952c77030ad4ap-49)))))));
  }
  /// cos r = 1 − z/2 + z²·cos_poly(z): coefficients of z⁰..z⁶ = +1/4!, −1/6!, …, +1/16!.
  template <class T>
  QS_HD static T cos_poly(T z) {
    return T(0x1.5555555555555p-5) +
           z * (T(-0x1.6c16c16c16c17p-10) +
                z * (T(0x1.a01a01a01a01ap-16) +
                     z * (T(-0x1.27e4fb7789f5cp-22) +
                          z * (T(0x1.1eed8eff8d898p-29) + z * (T(-0x1.93974a8c07c9dp-37) + z * T(0x1.ae7f3e733b81fp-45))))));
  }
};

template <>
struct TrigConstants<float> {
  static constexpr float accurate_below = 6400.0f;   // |k| < 2^12
  static constexpr float max_argument = 0x1p+21f;    // |x·2/π| < 2^22
  static constexpr float round_magic = 0x1.8p+23f;   // 1.5·2^23
  static constexpr float tiny = 0x1p-13f;
  static constexpr float pi_4 = 0x1.921fb6p-1f;
  static constexpr float two_over_pi = 0x1.45f306p-1f;
  static constexpr float pio2_1 = 0x1.922p+0f;       // 12 bits
  static constexpr float pio2_2 = -0x1.2aep-18f;     // 12 bits
  static constexpr float pio2_3 = -0x1.deap-31f;     // 12 bits
  static constexpr float pio2_4 = 0x1.184698p-44f;   // 24 bits; |π/2 − ΣPi| = 2^-68.7
  template <class T>
  QS_HD static T sin_poly(T z) {  // −1/3!, +1/5!, −1/7!, +1/9!
    return T(-0x1.555556p-3f) + z * (T(0x1.111112p-7f) + z * (T(-0x1.a01a02p-13f) + z * T(0x1.71de3ap-19f)));
  }
  template <class T>
  QS_HD static T cos_poly(T z) {  // +1/4!, −1/6!, +1/8!, −1/10!
    return T(0x1.555556p-5f) + z * (T(-0x1.6c16c2p-10f) + z * (T(0x1.a01a02p-16f) + z * T(-0x1.27e4fcp-22f)));
  }
};

/// s + e = a + b exactly (Knuth's two-sum, no precondition on the magnitudes).
template <class S>
QS_HD void two_sum(S a, S b, S& s, S& e) {
  s = a + b;
  const S bv = s - a;
  e = (a - (s - bv)) + (b - bv);
}

/// k, the integer nearest x·2/π (ties to even), as a number of type S; |x·2/π| < 2^51 (double).
template <class S>
QS_HD S nearest_quadrant(S x) {
  using C = TrigConstants<S>;
  return (x * S(C::two_over_pi) + S(C::round_magic)) - S(C::round_magic);
}

/// hi + lo = x − k·π/2 to about twice working precision, |lo| ≤ ulp(hi).
template <class S>
QS_HD void subtract_quadrants(S x, S k, S& hi, S& lo) {
  using C = TrigConstants<S>;
  const S r1 = x - k * S(C::pio2_1);  // exact (Sterbenz) while k·P1 is
  S r2, e2, r3, e3, e4;
  two_sum(r1, -(k * S(C::pio2_2)), r2, e2);
  two_sum(r2, -(k * S(C::pio2_3)), r3, e3);
  two_sum(r3, -(k * S(C::pio2_4)), hi, e4);
  const S tail = e2 + e3 + e4;
  const S h = hi + tail;  // renormalise: |tail| ≤ ulp(hi)
  lo = tail - (h - hi);
  hi = h;
}

/// r = hi + lo ≈ x − k·π/2 and the quadrant k mod 4, for finite |x| ≤ max_argument.
template <class S>
QS_HD void reduce(S x, S& hi, S& lo, int& quadrant) {
  using C = TrigConstants<S>;
  const S a = x < S(0) ? -x : x;
  if (a <= C::pi_4) {
    hi = x;
    lo = S(0);
    quadrant = 0;
    return;
  }
  const S k = nearest_quadrant(x);
  quadrant = static_cast<int>(static_cast<long long>(k) & 3);
  subtract_quadrants(x, k, hi, lo);
}

/// sin(hi + lo) for |hi| ≤ π/4, |lo| ≤ ulp(hi): sin hi + lo·cos hi, cos hi ≈ 1 − hi²/2 for the lo term.
template <class S>
QS_HD S sin_kernel(S hi, S lo) {
  using C = TrigConstants<S>;
  const S z = hi * hi;
  return hi + (hi * (z * C::sin_poly(z)) + (lo - S(0.5) * z * lo));
}

/// cos(hi + lo): 1 − z/2 as w + e exactly (two-sum with |1| ≥ |z/2|), then the small terms, − lo·sin hi.
template <class S>
QS_HD S cos_kernel(S hi, S lo) {
  using C = TrigConstants<S>;
  const S z = hi * hi, half = S(0.5) * z;
  const S w = S(1) - half;
  const S e = (S(1) - w) - half;
  return w + (e + (z * z * C::cos_poly(z) - hi * lo));
}

template <class S>
QS_HD bool in_domain(S x) {
  const S a = x < S(0) ? -x : x;
  return a <= TrigConstants<S>::max_argument;  // false for NaN and ±Inf
}

template <class S>
QS_HD S sin(S x) {
  if (!in_domain(x)) return std::numeric_limits<S>::quiet_NaN();
  if ((x < S(0) ? -x : x) < TrigConstants<S>::tiny) return x;
  S hi, lo;
  int q;
  reduce(x, hi, lo, q);
  const S v = (q & 1) ? cos_kernel(hi, lo) : sin_kernel(hi, lo);
  return (q & 2) ? -v : v;
}

template <class S>
QS_HD S cos(S x) {
  if (!in_domain(x)) return std::numeric_limits<S>::quiet_NaN();
  if ((x < S(0) ? -x : x) < TrigConstants<S>::tiny) return S(1);
  S hi, lo;
  int q;
  reduce(x, hi, lo, q);
  const S v = (q & 1) ? sin_kernel(hi, lo) : cos_kernel(hi, lo);
  return ((q + 1) & 2) ? -v : v;
}

/// Both from one reduction; the same bits as sin(x) and cos(x).
template <class S>
QS_HD void sincos(S x, S& s, S& c) {
  if (!in_domain(x)) {
    s = c = std::numeric_limits<S>::quiet_NaN();
    return;
  }
  if ((x < S(0) ? -x : x) < TrigConstants<S>::tiny) {
    s = x;
    c = S(1);
    return;
  }
  S hi, lo;
  int q;
  reduce(x, hi, lo, q);
  const S sk = sin_kernel(hi, lo), ck = cos_kernel(hi, lo);
  const S sv = (q & 1) ? ck : sk, cv = (q & 1) ? sk : ck;
  s = (q & 2) ? -sv : sv;
  c = ((q + 1) & 2) ? -cv : cv;
}

}  // namespace detail

// Overloads (not templates) so that step code written as `using math::sin; sin(x)` picks these for
// float and double and argument-dependent lookup still finds a custom scalar's own sin/cos.
QS_HD inline double sin(double x) { return detail::sin(x); }
QS_HD inline float sin(float x) { return detail::sin(x); }
QS_HD inline double cos(double x) { return detail::cos(x); }
QS_HD inline float cos(float x) { return detail::cos(x); }
QS_HD inline void sincos(double x, double& s, double& c) { detail::sincos(x, s, c); }
QS_HD inline void sincos(float x, float& s, float& c) { detail::sincos(x, s, c); }

}  // namespace quatstep::math
