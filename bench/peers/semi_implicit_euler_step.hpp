// Peer 2, what GPU particle codes do today (Chrono DEM-Engine, NVIDIA Warp's semi-implicit body
// integrator), run in float: first-order semi-implicit Euler with a renormalised quaternion,
//   ω_{n+1} = ω_n + h J⁻¹ (τ − ω_n × J ω_n)               (Euler's equations, torque at t_n)
//   q_{n+1} = normalise(q_n + h/2 q_n ∘ (0, ω_{n+1}))      (the new rate, first-order update)
#pragma once

#include "rotation_ode.hpp"

namespace quatstep::peers {

struct SemiImplicitEulerStep {
  template <class S>
  QS_HD void operator()(const RotationParams<S>& p, RotationState<S>& x, S h) const {
    x.w += h * angular_acceleration(p, x.w);
    x.q = normalized<S>(x.q + (S(0.5) * h) * quat_mul(x.q, pure(x.w)));
  }
};

}  // namespace quatstep::peers
