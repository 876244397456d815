// The Newton systems of the Livens-principle one-step schemes (Kinon & Betsch 2024 §4), written
// once for every discretization of the partial derivatives of L:
//   FullSystem       unknowns (q¹, v¹, p¹, λ)        eqs. (72a)–(72d) / (86a)–(86d)
//   ReducedSystem    unknowns (q¹, λ)                v¹, p¹ eliminated by eqs. (101)–(102): eq. (103)
//   NullSpaceSystem  unknowns ϑ ∈ R³ (quaternions)   Remark 4.11, eqs. (104)–(105)
// and, for rigid bodies, EliminatedSystem (livens_rigid_body.hpp): unknowns q¹, eq. (103) with λ
// eliminated — what the reduced variant (REML) runs for them.
//
// A Discretization D of one step t → t+h provides (see livens_rigid_body.hpp, livens_generic.hpp)
//   D::n, D::m, D::Scalar; members q0, v0, p0, h (the start of the step);
//   void terms(q1, v1, Terms&, bool jacobians)   ∂̄_q L (with −∇̄V and applied forces), ∂̄_v L,
//                                                and their derivatives w.r.t. q¹ and v¹;
//   void reduced_balance(q1, r, MatN* jac)       r = 2∂̄_v L − 2p⁰ − h∂̄_q L along v¹(q¹) of eq. (101)
//                                                and dr/dq¹ (reduced_balance_from_terms, or a
//                                                closed form of the same equations);
//   VecN end_momentum(q1)                        p¹ = 2∂̄_v L − p⁰ along v¹(q¹)   (eq. 102)
//   constraint(q1), constraint_jacobian(q1)      g(q¹), ∇g(q¹)                     (eq. 72d)
//   constraint_gradient(q1)                      ∇̄g (n×m, columns)                 (eq. 72b)
//   constraint_force_dq(q1, λ)                   ∂(∇̄g λ)/∂q¹.
#pragma once

#include <algorithm>
#include <limits>

#include "quatstep/newton.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

/// How the partial derivatives of L are discretized: the energy-momentum discrete derivatives
/// (EML, Kinon eqs. 87–88 / App. A) or the midpoint rule (MPL, eq. 132).
enum class LivensRule { energy_momentum, midpoint };

namespace livens {

/// The partitioned discrete derivatives of one step at a trial end point (q¹, v¹).
template <class S, int N>
struct Terms {
  Vec<S, N> dq;  ///< ∂̄_q L + applied forces
  Vec<S, N> dv;  ///< ∂̄_v L
  Eigen::Matrix<S, N, N> dq_q, dq_v, dv_q, dv_v;  ///< ∂(dq)/∂q¹, ∂(dq)/∂v¹, ∂(dv)/∂q¹, ∂(dv)/∂v¹
};

/// The end of a step: q¹, v¹, p¹, λ.
template <class S, int N, int M>
struct EndPoint {
  Vec<S, N> q, v, p;
  Vec<S, M> lambda;
};

/// Weighted size of a position correction: relative to |q⁰|∞ + h|v⁰|∞ (1 = "at scale").
template <class D>
QS_HD typename D::Scalar position_scale(const D& d) {
  using S = typename D::Scalar;
  return S(1) / (d.q0.template lpNorm<Eigen::Infinity>() + d.h * d.v0.template lpNorm<Eigen::Infinity>() +
                 std::numeric_limits<S>::min());
}

/// Kinon eq. (101): v¹ = 2(q¹ − q⁰)/h − v⁰.
template <class D>
QS_HD Vec<typename D::Scalar, D::n> end_velocity(const D& d, const Vec<typename D::Scalar, D::n>& q1) {
  return (typename D::Scalar(2) / d.h) * (q1 - d.q0) - d.v0;
}

/// Eq. (102): p¹ = 2∂̄_v L − p⁰ along v¹(q¹), from the partial discrete derivatives.
template <class D>
QS_HD Vec<typename D::Scalar, D::n> end_momentum_from_terms(const D& d, const Vec<typename D::Scalar, D::n>& q1) {
  using S = typename D::Scalar;
  Terms<S, D::n> t;
  d.terms(q1, end_velocity(d, q1), t, false);
  return S(2) * t.dv - d.p0;
}

/// The end of the step at q¹: v¹ by eq. (101), p¹ by eq. (102), and the multipliers.
template <class D>
QS_HD EndPoint<typename D::Scalar, D::n, D::m> end_point_at(const D& d, const Vec<typename D::Scalar, D::n>& q1,
                                                            const Vec<typename D::Scalar, D::m>& lambda) {
  return {q1, end_velocity(d, q1), d.end_momentum(q1), lambda};
}

/// For the forms that eliminate λ (one quaternion, ∇̄g = q^{n+½}, eq. 93): λ from the component
/// of eq. (86b) along q^{n+½}, hλ = −q_m·r/|q_m|² with r the reduced balance at q¹.
template <class D>
QS_HD Vec<typename D::Scalar, 1> midpoint_multiplier(const D& d, const Vec4<typename D::Scalar>& q1) {
  using S = typename D::Scalar;
  Vec4<S> r;
  d.reduced_balance(q1, r, static_cast<Mat4<S>*>(nullptr));
  const Vec4<S> qm = S(0.5) * (d.q0 + q1);
  return Vec<S, 1>(-qm.dot(r) / (d.h * qm.squaredNorm()));
}

/// Eq. (86b) with (101)–(102) inserted, without the constraint force: r = 2∂̄_v L − 2p⁰ − h∂̄_q L,
/// and dr/dq¹ along v¹(q¹) (∂v¹/∂q¹ = 2/h), from the partial discrete derivatives.
template <class D>
QS_HD void reduced_balance_from_terms(const D& d, const Vec<typename D::Scalar, D::n>& q1,
                                      Vec<typename D::Scalar, D::n>& r,
                                      Eigen::Matrix<typename D::Scalar, D::n, D::n>* jac) {
  using S = typename D::Scalar;
  Terms<S, D::n> t;
  d.terms(q1, end_velocity(d, q1), t, jac != nullptr);
  r = S(2) * t.dv - S(2) * d.p0 - d.h * t.dq;
  if (jac) *jac = S(2) * t.dv_q + (S(4) / d.h) * t.dv_v - d.h * t.dq_q - S(2) * t.dq_v;
}

// ---------------------------------------------------------------- reduced: x = (q¹, λ)
template <class D>
struct ReducedSystem {
  using S = typename D::Scalar;
  static constexpr int n = D::n, m = D::m, K = n + m;
  const D& d;
  S inv_scale;

