// The principal axes of a rigid body's inertia, for the splitting integrators, which move the body
// by exact rotations about them: J = A diag(I₁, I₂, I₃) Aᵀ with A orthogonal (columns: the
// principal axes in body coordinates), by cyclic Jacobi rotations. Only + − × ÷ and sqrt (correctly
// rounded on both sides), so the CPU and the GPU find the same bits in strict mode.
//
// An integrator then picks the order of the axes (principal_frame): C = [a_π(0), a_π(1), a_π(2)],
// a column negated if need be so that C is a rotation, kept as the unit quaternion c with R(c) = C.
// A vector v_p in the ordered principal frame is v_b = C v_p in body axes, and the orientation of
// that frame is q_p = q_b ∘ c (R(q_b) C = R(q_b ∘ c)).
#pragma once

#include <limits>

#include "quatstep/quaternion.hpp"

namespace quatstep {

template <class S>
struct PrincipalAxes {
  Vec3<S> moments;  ///< principal moments, in the order of the columns of `axes`
  Mat3<S> axes;     ///< orthonormal columns, body coordinates (determinant ±1)
};

namespace detail {
/// One Jacobi rotation in the (i, k) plane, zeroing a_ik: t = tan φ the smaller root of
/// t² + 2θt − 1 = 0 with θ = (a_kk − a_ii)/(2 a_ik), a ← Gᵀ a G, v ← v G. Compile-time indices keep
/// the matrices in registers on the GPU.
template <int i, int k, class S>
QS_HD void jacobi_rotation(Mat3<S>& a, Mat3<S>& v) {
  using std::sqrt;
  if (a(i, k) == S(0)) return;
  const S theta = (a(k, k) - a(i, i)) / (S(2) * a(i, k));
  const S abs_theta = theta < S(0) ? -theta : theta;
  // θ² overflows for a negligible a_ik: then t = 0, no rotation
  const S t = (theta < S(0) ? S(-1) : S(1)) / (abs_theta + sqrt(theta * theta + S(1)));
  const S c = S(1) / sqrt(t * t + S(1)), s = t * c;
  Mat3<S> g = Mat3<S>::Identity();
  g(i, i) = c;
  g(k, k) = c;
  g(i, k) = s;
  g(k, i) = -s;
  a = (g.transpose() * a * g).eval();
  a(i, k) = a(k, i) = S(0);
  v = (v * g).eval();
}
}  // namespace detail

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi sweeps (Golub & Van Loan §8.5).
/// Convergence is quadratic: 3–4 sweeps reach round-off for 3×3; the loop stops when the
/// off-diagonal part is below ε times the diagonal (or after 16 sweeps, or at once on NaN). A
/// diagonal matrix is returned as it is, with A = I.
template <class S>
QS_HD PrincipalAxes<S> principal_axes(const Mat3<S>& j) {
  const S eps = std::numeric_limits<S>::epsilon();  // not constexpr: S may be a counting scalar
  Mat3<S> a = S(0.5) * (j + j.transpose());
  Mat3<S> v = Mat3<S>::Identity();
  QS_NO_UNROLL for (int sweep = 0; sweep < 16; ++sweep) {
    const S off = a(0, 1) * a(0, 1) + a(0, 2) * a(0, 2) + a(1, 2) * a(1, 2);
    const S diagonal = a(0, 0) * a(0, 0) + a(1, 1) * a(1, 1) + a(2, 2) * a(2, 2);
    if (!(off > eps * eps * diagonal)) break;
    detail::jacobi_rotation<0, 1>(a, v);
    detail::jacobi_rotation<0, 2>(a, v);
    detail::jacobi_rotation<1, 2>(a, v);
  }
  return {Vec3<S>(a(0, 0), a(1, 1), a(2, 2)), v};
}

/// The unit quaternion c of a rotation matrix, R(c) = r (rotation_matrix's convention), by
/// Shepperd's method: the largest of 4c₀², 4c₁², 4c₂², 4c₃² (from the trace and the diagonal) is
/// taken by a square root, the other components from the off-diagonal sums and differences divided
/// by it, so no small number is ever divided by.
template <class S>
QS_HD Vec4<S> quaternion_from_rotation_matrix(const Mat3<S>& r) {
  using std::sqrt;
  const S trace = r(0, 0) + r(1, 1) + r(2, 2);
  Vec4<S> c;
  if (trace >= r(0, 0) && trace >= r(1, 1) && trace >= r(2, 2)) {
    const S f = S(2) * sqrt(S(1) + trace);  // 4 c₀
    c = Vec4<S>(S(0.25) * f, (r(2, 1) - r(1, 2)) / f, (r(0, 2) - r(2, 0)) / f, (r(1, 0) - r(0, 1)) / f);
  } else if (r(0, 0) >= r(1, 1) && r(0, 0) >= r(2, 2)) {
    const S f = S(2) * sqrt(S(1) + r(0, 0) - r(1, 1) - r(2, 2));  // 4 c₁
    c = Vec4<S>((r(2, 1) - r(1, 2)) / f, S(0.25) * f, (r(0, 1) + r(1, 0)) / f, (r(0, 2) + r(2, 0)) / f);
  } else if (r(1, 1) >= r(2, 2)) {
    const S f = S(2) * sqrt(S(1) - r(0, 0) + r(1, 1) - r(2, 2));  // 4 c₂
    c = Vec4<S>((r(0, 2) - r(2, 0)) / f, (r(0, 1) + r(1, 0)) / f, S(0.25) * f, (r(1, 2) + r(2, 1)) / f);
  } else {
    const S f = S(2) * sqrt(S(1) - r(0, 0) - r(1, 1) + r(2, 2));  // 4 c₃
    c = Vec4<S>((r(1, 0) - r(0, 1)) / f, (r(0, 2) + r(2, 0)) / f, (r(1, 2) + r(2, 1)) / f, S(0.25) * f);
  }
  return c / sqrt(c.squaredNorm());
}

/// v[i] for an index known only at run time, selected by value: indexing a vector with it puts the
/// vector in local memory on the GPU (measured: 120 bytes of stack in the initialize kernel).
template <class S>
QS_HD S component(const Vec3<S>& v, int i) {
  return i == 0 ? v[0] : i == 1 ? v[1] : v[2];
}

/// The principal axes in an integrator's order: axis k of the frame is principal axis `order[k]`.
template <class S>
struct PrincipalFrame {
  Vec4<S> frame;            ///< c, R(c) = C: ordered principal axes → body axes
  Vec3<S> inverse_moments;  ///< 1/I_k in the frame's order
};

template <class S>
QS_HD PrincipalFrame<S> principal_frame(const PrincipalAxes<S>& p, const int order[3]) {
  Mat3<S> c;
  Vec3<S> moments;
  QS_UNROLL for (int k = 0; k < 3; ++k) {
    QS_UNROLL for (int r = 0; r < 3; ++r) c(r, k) = component(Vec3<S>(p.axes.row(r).transpose()), order[k]);
    moments[k] = component(p.moments, order[k]);
  }
  if (c.col(0).cross(c.col(1)).dot(c.col(2)) < S(0)) c.col(2) = -c.col(2);  // a rotation, det C = +1
  return {quaternion_from_rotation_matrix(c), moments.cwiseInverse()};
}

}  // namespace quatstep
