// The partitioned discrete derivatives of Kinon & Betsch 2024 for any model with a (possibly singular,
// possibly configuration-dependent) mass matrix, T(q, v) = ½ vᵀM(q)v (eq. 8), one Discretization for
// the systems of livens_system.hpp:
//   energy_momentum (EML, App. A)  ∂̄_v T = ½(M(q⁰) + M(q¹)) v^{n+½}                         (eq. 83)
//                                  ∂̄_q T = ½(∇̄_q T|_{v⁰} + ∇̄_q T|_{v¹}), Gonzalez in q      (eqs. 129–130)
//                                  ∇̄V Gonzalez                                            (eq. 71)
//   midpoint (MPL)                 all partial derivatives at (q^{n+½}, v^{n+½})             (eq. 132)
//
// The model provides (S = Scalar, VecN/MatN of size n, m constraints):
//   MatN mass_matrix(q); MatN mass_times_dq(q, a) = ∂(M(q)a)/∂q; MatN kinetic_hessian(q, v) = ∂²T/∂q²;
//   S potential(q); VecN potential_gradient(q); MatN potential_hessian(q);
//   Vec<m> constraint(q); Mat<m,n> constraint_jacobian(q); MatN constraint_force_dq(q, λ) = Σ λ_k ∇²g_k;
//   static constexpr bool quadratic_constraints = true  (then ∇̄g = ∇g(q^{n+½}) is Gonzalez's, eq. 71).
// From these: ∂_q T(q, v) = ½ D(q, v)ᵀ v and ∂(∂_q T)/∂v = D(q, v)ᵀ with D = mass_times_dq.
#pragma once

#include <limits>

#include "quatstep/integrators/livens_system.hpp"

namespace quatstep::livens {

/// Gonzalez's discrete gradient (Kinon eq. 71) of f between q⁰ and q¹ = q⁰ + Δ:
///   ∇̄f = ∇f(q^{n+½}) + c Δ,  c = (f(q¹) − f(q⁰) − ∇f(q^{n+½})·Δ)/|Δ|².
/// Below |Δ|² = ε|q|² the correction (O(|Δ|²) in exact arithmetic) is left out: there its
/// round-off would exceed it.
template <class S, int N>
struct Gonzalez {
  Vec<S, N> delta;
  S inv_d2;  ///< 1/|Δ|², 0 when degenerate
  S c;

  QS_HD Gonzalez(const Vec<S, N>& q0, const Vec<S, N>& q1) : delta(q1 - q0) {
    const S d2 = delta.squaredNorm();
    const S floor = std::numeric_limits<S>::epsilon() * (q0.squaredNorm() + q1.squaredNorm());
    inv_d2 = d2 > floor ? S(1) / d2 : S(0);
    c = S(0);
  }
  /// ∇̄f from f(q⁰), f(q¹), ∇f(q^{n+½}).
  QS_HD Vec<S, N> value(S f0, S f1, const Vec<S, N>& gm) {
    c = (f1 - f0 - gm.dot(delta)) * inv_d2;
    return gm + c * delta;
  }
  /// ∂∇̄f/∂q¹ from ∇f(q¹) and the Hessian at q^{n+½} (call after value()).
  QS_HD Eigen::Matrix<S, N, N> d_q1(const Vec<S, N>& g1, const Vec<S, N>& gm, const Eigen::Matrix<S, N, N>& hm) const {
    const Vec<S, N> dc = (g1 - gm - S(0.5) * (hm * delta) - S(2) * c * delta) * inv_d2;
    return S(0.5) * hm + c * Eigen::Matrix<S, N, N>::Identity() + delta * dc.transpose();
  }
  /// ∂∇̄f/∂w for f = f(·, w): from ∂(∇f(q^{n+½}))/∂w and ∂(f(q¹) − f(q⁰))/∂w.
  QS_HD Eigen::Matrix<S, N, N> d_param(const Eigen::Matrix<S, N, N>& dgm, const Vec<S, N>& df) const {
    return dgm + delta * ((df - dgm.transpose() * delta) * inv_d2).transpose();
  }
};

template <class Model, LivensRule Rule>
struct GenericDiscretization {
  using S = typename Model::Scalar;
  using Scalar = S;
  static constexpr int n = Model::n, m = Model::m;
  using VecN = Vec<S, n>;
  using MatN = Eigen::Matrix<S, n, n>;
  static_assert(Model::quadratic_constraints, "∇̄g = ∇g(q^{n+½}) is Gonzalez's gradient only for quadratic g");

