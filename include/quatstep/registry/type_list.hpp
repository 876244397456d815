// A list of types, and the two ways host code walks one: every entry in turn (for_each_type), or the
// entry with a runtime index as a compile-time type (with_type). The registry (registry.hpp) keeps its
// integrators and models in such lists; everything that needs "every method" or "the method the
// scenario names" is derived from them.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace quatstep {

template <class... T>
struct TypeList {
  static constexpr int size = sizeof...(T);
};

/// A type as a value: f(TypeTag<T>{}) names T as tag_type<decltype(tag)>.
template <class T>
struct TypeTag {
  using type = T;
};
/// The type a tag stands for (decayed: inside nested lambdas g++ 12 sees a captured tag as a
/// reference).
template <class Tag>
using tag_type = typename std::decay_t<Tag>::type;

/// f(TypeTag<T>{}, index) for every T of the list, in order.
template <class... T, class F>
void for_each_type(TypeList<T...>, F&& f) {
  int index = 0;
  (f(TypeTag<T>{}, index++), ...);
}

namespace detail {
template <int I, class F, class T, class... Rest>
decltype(auto) with_type_at(int index, F& f) {
  if constexpr (sizeof...(Rest) == 0) {
    if (index != I) throw std::out_of_range("type-list index out of range");
    return f(TypeTag<T>{});
  } else {
    if (index == I) return f(TypeTag<T>{});
    return with_type_at<I + 1, F, Rest...>(index, f);
  }
}
}  // namespace detail

/// The position of T in the list (−1 if it is not there).
template <class T, class... U>
constexpr int index_in(TypeList<U...>) {
  constexpr bool same[] = {std::is_same_v<T, U>...};
  for (int k = 0; k < int(sizeof...(U)); ++k)
    if (same[k]) return k;
  return -1;
}

namespace detail {
template <int I, int N, class F>
decltype(auto) with_int_from(int value, F& f) {
  if constexpr (I + 1 == N) {
    if (value != I) throw std::out_of_range("index out of range");
    return f(std::integral_constant<int, I>{});
  } else {
    if (value == I) return f(std::integral_constant<int, I>{});
    return with_int_from<I + 1, N, F>(value, f);
  }
}
}  // namespace detail

/// f(std::integral_constant<int, value>{}) for a runtime value in [0, N).
template <int N, class F>
decltype(auto) with_int(int value, F&& f) {
  static_assert(N > 0);
  return detail::with_int_from<0, N, F>(value, f);
}

/// f(TypeTag<T>{}) for the index-th T of the list; every call of f must return the same type.
template <class... T, class F>
decltype(auto) with_type(TypeList<T...>, int index, F&& f) {
  return detail::with_type_at<0, F, T...>(index, f);
}

}  // namespace quatstep
