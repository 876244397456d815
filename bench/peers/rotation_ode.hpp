// The ODE every peer integrates: a rigid body rotating about its centre of mass, principal axes,
// constant body torque τ:
//   Euler's equations        J ω̇ = τ − ω × (J ω)            (ω in body axes, J = diag(J1, J2, J3))
//   quaternion kinematics    q̇ = ½ q ∘ (0, ω)               (quatstep's convention: ω = 2 G(q) q̇)
// The state is (q, ω) ∈ R⁷; the peers renormalise q after each step, nothing else keeps |q| = 1.
#pragma once

#include "quatstep/quaternion.hpp"

namespace quatstep::peers {

template <class S>
struct RotationState {
  Vec4<S> q;  ///< unit quaternion, scalar first, body → space
  Vec3<S> w;  ///< angular velocity in body axes
};

template <class S>
struct RotationParams {
  Vec3<S> inertia;  ///< principal moments J1, J2, J3
  Vec3<S> torque;   ///< constant, body axes
};

/// ω̇ = J⁻¹ (τ − ω × Jω).
template <class S>
QS_HD Vec3<S> angular_acceleration(const RotationParams<S>& p, const Vec3<S>& w) {
  const Vec3<S> jw = p.inertia.cwiseProduct(w);
  return (p.torque - w.cross(jw)).cwiseQuotient(p.inertia);
}

/// (q̇, ω̇) at (q, ω).
template <class S>
QS_HD RotationState<S> rotation_rhs(const RotationParams<S>& p, const RotationState<S>& x) {
  return {S(0.5) * quat_mul(x.q, pure(x.w)), angular_acceleration(p, x.w)};
}

template <class S>
QS_HD Vec4<S> normalized(const Vec4<S>& q) {
  using std::sqrt;
  return q / sqrt(q.squaredNorm());
}

}  // namespace quatstep::peers
