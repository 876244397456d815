// Peer 3, the fastest hand-written baseline: classical RK4 on (q, ω) ∈ R⁷ (rotation_ode.hpp), the
// state in registers, the quaternion renormalised after each step:
//   k1 = f(x_n), k2 = f(x_n + h/2 k1), k3 = f(x_n + h/2 k2), k4 = f(x_n + h k3),
//   x_{n+1} = x_n + h/6 (k1 + 2 k2 + 2 k3 + k4),   q_{n+1} ← q_{n+1} / |q_{n+1}|.
#pragma once

#include "rotation_ode.hpp"

namespace quatstep::peers {

struct Rk4Step {
  template <class S>
  QS_HD void operator()(const RotationParams<S>& p, RotationState<S>& x, S h) const {
    const S half = S(0.5) * h;
    const RotationState<S> k1 = rotation_rhs(p, x);
    const RotationState<S> k2 = rotation_rhs(p, {x.q + half * k1.q, x.w + half * k1.w});
    const RotationState<S> k3 = rotation_rhs(p, {x.q + half * k2.q, x.w + half * k2.w});
    const RotationState<S> k4 = rotation_rhs(p, {x.q + h * k3.q, x.w + h * k3.w});
    const S sixth = h / S(6);
    x.q = normalized<S>(x.q + sixth * (k1.q + S(2) * k2.q + S(2) * k3.q + k4.q));
    x.w += sixth * (k1.w + S(2) * k2.w + S(2) * k3.w + k4.w);
  }
};

}  // namespace quatstep::peers
