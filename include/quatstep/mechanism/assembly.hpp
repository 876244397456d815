// Assembly of an initial state: the given positions and velocities projected onto the position
// and velocity constraints (each body's Euler-parameter constraint and the joint rows), with the
// size of the correction reported, or a rejection naming the worst constraint row.
//
// Both projections are the corrections of least kinetic-energy norm, ΔqᵀM(q)Δq = Σ m|Δr|² + ΔθᵀJΔθ
// (consistent_state.hpp): positions by Gauss–Newton, q ← q + Δq with C_q Δq = −C until max|C| ≤
// tolerance, then velocities once with C_q Δq̇ = −(C_q q̇ + C_t) (linear).
#pragma once

#include "quatstep/mechanism/consistent_state.hpp"

namespace quatstep::mechanism {

template <class S>
struct AssemblySettings {
  /// Accepted position residual: max |C| over the Euler-parameter rows and the joint rows (lengths
  /// relative to the mechanism's length scale). Default: 1e-12.
  S tolerance = S(1e-12);
  int max_iterations = 20;  ///< Gauss–Newton iterations. Default: 20.
  /// A correction larger than this is refused (the input is taken to be wrong, not just
  /// inexact): translations relative to the length scale, rotations in radians. Default: 0.1.
  S max_correction = S(0.1);
};

template <class S>
struct AssemblyReport {
  /// ok; invalid_input (correction too large, or not converged); singular_jacobian (the constraint
  /// rows are redundant or degenerate at this configuration)
  Status status = Status::ok;
  S position_violation = S(0);    ///< the input's max |C| (length rows relative to the length scale)
  S velocity_violation = S(0);    ///< the input's max |C_q q̇ + C_t| (relative to its velocity scale)
  int worst_row = -1;             ///< the row of position_violation: < max_bodies a body's eᵀe − 1, else max_bodies + joint row
  int worst_velocity_row = -1;    ///< the row of velocity_violation, numbered as worst_row
  S position_correction = S(0);   ///< max over bodies of |Δr|/L and the rotation angle |Δθ|
  S velocity_correction = S(0);   ///< max over bodies of |Δṙ|/L and |Δω| (rad/s)
  int iterations = 0;
};

/// The joint holding mechanism row `row` (≥ max_bodies: a joint row) and the row within it.
template <class Mech>
QS_HD int joint_of_row(const Mech& m, int row, int& local) {
  const int r = row - Mech::max_bodies;
  for (int k = 0; k < m.n_joints; ++k)
    if (r >= m.joints[k].offset && r < m.joints[k].offset + m.joints[k].rows) {
      local = r - m.joints[k].offset;
      return k;
    }
  local = -1;
  return -1;
}

namespace detail {
/// Whether row i of C measures a length (point and offset rows; Euler-parameter and dot rows are
/// dimensionless).
template <class Mech>
QS_HD bool is_length_row(const Mech& m, int i) {
  if (i < Mech::max_bodies) return false;
  int local;
  const int k = joint_of_row(m, i, local);
  return row_geometry(m.joints[k], local, typename Mech::Scalar(0)).kind != RowKind::dot;
}

/// max |c_i| with length rows divided by the length scale, and where it is.
template <class Mech>
QS_HD typename Mech::Scalar worst(const Mech& m, const typename Dae<Mech>::VecM& c, int* where) {
  using S = typename Mech::Scalar;
  S w = S(0);
  for (int i = 0; i < Dae<Mech>::M; ++i) {
    const bool live = i < Mech::max_bodies ? i < m.n_bodies : i - Mech::max_bodies < m.n_rows;
    if (!live) continue;
    using std::abs;
    const S v = abs(c[i]) / (is_length_row(m, i) ? m.length_scale : S(1));
    if (!(v <= w)) {  // also takes a NaN
      w = v;
      if (where) *where = i;
    }
  }
  return w;
}

/// The size of a correction δq per body: |δr|/L and the rotation angle |2 G(e) δe| (on the sphere).
template <class Mech>
QS_HD typename Mech::Scalar correction_size(const Mech& m, const typename Dae<Mech>::VecN& q,
                                            const typename Dae<Mech>::VecN& dq) {
  using S = typename Mech::Scalar;
  using std::max;
  S w = S(0);
  for (int b = 0; b < m.n_bodies; ++b) {
    const Vec4<S> e = q.template segment<4>(7 * b + 3), de = dq.template segment<4>(7 * b + 3);
    w = max(w, max(dq.template segment<3>(7 * b).norm() / m.length_scale, Vec3<S>(S(2) * (G(e) * de)).norm()));
  }
  return w;
}

}  // namespace detail

/// Project k onto the constraints at time t (in place) and report; k is left as given when the
/// report's status is not ok.
template <class Mech>
QS_HD AssemblyReport<typename Mech::Scalar> assemble(const Mech& m,
                                                     MechanismKinematics<typename Mech::Scalar, Mech::max_bodies>& k,
                                                     typename Mech::Scalar t,
                                                     const AssemblySettings<typename Mech::Scalar>& settings = {}) {
  using S = typename Mech::Scalar;
  using VecN = typename Dae<Mech>::VecN;
  using std::max;
  AssemblyReport<S> report;
  VecN q, v;
  dae_from_kinematics(m, k, q, v);
  const typename Mech::Bodies bodies = m.bodies_at(t);
  const VecN q_in = q;
  report.position_violation = detail::worst(m, constraint_value(m, q, t), &report.worst_row);
  for (int it = 0;; ++it) {
    const typename Dae<Mech>::VecM c = constraint_value(m, q, t);
    const S w = detail::worst(m, c, nullptr);
    report.iterations = it;
    if (w <= settings.tolerance) break;
    VecN dq;
    if (it == settings.max_iterations) {
      report.status = Status::invalid_input;
      return report;
    }
    if (!mass_orthogonal_correction(m, bodies, q, t, c, dq)) {
      report.status = Status::singular_jacobian;
      return report;
    }
    q += dq;
  }
  report.position_correction = detail::correction_size(m, q_in, VecN(q - q_in));
  // Velocities: ė from the input ω at the corrected orientation, then one projection.
  for (int b = 0; b < m.n_bodies; ++b)
    v.template segment<4>(7 * b + 3) = euler_parameters::rate_from_body(Vec4<S>(q.template segment<4>(7 * b + 3)),
                                                                        k.body[b].omega_body);
  const typename Dae<Mech>::VecM cd = constraint_rate(m, q, v, t);
  S speed = S(0);  // the velocity scale of the violation: max |ω|, |ṙ|/L
  for (int b = 0; b < m.n_bodies; ++b)
    speed = max(speed, max(k.body[b].omega_body.norm(), k.body[b].velocity.norm() / m.length_scale));
  report.velocity_violation = detail::worst(m, cd, &report.worst_velocity_row) / (speed > S(0) ? speed : S(1));
  VecN dv;
  if (!mass_orthogonal_correction(m, bodies, q, t, cd, dv)) {
    report.status = Status::singular_jacobian;
    return report;
  }
  v += dv;
  for (int b = 0; b < m.n_bodies; ++b) {
    const Vec4<S> e = q.template segment<4>(7 * b + 3);
    report.velocity_correction =
        max(report.velocity_correction, max(dv.template segment<3>(7 * b).norm() / m.length_scale,
                                            Vec3<S>(S(2) * (G(e) * Vec4<S>(dv.template segment<4>(7 * b + 3)))).norm()));
  }
  if (!(report.position_correction <= settings.max_correction)) {
    report.status = Status::invalid_input;
    return report;
  }
  k = kinematics_from_dae(m, q, v);
  return report;
}

}  // namespace quatstep::mechanism
