// The partitioned discrete derivatives of a rigid body in Euler parameters (Kinon & Betsch 2024
// §4.3), one Discretization for the systems of livens_system.hpp:
//   T(q, v) = T̃(Ω) = ½ Ω·J Ω,  Ω(q, v) = 2G(q)v = −2G(v)q            (Kinon eqs. 38, 43, 45)
//   ∂̄_q T = (∂Ω/∂q)ᵀ J Ω̄ = −2G(v^{n+½})ᵀ J Ω̄,  ∂̄_v T = 2G(q^{n+½})ᵀ J Ω̄  (eq. 87, docs/errata.md K2)
// with Ω̄ chosen by the rule:
//   energy_momentum (EML)  Ω̄ = ½(Ω⁰ + Ω¹) = G(q⁰)v⁰ + G(q¹)v¹          (eq. 88, docs/errata.md K2)
//   midpoint (MPL)         Ω̄ = Ω(q^{n+½}, v^{n+½})                      (eq. 132)
// The EML rule satisfies the directionality (89) exactly, since Ω is bilinear and T̃ quadratic.
// Gravity and prescribed torques: rigid_body_forces.hpp (for a quadratic V the Gonzalez discrete
// gradient, eq. 71, is exactly ∇V(q^{n+½}), so EML and MPL share it; torques at t^{n+½}, q^{n+½},
// the choice of docs/errata.md K5).
// Constraint g(q) = ½(q·q − 1) (eq. 30, so λ is twice Sherif's eq. 61 λ, docs/errata.md S7), ∇̄g = q^{n+½} (eq. 93).
//
// Reduced form (REML, eq. 103) in closed form: with v^{n+½} = (q¹ − q⁰)/h (eq. 101), G bilinear and
// antisymmetric (G(a)b = −G(b)a, G(a)a = 0, App. C eq. 136),
//   2∂̄_v T − h∂̄_q T = 4G(q^{n+½})ᵀπ + 2G(q¹ − q⁰)ᵀπ = 4G(q¹)ᵀπ,   π = J Ω̄,
//   Ω̄ = A q¹ + b:  EML  A = G(2q⁰/h + v⁰), b = G(q⁰)v⁰;   MPL  A = (2/h)G(q⁰), b = 0,
// so the residual is quadratic in q¹ and its Jacobian costs one 4×3·3×4 product. The forces
// f = −∇̄V + F of rigid_body_forces.hpp are linear in q^{n+½}, f = 2 (∂f/∂q¹) q^{n+½}, so −h f is
// the per-step constant matrix C = −h ∂f/∂q¹ applied to q⁰ + q¹.
//
// EliminatedSystem solves eq. (103) with λ eliminated (4 unknowns q¹, 4×4 Newton matrix instead of
// 5×5): ∇̄g = q^{n+½} (eq. 93) is a single direction, so R₁ = r + hλ q^{n+½} = 0 for some λ iff
// P r = 0 with P = I − q_m q_mᵀ/|q_m|² (q_m = q^{n+½}), and then hλ = −q_m·r/|q_m|². Hence
//   F(q¹) = P r(q¹) + κ g(q¹) q_m = 0   ⇔   eqs. (103) and (86d)   (κ > 0 a constant of the step),
// since P r ⟂ q_m. With s = q_m·r/|q_m|²,
//   ∂F/∂q¹ = ∂r/∂q¹ + ½(κg − s) I + q_m (κ q¹ − ∂s/∂q¹)ᵀ,  ∂s/∂q¹ = (½ r + (∂r/∂q¹)ᵀ q_m − s q_m)/|q_m|²,
// which is the 5-unknown Newton matrix's block ∂R₁/∂q¹ at the multiplier hλ = −s plus a rank-one
// term. κ = (8/h)·tr(J)/3 gives the q_m row the scale of the others (∂r/∂q¹ ≈ (8/h) G(q¹)ᵀJG(q⁰)).
// Its residual-only path lets newton_solve keep the first Jacobian (simplified Newton, newton.hpp)
// where the first correction is small (the heavy top at h = 1e-4).
#pragma once

#include "quatstep/integrators/livens_system.hpp"
#include "quatstep/integrators/rigid_body_forces.hpp"
#include "quatstep/models/euler_parameter_block.hpp"

