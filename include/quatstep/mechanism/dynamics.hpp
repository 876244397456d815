// The DAE of a mechanism in Sherif §9's redundant coordinates (eqs. 57–58):
//   M(q) q̈ + C_qᵀ(q, t) λ = Q(q, q̇, t),   C(q, t) = 0,
// q = (r_1, e_1, …, r_nb, e_nb) (7 per body, at capacity 7·max_bodies), λ = (λ_e,1 … λ_e,nb | λ_J):
// each body's Euler-parameter multiplier (constraint eᵀe − 1, Sherif eq. 5) and then the joint rows
// in the builder's order. M is block diagonal, diag(m I₃, 4GᵀJG) per body (FreeRigidBody); Q is each
// body's gravity, timed forces and torques and gyroscopic force (FreeRigidBody) plus the springs.
#pragma once

#include "quatstep/mechanism/joints.hpp"
#include "quatstep/mechanism/springs.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"

namespace quatstep::mechanism {

/// Coordinates, multipliers and the kinematics every output is computed from, per mechanism type.
template <class Mech>
struct Dae {
  using S = typename Mech::Scalar;
  static constexpr int NB = Mech::max_bodies, R = Mech::max_rows;
  static constexpr int N = 7 * NB;  ///< coordinates
  static constexpr int M = NB + R;  ///< multipliers
  using VecN = Vec<S, N>;
  using VecM = Vec<S, M>;
  using Vec7 = Vec<S, 7>;
};

/// Per body: orientation, body angular velocity, centre-of-mass position and velocity.
template <class S, int NB>
struct MechanismKinematics {
  RigidBodyKinematics<S> body[NB];
};

/// Body b's (or the ground's) side at (q, q̇).
template <class S, int N>
QS_HD Side<S> side_at(int b, const Vec<S, N>& q, const Vec<S, N>& v) {
  if (b == ground) return Side<S>{};
  return Side<S>::body(q.template segment<7>(7 * b), v.template segment<7>(7 * b));
}

/// q and q̇ (ė = ½ G(e)ᵀ ω, on the velocity constraint) from per-body kinematics.
template <class Mech>
QS_HD void dae_from_kinematics(const Mech& m, const MechanismKinematics<typename Mech::Scalar, Mech::max_bodies>& k,
                               typename Dae<Mech>::VecN& q, typename Dae<Mech>::VecN& v) {
  q.setZero();
  v.setZero();
  for (int b = 0; b < m.n_bodies; ++b) {
    Vec<typename Mech::Scalar, 7> qb, vb;
    m.bodies[b].dae_from_kinematics(k.body[b], qb, vb);
    q.template segment<7>(7 * b) = qb;
    v.template segment<7>(7 * b) = vb;
  }
}

template <class Mech>
QS_HD MechanismKinematics<typename Mech::Scalar, Mech::max_bodies> kinematics_from_dae(
    const Mech& m, const typename Dae<Mech>::VecN& q, const typename Dae<Mech>::VecN& v) {
  MechanismKinematics<typename Mech::Scalar, Mech::max_bodies> k;
  for (int b = 0; b < m.n_bodies; ++b)
    k.body[b] = m.bodies[b].kinematics_from_dae(q.template segment<7>(7 * b), v.template segment<7>(7 * b));
  return k;
}

/// Joint k's rows at (q, q̇, t).
template <class Mech>
QS_HD JointState<typename Mech::Scalar> joint_at(const Mech& m, int k, const typename Dae<Mech>::VecN& q,
                                                 const typename Dae<Mech>::VecN& v, typename Mech::Scalar t) {
  const Joint<typename Mech::Scalar>& j = m.joints[k];
  return JointState<typename Mech::Scalar>(j, side_at(j.body[0], q, v), side_at(j.body[1], q, v), t);
}

template <class Mech>
QS_HD SpringState<typename Mech::Scalar> spring_at(const Mech& m, int k, const typename Dae<Mech>::VecN& q,
                                                   const typename Dae<Mech>::VecN& v) {
  const SpringDamper<typename Mech::Scalar>& s = m.springs[k];
  return SpringState<typename Mech::Scalar>(s, side_at(s.body[0], q, v), side_at(s.body[1], q, v));
}

/// Q(q, q̇, t) with the bodies' loads `held` (Mechanism::bodies_at(t)): per body gravity, timed
/// loads and gyroscopic force, plus the springs.
template <class Mech>
QS_HD typename Dae<Mech>::VecN applied_force(const Mech& m, const typename Mech::Bodies& held,
                                             const typename Dae<Mech>::VecN& q, const typename Dae<Mech>::VecN& v,
                                             typename Mech::Scalar t) {
  typename Dae<Mech>::VecN f = Dae<Mech>::VecN::Zero();
  for (int b = 0; b < m.n_bodies; ++b)
    f.template segment<7>(7 * b) = held.body[b].force(q.template segment<7>(7 * b), v.template segment<7>(7 * b), t);
  for (int k = 0; k < m.n_springs; ++k) {
    const auto spring = spring_at(m, k, q, v);
    for (int s = 0; s < 2; ++s)
      if (m.springs[k].body[s] != ground) f.template segment<7>(7 * m.springs[k].body[s]) += spring.force(s);
  }
  return f;
}

/// C_qᵀ λ: each body's 2 e λ_e and the joints' rows.
template <class Mech>
QS_HD typename Dae<Mech>::VecN constraint_force(const Mech& m, const typename Dae<Mech>::VecN& q,
                                                typename Mech::Scalar t, const typename Dae<Mech>::VecM& lambda) {
  using S = typename Mech::Scalar;
  typename Dae<Mech>::VecN f = Dae<Mech>::VecN::Zero();
  for (int b = 0; b < m.n_bodies; ++b)
    f.template segment<4>(7 * b + 3) = S(2) * lambda[b] * q.template segment<4>(7 * b + 3);
  const typename Dae<Mech>::VecN v = Dae<Mech>::VecN::Zero();
  for (int k = 0; k < m.n_joints; ++k) {
    const Joint<S>& j = m.joints[k];
    const JointState<S> js = joint_at(m, k, q, v, t);
    for (int s = 0; s < 2; ++s)
      if (j.body[s] != ground)
        f.template segment<7>(7 * j.body[s]) += js.constraint_force(&lambda[Dae<Mech>::NB + j.offset], s);
  }
  return f;
}

/// C(q, t): each body's eᵀe − 1, then the joint rows.
template <class Mech>
QS_HD typename Dae<Mech>::VecM constraint_value(const Mech& m, const typename Dae<Mech>::VecN& q,
                                                typename Mech::Scalar t) {
  typename Dae<Mech>::VecM c = Dae<Mech>::VecM::Zero();
  for (int b = 0; b < m.n_bodies; ++b) c[b] = m.bodies[b].constraint(q.template segment<7>(7 * b))[0];
  const typename Dae<Mech>::VecN v = Dae<Mech>::VecN::Zero();
  for (int k = 0; k < m.n_joints; ++k) {
    const JointState<typename Mech::Scalar> js = joint_at(m, k, q, v, t);
    for (int r = 0; r < js.rows(); ++r) c[Dae<Mech>::NB + m.joints[k].offset + r] = js.value(r);
  }
  return c;
}

/// C_q q̇ + C_t: each body's 2 eᵀė, then the joint rows.
template <class Mech>
QS_HD typename Dae<Mech>::VecM constraint_rate(const Mech& m, const typename Dae<Mech>::VecN& q,
                                               const typename Dae<Mech>::VecN& v, typename Mech::Scalar t) {
  using S = typename Mech::Scalar;
  typename Dae<Mech>::VecM c = Dae<Mech>::VecM::Zero();
  for (int b = 0; b < m.n_bodies; ++b)
    c[b] = S(2) * q.template segment<4>(7 * b + 3).dot(v.template segment<4>(7 * b + 3));
  for (int k = 0; k < m.n_joints; ++k) {
    const JointState<S> js = joint_at(m, k, q, v, t);
    for (int r = 0; r < js.rows(); ++r) c[Dae<Mech>::NB + m.joints[k].offset + r] = js.rate(r);
  }
  return c;
}

}  // namespace quatstep::mechanism
