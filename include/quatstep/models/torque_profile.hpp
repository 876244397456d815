// A load given as a function of time, simple enough to live in a GPU register file:
// f(t) = constant + ramp·t + amplitude·sin(frequency·t + phase), componentwise, for begin ≤ t < end
// and 0 outside. The window makes pulses: a constant alone is a rectangular one, and constant = A/2
// with amplitude −A/2, frequency 2π/w and phase π/2 − 2π·begin/w the smooth pulse
// A·sin²(π(t − begin)/w) of width w = end − begin (continuous with its slope at both ends).
#pragma once

#include <limits>

#include "quatstep/config.hpp"
#include "quatstep/math/trig.hpp"

namespace quatstep {

template <class S>
struct TimeProfile {
  Vec3<S> constant = Vec3<S>::Zero();
  Vec3<S> ramp = Vec3<S>::Zero();
  Vec3<S> amplitude = Vec3<S>::Zero();
  S frequency = S(0);  ///< angular frequency [rad/s]
  S phase = S(0);      ///< [rad]
  S begin = -std::numeric_limits<S>::infinity();  ///< acts from begin on …
  S end = std::numeric_limits<S>::infinity();     ///< … until end, excluded

  QS_HD bool active(S t) const { return t >= begin && t < end; }
  /// The longest step from t that neither passes an edge of the window (where the profile may jump)
  /// nor, inside the window, spans more than half of it (the smooth pulse is 0 at both edges: a
  /// step from edge to edge would see none of it at its end points); +∞ for a profile that never
  /// switches.
  QS_HD S step_limit(S t) const {
    if (t < begin) return begin - t;
    if (!(t < end)) return std::numeric_limits<S>::infinity();
    const S half = (end - begin) / S(2), rest = end - t;
    return half < rest ? half : rest;
  }
  QS_HD Vec3<S> operator()(S t) const {
    using math::sin;  // portable: the same bits on CPU and GPU
    if (!active(t)) return Vec3<S>::Zero();
    Vec3<S> f = constant + ramp * t;
    if (amplitude[0] != S(0) || amplitude[1] != S(0) || amplitude[2] != S(0))
      f += amplitude * sin(frequency * t + phase);
    return f;
  }
  /// The profile held at its value at t (one evaluation per step for a solve at a fixed time);
  /// it returns f(t) + 0·t, which is f(t) up to the sign of a zero.
  QS_HD TimeProfile held_at(S t) const {
    TimeProfile held;
    held.constant = (*this)(t);
    return held;
  }
  QS_HD bool is_zero() const {
    const Vec3<S> zero = Vec3<S>::Zero();
    return constant == zero && ramp == zero && amplitude == zero;
  }
};

}  // namespace quatstep
