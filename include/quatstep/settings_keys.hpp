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
// The host code visits it (host/keys.hpp) to read the defaults of a default-constructed struct in
// the run's precision, to assign a scenario's values, to reject keys that are not declared and to
// print the scenario format (`quatstep docs scenario`). A member may be float, double, int, bool or
// an enum with a keys::Choices table. describe() is host code: kernels never call it. A rule that a
// range cannot say (order 2, 4 or 6; one key bounded by another) goes in an optional
//   void validate() const;   // throws keys::KeyError
// which keys::check() calls after the ranges, and the scenario parser before any integration.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

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
  /// The same in T's own arithmetic, the bounds rounded to T: a float setting of −1/3 is in
  /// [−1/3, 0] although float(−1/3) < −1/3.
  template <class T>
  constexpr bool contains_value(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      const T lo = T(low), hi = T(high);
      const bool above = low_inclusive ? x >= lo : x > lo;
      const bool below = high_inclusive ? x <= hi : x < hi;
      return above && below;
    } else {
      return contains(double(x));  // integers are exact in double
    }
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
  const Choice<E>* data;
  std::size_t size;
  template <std::size_t N>
  constexpr Choices(const Choice<E> (&table)[N]) : data(table), size(N) {}  // NOLINT: implicit by design
  constexpr const Choice<E>* begin() const { return data; }
  constexpr const Choice<E>* end() const { return data + size; }
};

}  // namespace quatstep::keys

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace quatstep::keys {

/// A settings value that breaks its key's rule: what() is "integrator.alpha = 0.5: must be in
/// [-1/3, 0]"; key and problem apart for the scenario parser's "FILE: key 'K': problem".
struct KeyError : std::invalid_argument {
  std::string key, problem;
  KeyError(std::string k, std::string p) : std::invalid_argument(k + " = " + p), key(std::move(k)), problem(std::move(p)) {}
  /// "0.5: must be in [-1/3, 0]" from a value and the rule it breaks.
  template <class T>
  static KeyError of(const std::string& key, const T& value, const std::string& rule) {
    std::ostringstream os;
    os << value << ": must be " << rule;
    return KeyError(key, os.str());
  }
};

/// The visitor that checks every key of a settings struct against its range, on the host before a
/// run (device code cannot throw): keys::KeyError for the first value out of range.
struct RangeCheck {
  std::string prefix = "integrator.";

  template <class T>
  void operator()(const std::string& name, const T& value, const char*, const Range& range = finite) const {
    if constexpr (!std::is_same_v<T, bool>)
      if (!range.contains_value(value)) throw KeyError::of(prefix + name, value, range.text);
  }
  template <class E>
  void operator()(const std::string&, const E&, const char*, Choices<E>) const {}  // an enum holds only its values
  template <class... A>
  void required(A&&... a) const {
    (*this)(std::forward<A>(a)...);
  }
};

template <class Settings, class = void>
struct has_validate : std::false_type {};
template <class Settings>
struct has_validate<Settings, std::void_t<decltype(std::declval<const Settings&>().validate())>> : std::true_type {};

/// Checks every key of `settings` (a struct with describe()) against its range, then the struct's
/// own validate() where it has one; keys::KeyError for the first problem.
template <class Settings>
void check(const Settings& settings) {
  Settings copy = settings;  // describe() hands out references, for visitors that assign
  RangeCheck check;
  copy.describe(check);
  if constexpr (has_validate<Settings>::value) settings.validate();
}

}  // namespace quatstep::keys
