// Lanes<W>: W doubles, one per body, as a scalar type for the core's templates (lanes = bodies).
// The arithmetic is std::experimental::simd's (Parallelism TS v2, libstdc++ ≥ 11: simd<double> of
// W lanes, SSE2 registers in a baseline build, AVX2 with -mavx2), lane-wise IEEE,
// so a lane computes exactly the bits the scalar code computes for its body. Lanes<W> is the thin
// adapter that lets the core's scalar-style templates and Eigen take it:
//   == / != say whether all lanes are equal / some lane differs (Eigen's matrix ==, TimeProfile's
//   "is there an amplitude"); < <= > >= are for branches every lane takes alike (TimeProfile's
//   window, the same in every lane of the study's blocks) and abort where the lanes disagree;
//   max/min are std::max/std::min lane by lane (the first argument where a NaN makes the order
//   undefined), as the scalar code sees them through Eigen.
// The data-dependent branches of the step (LU pivoting, Newton stopping rule) are rewritten lane-wise
// in simd_step.hpp and reml_step.hpp on Mask<W> (a lane mask) and LaneInts<W> (a lane's integer:
// status, iteration count, pivot row).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <experimental/simd>
#include <limits>
#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep::bench {

namespace stdx = std::experimental;

/// W doubles in the target's own registers where it has them (deduce_t: SSE2 for W = 2, AVX for
/// W = 4 with -mavx2); fixed_size<W> ran 2.8–4.9× slower with GCC 12 (studies/README.md).
template <int W>
using LaneVector = stdx::simd<double, stdx::simd_abi::deduce_t<double, W>>;
template <int W>
using Mask = typename LaneVector<W>::mask_type;
/// A lane's small integer (status code, iteration count, pivot row), exact in a double: one mask
/// type serves both.
template <int W>
using LaneInts = LaneVector<W>;

template <int W>
struct Lanes {
  using V = LaneVector<W>;
  V v;
  Lanes() = default;
  explicit Lanes(const V& x) : v(x) {}
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Lanes(T x) : v(static_cast<double>(x)) {}  // NOLINT: broadcast, for S(0.5) and Eigen's Scalar(0)
  double operator[](int i) const { return v[i]; }
  auto operator[](int i) { return v[i]; }  // assignable reference to lane i
};

template <int W> inline Lanes<W> operator+(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>(a.v + b.v); }
template <int W> inline Lanes<W> operator-(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>(a.v - b.v); }
template <int W> inline Lanes<W> operator*(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>(a.v * b.v); }
template <int W> inline Lanes<W> operator/(const Lanes<W>& a, const Lanes<W>& b) { return Lanes<W>(a.v / b.v); }
template <int W> inline Lanes<W> operator-(const Lanes<W>& a) { return Lanes<W>(-a.v); }
template <int W> inline Lanes<W> operator+(const Lanes<W>& a) { return a; }
template <int W> inline Lanes<W>& operator+=(Lanes<W>& a, const Lanes<W>& b) { return a.v += b.v, a; }
template <int W> inline Lanes<W>& operator-=(Lanes<W>& a, const Lanes<W>& b) { return a.v -= b.v, a; }
template <int W> inline Lanes<W>& operator*=(Lanes<W>& a, const Lanes<W>& b) { return a.v *= b.v, a; }
template <int W> inline Lanes<W>& operator/=(Lanes<W>& a, const Lanes<W>& b) { return a.v /= b.v, a; }

template <int W> inline bool operator!=(const Lanes<W>& a, const Lanes<W>& b) { return stdx::any_of(a.v != b.v); }
template <int W> inline bool operator==(const Lanes<W>& a, const Lanes<W>& b) { return !(a != b); }

/// The value every lane agrees on (abort if they do not: a branch the lanes would take apart).
template <int W>
inline bool uniform(const Mask<W>& m) {
  if (!stdx::all_of(m) && !stdx::none_of(m)) std::abort();
  return stdx::all_of(m);
}
template <int W> inline bool operator<(const Lanes<W>& a, const Lanes<W>& b) { return uniform<W>(a.v < b.v); }
template <int W> inline bool operator<=(const Lanes<W>& a, const Lanes<W>& b) { return uniform<W>(a.v <= b.v); }
template <int W> inline bool operator>(const Lanes<W>& a, const Lanes<W>& b) { return uniform<W>(a.v > b.v); }
template <int W> inline bool operator>=(const Lanes<W>& a, const Lanes<W>& b) { return uniform<W>(a.v >= b.v); }

/// Lane-wise m ? a : b.
template <int W>
inline Lanes<W> select(const Mask<W>& m, const Lanes<W>& a, const Lanes<W>& b) {
  typename Lanes<W>::V r = b.v;
  stdx::where(m, r) = a.v;
  return Lanes<W>(r);
}
/// Lane-wise m ? a : b on lane integers.
template <int W>
inline LaneInts<W> select(const Mask<W>& m, const LaneInts<W>& a, const LaneInts<W>& b) {
  LaneInts<W> r = b;
  stdx::where(m, r) = a;
  return r;
}
/// The lanes where the integers equal k.
template <int W>
inline Mask<W> lanes_where(const LaneInts<W>& a, int k) {
  return a == double(k);
}

template <int W> inline Lanes<W> abs(const Lanes<W>& a) { return Lanes<W>(stdx::abs(a.v)); }  // clears the sign bit
template <int W> inline Lanes<W> max(const Lanes<W>& a, const Lanes<W>& b) { return select<W>(a.v < b.v, b, a); }
template <int W> inline Lanes<W> min(const Lanes<W>& a, const Lanes<W>& b) { return select<W>(b.v < a.v, b, a); }
template <int W> inline Lanes<W> sqrt(const Lanes<W>& a) { return Lanes<W>(stdx::sqrt(a.v)); }  // IEEE, correctly rounded
/// Lane by lane through the scalar libm (the same bits as the scalar code; no vector libm).
template <int W, class F>
inline Lanes<W> each(Lanes<W> a, F f) {
  for (int i = 0; i < W; ++i) a.v[i] = f(double(a.v[i]));
  return a;
}
template <int W> inline Lanes<W> sin(const Lanes<W>& a) { return each(a, [](double x) { return std::sin(x); }); }
template <int W> inline Lanes<W> cos(const Lanes<W>& a) { return each(a, [](double x) { return std::cos(x); }); }

}  // namespace quatstep::bench

template <int W>
struct Eigen::NumTraits<quatstep::bench::Lanes<W>> : Eigen::NumTraits<double> {
  using Real = quatstep::bench::Lanes<W>;
  using NonInteger = quatstep::bench::Lanes<W>;
  using Literal = quatstep::bench::Lanes<W>;
  using Nested = quatstep::bench::Lanes<W>;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 0, ReadCost = 1, AddCost = 1, MulCost = 1 };
};

template <int W>
struct std::numeric_limits<quatstep::bench::Lanes<W>> : std::numeric_limits<double> {
  static quatstep::bench::Lanes<W> min() { return std::numeric_limits<double>::min(); }
  static quatstep::bench::Lanes<W> epsilon() { return std::numeric_limits<double>::epsilon(); }
  static quatstep::bench::Lanes<W> infinity() { return std::numeric_limits<double>::infinity(); }
};
