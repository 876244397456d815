// HeavyTop: a rigid body rotating about a fixed point (Sherif §10.1, Kinon §5.4), with gravity at
// a body-fixed centre of mass and optional body-frame / spatial torques given as time profiles.
// With a zero lever it is a torque-driven body about its centre of mass (Sherif §3–7 spin-up).
//
// DAE form (Sherif eq. 57): q = e ∈ R⁴, n = 4, one constraint C = eᵀe − 1 (Sherif eq. 5).
#pragma once

#include "quatstep/models/euler_parameter_block.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/models/rigid_body_loads.hpp"
#include "quatstep/models/rotational_force.hpp"

namespace quatstep {

template <class S>
struct HeavyTop {
  using Scalar = S;
  static constexpr int n = 4;  ///< coordinates
  static constexpr int m = 1;  ///< constraints
  static constexpr int n_quaternions = 1;
  static constexpr bool translates = false;
  QS_HD static constexpr int quaternion_offset(int) { return 0; }

  Mat3<S> inertia = Mat3<S>::Identity();  ///< about the fixed point, body axes
  RigidBodyLoads<S> loads;                ///< loads.lever = centre of mass in body axes

  /// Principal inertia about the centre of mass shifted to the fixed point (parallel axes;
  /// docs/errata.md S2): J_O = J_cm + m(|x|² I − x xᵀ).
  QS_HD static HeavyTop from_center_of_mass(const Vec3<S>& principal_inertia_cm, S mass,
                                            const Vec3<S>& center_of_mass, const Vec3<S>& gravity) {
    HeavyTop t;
    t.inertia = principal_inertia_cm.asDiagonal();
    t.inertia += mass * (center_of_mass.squaredNorm() * Mat3<S>::Identity() -
                         center_of_mass * center_of_mass.transpose());
    t.loads.mass = mass;
    t.loads.lever = center_of_mass;
    t.loads.gravity = gravity;
    return t;
  }

  /// This top with its time-dependent loads held at their values at t: what an implicit step's
  /// Newton iterations at t_{n+1} evaluate (profiles once per step, and fewer live registers).
  QS_HD HeavyTop held_at(S t) const {
    HeavyTop m = *this;
    m.loads = loads.held_at(t);
    return m;
  }

  // ---------------------------------------------------------------- Lie-group interface
  QS_HD Vec3<S> body_torque(const Vec4<S>& e, S t) const { return loads.torque(e, t); }
  /// ∂τ/∂φ for the body-frame perturbation e ∘ exp((0, φ/2)): δe = ½ G(e)ᵀ δφ.
  QS_HD Mat3<S> body_torque_dphi(const Vec4<S>& e, S t) const {
    return loads.torque_dphi(e, t);
  }

  // ---------------------------------------------------------------- DAE interface (Sherif eq. 57)
  QS_HD Mat4<S> mass_matrix(const Vec4<S>& ql, const Vec4<S>& qr) const {
    return euler_parameters::mass(inertia, ql, qr);
  }
  QS_HD Vec4<S> mass_times(const Vec4<S>& ql, const Vec4<S>& qr, const Vec4<S>& a) const {
    return euler_parameters::mass_times(inertia, ql, qr, a);
  }
  /// ∂(M(ql, qr) a) along (δql, δqr, δa).
  QS_HD Vec4<S> mass_times_derivative(const Vec4<S>& ql, const Vec4<S>& qr, const Vec4<S>& a, const Vec4<S>& dql,
                                      const Vec4<S>& dqr, const Vec4<S>& da) const {
    return euler_parameters::mass_times_derivative(inertia, ql, qr, a, dql, dqr, da);
  }
  /// Q(q, q̇, t) linearised: `.value`, and Q_q δq + Q_q̇ δq̇ as the sum of
  /// `.derivative_term<T>(δq, δq̇)` over T < terms (RotationalForce).
  QS_HD RotationalForce<S> linearized_force(const Vec4<S>& q, const Vec4<S>& v, S t) const {
    return RotationalForce<S>(inertia, loads, q, v, t);
  }
  QS_HD Vec4<S> force(const Vec4<S>& q, const Vec4<S>& v, S t) const { return linearized_force(q, v, t).value; }
  QS_HD Vec<S, 1> constraint(const Vec4<S>& q) const { return Vec<S, 1>(q.squaredNorm() - S(1)); }
  QS_HD Mat<S, 1, 4> constraint_jacobian(const Vec4<S>& q) const { return S(2) * q.transpose(); }
  /// ∂(C_qᵀ λ)/∂q δq.
  QS_HD Vec4<S> constraint_force_derivative(const Vec4<S>&, const Vec<S, 1>& lambda, const Vec4<S>& dq) const {
    return S(2) * lambda[0] * dq;
  }
  /// −(C_q q̇)_q q̇: right-hand side of the acceleration-level constraint.
  QS_HD Vec<S, 1> constraint_acceleration_rhs(const Vec4<S>&, const Vec4<S>& v) const {
    return Vec<S, 1>(S(-2) * v.squaredNorm());
  }

  // ---------------------------------------------------------------- kinematics and invariants
  QS_HD RigidBodyKinematics<S> kinematics_from_dae(const Vec4<S>& q, const Vec4<S>& v) const {
    RigidBodyKinematics<S> k;
    k.quaternion = q;
    k.omega_body = euler_parameters::body_rate(q, v);
    return k;
  }
  /// Coordinates and velocities of the DAE form from kinematics (ė on the velocity constraint).
  QS_HD void dae_from_kinematics(const RigidBodyKinematics<S>& k, Vec4<S>& q, Vec4<S>& v) const {
    q = k.quaternion;
    v = euler_parameters::rate_from_body(q, k.omega_body);
  }
  QS_HD RigidBodyObservables<S> observe(const RigidBodyKinematics<S>& k) const {
    RigidBodyObservables<S> o;
    const Vec3<S> Jw = inertia * k.omega_body;
    o.energy = S(0.5) * k.omega_body.dot(Jw) + loads.potential(k.quaternion);
    o.angular_momentum = rotation_matrix(k.quaternion) * Jw;
    o.constraint_violation = Eigen::numext::abs(k.quaternion.squaredNorm() - S(1));
    return o;
  }
};

}  // namespace quatstep
