// Lanes<W>: W doubles, one per body, as a scalar type for the core's templates (lanes = bodies).
// Arithmetic is lane-wise IEEE (GCC vector extensions: SSE2 for W = 2, AVX2 for W = 4 with -mavx2),
// so a lane computes exactly the bits the scalar code computes for its body.
// Comparisons have no lane-wise bool: == / != say whether all lanes are equal / some lane differs,
// enough for TimeProfile's "is there an amplitude" test; < <= > >= are for branches every lane takes
// alike (TimeProfile's window, the same in every lane of the study's blocks) and abort where the
// lanes disagree. The data-dependent branches of the step (LU pivoting, Newton stopping rule) are
// rewritten lane-wise in simd_step.hpp and reml_step.hpp.
#pragma once

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep::bench {

namespace detail {
template <int W>
struct VectorTypes;  // GCC needs a literal vector_size
template <>
struct VectorTypes<2> {
  typedef double V __attribute__((vector_size(16)));
  typedef std::int64_t M __attribute__((vector_size(16)));
};
template <>
struct VectorTypes<4> {
  typedef double V __attribute__((vector_size(32)));
  typedef std::int64_t M __attribute__((vector_size(32)));
};
template <>
struct VectorTypes<8> {
  typedef double V __attribute__((vector_size(64)));
  typedef std::int64_t M __attribute__((vector_size(64)));
};
}  // namespace detail

template <int W>
struct Lanes {
  using V = typename detail::VectorTypes<W>::V;
  using M = typename detail::VectorTypes<W>::M;  // lane mask: −1 true, 0 false
  V v;
  Lanes() = default;
  explicit Lanes(V x) : v(x) {}
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Lanes(T x) : v(V{} + static_cast<double>(x)) {}  // NOLINT: broadcast, for S(0.5) and Eigen's Scalar(0)
  double operator[](int i) const { return v[i]; }
  double& operator[](int i) { return v[i]; }
};

template <int W> inline Lanes<W> operator+(Lanes<W> a, Lanes<W> b) { return Lanes<W>(a.v + b.v); }
template <int W> inline Lanes<W> operator-(Lanes<W> a, Lanes<W> b) { return Lanes<W>(a.v - b.v); }
template <int W> inline Lanes<W> operator*(Lanes<W> a, Lanes<W> b) { return Lanes<W>(a.v * b.v); }
template <int W> inline Lanes<W> operator/(Lanes<W> a, Lanes<W> b) { return Lanes<W>(a.v / b.v); }
template <int W> inline Lanes<W> operator-(Lanes<W> a) { return Lanes<W>(-a.v); }
template <int W> inline Lanes<W> operator+(Lanes<W> a) { return a; }
template <int W> inline Lanes<W>& operator+=(Lanes<W>& a, Lanes<W> b) { return a.v += b.v, a; }
template <int W> inline Lanes<W>& operator-=(Lanes<W>& a, Lanes<W> b) { return a.v -= b.v, a; }
template <int W> inline Lanes<W>& operator*=(Lanes<W>& a, Lanes<W> b) { return a.v *= b.v, a; }
template <int W> inline Lanes<W>& operator/=(Lanes<W>& a, Lanes<W> b) { return a.v /= b.v, a; }

template <int W>
inline bool any(typename Lanes<W>::M m) {
  for (int i = 0; i < W; ++i)
    if (m[i]) return true;
  return false;
}
template <int W> inline bool operator!=(Lanes<W> a, Lanes<W> b) { return any<W>(a.v != b.v); }
template <int W> inline bool operator==(Lanes<W> a, Lanes<W> b) { return !(a != b); }

/// The value every lane agrees on (abort if they do not: a branch the lanes would take apart).
template <int W>
inline bool uniform(typename Lanes<W>::M m) {
  for (int i = 1; i < W; ++i)
    if (m[i] != m[0]) std::abort();
  return m[0] != 0;
}
template <int W> inline bool operator<(Lanes<W> a, Lanes<W> b) { return uniform<W>(a.v < b.v); }
template <int W> inline bool operator<=(Lanes<W> a, Lanes<W> b) { return uniform<W>(a.v <= b.v); }
template <int W> inline bool operator>(Lanes<W> a, Lanes<W> b) { return uniform<W>(a.v > b.v); }
template <int W> inline bool operator>=(Lanes<W> a, Lanes<W> b) { return uniform<W>(a.v >= b.v); }

/// Lane-wise m ? a : b.
template <int W>
inline Lanes<W> select(typename Lanes<W>::M m, Lanes<W> a, Lanes<W> b) {
  return Lanes<W>(m ? a.v : b.v);
}

template <int W>
inline Lanes<W> abs(Lanes<W> a) {  // clears the sign bit, as std::abs
  using M = typename Lanes<W>::M;
  return Lanes<W>(reinterpret_cast<typename Lanes<W>::V>(reinterpret_cast<M>(a.v) & (M{} + INT64_MAX)));
}
template <int W> inline Lanes<W> max(Lanes<W> a, Lanes<W> b) { return Lanes<W>(a.v < b.v ? b.v : a.v); }
template <int W> inline Lanes<W> min(Lanes<W> a, Lanes<W> b) { return Lanes<W>(b.v < a.v ? b.v : a.v); }
/// Lane by lane through the scalar libm (the same bits as the scalar code; no vector libm).
template <int W, class F>
inline Lanes<W> each(Lanes<W> a, F f) {
  for (int i = 0; i < W; ++i) a.v[i] = f(a.v[i]);
  return a;
}
template <int W> inline Lanes<W> sqrt(Lanes<W> a) { return each(a, [](double x) { return std::sqrt(x); }); }
template <int W> inline Lanes<W> sin(Lanes<W> a) { return each(a, [](double x) { return std::sin(x); }); }
template <int W> inline Lanes<W> cos(Lanes<W> a) { return each(a, [](double x) { return std::cos(x); }); }

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
