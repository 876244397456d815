// Subnormal numbers in an integrator's state, and why the mechanism steps zero them.
//
// A mechanism moving in a plane — a pendulum on its hinge, the cylinders of an engine — has
// out-of-plane components that the schemes' numerical damping lets decay geometrically from
// round-off into the subnormal range (below 2.2e-308 in double), where they stick at the smallest
// subnormal (a decay factor above ½ rounds it back to itself) and every product with them takes
// x86's slow microcode path: a pendulum under a constant torque stepped 3× slower and the V8 1.7×
// slower than the same runs with the CPU's flush-to-zero mode (measured 2026-11-28, docs/mechanisms.md).
// Setting that mode instead would make the CPU differ from the GPU, which keeps subnormals in
// double; zeroing them in the step code changes nothing above 2.2e-308 and keeps CPU = GPU bit for bit.
#pragma once

#include <limits>
#include <type_traits>

#include "quatstep/config.hpp"
#include "quatstep/math/choose.hpp"

namespace quatstep {

/// Zero the subnormal components of s (State::size scalars through operator[], as
/// state_components.hpp sees a state); exact zeros of either sign are left alone. Lane by lane for
/// a lane type (math/choose.hpp's conditions).
template <class State>
QS_HD void flush_subnormals(State& s) {
  using S = std::decay_t<decltype(s[0])>;
  using math::is_equal;
  using math::is_less;
  using math::select;
  QS_UNROLL for (int c = 0; c < State::size; ++c) {
    const S x = s[c];
    s[c] = select(!is_equal(x, S(0)) && is_less(Eigen::numext::abs(x), std::numeric_limits<S>::min()), S(0), x);
  }
}

}  // namespace quatstep