  const Model& model;
  VecN q0, v0, p0;
  S h;
  MatN mass0;  ///< M(q⁰)

  QS_HD GenericDiscretization(const Model& mo, const VecN& q, const VecN& v, const VecN& p, S, S hh)
      : model(mo), q0(q), v0(v), p0(p), h(hh), mass0(mo.mass_matrix(q)) {}

  QS_HD S kinetic(const VecN& q, const VecN& v) const { return S(0.5) * v.dot(model.mass_matrix(q) * v); }
  QS_HD VecN kinetic_q(const VecN& q, const VecN& v) const {
    return S(0.5) * (model.mass_times_dq(q, v).transpose() * v);
  }

  QS_HD void terms(const VecN& q1, const VecN& v1, Terms<S, n>& t, bool jacobians) const {
    const VecN qm = S(0.5) * (q0 + q1), vm = S(0.5) * (v0 + v1);
    if constexpr (Rule == LivensRule::midpoint) {  // Kinon eq. (132)
      const MatN mm = model.mass_matrix(qm), dm = model.mass_times_dq(qm, vm);
      t.dv = mm * vm;
      t.dq = S(0.5) * (dm.transpose() * vm) - model.potential_gradient(qm);
      if (!jacobians) return;
      t.dv_q = S(0.5) * dm;
      t.dv_v = S(0.5) * mm;
      t.dq_q = S(0.5) * (model.kinetic_hessian(qm, vm) - model.potential_hessian(qm));
      t.dq_v = S(0.5) * dm.transpose();
    } else {
      const MatN mass1 = model.mass_matrix(q1);
      t.dv = S(0.5) * ((mass0 + mass1) * vm);  // Kinon eq. (83)
      // ∂̄_q T = ½(∇̄_q T|_{v⁰} + ∇̄_q T|_{v¹}), eqs. (129)–(130)
      Gonzalez<S, n> k0(q0, q1), k1(q0, q1), pot(q0, q1);
      const VecN g0 = kinetic_q(qm, v0), g1 = kinetic_q(qm, v1);
      t.dq = S(0.5) * (k0.value(kinetic(q0, v0), kinetic(q1, v0), g0) + k1.value(kinetic(q0, v1), kinetic(q1, v1), g1));
      const VecN gv = model.potential_gradient(qm);
      t.dq -= pot.value(model.potential(q0), model.potential(q1), gv);  // −∇̄V, eq. (71)
      if (!jacobians) return;
      t.dv_q = S(0.5) * model.mass_times_dq(q1, vm);
      t.dv_v = S(0.25) * (mass0 + mass1);
      const MatN d1 = model.mass_times_dq(qm, v1);  // ∂(∂_q T(q_m, v¹))/∂v¹ = D(q_m, v¹)ᵀ
      t.dq_q = S(0.5) * (k0.d_q1(kinetic_q(q1, v0), g0, model.kinetic_hessian(qm, v0)) +
                         k1.d_q1(kinetic_q(q1, v1), g1, model.kinetic_hessian(qm, v1))) -
               pot.d_q1(model.potential_gradient(q1), gv, model.potential_hessian(qm));
      t.dq_v = S(0.5) * k1.d_param(d1.transpose(), VecN((mass1 - mass0) * v1));
    }
  }

  QS_HD void reduced_balance(const VecN& q1, VecN& r, MatN* jac) const { reduced_balance_from_terms(*this, q1, r, jac); }
  QS_HD VecN end_momentum(const VecN& q1) const { return end_momentum_from_terms(*this, q1); }

  QS_HD Vec<S, m> constraint(const VecN& q1) const { return model.constraint(q1); }
  QS_HD Eigen::Matrix<S, m, n> constraint_jacobian(const VecN& q1) const { return model.constraint_jacobian(q1); }
  /// ∇̄g = ∇g(q^{n+½}) (quadratic g, eq. 71).
  QS_HD Eigen::Matrix<S, n, m> constraint_gradient(const VecN& q1) const {
    return model.constraint_jacobian(VecN(S(0.5) * (q0 + q1))).transpose();
  }
  QS_HD MatN constraint_force_dq(const VecN& q1, const Vec<S, m>& lambda) const {
    return S(0.5) * model.constraint_force_dq(VecN(S(0.5) * (q0 + q1)), lambda);
  }
};

}  // namespace quatstep::livens
