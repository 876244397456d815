// The non-inertial generalized forces on an Euler-parameter block in the conserving schemes
// (Kinon & Betsch 2024 eqs. 86b, 146), evaluated at q^{n+½} = ½(q⁰ + q¹) and t^{n+½}:
//   f = −∇̄V + F,  ∇̄V = H q^{n+½}  (Gonzalez's gradient, eq. 71, of the quadratic V = ½qᵀHq)
//   F = 2G(q)ᵀτ_b + 2E(q)ᵀτ_s      (prescribed torques: virtual work τ_b·Ω + τ_s·ω, cf. eq. 128)
#pragma once

#include "quatstep/models/rigid_body_potential.hpp"

namespace quatstep::livens {

/// Every member is set on every step, zero where the flag says there is no such load (only read
/// where it is not). A member left unset on some steps is, in a GPU kernel's time-step loop, the
/// value of an earlier step, which the register allocator keeps live around the whole loop:
/// unset, H, τ_b and τ_s left LivensEm<HeavyTop<double>> at 254 registers and 40 B of spill
/// stores, LivensEm<FreeRigidBody<double>> at 255 and 76 B; zeroed, 242 and 252 registers, no
/// spills (ptxas sm_90).
template <class S>
struct RigidBodyForces {
  bool gravity;                       ///< whether V ≠ 0
  Mat4<S> hessian = Mat4<S>::Zero();  ///< H
  bool torques;                       ///< whether prescribed torques act
  Vec3<S> tau_body = Vec3<S>::Zero(), tau_space = Vec3<S>::Zero();  ///< at t^{n+½}

  /// No loads (a placeholder to assign to).
  QS_HD RigidBodyForces() : gravity(false), torques(false) {}
  QS_HD RigidBodyForces(const RigidBodyLoads<S>& l, S t_mid)
      : RigidBodyForces(l, t_mid, gravity_acts(l), torques_act(l)) {}
  /// With the flags given (a block of bodies stepped in SIMD lanes decides them per body,
  /// simd/lane_model.hpp).
  QS_HD RigidBodyForces(const RigidBodyLoads<S>& l, S t_mid, bool acts_gravity, bool act_torques)
      : gravity(acts_gravity), torques(act_torques) {
    if (gravity) hessian = gravity_potential_hessian(l);
    if (torques) {
      tau_body = l.body_torque(t_mid);
      tau_space = l.spatial_torque(t_mid);
    }
  }
  QS_HD bool any() const { return gravity || torques; }
  QS_HD static bool gravity_acts(const RigidBodyLoads<S>& l) {
    return l.mass != S(0) && !l.gravity.isZero(S(0)) && !l.lever.isZero(S(0));
  }
  QS_HD static bool torques_act(const RigidBodyLoads<S>& l) {
    return !l.body_torque.is_zero() || !l.spatial_torque.is_zero();
  }

  /// f(q^{n+½}) = −∇̄V + F.
  QS_HD Vec4<S> force(const Vec4<S>& qm) const {
    Vec4<S> f = Vec4<S>::Zero();
    if (gravity) f -= hessian * qm;
    if (torques) f += S(2) * (G(qm).transpose() * tau_body + E(qm).transpose() * tau_space);
    return f;
  }
  /// ∂f/∂q¹ (= ½ ∂f/∂q^{n+½}).
  QS_HD Mat4<S> force_dq1() const {
    Mat4<S> d = Mat4<S>::Zero();
    if (gravity) d -= S(0.5) * hessian;
    if (torques) d += d_Gt_times<S>(tau_body) + quat_left<S>(pure(tau_space));
    return d;
  }
};

}  // namespace quatstep::livens
