// Lanes<W>: W doubles, one per body, as a scalar type for the core's templates (lanes = bodies: the
// CPU backend steps blocks of W bodies at once, host/cpu_lanes.hpp). The arithmetic is
// std::experimental::simd's (Parallelism TS v2, libstdc++ ≥ 11), lane-wise IEEE, so a lane computes
// exactly the bits the scalar code computes for its body. Lanes<W> is the thin adapter that lets the
// core's scalar-style templates and Eigen take it:
//   == / != say whether all lanes are equal / some lane differs (Eigen's matrix ==, TimeProfile's
//   "is the profile zero"); < <= > >= are for branches every lane takes alike (TimeProfile's window)
//   and abort where the lanes disagree: the CPU backend forms blocks only of bodies that take every
//   such branch alike (cpu_lanes.hpp, lane_model.hpp), so the abort guards an invariant;
//   max/min are std::max/std::min lane by lane (the first argument where a NaN makes the order
//   undefined), as the scalar code sees them through Eigen.
// The data-dependent branches of a step (LU pivoting, the Newton stopping rule, the checks of the
// end point) are written lane-wise on Mask<W> (a lane mask) and LaneInts<W> (a lane's small integer:
// status, iteration count, pivot row) in lane_lu.hpp, lane_newton.hpp and the lane steps.
//
// The ABI is a template parameter (deduce_t: AVX registers in a unit compiled with -mavx2, SSE2 ones
// otherwise), so every template instantiated with Lanes carries its instruction set in its name: an
// AVX2 unit's instantiations never stand in for a baseline unit's (host/CMakeLists.txt checks the
// unit's symbols).
#pragma once

#include <cmath>
#include <cstdlib>
#include <experimental/simd>
#include <limits>
#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep::simd {

namespace stdx = std::experimental;

template <int W>
using NativeAbi = stdx::simd_abi::deduce_t<double, W>;

template <int W, class Abi = NativeAbi<W>>
struct Lanes {
  using V = stdx::simd<double, Abi>;
  using Mask = typename V::mask_type;
  V v;
  Lanes() = default;
  explicit Lanes(const V& x) : v(x) {}
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Lanes(T x) : v(static_cast<double>(x)) {}  // NOLINT: broadcast, for S(0.5) and Eigen's Scalar(0)
  double operator[](int i) const { return v[i]; }
  auto operator[](int i) { return v[i]; }  // assignable reference to lane i
};

/// A lane mask, and a lane's small integer (status code, iteration count, pivot row), exact in a
/// double: one mask type serves both.
template <int W, class Abi = NativeAbi<W>>
using Mask = typename Lanes<W, Abi>::Mask;
template <int W, class Abi = NativeAbi<W>>
using LaneInts = typename Lanes<W, Abi>::V;

#define QS_LANES template <int W, class A>
QS_LANES inline Lanes<W, A> operator+(const Lanes<W, A>& a, const Lanes<W, A>& b) { return Lanes<W, A>(a.v + b.v); }
QS_LANES inline Lanes<W, A> operator-(const Lanes<W, A>& a, const Lanes<W, A>& b) { return Lanes<W, A>(a.v - b.v); }
QS_LANES inline Lanes<W, A> operator*(const Lanes<W, A>& a, const Lanes<W, A>& b) { return Lanes<W, A>(a.v * b.v); }
QS_LANES inline Lanes<W, A> operator/(const Lanes<W, A>& a, const Lanes<W, A>& b) { return Lanes<W, A>(a.v / b.v); }
QS_LANES inline Lanes<W, A> operator-(const Lanes<W, A>& a) { return Lanes<W, A>(-a.v); }
QS_LANES inline Lanes<W, A> operator+(const Lanes<W, A>& a) { return a; }
QS_LANES inline Lanes<W, A>& operator+=(Lanes<W, A>& a, const Lanes<W, A>& b) { return a.v += b.v, a; }
QS_LANES inline Lanes<W, A>& operator-=(Lanes<W, A>& a, const Lanes<W, A>& b) { return a.v -= b.v, a; }
QS_LANES inline Lanes<W, A>& operator*=(Lanes<W, A>& a, const Lanes<W, A>& b) { return a.v *= b.v, a; }
QS_LANES inline Lanes<W, A>& operator/=(Lanes<W, A>& a, const Lanes<W, A>& b) { return a.v /= b.v, a; }

