// The loads shared by the rigid-body models: gravity acting at a body-fixed centre of mass,
// and torques prescribed in the body frame and in space.
#pragma once

#include "quatstep/models/torque_profile.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

template <class S>
struct RigidBodyLoads {
  Vec3<S> gravity = Vec3<S>::Zero();  ///< spatial acceleration of gravity
  Vec3<S> lever = Vec3<S>::Zero();    ///< body-frame vector from the rotation point to where gravity acts
  S mass = S(0);
  TimeProfile<S> body_torque;     ///< torque in body axes
  TimeProfile<S> spatial_torque;  ///< torque in spatial axes

  /// Body-frame torque τ(e, t) = lever × (m Rᵀ g) + τ_b(t) + Rᵀ τ_s(t).
  /// Time-dependent torques are evaluated at the time the integrator asks for (Sherif eq. 20 uses
  /// t_{n+1} for the n+1 terms, docs/errata.md S8). Zero profiles are skipped.
  QS_HD Vec3<S> torque(const Vec4<S>& e, S t) const {
    Vec3<S> tau = lever.cross(to_body(e, Vec3<S>(mass * gravity)));
    if (!body_torque.is_zero()) tau += body_torque(t);
    if (!spatial_torque.is_zero()) tau += to_body(e, spatial_torque(t));
    return tau;
  }
  /// ∂τ/∂e δe, e varied freely in R⁴ (R(e) as the quadratic polynomial of Sherif eq. 2):
  /// l̃ ∂(Rᵀ m g)/∂e δe + ∂(Rᵀ τ_s)/∂e δe (the body-frame torque does not depend on e).
  QS_HD Vec3<S> torque_derivative(const Vec4<S>& e, S t, const Vec4<S>& de) const {
    Vec3<S> d = lever.cross(to_body_derivative(e, Vec3<S>(mass * gravity), de));
    if (!spatial_torque.is_zero()) d += to_body_derivative(e, spatial_torque(t), de);
    return d;
  }
  /// ∂τ/∂φ for the body-frame perturbation e ∘ exp((0, φ/2)): ∂(Rᵀ f)/∂φ = (Rᵀ f)~, so
  /// ∂τ/∂φ = l̃ (Rᵀ m g)~ + (Rᵀ τ_s)~.
  QS_HD Mat3<S> torque_dphi(const Vec4<S>& e, S t) const {
    Mat3<S> d = skew(lever) * skew(to_body(e, Vec3<S>(mass * gravity)));
    if (!spatial_torque.is_zero()) d += skew(to_body(e, spatial_torque(t)));
    return d;
  }
  /// The loads with the torque profiles held at their values at t.
  QS_HD RigidBodyLoads held_at(S t) const {
    RigidBodyLoads l = *this;
    l.body_torque = body_torque.held_at(t);
    l.spatial_torque = spatial_torque.held_at(t);
    return l;
  }
  /// The longest step from t that respects both torque profiles' windows (TimeProfile::step_limit).
  QS_HD S step_limit(S t) const {
    const S b = body_torque.step_limit(t), s = spatial_torque.step_limit(t);
    return b < s ? b : s;
  }
  /// Gravitational potential of the lever's end relative to the rotation point.
  QS_HD S potential(const Vec4<S>& e) const { return -mass * gravity.dot(rotation_matrix(e) * lever); }
};

}  // namespace quatstep