  QS_HD explicit ReducedSystem(const D& dd) : d(dd), inv_scale(position_scale(dd)) {}

  QS_HD Vec<S, K> predictor(const Vec<S, n>& q1, const Vec<S, m>& lambda) const {
    Vec<S, K> x;
    x.template head<n>() = q1;
    x.template tail<m>() = lambda;
    return x;
  }

  QS_HD void evaluate(const Vec<S, K>& x, Vec<S, K>& R, Eigen::Matrix<S, K, K>& J) const {
    const Vec<S, n> q1 = x.template head<n>();
    const Vec<S, m> lambda = x.template tail<m>();
    Vec<S, n> r;
    Eigen::Matrix<S, n, n> jr;
    d.reduced_balance(q1, r, &jr);
    const Eigen::Matrix<S, n, m> dg = d.constraint_gradient(q1);
    R.template head<n>() = r + d.h * (dg * lambda);  // Kinon eq. (103), R₁
    R.template tail<m>() = d.constraint(q1);          // R₂ = g(q¹), eq. (86d)
    J.template topLeftCorner<n, n>() = jr + d.h * d.constraint_force_dq(q1, lambda);
    J.template topRightCorner<n, m>() = d.h * dg;
    J.template bottomLeftCorner<m, n>() = d.constraint_jacobian(q1);
    J.template bottomRightCorner<m, m>().setZero();
  }

  QS_HD S correction_norm(const Vec<S, K>& dx, const Vec<S, K>& /*x: position scale is fixed*/) const {
    return dx.template head<n>().template lpNorm<Eigen::Infinity>() * inv_scale;
  }

  /// v¹ by eq. (101), p¹ = 2∂̄_v L − p⁰ by eq. (102).
  QS_HD EndPoint<S, n, m> end_point(const Vec<S, K>& x) const {
    return end_point_at(d, Vec<S, n>(x.template head<n>()), Vec<S, m>(x.template tail<m>()));
  }
};

// ---------------------------------------------------------------- full: x = (q¹, v¹, p¹, λ)
template <class D>
struct FullSystem {
  using S = typename D::Scalar;
  static constexpr int n = D::n, m = D::m, K = 3 * n + m;
  const D& d;
  S inv_scale;

  QS_HD explicit FullSystem(const D& dd) : d(dd), inv_scale(position_scale(dd)) {}

  QS_HD Vec<S, K> predictor(const Vec<S, n>& q1, const Vec<S, m>& lambda) const {
    Vec<S, K> x;
    x.template segment<n>(0) = q1;
    x.template segment<n>(n) = end_velocity(d, q1);
    x.template segment<n>(2 * n) = d.p0;
    x.template tail<m>() = lambda;
    return x;
  }

