// Quaternion / Euler-parameter algebra, scalar first: e = (e0, e1, e2, e3).
//
// References: Sherif et al. 2019 eqs. (2)-(7); Kinon & Betsch 2024 eqs. (35a-b), (51), App. C.
// Conventions:  body angular velocity  ω = 2 G(e) ė   (Sherif eq. 3, G = L of eq. 4)
//               spatial angular velocity ω_s = 2 E(e) ė
//               R(e) = E(e) G(e)ᵀ maps body to space (Sherif eq. 2)
#pragma once

#include <cmath>
#include <type_traits>

#include "quatstep/config.hpp"
#include "quatstep/math/angle.hpp"
#include "quatstep/math/choose.hpp"
#include "quatstep/math/trig.hpp"

namespace quatstep {

// ---------------------------------------------------------------- products
/// Hamilton product p ∘ q.
template <class S>
QS_HD Vec4<S> quat_mul(const Vec4<S>& p, const Vec4<S>& q) {
  return Vec4<S>(p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
                 p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
                 p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
                 p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0]);
}

template <class S>
QS_HD Vec4<S> quat_conj(const Vec4<S>& q) {
  return Vec4<S>(q[0], -q[1], -q[2], -q[3]);
}

/// Pure quaternion (0, v).
template <class S>
QS_HD Vec4<S> pure(const Vec3<S>& v) {
  return Vec4<S>(S(0), v[0], v[1], v[2]);
}

/// Left-multiplication matrix: p ∘ q = quat_left(p) q   (Kinon eq. 134).
template <class S>
QS_HD Mat4<S> quat_left(const Vec4<S>& p) {
  Mat4<S> m;
  m << p[0], -p[1], -p[2], -p[3],  //
      p[1], p[0], -p[3], p[2],     //
      p[2], p[3], p[0], -p[1],     //
      p[3], -p[2], p[1], p[0];
  return m;
}

/// Right-multiplication matrix: p ∘ q = quat_right(q) p   (Kinon eq. 134).
template <class S>
QS_HD Mat4<S> quat_right(const Vec4<S>& q) {
  Mat4<S> m;
  m << q[0], -q[1], -q[2], -q[3],  //
      q[1], q[0], q[3], -q[2],     //
      q[2], -q[3], q[0], q[1],     //
      q[3], q[2], -q[1], q[0];
  return m;
}

// ---------------------------------------------------------------- G = L and E
/// G(e) = L(e), Sherif eq. (4), Kinon eq. (35b): ω_body = 2 G ė, G(e) x = vec(e* ∘ x).
template <class S>
QS_HD Mat34<S> G(const Vec4<S>& e) {
  Mat34<S> m;
  m << -e[1], e[0], e[3], -e[2],  //
      -e[2], -e[3], e[0], e[1],   //
      -e[3], e[2], -e[1], e[0];
  return m;
}

/// G(q)b = vec(q* ∘ b), written out (no 3×4 matrix formed).
template <class S>
QS_HD Vec3<S> G_times(const Vec4<S>& q, const Vec4<S>& b) {
  return Vec3<S>(-q[1] * b[0] + q[0] * b[1] + q[3] * b[2] - q[2] * b[3],
                 -q[2] * b[0] - q[3] * b[1] + q[0] * b[2] + q[1] * b[3],
                 -q[3] * b[0] + q[2] * b[1] - q[1] * b[2] + q[0] * b[3]);
}
/// G(q)ᵀa = q ∘ (0, a), written out.
template <class S>
QS_HD Vec4<S> Gt_times(const Vec4<S>& q, const Vec3<S>& a) {
  return Vec4<S>(-q[1] * a[0] - q[2] * a[1] - q[3] * a[2], q[0] * a[0] - q[3] * a[1] + q[2] * a[2],
                 q[3] * a[0] + q[0] * a[1] - q[1] * a[2], -q[2] * a[0] + q[1] * a[1] + q[0] * a[2]);
}

/// E(e), Kinon eq. (35a): ω_spatial = 2 E ė, E(e) x = vec(x ∘ e*).
template <class S>
QS_HD Mat34<S> E(const Vec4<S>& e) {
  Mat34<S> m;
  m << -e[1], e[0], -e[3], e[2],  //
      -e[2], e[3], e[0], -e[1],   //
      -e[3], -e[2], e[1], e[0];
  return m;
}

/// ∂(G(e)ᵀ a)/∂e for fixed a ∈ R³: G(e)ᵀ a = e ∘ (0, a) is linear in e (Sherif eq. 70's ŵ).
template <class S>
QS_HD Mat4<S> d_Gt_times(const Vec3<S>& a) {
  return quat_right(pure(a));
}


