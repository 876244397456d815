// States consistent with a mechanism's constraints, each one structured solve with the exact mass
// blocks (kkt.hpp; nothing is left out):
//   - solve_accelerations: q̈ and λ at a state — Sherif eq. (57), M q̈ + C_qᵀλ = Q, with eq. (58)
//     differentiated twice, C_q q̈ = −(q̇ᵀ C_qq q̇ + 2 C_qt q̇ + C_tt) (Negrut eq. 7c). The HHT family
//     starts from it (consistent q̈₀, λ₀); it is also the right-hand side of the index-1 ODE, which
//     the tests integrate with RK4 as an independent reference.
//   - mass_orthogonal_correction: the δ of least kinetic-energy norm δᵀM(q)δ with C_q δ = −c,
//       [M  C_qᵀ] [δ]   [ 0 ]
//       [C_q  0 ] [μ] = [−c ]
//     (M's Euler-parameter block 4GᵀJG measures the body rotation 2Gδe; the Euler-parameter row
//     fixes the radial part): the assembly's position and velocity projections (assembly.hpp).
#pragma once

#include "quatstep/mechanism/dynamics.hpp"
#include "quatstep/mechanism/kkt.hpp"
#include "quatstep/status.hpp"

namespace quatstep::mechanism {

/// No NaN or infinity in v.
template <class Derived>
QS_HD bool finite(const Eigen::MatrixBase<Derived>& v) {
  using S = typename Derived::Scalar;
  return (v.array().abs() < S(INFINITY)).all();
}

/// The saddle-point matrix with the mass blocks M_b(q) and the joint Jacobian C_q at (q, t).
template <class Mech>
QS_HD void fill_mass_system(const Mech& m, const typename Mech::Bodies& bodies, const typename Dae<Mech>::VecN& q,
                            typename Mech::Scalar t, StructuredKkt<typename Mech::Scalar, typename Mech::CapacityType>& kkt) {
  using S = typename Mech::Scalar;
  for (int b = 0; b < m.n_bodies; ++b) {
    const Vec<S, 7> qb = q.template segment<7>(7 * b);
    kkt.body[b].lu.template topLeftCorner<7, 7>() = bodies.body[b].bilinear_mass_matrix(qb, qb);
    kkt.border(b, rotation_of(qb));
  }
  const typename Dae<Mech>::VecN zero = Dae<Mech>::VecN::Zero();
  for (int k = 0; k < m.n_joints; ++k) {
    const JointState<S> js = joint_at(m, k, q, zero, t);
    for (int s = 0; s < 2; ++s)
      if (m.joints[k].body[s] != ground)
        for (int r = 0; r < js.rows(); ++r) kkt.jac[k][s].row(r) = js.gradient(r, s).transpose();
  }
}

/// q̈ and λ at (q, q̇, t), the loads of t; NaN where the matrix is singular (never left unset: a
/// failed start's q and q̇ are the given ones, its q̈ and λ NaN).
template <class Mech>
QS_HD Status solve_accelerations(const Mech& m, const typename Dae<Mech>::VecN& q, const typename Dae<Mech>::VecN& v,
                                 typename Mech::Scalar t, typename Dae<Mech>::VecN& a,
                                 typename Dae<Mech>::VecM& lambda) {
  using S = typename Mech::Scalar;
  using Kkt = StructuredKkt<S, typename Mech::CapacityType>;
  const typename Mech::Bodies held = m.bodies_at(t);
  const typename Dae<Mech>::VecN Q = applied_force(m, held, q, v, t);
  Kkt kkt;
  fill_mass_system(m, held, q, t, kkt);
  typename Kkt::Rhs rhs = Kkt::Rhs::Zero();
  for (int b = 0; b < m.n_bodies; ++b) {
    rhs.template segment<7>(Kkt::body_index(b)) = Q.template segment<7>(7 * b);
    // eᵀë = −ėᵀė
    rhs[Kkt::body_index(b) + 7] =
        held.body[b].constraint_acceleration_rhs(q.template segment<7>(7 * b), v.template segment<7>(7 * b))[0];
  }
  for (int k = 0; k < m.n_joints; ++k) {
    const JointState<S> js = joint_at(m, k, q, v, t);
    for (int r = 0; r < js.rows(); ++r) rhs[Kkt::joint_index() + m.joints[k].offset + r] = -js.curvature(r);
  }
  kkt.factorize(m);
  if (kkt.singular) {
    a.setConstant(S(NAN));
    lambda.setConstant(S(NAN));
    return Status::singular_jacobian;
  }
  const typename Kkt::Rhs x = kkt.solve(rhs);
  a.setZero();
  lambda.setZero();
  for (int b = 0; b < m.n_bodies; ++b) {
    a.template segment<7>(7 * b) = x.template segment<7>(Kkt::body_index(b));
    lambda[b] = x[Kkt::body_index(b) + 7];
  }
  lambda.template tail<Dae<Mech>::R>() = x.template segment<Dae<Mech>::R>(Kkt::joint_index());
  return finite(a) && finite(lambda) ? Status::ok : Status::non_finite;
}

/// The least-kinetic-energy-norm δ with C_q(q, t) δ = −c (c over the Euler-parameter rows and the
/// joint rows, as constraint_value orders them); false when the system is singular.
template <class Mech>
QS_HD bool mass_orthogonal_correction(const Mech& m, const typename Mech::Bodies& bodies,
                                      const typename Dae<Mech>::VecN& q, typename Mech::Scalar t,
                                      const typename Dae<Mech>::VecM& c, typename Dae<Mech>::VecN& delta) {
  using Kkt = StructuredKkt<typename Mech::Scalar, typename Mech::CapacityType>;
  Kkt kkt;
  fill_mass_system(m, bodies, q, t, kkt);
  kkt.factorize(m);
  if (kkt.singular) return false;
  typename Kkt::Rhs rhs = Kkt::Rhs::Zero();
  for (int b = 0; b < m.n_bodies; ++b) rhs[Kkt::body_index(b) + 7] = -c[b];
  rhs.template segment<Dae<Mech>::R>(Kkt::joint_index()) = -c.template tail<Dae<Mech>::R>();
  const typename Kkt::Rhs x = kkt.solve(rhs);
  delta.setZero();
  for (int b = 0; b < m.n_bodies; ++b) delta.template segment<7>(7 * b) = x.template segment<7>(Kkt::body_index(b));
  return finite(delta);
}

}  // namespace quatstep::mechanism