namespace quatstep::livens {

/// Ω = 2G(q)v and T = ½Ω·JΩ (Kinon eq. 45: ½ v·M̃₄(q)v), for any q, v in R⁴.
template <class S>
QS_HD S rigid_body_kinetic_energy(const Mat3<S>& J, const Vec4<S>& q, const Vec4<S>& v) {
  const Vec3<S> w = S(2) * (G(q) * v);
  return S(0.5) * w.dot(J * w);
}

template <class S, LivensRule Rule>
struct RigidBodyDiscretization {
  using Scalar = S;
  static constexpr int n = 4, m = 1;
  Vec4<S> q0, v0, p0;
  S h;
  Mat3<S> inertia;
  Vec3<S> half_omega0;  ///< ½Ω⁰ = G(q⁰)v⁰
  RigidBodyForces<S> forces;
  Mat34<S> ja4;  ///< 4 J A of Ω̄ = A q¹ + b (reduced form): 4π = 4J Ω̄ = ja4 q¹ + jb4
  Vec3<S> jb4;   ///< 4 J b
  // Zero without forces rather than unset, as in RigidBodyForces: LivensEm<HeavyTop<double>>
  // 242 → 232 registers, LivensEm<FreeRigidBody<double>> 252 → 244 (ptxas sm_90).
  Mat4<S> force_jac = Mat4<S>::Zero();  ///< C = −h ∂f/∂q¹
  Vec4<S> force_q0 = Vec4<S>::Zero();   ///< C q⁰: −h f(q^{n+½}) = C (q⁰ + q¹)

  /// A placeholder to assign to (a mechanism's per-body array, mechanism/livens.hpp).
  RigidBodyDiscretization() = default;
  template <class Model>
  QS_HD RigidBodyDiscretization(const Model& model, const Vec4<S>& q, const Vec4<S>& v, const Vec4<S>& p, S t, S hh)
      : RigidBodyDiscretization(model, q, v, p, hh, RigidBodyForces<S>(model.loads, t + S(0.5) * hh)) {}
  /// With the forces at t^{n+½} given.
  template <class Model>
  QS_HD RigidBodyDiscretization(const Model& model, const Vec4<S>& q, const Vec4<S>& v, const Vec4<S>& p, S hh,
                                const RigidBodyForces<S>& f)
      : q0(q), v0(v), p0(p), h(hh), inertia(model.inertia), half_omega0(G_times<S>(q, v)), forces(f) {
    Vec4<S> a;  // A = G(a)
    if constexpr (Rule == LivensRule::energy_momentum) {
      a = (S(8) / h) * q0 + S(4) * v0;
      jb4 = inertia * Vec3<S>(S(4) * half_omega0);
    } else {
      a = (S(8) / h) * q0;
      jb4.setZero();
    }
    // J times the columns of G(a) = 4A
    ja4.col(0) = inertia * Vec3<S>(-a[1], -a[2], -a[3]);
    ja4.col(1) = inertia * Vec3<S>(a[0], -a[3], a[2]);
    ja4.col(2) = inertia * Vec3<S>(a[3], a[0], -a[1]);
    ja4.col(3) = inertia * Vec3<S>(-a[2], a[1], a[0]);
    if (forces.any()) {
      force_jac = -h * forces.force_dq1();
      force_q0 = force_jac * q0;
    }
  }

  /// p¹ = 2∂̄_v T − p⁰ = 4G(q^{n+½})ᵀπ − p⁰ along v¹(q¹) (eqs. 87, 102).
  QS_HD Vec4<S> end_momentum(const Vec4<S>& q1) const {
    return S(0.5) * Gt_times<S>(Vec4<S>(q0 + q1), Vec3<S>(ja4 * q1 + jb4)) - p0;
  }

  /// r = 2∂̄_v L − 2p⁰ − h∂̄_q L along v¹(q¹) and dr/dq¹, in the closed form above:
  ///   r = 4G(q¹)ᵀπ − 2p⁰ + C(q⁰ + q¹),  dr/dq¹ = 4G(q¹)ᵀJA + 4 ∂(G(a)ᵀπ)/∂a + C.
  QS_HD void reduced_balance(const Vec4<S>& q1, Vec4<S>& r, Mat4<S>* jac) const {
    const Vec3<S> c = ja4 * q1 + jb4;  // 4π
    r = Gt_times<S>(q1, c) - S(2) * p0;
    if (forces.any()) r += force_q0 + force_jac * q1;
    if (!jac) return;
    Mat4<S>& j = *jac;
    for (int k = 0; k < 4; ++k) j.col(k) = Gt_times<S>(q1, Vec3<S>(ja4.col(k)));
    // 4 ∂(G(a)ᵀπ)/∂a = quat_right(pure(4π)) (d_Gt_times), skew-symmetric, written out
    j(0, 1) -= c[0], j(0, 2) -= c[1], j(0, 3) -= c[2];
    j(1, 0) += c[0], j(2, 0) += c[1], j(3, 0) += c[2];
    j(1, 2) += c[2], j(1, 3) -= c[1], j(2, 3) += c[0];
    j(2, 1) -= c[2], j(3, 1) += c[1], j(3, 2) -= c[0];
    if (forces.any()) j += force_jac;
  }

