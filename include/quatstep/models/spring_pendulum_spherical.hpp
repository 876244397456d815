// Kinon & Betsch 2024 §5.2: a mass on a nonlinear spring in spherical coordinates q = (r, θ, φ),
// n = 3, no constraints. The mass matrix depends on q (eq. 111) and is singular at θ = kπ;
// a model with the Livens interface of livens_generic.hpp.
#pragma once

#include <cmath>

#include "quatstep/config.hpp"

namespace quatstep {

template <class S>
struct SpringPendulumSpherical {
  using Scalar = S;
  static constexpr int n = 3, m = 0;
  static constexpr bool quadratic_constraints = true;  // none
  using VecN = Vec<S, 3>;
  using MatN = Mat3<S>;

  S mass = S(1), stiffness = S(300), rest_length = S(1);  ///< Table 3: m, EA, l₀

  /// Eq. (111): M = m diag(1, r², r² sin²θ).
  QS_HD MatN mass_matrix(const VecN& q) const {
    using std::sin;
    const S r2 = q[0] * q[0], s = sin(q[1]);
    return VecN(mass, mass * r2, mass * r2 * s * s).asDiagonal();
  }
  /// ∂(M(q)a)/∂q.
  QS_HD MatN mass_times_dq(const VecN& q, const VecN& a) const {
    using std::cos;
    using std::sin;
    const S r = q[0], s = sin(q[1]), c = cos(q[1]);
    MatN d = MatN::Zero();
    d(1, 0) = mass * S(2) * r * a[1];
    d(2, 0) = mass * S(2) * r * s * s * a[2];
    d(2, 1) = mass * r * r * S(2) * s * c * a[2];
    return d;
  }
  /// ∂²T/∂q² of T = ½m(v_r² + r²v_θ² + r² sin²θ v_φ²).
  QS_HD MatN kinetic_hessian(const VecN& q, const VecN& v) const {
    using std::cos;
    using std::sin;
    const S r = q[0], s = sin(q[1]), c = cos(q[1]), vp2 = v[2] * v[2];
    MatN k = MatN::Zero();
    k(0, 0) = mass * (v[1] * v[1] + s * s * vp2);
    k(0, 1) = k(1, 0) = mass * S(2) * r * s * c * vp2;
    k(1, 1) = mass * r * r * (c * c - s * s) * vp2;
    return k;
  }

  /// Eq. (112): V = ½ EA ε², ε = (r² − l₀²)/(2l₀²) (Green–Lagrange strain).
  QS_HD S strain(const VecN& q) const { return (q[0] * q[0] - rest_length * rest_length) / (S(2) * rest_length * rest_length); }
  QS_HD S potential(const VecN& q) const {
    const S e = strain(q);
    return S(0.5) * stiffness * e * e;
  }
  QS_HD VecN potential_gradient(const VecN& q) const {
    return VecN(stiffness * strain(q) * q[0] / (rest_length * rest_length), S(0), S(0));
  }
  QS_HD MatN potential_hessian(const VecN& q) const {
    const S l2 = rest_length * rest_length, de = q[0] / l2;  // dε/dr; d²ε/dr² = 1/l₀²
    MatN h = MatN::Zero();
    h(0, 0) = stiffness * (de * de + strain(q) / l2);
    return h;
  }

  QS_HD Vec<S, 0> constraint(const VecN&) const { return Vec<S, 0>(); }
  QS_HD Eigen::Matrix<S, 0, 3> constraint_jacobian(const VecN&) const { return Eigen::Matrix<S, 0, 3>(); }
  QS_HD MatN constraint_force_dq(const VecN&, const Vec<S, 0>&) const { return MatN::Zero(); }
};

}  // namespace quatstep
