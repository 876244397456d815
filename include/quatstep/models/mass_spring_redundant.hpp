// Kinon & Betsch 2024 §5.1 (after Udwadia & Phohomsiri): two masses on nonlinear springs described
// with a redundant coordinate, q = (x₁, q₂, x₂), n = 3, m = 1. The mass matrix is constant and
// singular (eq. 108), so no Hamiltonian exists; a model with the Livens interface of livens_generic.hpp.
#pragma once

#include "quatstep/config.hpp"

namespace quatstep {

template <class S>
struct MassSpringRedundant {
  using Scalar = S;
  static constexpr int n = 3, m = 1;
  static constexpr bool quadratic_constraints = true;
  using VecN = Vec<S, 3>;
  using MatN = Mat3<S>;

  S m1 = S(1), m2 = S(1), k1 = S(1), k2 = S(3), l10 = S(1), w = S(0.1);  ///< Table 2

  /// Eq. (108): T = ½m₁v₁² + ½m₂(v₂ + v₃)².
  QS_HD MatN mass_matrix(const VecN&) const {
    MatN M;
    M << m1, S(0), S(0), S(0), m2, m2, S(0), m2, m2;
    return M;
  }
  QS_HD MatN mass_times_dq(const VecN&, const VecN&) const { return MatN::Zero(); }
  QS_HD MatN kinetic_hessian(const VecN&, const VecN&) const { return MatN::Zero(); }

  /// Eq. (109): V = ¼k₁(x₁² + x₁⁴) + ¼k₂(x₂² + x₂⁴).
  QS_HD S potential(const VecN& q) const {
    const S a = q[0] * q[0], b = q[2] * q[2];
    return S(0.25) * (k1 * (a + a * a) + k2 * (b + b * b));
  }
  QS_HD VecN potential_gradient(const VecN& q) const {
    return VecN(S(0.5) * k1 * (q[0] + S(2) * q[0] * q[0] * q[0]), S(0), S(0.5) * k2 * (q[2] + S(2) * q[2] * q[2] * q[2]));
  }
  QS_HD MatN potential_hessian(const VecN& q) const {
    return VecN(S(0.5) * k1 * (S(1) + S(6) * q[0] * q[0]), S(0), S(0.5) * k2 * (S(1) + S(6) * q[2] * q[2])).asDiagonal();
  }

  /// Eq. (107): g = ½((q₂ − x₁)² − (l₁₀ + w)²).
  QS_HD Vec<S, 1> constraint(const VecN& q) const {
    const S d = q[1] - q[0], l = l10 + w;
    return Vec<S, 1>(S(0.5) * (d * d - l * l));
  }
  QS_HD Mat<S, 1, 3> constraint_jacobian(const VecN& q) const {
    const S d = q[1] - q[0];
    Mat<S, 1, 3> c;
    c << -d, d, S(0);
    return c;
  }
  QS_HD MatN constraint_force_dq(const VecN&, const Vec<S, 1>& lambda) const {
    MatN h;
    h << S(1), S(-1), S(0), S(-1), S(1), S(0), S(0), S(0), S(0);
    return lambda[0] * h;
  }
};

}  // namespace quatstep