QS_LANES inline bool operator!=(const Lanes<W, A>& a, const Lanes<W, A>& b) { return stdx::any_of(a.v != b.v); }
QS_LANES inline bool operator==(const Lanes<W, A>& a, const Lanes<W, A>& b) { return !(a != b); }

/// The value every lane agrees on (abort if they do not: a branch the lanes would take apart).
template <class M>
inline bool uniform(const M& m) {
  if (!stdx::all_of(m) && !stdx::none_of(m)) std::abort();
  return stdx::all_of(m);
}
QS_LANES inline bool operator<(const Lanes<W, A>& a, const Lanes<W, A>& b) { return uniform(a.v < b.v); }
QS_LANES inline bool operator<=(const Lanes<W, A>& a, const Lanes<W, A>& b) { return uniform(a.v <= b.v); }
QS_LANES inline bool operator>(const Lanes<W, A>& a, const Lanes<W, A>& b) { return uniform(a.v > b.v); }
QS_LANES inline bool operator>=(const Lanes<W, A>& a, const Lanes<W, A>& b) { return uniform(a.v >= b.v); }

/// Lane-wise m ? a : b.
QS_LANES inline Lanes<W, A> select(const typename Lanes<W, A>::Mask& m, const Lanes<W, A>& a, const Lanes<W, A>& b) {
  typename Lanes<W, A>::V r = b.v;
  stdx::where(m, r) = a.v;
  return Lanes<W, A>(r);
}
/// Lane-wise m ? a : b on lane integers.
template <class V>
inline V select(const typename V::mask_type& m, const V& a, const V& b) {
  V r = b;
  stdx::where(m, r) = a;
  return r;
}
/// The lanes where the integers equal k.
template <class V>
inline typename V::mask_type lanes_where(const V& a, int k) {
  return a == double(k);
}
/// The lanes whose value is finite (neither ±∞ nor NaN).
QS_LANES inline typename Lanes<W, A>::Mask is_finite(const Lanes<W, A>& a) { return stdx::abs(a.v) <= INFINITY; }

QS_LANES inline Lanes<W, A> abs(const Lanes<W, A>& a) { return Lanes<W, A>(stdx::abs(a.v)); }  // clears the sign bit
QS_LANES inline Lanes<W, A> max(const Lanes<W, A>& a, const Lanes<W, A>& b) { return select(a.v < b.v, b, a); }
QS_LANES inline Lanes<W, A> min(const Lanes<W, A>& a, const Lanes<W, A>& b) { return select(b.v < a.v, b, a); }
QS_LANES inline Lanes<W, A> sqrt(const Lanes<W, A>& a) { return Lanes<W, A>(stdx::sqrt(a.v)); }  // IEEE, correctly rounded
QS_LANES inline Lanes<W, A> floor(const Lanes<W, A>& a) { return Lanes<W, A>(stdx::floor(a.v)); }  // exact
#undef QS_LANES

}  // namespace quatstep::simd

template <int W, class A>
struct Eigen::NumTraits<quatstep::simd::Lanes<W, A>> : Eigen::NumTraits<double> {
  using Real = quatstep::simd::Lanes<W, A>;
  using NonInteger = Real;
  using Literal = Real;
  using Nested = Real;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 0, ReadCost = 1, AddCost = 1, MulCost = 1 };
};

template <int W, class A>
struct std::numeric_limits<quatstep::simd::Lanes<W, A>> : std::numeric_limits<double> {
  static quatstep::simd::Lanes<W, A> min() { return std::numeric_limits<double>::min(); }
  static quatstep::simd::Lanes<W, A> epsilon() { return std::numeric_limits<double>::epsilon(); }
  static quatstep::simd::Lanes<W, A> infinity() { return std::numeric_limits<double>::infinity(); }
};

#include "quatstep/simd/lane_trig.hpp"  // sin, cos, sincos of Lanes
