// The register RK4 of bench/peers/rk4_step.hpp on the heavy-top ODE, for the work–precision
// comparison of bench/symplectic_work_precision.cpp: the same stages and the same renormalisation
// of q after each step, on
//   J ω̇ = τ(q, t) − ω × Jω      (full inertia about the fixed point, the model's torque: gravity)
//   q̇ = ½ q ∘ (0, ω)
// where peers/rotation_ode.hpp has principal axes and a constant body torque only. On a body that
// both can run (diagonal inertia, constant body torque) the program checks that the two agree.
#pragma once

#include "peers/rk4_step.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep::bench {

class HeavyTopRk4 {
 public:
  explicit HeavyTopRk4(const HeavyTop<double>& top) : top_(top), inverse_inertia_(top.inertia.inverse()) {}

  void operator()(peers::RotationState<double>& x, double t, double h) const {
    const double half = 0.5 * h;
    const peers::RotationState<double> k1 = rate(x, t);
    const peers::RotationState<double> k2 = rate({x.q + half * k1.q, x.w + half * k1.w}, t + half);
    const peers::RotationState<double> k3 = rate({x.q + half * k2.q, x.w + half * k2.w}, t + half);
    const peers::RotationState<double> k4 = rate({x.q + h * k3.q, x.w + h * k3.w}, t + h);
    const double sixth = h / 6;
    x.q = peers::normalized<double>(x.q + sixth * (k1.q + 2.0 * k2.q + 2.0 * k3.q + k4.q));
    x.w += sixth * (k1.w + 2.0 * k2.w + 2.0 * k3.w + k4.w);
  }

 private:
  peers::RotationState<double> rate(const peers::RotationState<double>& x, double t) const {
    return {0.5 * quat_mul(x.q, pure(x.w)),
            inverse_inertia_ * (top_.body_torque(x.q, t) - x.w.cross(Vec3<double>(top_.inertia * x.w)))};
  }

  HeavyTop<double> top_;
  Mat3<double> inverse_inertia_;
};

}  // namespace quatstep::bench
