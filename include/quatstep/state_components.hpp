// An integrator's State seen as a flat list of scalars, State::size of them through operator[]
// (how the ensembles store it as struct-of-arrays). The loops over it are unrolled in device code,
// so every index is a constant and the state stays in registers.
#pragma once

#include <cmath>
#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep {

/// Whether every component of s is finite (the per-step check of every integrator).
template <class State>
QS_HD bool all_finite(const State& s) {
  using S = std::decay_t<decltype(s[0])>;
  bool finite = true;
  QS_UNROLL for (int c = 0; c < State::size; ++c) finite = finite && Eigen::numext::abs(s[c]) <= S(INFINITY);
  return finite;
}

/// s = component c of body i for every c, from a view with operator()(c, i).
template <class State, class View, class Index>
QS_HD void load_state(const View& soa, Index i, State& s) {
  QS_UNROLL for (int c = 0; c < State::size; ++c) s[c] = soa(c, i);
}

/// The inverse of load_state.
template <class State, class View, class Index>
QS_HD void store_state(const State& s, const View& soa, Index i) {
  QS_UNROLL for (int c = 0; c < State::size; ++c) soa(c, i) = s[c];
}

}  // namespace quatstep
