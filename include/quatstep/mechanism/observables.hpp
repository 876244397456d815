// Mechanism-wide observables at a state (q, q̇, t): the outputs a run records beside each body's
// kinematics (dynamics.hpp: kinematics_from_dae).
#pragma once

#include "quatstep/mechanism/dynamics.hpp"

namespace quatstep::mechanism {

template <class S>
struct MechanismObservables {
  S kinetic_energy;    ///< Σ ½ m|ṙ|² + ½ ωᵀJω
  S potential_energy;  ///< gravity −Σ m g·r, and the springs' ½ k (L − L₀)²
  S energy;            ///< their sum (the timed loads and dampers do work on it)
  Vec3<S> linear_momentum;   ///< Σ m ṙ
  Vec3<S> angular_momentum;  ///< Σ R J ω + m r × ṙ, spatial, about the origin
  S position_residual;  ///< max |C|: every body's |eᵀe − 1| and every joint row
  S velocity_residual;  ///< max |C_q q̇ + C_t|: every body's |2eᵀė| and every joint row
};

template <class Mech>
QS_HD MechanismObservables<typename Mech::Scalar> observe(const Mech& m, const typename Dae<Mech>::VecN& q,
                                                          const typename Dae<Mech>::VecN& v, typename Mech::Scalar t) {
  using S = typename Mech::Scalar;
  using std::abs;
  using std::max;
  MechanismObservables<S> o{};
  o.linear_momentum.setZero();
  o.angular_momentum.setZero();
  const MechanismKinematics<S, Mech::max_bodies> k = kinematics_from_dae(m, q, v);
  for (int b = 0; b < m.n_bodies; ++b) {
    const FreeRigidBody<S>& body = m.bodies[b];
    const RigidBodyObservables<S> ob = body.observables(k.body[b]);  // ½ωᵀJω + ½m|ṙ|² − m g·r, RJω + m r×ṙ
    const S kinetic = S(0.5) * k.body[b].omega_body.dot(body.inertia * k.body[b].omega_body) +
                      S(0.5) * body.mass * k.body[b].velocity.squaredNorm();
    o.kinetic_energy += kinetic;
    o.potential_energy += ob.energy - kinetic;
    o.linear_momentum += body.mass * k.body[b].velocity;
    o.angular_momentum += ob.angular_momentum;
  }
  for (int s = 0; s < m.n_springs; ++s) o.potential_energy += spring_at(m, s, q, v).potential();
  o.energy = o.kinetic_energy + o.potential_energy;
  const typename Dae<Mech>::VecM c = constraint_value(m, q, t), cd = constraint_rate(m, q, v, t);
  for (int i = 0; i < m.n_bodies; ++i) {
    o.position_residual = max(o.position_residual, abs(c[i]));
    o.velocity_residual = max(o.velocity_residual, abs(cd[i]));
  }
  for (int i = 0; i < m.n_rows; ++i) {
    o.position_residual = max(o.position_residual, abs(c[Mech::max_bodies + i]));
    o.velocity_residual = max(o.velocity_residual, abs(cd[Mech::max_bodies + i]));
  }
  return o;
}

}  // namespace quatstep::mechanism