// ---------------------------------------------------------------- rotations
template <class S>
QS_HD Mat3<S> skew(const Vec3<S>& v) {
  Mat3<S> m;
  m << S(0), -v[2], v[1],  //
      v[2], S(0), -v[0],   //
      -v[1], v[0], S(0);
  return m;
}

/// Rotation matrix of Sherif eq. (2) / Kinon eq. (51); quadratic in e, valid off the unit sphere
/// as the same polynomial (the DAE methods differentiate it there).
template <class S>
QS_HD Mat3<S> rotation_matrix(const Vec4<S>& e) {
  const S e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3];
  Mat3<S> a;
  a << e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, S(2) * (e1 * e2 - e0 * e3), S(2) * (e1 * e3 + e0 * e2),
      S(2) * (e1 * e2 + e0 * e3), e0 * e0 + e2 * e2 - e3 * e3 - e1 * e1, S(2) * (e2 * e3 - e0 * e1),
      S(2) * (e1 * e3 - e0 * e2), S(2) * (e2 * e3 + e0 * e1), e0 * e0 + e3 * e3 - e1 * e1 - e2 * e2;
  return a;
}

/// R(e)ᵀ f, the spatial vector f seen in the body frame.
template <class S>
QS_HD Vec3<S> to_body(const Vec4<S>& e, const Vec3<S>& f) {
  return rotation_matrix(e).transpose() * f;
}

/// ∂(R(e)ᵀ f)/∂e · δe. Rᵀ f = (e0² − |ε|²) f + 2 ε (ε·f) − 2 e0 ε × f is quadratic in e
/// (Sherif eq. 2), so along δe = (δ0, δ):
///   2 [(e0 δ0 − ε·δ) f + ε (δ·f) + δ (ε·f) − e0 δ × f − δ0 ε × f].
template <class S>
QS_HD Vec3<S> to_body_derivative(const Vec4<S>& e, const Vec3<S>& f, const Vec4<S>& de) {
  const Vec3<S> eps(e[1], e[2], e[3]), d(de[1], de[2], de[3]);
  return S(2) * (Vec3<S>((e[0] * de[0] - eps.dot(d)) * f + eps * d.dot(f) + d * eps.dot(f)) -
                 e[0] * d.cross(f) - de[0] * eps.cross(f));
}

// ---------------------------------------------------------------- series-safe elementary functions
namespace detail {
/// series() where x² < limit, else closed(): the branch of the functions below, whose closed form
/// cancels near 0 (math/choose.hpp: lane by lane for a lane type).
template <class S, class Series, class Closed>
QS_HD S series_below(S x2, S limit, Series series, Closed closed) {
  using math::choose;
  using math::is_less;
  return choose(is_less(x2, limit), series, closed);
}
/// sin(x)/x, exact to round-off near 0.
template <class S>
QS_HD S sinc(S x) {
  using math::sin;
  const S x2 = x * x;
  return series_below(
      x2, S(1e-4), [&] { return S(1) - x2 / S(6) * (S(1) - x2 / S(20) * (S(1) - x2 / S(42))); },
      [&] { return sin(x) / x; });
}
/// (1 − cos x)/x².
template <class S>
QS_HD S one_minus_cos_over_x2(S x) {
  using math::sin;
  const S x2 = x * x;
  return series_below(
      x2, S(1e-4), [&] { return S(0.5) - x2 / S(24) * (S(1) - x2 / S(30) * (S(1) - x2 / S(56))); },
      [&] {
        const S s = sin(S(0.5) * x);
        return S(2) * s * s / x2;  // 1 − cos x = 2 sin²(x/2), no cancellation
      });
}
/// x² below which (x − sin x)/x³ takes its series (to x⁶; the first dropped term is 6x⁸/10! relative)
/// rather than the closed form, whose cancellation costs ≈ 6ε/x² relative. Double: 1e-2 (7 ε of
/// truncation, ≤ 136 ε of cancellation; tests/quaternion_test.cpp). Float: 1, near the balance
/// point x² ≈ 1.4 of the two (≈ 1.3 ε and 6 ε); 1e-2 would cost ≈ 600 ε_float.
template <class S>
struct XMinusSinSeries {
  static constexpr double below = 1e-2;
};
template <>
struct XMinusSinSeries<float> {
  static constexpr double below = 1.0;
};
/// (x − sin x)/x³.
template <class S>
QS_HD S x_minus_sin_over_x3(S x) {
  using math::sin;
  const S x2 = x * x;
  return series_below(
      x2, S(XMinusSinSeries<math::element_t<S>>::below),
      [&] { return S(1) / S(6) - x2 / S(120) * (S(1) - x2 / S(42) * (S(1) - x2 / S(72))); },
      [&] { return (x - sin(x)) / (x2 * x); });
}
}  // namespace detail

