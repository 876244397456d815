// A load given as a function of time, simple enough to live in a GPU register file:
// f(t) = constant + ramp·t + amplitude·sin(frequency·t + phase), componentwise.
#pragma once

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

  QS_HD Vec3<S> operator()(S t) const {
    using math::sin;  // portable: the same bits on CPU and GPU
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
