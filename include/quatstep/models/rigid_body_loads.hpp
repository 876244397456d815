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
  /// t_{n+1} for the n+1 terms, errata S8).
  QS_HD Vec3<S> torque(const Vec4<S>& e, S t) const {
    const Vec3<S> ts = spatial_torque(t);
    return lever.cross(to_body(e, Vec3<S>(mass * gravity))) + body_torque(t) + to_body(e, ts);
  }
  /// ∂τ/∂e (3×4), e varied freely in R⁴ (R(e) as the quadratic polynomial of Sherif eq. 2).
  QS_HD Mat34<S> torque_de(const Vec4<S>& e, S t) const {
    return skew(lever) * d_to_body(e, Vec3<S>(mass * gravity)) + d_to_body(e, spatial_torque(t));
  }
  /// Gravitational potential of the lever's end relative to the rotation point.
  QS_HD S potential(const Vec4<S>& e) const { return -mass * gravity.dot(rotation_matrix(e) * lever); }
};

}  // namespace quatstep