/// exp of the pure quaternion (0, v): (cos|v|, sin|v|/|v| · v)  (unit for any v).
template <class S>
QS_HD Vec4<S> quat_exp(const Vec3<S>& v) {
  using math::cos;
  using std::sqrt;
  const S a = sqrt(v.squaredNorm());
  const S k = detail::sinc(a);
  return Vec4<S>(cos(a), k * v[0], k * v[1], k * v[2]);
}

/// q rotated by the constant body rate ω over h under the midpoint rule: q ∘ cay(a), a = hω/4,
/// cay(a) = (1 − |a|², 2a)/(1 + |a|²) — exact for a steady spin; the conserving schemes' Newton guess.
template <class S>
QS_HD Vec4<S> midpoint_rotation(const Vec4<S>& q, const Vec3<S>& omega_body, S h) {
  const Vec3<S> a = S(0.25) * h * omega_body;
  const S a2 = a.squaredNorm(), c = S(1) / (S(1) + a2);
  return quat_mul<S>(q, Vec4<S>(c * (S(1) - a2), S(2) * c * a[0], S(2) * c * a[1], S(2) * c * a[2]));
}

/// Unit quaternion of the rotation vector θ (angle |θ| about θ/|θ|): exp((0, θ/2)).
template <class S>
QS_HD Vec4<S> quat_from_rotation_vector(const Vec3<S>& theta) {
  return quat_exp<S>(S(0.5) * theta);
}

/// An orientation to store after a Lie-group update e ∘ exp((0, θ/2)). Double: e as computed (its norm
/// drifts by ~ε per step). Float: renormalised, since the rounding of cos(|θ|/2), the same in every
/// step of a steady spin, otherwise drifts ‖e‖² linearly, by ~0.4 ε_float per step (measured 5e-4
/// after 10^4 steps of the heavy top with ExplicitNewmarkLie; tests/float_precision_test.cpp).
template <class S>
QS_HD Vec4<S> stored_orientation(const Vec4<S>& e) {
  using std::sqrt;
  if constexpr (std::is_same_v<math::element_t<S>, float>) return e / sqrt(e.squaredNorm());
  return e;
}

/// log of a unit quaternion: v with q = exp((0, v)), |v| ∈ [0, π]. The angle is the project's own
/// portable atan2 (math/angle.hpp), so CPU and GPU agree bit for bit: the null-space Livens step
/// takes its Newton guess from this, and Zupan3 its local error estimate.
template <class S>
QS_HD Vec3<S> quat_log(const Vec4<S>& q) {
  using std::sqrt;
  const Vec3<S> u(q[1], q[2], q[3]);
  const S s = sqrt(u.squaredNorm());
  const S a = math::angle(s, q[0]);  // ∈ [0, π]
  // a / sin(a) with s = sin(a)·|q|; near zero angle use the series of a/sin a.
  using math::choose;
  using math::is_less;
  const S k = choose(
      is_less(s, S(1e-4)) && is_less(S(0), q[0]),
      [&] {
        const S s2 = s * s / (q[0] * q[0] + s * s);  // sin² a
        return (S(1) + s2 / S(6) + S(3) * s2 * s2 / S(40)) / sqrt(q[0] * q[0] + s * s);
      },
      [&] { return a / s; });
  return k * u;
}

/// Rotation vector of a unit quaternion, angle in [0, π] (q and −q give the same rotation).
template <class S>
QS_HD Vec3<S> rotation_vector(const Vec4<S>& q) {
  using math::choose;
  using math::is_less;
  return S(2) * quat_log<S>(choose(is_less(q[0], S(0)), [&] { return Vec4<S>(-q); }, [&] { return Vec4<S>(q); }));
}

/// Geodesic distance between two orientations: the rotation angle of a⁻¹ ∘ b, in [0, π] (the
/// error measure of the tests and benchmarks; docs/errata.md Z6).
QS_HD inline double geodesic_angle(const Vec4<double>& a, const Vec4<double>& b) {
  return rotation_vector<double>(quat_mul<double>(quat_conj(a), b)).norm();
}

/// Right Jacobian of SO(3): q ∘ exp(θ + δθ) = q ∘ exp(θ) ∘ exp(J_r(θ) δθ) to first order,
/// J_r(θ) = I − (1−cos|θ|)/|θ|² θ̃ + (|θ| − sin|θ|)/|θ|³ θ̃².
template <class S>
QS_HD Mat3<S> so3_right_jacobian(const Vec3<S>& theta) {
  using std::sqrt;
  const S a = sqrt(theta.squaredNorm());
  const Mat3<S> t = skew(theta);
  return Mat3<S>::Identity() - detail::one_minus_cos_over_x2(a) * t + detail::x_minus_sin_over_x3(a) * (t * t);
}

}  // namespace quatstep
