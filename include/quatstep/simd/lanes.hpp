// Lanes<T, W>: W numbers of type T (double or float), one per body, as a scalar type for the core's
// templates (lanes = bodies: the CPU backend steps blocks of W bodies at once, host/cpu_lanes.hpp).
// The arithmetic is std::experimental::simd's (Parallelism TS v2, libstdc++ ≥ 11), lane-wise IEEE in
// T, so a lane computes exactly the bits the scalar code computes in T for its body. The choices the
// core makes per precision (series lengths, constants, float's renormalisation) follow the element
// type (math/element.hpp: element_t<Lanes<T, W>> is T). Lanes<T, W> is the thin adapter that lets the
// core's scalar-style templates and Eigen take it:
//   == / != say whether all lanes are equal / some lane differs (Eigen's matrix ==, TimeProfile's
//   "is the profile zero"); < <= > >= are for branches every lane takes alike (TimeProfile's window)
//   and abort where the lanes disagree: the CPU backend forms blocks only of bodies that take every
//   such branch alike (cpu_lanes.hpp, lane_model.hpp), so the abort guards an invariant;
//   max/min are std::max/std::min lane by lane (the first argument where a NaN makes the order
//   undefined), as the scalar code sees them through Eigen.
// The data-dependent branches of a step (LU pivoting, the Newton stopping rule, the checks of the
// end point) are written lane-wise on Mask<T, W> (a lane mask) and LaneInts<T, W> (a lane's small
// integer: status, iteration count, pivot row — below 2^24, exact in a float too) in lane_lu.hpp,
// lane_newton.hpp and the lane steps.
//
// The ABI is a template parameter (deduce_t: AVX registers in a unit compiled with -mavx2, AVX-512
// ones with -mavx512f, SSE2 ones otherwise), so every template instantiated with Lanes carries its
// instruction set in its name: a lane unit's instantiations never stand in for a baseline unit's or
// for another instruction set's (tests/check_lane_symbols.cmake checks the units' symbols).
#pragma once

#include <cmath>
#include <cstdlib>
#include <experimental/simd>
#include <limits>
#include <type_traits>

#include "quatstep/config.hpp"
#include "quatstep/math/element.hpp"

namespace quatstep::simd {

namespace stdx = std::experimental;

template <class T, int W>
using NativeAbi = stdx::simd_abi::deduce_t<T, W>;

template <class T, int W, class Abi = NativeAbi<T, W>>
struct Lanes {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "lanes of double or float");
  using Element = T;
  using V = stdx::simd<T, Abi>;
  using Mask = typename V::mask_type;
  V v;
  Lanes() = default;
  explicit Lanes(const V& x) : v(x) {}
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  Lanes(U x) : v(static_cast<T>(x)) {}  // NOLINT: broadcast, for S(0.5) and Eigen's Scalar(0)
  T operator[](int i) const { return v[i]; }
  auto operator[](int i) { return v[i]; }  // assignable reference to lane i
};

/// A lane mask, and a lane's small integer (status code, iteration count, pivot row), exact in T:
/// one mask type serves both.
template <class T, int W, class Abi = NativeAbi<T, W>>
using Mask = typename Lanes<T, W, Abi>::Mask;
template <class T, int W, class Abi = NativeAbi<T, W>>
using LaneInts = typename Lanes<T, W, Abi>::V;

