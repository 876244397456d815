// Per-body branches written so that a lane type can take them lane by lane: the condition from
// is_less / is_less_equal / is_equal (a bool for float and double), the two sides as functions,
// choose(c, then_, else_) evaluating the one the condition picks; select(c, a, b) for two values at
// hand; any(c) for a loop whose bodies stop at different iterations (a duplication or AGM loop:
// while any(c), each update through select). simd/lane_trig.hpp overloads them for Lanes (found by
// argument-dependent lookup, so call them unqualified): the comparisons give a lane mask, choose
// evaluates one side where every lane agrees and both sides and a blend where they do not, any asks
// whether some lane holds. Used where the core's scalar code branches on a body's own numbers (the
// series of sin x/x and friends, the quaternion log, the portable atan2, the elliptic functions of
// the exact free flow).
#pragma once

#include <utility>

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
/// a == b (false with a NaN).
template <class S>
QS_HD bool is_equal(S a, S b) {
  return a == b;
}
/// The type of a condition on S: bool for a number, a lane mask for a lane type.
template <class S>
using ConditionOf = decltype(is_less(std::declval<S>(), std::declval<S>()));
/// A condition on S that holds (in every lane).
template <class S>
QS_HD ConditionOf<S> always() {
  return is_less_equal(S(0), S(0));
}

/// then_() where c holds, else else_(); both return the same type.
template <class Then, class Else>
QS_HD auto choose(bool c, Then then_, Else else_) {
  return c ? then_() : else_();
}
/// c ? a : b for values already computed (a lane type: lane by lane).
template <class S>
QS_HD S select(bool c, const S& a, const S& b) {
  return c ? a : b;
}
/// Whether c holds (a lane condition: in some lane): the test of a loop that runs while any body
/// needs it, its updates made through select where c holds.
QS_HD inline bool any(bool c) { return c; }

}  // namespace quatstep::math
