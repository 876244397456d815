// How a settings struct declares its scenario keys: one describe() member that names each member,
// documents it in one line and says which values are allowed.
//
//   template <class Keys>
//   void describe(Keys& k) {
//     k("alpha", alpha, "numerical damping; beta, gamma follow (Sherif eq. 19)", keys::between(-1.0 / 3, 0.0, "in [-1/3, 0]"));
//     k("inertia_shift", inertia_shift, "second-order variant for alpha != 0 (docs/second_order_hht.md)");
//     newton.describe(k);
//   }
//
// The host code visits it (host/settings.hpp) to read the defaults of a default-constructed struct
// in the run's precision, to assign a scenario's values, to reject keys that are not declared and
// to print the scenario format (`quatstep docs scenario`). A member may be float, double, int, bool
// or an enum with a keys::Choices table. describe() is host code: kernels never call it.
#pragma once

#include <cstddef>
#include <limits>

namespace quatstep::keys {

/// The allowed values of a numeric key; NaN is never allowed.
struct Range {
  double low, high;
  bool low_inclusive, high_inclusive;
  const char* text;  ///< as shown in messages and docs: "in [-1/3, 0]", "> 0"

  constexpr bool contains(double x) const {
    const bool above = low_inclusive ? x >= low : x > low;
    const bool below = high_inclusive ? x <= high : x < high;
    return above && below;  // false for NaN
  }
};

inline constexpr double infinity = std::numeric_limits<double>::infinity();

/// Any finite value.
inline constexpr Range finite{-infinity, infinity, false, false, "finite"};
inline constexpr Range positive{0.0, infinity, false, false, "> 0"};
inline constexpr Range non_negative{0.0, infinity, true, false, ">= 0"};
/// [low, high].
constexpr Range between(double low, double high, const char* text) { return Range{low, high, true, true, text}; }

/// One name of an enum key's value.
template <class E>
struct Choice {
  E value;
  const char* name;
};
/// The names of an enum key's values.
template <class E>
struct Choices {
  const Choice<E>* begin;
  std::size_t size;
  template <std::size_t N>
  constexpr Choices(const Choice<E> (&table)[N]) : begin(table), size(N) {}  // NOLINT: implicit by design
  constexpr const Choice<E>* end() const { return begin + size; }
};

}  // namespace quatstep::keys