#define QS_LANES template <class T, int W, class A>
QS_LANES inline Lanes<T, W, A> operator+(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return Lanes<T, W, A>(a.v + b.v); }
QS_LANES inline Lanes<T, W, A> operator-(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return Lanes<T, W, A>(a.v - b.v); }
QS_LANES inline Lanes<T, W, A> operator*(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return Lanes<T, W, A>(a.v * b.v); }
QS_LANES inline Lanes<T, W, A> operator/(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return Lanes<T, W, A>(a.v / b.v); }
QS_LANES inline Lanes<T, W, A> operator-(const Lanes<T, W, A>& a) { return Lanes<T, W, A>(-a.v); }
QS_LANES inline Lanes<T, W, A> operator+(const Lanes<T, W, A>& a) { return a; }
QS_LANES inline Lanes<T, W, A>& operator+=(Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return a.v += b.v, a; }
QS_LANES inline Lanes<T, W, A>& operator-=(Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return a.v -= b.v, a; }
QS_LANES inline Lanes<T, W, A>& operator*=(Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return a.v *= b.v, a; }
QS_LANES inline Lanes<T, W, A>& operator/=(Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return a.v /= b.v, a; }

QS_LANES inline bool operator!=(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return stdx::any_of(a.v != b.v); }
QS_LANES inline bool operator==(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return !(a != b); }

/// The value every lane agrees on (abort if they do not: a branch the lanes would take apart).
template <class M>
inline bool uniform(const M& m) {
  if (!stdx::all_of(m) && !stdx::none_of(m)) std::abort();
  return stdx::all_of(m);
}
QS_LANES inline bool operator<(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return uniform(a.v < b.v); }
QS_LANES inline bool operator<=(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return uniform(a.v <= b.v); }
QS_LANES inline bool operator>(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return uniform(a.v > b.v); }
QS_LANES inline bool operator>=(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return uniform(a.v >= b.v); }

/// Lane-wise m ? a : b.
QS_LANES inline Lanes<T, W, A> select(const typename Lanes<T, W, A>::Mask& m, const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) {
  typename Lanes<T, W, A>::V r = b.v;
  stdx::where(m, r) = a.v;
  return Lanes<T, W, A>(r);
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
  return a == typename V::value_type(k);
}
/// The lanes whose value is finite (neither ±∞ nor NaN).
QS_LANES inline typename Lanes<T, W, A>::Mask is_finite(const Lanes<T, W, A>& a) { return stdx::abs(a.v) < INFINITY; }

QS_LANES inline Lanes<T, W, A> abs(const Lanes<T, W, A>& a) { return Lanes<T, W, A>(stdx::abs(a.v)); }  // clears the sign bit
QS_LANES inline Lanes<T, W, A> max(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return select(a.v < b.v, b, a); }
QS_LANES inline Lanes<T, W, A> min(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) { return select(b.v < a.v, b, a); }
QS_LANES inline Lanes<T, W, A> sqrt(const Lanes<T, W, A>& a) { return Lanes<T, W, A>(stdx::sqrt(a.v)); }  // IEEE, correctly rounded
QS_LANES inline Lanes<T, W, A> floor(const Lanes<T, W, A>& a) { return Lanes<T, W, A>(stdx::floor(a.v)); }  // exact
#undef QS_LANES

}  // namespace quatstep::simd

template <class T, int W, class A>
struct quatstep::math::Element<quatstep::simd::Lanes<T, W, A>> {
  using type = T;
};

template <class T, int W, class A>
struct Eigen::NumTraits<quatstep::simd::Lanes<T, W, A>> : Eigen::NumTraits<T> {
  using Real = quatstep::simd::Lanes<T, W, A>;
  using NonInteger = Real;
  using Literal = Real;
  using Nested = Real;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 0, ReadCost = 1, AddCost = 1, MulCost = 1 };
};

template <class T, int W, class A>
struct std::numeric_limits<quatstep::simd::Lanes<T, W, A>> : std::numeric_limits<T> {
  static quatstep::simd::Lanes<T, W, A> min() { return std::numeric_limits<T>::min(); }
  static quatstep::simd::Lanes<T, W, A> epsilon() { return std::numeric_limits<T>::epsilon(); }
  static quatstep::simd::Lanes<T, W, A> infinity() { return std::numeric_limits<T>::infinity(); }
};

#include "quatstep/simd/lane_trig.hpp"  // sin, cos, sincos of Lanes