  QS_HD void evaluate(const Vec<S, K>& x, Vec<S, K>& R, Eigen::Matrix<S, K, K>& J) const {
    using MatN = Eigen::Matrix<S, n, n>;
    const Vec<S, n> q1 = x.template segment<n>(0), v1 = x.template segment<n>(n), p1 = x.template segment<n>(2 * n);
    const Vec<S, m> lambda = x.template tail<m>();
    Terms<S, n> t;
    d.terms(q1, v1, t, true);
    const Eigen::Matrix<S, n, m> dg = d.constraint_gradient(q1);
    const S h = d.h, half = S(0.5);
    R.template segment<n>(0) = q1 - d.q0 - half * h * (d.v0 + v1);          // eq. (72a)
    R.template segment<n>(n) = p1 - d.p0 - h * t.dq + h * (dg * lambda);    // eq. (72b)
    R.template segment<n>(2 * n) = half * (d.p0 + p1) - t.dv;               // eq. (72c)
    R.template tail<m>() = d.constraint(q1);                                // eq. (72d)
    J.setZero();
    const MatN I = MatN::Identity();
    J.template block<n, n>(0, 0) = I;
    J.template block<n, n>(0, n) = -half * h * I;
    J.template block<n, n>(n, 0) = -h * t.dq_q + h * d.constraint_force_dq(q1, lambda);
    J.template block<n, n>(n, n) = -h * t.dq_v;
    J.template block<n, n>(n, 2 * n) = I;
    J.template block<n, m>(n, 3 * n) = h * dg;
    J.template block<n, n>(2 * n, 0) = -t.dv_q;
    J.template block<n, n>(2 * n, n) = -t.dv_v;
    J.template block<n, n>(2 * n, 2 * n) = half * I;
    J.template block<m, n>(3 * n, 0) = d.constraint_jacobian(q1);
  }

  /// Position and h·velocity corrections, relative to the position scale.
  QS_HD S correction_norm(const Vec<S, K>& dx, const Vec<S, K>& /*x: position scale is fixed*/) const {
    const S dq = dx.template segment<n>(0).template lpNorm<Eigen::Infinity>();
    const S dv = d.h * dx.template segment<n>(n).template lpNorm<Eigen::Infinity>();
    using std::max;  // dv < dq ? dq : dv; a lane type's own max (lane by lane) by argument-dependent lookup
    return max(dv, dq) * inv_scale;
  }

  QS_HD EndPoint<S, n, m> end_point(const Vec<S, K>& x) const {
    return {x.template segment<n>(0), x.template segment<n>(n), x.template segment<n>(2 * n), x.template tail<m>()};
  }
};

// ---------------------------------------------------------------- null space: x = ϑ (one quaternion)
template <class D>
struct NullSpaceSystem {
  using S = typename D::Scalar;
  static_assert(D::n == 4 && D::m == 1, "the discrete null-space form needs a single unit quaternion");
  static constexpr int n = 4, m = 1, K = 3;
  const D& d;

  QS_HD explicit NullSpaceSystem(const D& dd) : d(dd) {}

  /// Kinon eq. (105): q¹ = exp((0, ϑ/2)) ∘ q⁰.
  QS_HD Vec4<S> orientation(const Vec3<S>& theta) const { return quat_mul<S>(quat_from_rotation_vector<S>(theta), d.q0); }

  /// Spatial rotation vector of q¹ ∘ q⁰⁻¹ for a guess q¹.
  QS_HD Vec3<S> predictor(const Vec4<S>& q1, const Vec<S, 1>&) const {
    return rotation_vector<S>(quat_mul<S>(q1, quat_conj<S>(d.q0)));
  }

  QS_HD void evaluate(const Vec3<S>& theta, Vec3<S>& R, Mat3<S>& J) const {
    const Vec4<S> q1 = orientation(theta);
    Vec4<S> r;
    Mat4<S> jr;
    d.reduced_balance(q1, r, &jr);
    const Vec4<S> qm = S(0.5) * (d.q0 + q1);
    R = G(qm) * r;  // Kinon eq. (104): G(q^{n+1/2}) annihilates the constraint force λ q^{n+1/2}
    // ∂q¹/∂ϑ = ½ E(q¹)ᵀ J_l(ϑ) (left Jacobian J_l(ϑ) = J_r(ϑ)ᵀ), ∂(G(q_m) r)/∂q_m = −G(r)
    const Eigen::Matrix<S, 4, 3> dq1 = S(0.5) * (E(q1).transpose() * so3_right_jacobian(theta).transpose());
    J = (G(qm) * jr - S(0.5) * G(r)) * dq1;
  }

  /// A rotation-vector correction, in the units of a quaternion change (½|Δϑ|).
  QS_HD S correction_norm(const Vec3<S>& dx, const Vec3<S>& /*x*/) const { return S(0.5) * dx.template lpNorm<Eigen::Infinity>(); }

  /// q¹, v¹, p¹ as in the reduced form; λ from the component of eq. (86b) along q^{n+1/2}.
  QS_HD EndPoint<S, 4, 1> end_point(const Vec3<S>& theta) const {
    const Vec4<S> q1 = orientation(theta);
    return end_point_at(d, q1, midpoint_multiplier(d, q1));
  }
};

}  // namespace livens
}  // namespace quatstep
