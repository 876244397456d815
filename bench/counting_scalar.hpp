// A double that counts the floating-point operations done on it, so that the core's templates,
// instantiated with it, report their own flop count as written (the compiler may still fold a
// few repeated subexpressions, so the executed count can only be lower).
// Counted: + − × ÷ (one flop each), sqrt, and calls of sin/cos/atan2 (counted apart).
// Not counted: negation, abs, floor, comparisons, copies.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep::bench {

struct FlopCounts {
  long add = 0, mul = 0, div = 0, sqrt = 0, transcendental = 0;
  long flops() const { return add + mul + div + sqrt; }
};
inline FlopCounts flop_counts;  // single-threaded use only

struct Counted {
  double v;
  Counted() = default;
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Counted(T x) : v(static_cast<double>(x)) {}  // NOLINT: literals like S(0.5) and Eigen's Scalar(0)
};

inline Counted operator+(Counted a, Counted b) { return ++flop_counts.add, Counted(a.v + b.v); }
inline Counted operator-(Counted a, Counted b) { return ++flop_counts.add, Counted(a.v - b.v); }
inline Counted operator*(Counted a, Counted b) { return ++flop_counts.mul, Counted(a.v * b.v); }
inline Counted operator/(Counted a, Counted b) { return ++flop_counts.div, Counted(a.v / b.v); }
inline Counted operator-(Counted a) { return Counted(-a.v); }
inline Counted operator+(Counted a) { return a; }
inline Counted& operator+=(Counted& a, Counted b) { return a = a + b; }
inline Counted& operator-=(Counted& a, Counted b) { return a = a - b; }
inline Counted& operator*=(Counted& a, Counted b) { return a = a * b; }
inline Counted& operator/=(Counted& a, Counted b) { return a = a / b; }
inline bool operator<(Counted a, Counted b) { return a.v < b.v; }
inline bool operator<=(Counted a, Counted b) { return a.v <= b.v; }
inline bool operator>(Counted a, Counted b) { return a.v > b.v; }
inline bool operator>=(Counted a, Counted b) { return a.v >= b.v; }
inline bool operator==(Counted a, Counted b) { return a.v == b.v; }
inline bool operator!=(Counted a, Counted b) { return a.v != b.v; }

inline Counted abs(Counted a) { return Counted(std::abs(a.v)); }
inline Counted max(Counted a, Counted b) { return Counted(a.v < b.v ? b.v : a.v); }
inline Counted min(Counted a, Counted b) { return Counted(b.v < a.v ? b.v : a.v); }
inline Counted floor(Counted a) { return Counted(std::floor(a.v)); }
inline Counted sqrt(Counted a) { return ++flop_counts.sqrt, Counted(std::sqrt(a.v)); }
inline Counted sin(Counted a) { return ++flop_counts.transcendental, Counted(std::sin(a.v)); }
inline Counted cos(Counted a) { return ++flop_counts.transcendental, Counted(std::cos(a.v)); }
inline void sincos(Counted a, Counted& s, Counted& c) {  // counted as the two calls it replaces
  flop_counts.transcendental += 2;
  s = Counted(std::sin(a.v)), c = Counted(std::cos(a.v));
}
inline Counted atan2(Counted a, Counted b) { return ++flop_counts.transcendental, Counted(std::atan2(a.v, b.v)); }

}  // namespace quatstep::bench

template <>
struct Eigen::NumTraits<quatstep::bench::Counted> : Eigen::NumTraits<double> {
  using Real = quatstep::bench::Counted;
  using NonInteger = quatstep::bench::Counted;
  using Literal = quatstep::bench::Counted;
  using Nested = quatstep::bench::Counted;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 0, ReadCost = 1, AddCost = 1, MulCost = 1 };
};

template <>
struct std::numeric_limits<quatstep::bench::Counted> : std::numeric_limits<double> {
  static quatstep::bench::Counted min() { return std::numeric_limits<double>::min(); }
};