  QS_HD void terms(const Vec4<S>& q1, const Vec4<S>& v1, Terms<S, 4>& t, bool jacobians) const {
    const Vec4<S> qm = S(0.5) * (q0 + q1), vm = S(0.5) * (v0 + v1);
    const Mat34<S> gm = G(qm), gv = G(vm);
    Vec3<S> w;          // Ω̄
    Mat34<S> w_q, w_v;  // ∂Ω̄/∂q¹, ∂Ω̄/∂v¹
    if constexpr (Rule == LivensRule::energy_momentum) {
      const Mat34<S> g1 = G(q1);
      w = half_omega0 + g1 * v1;  // Kinon eq. (88)
      w_q = -G(v1);
      w_v = g1;
    } else {
      w = S(2) * (gm * vm);  // Kinon eq. (132): Ω(q^{n+½}, v^{n+½})
      w_q = -gv;
      w_v = gm;
    }
    const Vec3<S> pi = inertia * w;  // ∂T̃/∂Ω at Ω̄
    t.dv = S(2) * (gm.transpose() * pi);   // eq. (87): (∂Ω/∂v)ᵀ = 2G(q^{n+½})ᵀ
    t.dq = S(-2) * (gv.transpose() * pi);  // eq. (87): (∂Ω/∂q)ᵀ = −2G(v^{n+½})ᵀ
    if (forces.any()) t.dq += forces.force(qm);  // −∇̄V + F
    if (!jacobians) return;
    const Mat34<S> pq = inertia * w_q, pv = inertia * w_v;
    const Mat4<S> dpi = d_Gt_times<S>(pi);  // ∂(G(a)ᵀπ)/∂a
    t.dv_q = dpi + S(2) * (gm.transpose() * pq);
    t.dv_v = S(2) * (gm.transpose() * pv);
    t.dq_q = S(-2) * (gv.transpose() * pq);
    t.dq_v = -dpi - S(2) * (gv.transpose() * pv);
    if (forces.any()) t.dq_q += forces.force_dq1();
  }

  QS_HD Vec<S, 1> constraint(const Vec4<S>& q1) const { return Vec<S, 1>(S(0.5) * (q1.squaredNorm() - S(1))); }
  QS_HD Mat<S, 1, 4> constraint_jacobian(const Vec4<S>& q1) const { return q1.transpose(); }
  QS_HD Vec4<S> constraint_gradient(const Vec4<S>& q1) const { return S(0.5) * (q0 + q1); }  // eq. (93)
  QS_HD Mat4<S> constraint_force_dq(const Vec4<S>&, const Vec<S, 1>& lambda) const {
    return S(0.5) * lambda[0] * Mat4<S>::Identity();
  }

  /// A guess of q¹: the rotation by the constant body rate Ω⁰ = 2G(q⁰)v⁰ under the midpoint rule.
  QS_HD Vec4<S> predictor() const { return midpoint_rotation<S>(q0, Vec3<S>(S(2) * half_omega0), h); }
};

/// Eq. (103) with λ eliminated (see the head of this file): unknowns q¹ only.
template <class D>
struct EliminatedSystem {
  using S = typename D::Scalar;
  static constexpr int n = 4, m = 1, K = 4;
  const D& d;
  S inv_scale, kappa;

  QS_HD explicit EliminatedSystem(const D& dd)
      : d(dd), inv_scale(position_scale(dd)), kappa((S(8) / (S(3) * dd.h)) * dd.inertia.trace()) {}

  QS_HD Vec4<S> predictor(const Vec4<S>& q1, const Vec<S, 1>&) const { return q1; }

  /// F = P r + κ g q_m and, if jac, ∂F/∂q¹.
  QS_HD void evaluate(const Vec4<S>& q1, Vec4<S>& F, Mat4<S>& J) const { eval(q1, F, &J); }
  QS_HD void residual(const Vec4<S>& q1, Vec4<S>& F) const { eval(q1, F, nullptr); }

  QS_HD S correction_norm(const Vec4<S>& dx, const Vec4<S>& /*x: position scale is fixed*/) const {
    return dx.template lpNorm<Eigen::Infinity>() * inv_scale;
  }

  /// v¹ by eq. (101), p¹ by eq. (102), hλ = −q_m·r/|q_m|².
  QS_HD EndPoint<S, 4, 1> end_point(const Vec4<S>& q1) const { return end_point_at(d, q1, midpoint_multiplier(d, q1)); }

 private:
  QS_HD void eval(const Vec4<S>& q1, Vec4<S>& F, Mat4<S>* J) const {
    Vec4<S> r;
    d.reduced_balance(q1, r, J);
    const Vec4<S> qm = S(0.5) * (d.q0 + q1);
    const S inv_mm = S(1) / qm.squaredNorm(), s = qm.dot(r) * inv_mm;
    const S kg = kappa * S(0.5) * (q1.squaredNorm() - S(1));  // κ g(q¹), eq. (86d)
    F = r + (kg - s) * qm;
    if (!J) return;
    Mat4<S>& j = *J;
    Vec4<S> w;  // κ q¹ − ∂s/∂q¹
    for (int k = 0; k < 4; ++k) w[k] = kappa * q1[k] - (S(0.5) * r[k] + j.col(k).dot(qm) - s * qm[k]) * inv_mm;
    const S diag = S(0.5) * (kg - s);
    for (int k = 0; k < 4; ++k) {
      j.col(k) += w[k] * qm;
      j(k, k) += diag;
    }
  }
};

}  // namespace quatstep::livens
