// Per-body branches written so that a lane type can take them lane by lane: the condition from
// is_less / is_less_equal (a bool for float and double), the two sides as functions, choose(c,
// then_, else_) evaluating the one the condition picks. simd/lane_trig.hpp overloads all three for
// Lanes (found by argument-dependent lookup, so call them unqualified): the comparisons give a lane
// mask, and choose evaluates one side where every lane agrees and both sides and a blend where they
// do not. Used where the core's scalar code branches on a body's own numbers (the series of sin x/x
// and friends, the quaternion log, the portable atan2).
#pragma once

#include "quatstep/config.hpp"

namespace quatstep::math {

/// a < b (false with a NaN).
template <class S>
QS_HD bool is_less(S a, S b) {
  return a < b;
}
/// a ≤ b (false with a NaN).
template <class S>
QS_HD bool is_less_equal(S a, S b) {
  return a <= b;
}
/// then_() where c holds, else else_(); both return the same type.
template <class Then, class Else>
QS_HD auto choose(bool c, Then then_, Else else_) {
  return c ? then_() : else_();
}

}  // namespace quatstep::math
