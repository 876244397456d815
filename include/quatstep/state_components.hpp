// An integrator's State seen as a flat list of scalars, State::size of them through operator[]
// (how the ensembles store it as struct-of-arrays). The loops over it are unrolled in device code,
// so every index is a constant and the state stays in registers.
//
// A State may order its components by how long they live and say so, to save the stores of what a
// step cannot change (on the GPU the bytes per body-step are the cost of a short step):
//   static constexpr int constants_from;   // components [constants_from, size) are set once, by
//                                          // initialize, and never changed by a step;
//   static constexpr int held_loads_from;  // [held_loads_from, constants_from) are the loads held
//                                          // for the next step, which hold_loads evaluates anew
//                                          // before a step with new loads (ensemble.hpp).
// A State that says neither is stored whole.
#pragma once

#include <cmath>
#include <type_traits>

#include "quatstep/config.hpp"
#include "quatstep/status.hpp"

namespace quatstep {

/// Whether every component of s is finite, neither NaN nor ±∞ (the per-step check of every integrator).
template <class State>
QS_HD bool all_finite(const State& s) {
  using S = std::decay_t<decltype(s[0])>;
  bool finite = true;
  QS_UNROLL for (int c = 0; c < State::size; ++c) finite = finite && Eigen::numext::abs(s[c]) < S(INFINITY);
  return finite;
}

/// Every component of s NaN, and returns `why`: how a start that fails leaves its state (set, never
/// what the stack held: the ensembles store it as the failed body's, and the first step refuses it).
template <class State>
QS_HD Status failed_start(State& s, Status why) {
  using S = std::decay_t<decltype(s[0])>;
  QS_UNROLL for (int c = 0; c < State::size; ++c) s[c] = S(NAN);
  return why;
}

namespace detail {
template <class State, class = void>
struct constants_from : std::integral_constant<int, State::size> {};
template <class State>
struct constants_from<State, std::void_t<decltype(State::constants_from)>>
    : std::integral_constant<int, State::constants_from> {};
template <class State, class = void>
struct held_loads_from : constants_from<State> {};
template <class State>
struct held_loads_from<State, std::void_t<decltype(State::held_loads_from)>>
    : std::integral_constant<int, State::held_loads_from> {};
}  // namespace detail

/// The components a step may change: [0, stepped_components<State>).
template <class State>
inline constexpr int stepped_components = detail::constants_from<State>::value;

/// The components a step with new loads leaves for the next one: [0, carried_components<State>).
template <class State>
inline constexpr int carried_components = detail::held_loads_from<State>::value;

/// s = component c of body i for every c, from a view with operator()(c, i).
template <class State, class View, class Index>
QS_HD void load_state(const View& soa, Index i, State& s) {
  QS_UNROLL for (int c = 0; c < State::size; ++c) s[c] = soa(c, i);
}

/// The inverse of load_state, for the components [First, Last).
template <int First, int Last, class State, class View, class Index>
QS_HD void store_components(const State& s, const View& soa, Index i) {
  QS_UNROLL for (int c = First; c < Last; ++c) soa(c, i) = s[c];
}

/// The inverse of load_state, for the components [0, Count).
template <int Count, class State, class View, class Index>
QS_HD void store_state(const State& s, const View& soa, Index i) {
  store_components<0, Count>(s, soa, i);
}
template <class State, class View, class Index>
QS_HD void store_state(const State& s, const View& soa, Index i) {
  store_state<State::size>(s, soa, i);
}

}  // namespace quatstep
