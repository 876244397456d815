// The implicit equation for the incremental rotation vector Ψ shared by Krysl's first-order maps
// Φ, Φ* and the implicit midpoint Lie rule LIEMID[I] (Krysl §3, docs/errata.md R1–R2):
//
//   (1/h) I Ψ = exp[−skew(Ψ/2)] b + (h/2) T_mid(Ψ),
//
// b the body-frame angular momentum at t plus the impulse taken at the start of the step
// (Φ: Π_t + h T_t, Φ* and LIEMID: Π_t). The midpoint torque term is present only for LIEMID[I]:
// T_mid = T(q_t ∘ exp(Ψ/4), t + h/2), the body torque at the geodesic midpoint (docs/errata.md R2).
// The new orientation is q_{t+h} = q_t ∘ exp((0, Ψ/2)) (R_{t+h} = R_t exp[skew Ψ]).
#pragma once

#include <limits>

#include "quatstep/newton.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

/// exp[−skew ψ] b = R(ψ)ᵀ b, the vector b seen from the frame rotated by ψ.
template <class S>
QS_HD Vec3<S> rotate_back(const Vec3<S>& psi, const Vec3<S>& b) {
  return to_body(quat_from_rotation_vector(psi), b);
}

/// R(ψ)ᵀ b and its derivative ∂(R(ψ)ᵀ b)/∂ψ = R(ψ)ᵀ skew(b) J_r(ψ)ᵀ (J_r(−ψ) = J_r(ψ)ᵀ), from
/// R(θ+δ) = R(θ) exp[skew(J_r(θ) δ)]; one exponential for both.
template <class S>
QS_HD void rotate_back_with_derivative(const Vec3<S>& psi, const Vec3<S>& b, Vec3<S>& value, Mat3<S>& d_psi) {
  const Mat3<S> rt = rotation_matrix(quat_from_rotation_vector(psi)).transpose();
  value = rt * b;
  d_psi = rt * skew(b) * so3_right_jacobian(psi).transpose();
}

/// Newton system for Ψ (3 unknowns per body); `Model` provides inertia, body_torque, body_torque_dphi.
template <class Model>
struct IncrementalRotation {
  using S = typename Model::Scalar;
  const Model& model;
  Vec4<S> e0;             ///< orientation at t
  Vec3<S> b;              ///< momentum (plus start impulse) in the body frame at t
  S h;
  bool midpoint_torque;   ///< LIEMID[I]: add (h/2) T_mid(Ψ)
  S t_mid;                ///< t + h/2, used only with midpoint_torque
  Vec3<S> psi_pred;       ///< predictor Ψ⁽⁰⁾
  S increment_scale;      ///< size of the predicted increment, so corrections are relative

  QS_HD IncrementalRotation(const Model& m, const Vec4<S>& e, const Vec3<S>& momentum, S hh, bool midpoint, S t)
      : model(m), e0(e), b(momentum), h(hh), midpoint_torque(midpoint), t_mid(t + S(0.5) * hh) {
    // Ψ⁽⁰⁾ = h I⁻¹ (b + (h/2) T(q_t, t + h/2)): the increment with the midpoint torque frozen at q_t
    Vec3<S> p = b;
    if (midpoint_torque) p += S(0.5) * h * model.body_torque(e0, t_mid);
    psi_pred = h * Lu<S, 3>(model.inertia).solve(p);
    increment_scale = psi_pred.template lpNorm<Eigen::Infinity>();
  }

  /// Orientation at the fraction `f` of the increment: q_t ∘ exp((0, fΨ/2)).
  QS_HD Vec4<S> orientation(const Vec3<S>& psi, S f = S(1)) const {
    return quat_mul<S>(e0, quat_from_rotation_vector<S>(f * psi));
  }

  QS_HD void evaluate(const Vec3<S>& psi, Vec3<S>& R, Mat3<S>& Jac) const {
    const Vec3<S> half = S(0.5) * psi;
    // Krysl §3: (1/h) I Ψ − exp[−skew(Ψ/2)] b
    Vec3<S> rb;
    Mat3<S> d_rb;
    rotate_back_with_derivative(half, b, rb, d_rb);
    R = model.inertia * psi / h - rb;
    Jac = model.inertia / h - S(0.5) * d_rb;
    if (midpoint_torque) {
      // docs/errata.md R2: − (h/2) T(q_t ∘ exp(Ψ/4), t + h/2); ∂/∂Ψ through the midpoint orientation
      const Vec4<S> em = orientation(psi, S(0.5));
      R -= S(0.5) * h * model.body_torque(em, t_mid);
      Jac -= S(0.25) * h * (model.body_torque_dphi(em, t_mid) * so3_right_jacobian<S>(half));
    }
  }

  /// ‖ΔΨ‖∞ relative to the predicted and the current increment (newton.hpp).
  QS_HD S correction_norm(const Vec3<S>& dx, const Vec3<S>& psi) const {
    return dx.template lpNorm<Eigen::Infinity>() /
           (increment_scale + psi.template lpNorm<Eigen::Infinity>() + std::numeric_limits<S>::min());
  }
};

}  // namespace quatstep
