// The constraint rows of one joint (mechanism.hpp lists them) at a configuration, and every
// derivative the HHT Newton matrix, the consistent initial accelerations and the assembly need.
//
// Every row is a product c = u·w of two spatial vectors, of one of three kinds:
//   point   c = e_k·(p_i − p_j)          a component of the separation of the two joint origins
//   dot     c = (R_i a)·(R_j b)          two body axes kept perpendicular (dot-1)
//   offset  c = (R_i a)·(p_j − p_i)      origin j kept in a plane of body i (dot-2)
// with p_s = r_s + R(e_s) o_s and body vectors a (side i), b (side j). The driver row of a revolute
// is a dot row whose a turns with the prescribed angle: a(t) = y_i cos θ − x_i sin θ, b = x_j, which
// vanishes exactly when x_j = cos θ x_i + sin θ y_i.
//
// Derivatives, with W(e, a) = ∂(R(e)a)/∂e (body_vector.hpp), for side s a 7-vector (r, e):
//   ∂c/∂q_s  = (∂u/∂q_s)ᵀ w + (∂w/∂q_s)ᵀ u           ∂(R a)/∂q = [0  W(e,a)],  ∂p/∂q = [I  W(e,o)]
//   Σ_k λ_k ∂²c_k/∂q² : symmetric 14×14, blocks (i,i), (j,j), (i,j); the second derivative of
//     μ·R(e)a in e is the constant symmetric H(μ, a) below, W(δe, a)ᵀ μ = H(μ, a) δe.
//   dc/dt = C_q q̇ + C_t and d²c/dt² − C_q q̈ (the acceleration-level right-hand side), from
//     d/dt R a = W ė + R ȧ and d²/dt² R a = W ë + W(ė, a) ė + 2 W(e, ȧ) ė + R ä.
#pragma once

#include "quatstep/mechanism/body_vector.hpp"
#include "quatstep/mechanism/mechanism.hpp"

namespace quatstep::mechanism {

/// H(μ, a) = ∂²(μ·R(e) a)/∂e², constant and symmetric: from μ·R(e)a = (e₀² − |ε|²) μ·a +
/// 2 (ε·μ)(ε·a) + 2 e₀ ε·(a × μ),
///   H = 2 [ μ·a      (a×μ)ᵀ              ]
///         [ a×μ      μ aᵀ + a μᵀ − (μ·a) I ].
template <class S>
QS_HD Mat4<S> rotation_hessian(const Vec3<S>& mu, const Vec3<S>& a) {
  const S ma = mu.dot(a);
  const Vec3<S> c = a.cross(mu);
  Mat4<S> h;
  h(0, 0) = S(2) * ma;
  h.template block<1, 3>(0, 1) = S(2) * c.transpose();
  h.template block<3, 1>(1, 0) = S(2) * c;
  h.template block<3, 3>(1, 1) = S(2) * (mu * a.transpose() + a * mu.transpose() - ma * Mat3<S>::Identity());
  return h;
}

enum class RowKind : int { point, dot, offset };

/// One row's kind and body vectors (a on side i, b on side j; ȧ, ä for the driver).
template <class S>
struct RowGeometry {
  RowKind kind = RowKind::point;
  int axis = 0;  ///< point rows: the spatial component
  Vec3<S> a = Vec3<S>::Zero(), b = Vec3<S>::Zero();
  Vec3<S> a_rate = Vec3<S>::Zero(), a_accel = Vec3<S>::Zero();
};

/// Row k of joint j at time t (the list of mechanism.hpp).
template <class S>
QS_HD RowGeometry<S> row_geometry(const Joint<S>& j, int k, S t) {
  const JointFrame<S>&fi = j.frame[0], &fj = j.frame[1];
  RowGeometry<S> r;
  const auto point = [&](int axis) {
    r.kind = RowKind::point;
    r.axis = axis;
  };
  const auto dot = [&](const Vec3<S>& a, const Vec3<S>& b) {
    r.kind = RowKind::dot;
    r.a = a;
    r.b = b;
  };
  const auto offset = [&](const Vec3<S>& a) {
    r.kind = RowKind::offset;
    r.a = a;
  };
  switch (j.type) {
    case JointType::spherical: point(k); break;
    case JointType::universal:
      if (k < 3) point(k);
      else dot(fi.z(), fj.z());
      break;
    case JointType::revolute:
    case JointType::fixed:
      if (k < 3) {
        point(k);
      } else if (k == 3) {
        dot(fi.z(), fj.x());
      } else if (k == 4) {
        dot(fi.z(), fj.y());
      } else if (j.type == JointType::fixed) {
        dot(fi.x(), fj.y());
      } else {  // the driver: a(t) = y_i cos θ − x_i sin θ and its time derivatives
        using math::cos;
        using math::sin;
        const Vec3<S> th = j.driver_angle(t);
        const S c = cos(th[0]), s = sin(th[0]);
        const Vec3<S> a = c * fi.y() - s * fi.x(), a_perp = s * fi.y() + c * fi.x();  // a_perp = −∂a/∂θ
        dot(a, fj.x());
        r.a_rate = -th[1] * a_perp;
        r.a_accel = -th[2] * a_perp - th[1] * th[1] * a;
      }
      break;
    case JointType::cylindrical:
    case JointType::prismatic:
      if (k == 0) dot(fi.z(), fj.x());
      else if (k == 1) dot(fi.z(), fj.y());
      else if (k == 2) offset(fi.x());
      else if (k == 3) offset(fi.y());
      else dot(fi.x(), fj.y());
      break;
  }
  return r;
}

/// A joint's rows at one configuration (and, for the rate functions, velocity) of its two sides.
template <class S>
class JointState {
 public:
  using Vec7 = Vec<S, 7>;
  using Mat7 = Mat<S, 7, 7>;
  static constexpr int R = max_joint_rows;

  QS_HD JointState(const Joint<S>& joint, const Side<S>& i, const Side<S>& j, S t)
      : joint_(joint), side_{i, j}, rows_(joint.rows) {
    for (int s = 0; s < 2; ++s) {
      p_[s] = side_[s].point(joint.frame[s].origin);
      wo_[s] = side_[s].jacobian(joint.frame[s].origin);
    }
    for (int k = 0; k < rows_; ++k) {
      g_[k] = row_geometry(joint, k, t);
      if (g_[k].kind == RowKind::point) continue;
      u_[k] = side_[0].vector(g_[k].a);
      wa_[k] = side_[0].jacobian(g_[k].a);
      if (g_[k].kind == RowKind::dot) {
        v_[k] = side_[1].vector(g_[k].b);
        wb_[k] = side_[1].jacobian(g_[k].b);
      }
    }
  }

  QS_HD int rows() const { return rows_; }
  /// p_j − p_i.
  QS_HD Vec3<S> separation() const { return p_[1] - p_[0]; }

  /// c_k.
  QS_HD S value(int k) const {
    switch (g_[k].kind) {
      case RowKind::point: return p_[0][g_[k].axis] - p_[1][g_[k].axis];
      case RowKind::dot: return u_[k].dot(v_[k]);
      case RowKind::offset: return u_[k].dot(separation());
    }
    return S(0);
  }

  /// ∂c_k/∂q_s (zero for a ground side).
  QS_HD Vec7 gradient(int k, int s) const {
    Vec7 g = Vec7::Zero();
    if (side_[s].ground) return g;
    const RowGeometry<S>& row = g_[k];
    switch (row.kind) {
      case RowKind::point: {
        const S sign = s == 0 ? S(1) : S(-1);
        g[row.axis] = sign;
        g.template tail<4>() = sign * wo_[s].row(row.axis).transpose();
        break;
      }
      case RowKind::dot:
        g.template tail<4>() = s == 0 ? Vec4<S>(wa_[k].transpose() * v_[k]) : Vec4<S>(wb_[k].transpose() * u_[k]);
        break;
      case RowKind::offset:
        if (s == 0) {
          g.template head<3>() = -u_[k];
          g.template tail<4>() = wa_[k].transpose() * separation() - wo_[0].transpose() * u_[k];
        } else {
          g.template head<3>() = u_[k];
          g.template tail<4>() = wo_[1].transpose() * u_[k];
        }
        break;
    }
    return g;
  }

  /// (∂c/∂q_s)ᵀ λ over the joint's rows: the constraint force on side s.
  QS_HD Vec7 constraint_force(const S* lambda, int s) const {
    Vec7 f = Vec7::Zero();
    for (int k = 0; k < rows_; ++k) f += lambda[k] * gradient(k, s);
    return f;
  }

  /// The blocks of Σ_k λ_k ∂²c_k/∂q²: (i,i) in diag[0], (j,j) in diag[1], (i,j) in cross
  /// ((j,i) = crossᵀ). Ground sides' blocks stay zero.
  QS_HD void hessian(const S* lambda, Mat7 diag[2], Mat7& cross) const {
    diag[0].setZero();
    diag[1].setZero();
    cross.setZero();
    const bool gi = side_[0].ground, gj = side_[1].ground;
    Vec3<S> mu = Vec3<S>::Zero();  // the point rows' multipliers, c = μ·(p_i − p_j)
    for (int k = 0; k < rows_; ++k) {
      const RowGeometry<S>& row = g_[k];
      const S l = lambda[k];
      switch (row.kind) {
        case RowKind::point: mu[row.axis] += l; break;
        case RowKind::dot:
          // c = u·v: ∂²/∂e_i² = H(v, a), ∂²/∂e_j² = H(u, b), ∂²/∂e_i∂e_j = W_aᵀ W_b
          if (!gi) diag[0].template bottomRightCorner<4, 4>() += l * rotation_hessian(v_[k], row.a);
          if (!gj) diag[1].template bottomRightCorner<4, 4>() += l * rotation_hessian(u_[k], row.b);
          if (!gi && !gj) cross.template bottomRightCorner<4, 4>() += l * (wa_[k].transpose() * wb_[k]);
          break;
        case RowKind::offset: {
          // c = u·d, d = p_j − p_i: ∂²/∂q_i² has H(d, a) − H(u, o_i) − W_aᵀW_o − W_oᵀW_a in (e,e) and
          // −W_a in (r,e); ∂²/∂e_j² = H(u, o_j); ∂²/∂e_i∂q_j = W_aᵀ [I  W_o,j].
          if (!gi) {
            const Mat4<S> ee = rotation_hessian(separation(), row.a) - rotation_hessian(u_[k], joint_.frame[0].origin) -
                               wa_[k].transpose() * wo_[0] - wo_[0].transpose() * wa_[k];
            diag[0].template bottomRightCorner<4, 4>() += l * ee;
            diag[0].template topRightCorner<3, 4>() -= l * wa_[k];
            diag[0].template bottomLeftCorner<4, 3>() -= l * wa_[k].transpose();
          }
          if (!gj) diag[1].template bottomRightCorner<4, 4>() += l * rotation_hessian(u_[k], joint_.frame[1].origin);
          if (!gi && !gj) {
            cross.template bottomLeftCorner<4, 3>() += l * wa_[k].transpose();
            cross.template bottomRightCorner<4, 4>() += l * (wa_[k].transpose() * wo_[1]);
          }
          break;
        }
      }
    }
    // c = μ·(p_i − p_j): H(μ, o_i) on e_i, −H(μ, o_j) on e_j, no coupling
    if (!gi) diag[0].template bottomRightCorner<4, 4>() += rotation_hessian(mu, joint_.frame[0].origin);
    if (!gj) diag[1].template bottomRightCorner<4, 4>() -= rotation_hessian(mu, joint_.frame[1].origin);
  }

  /// dc_k/dt = C_q q̇ + C_t along the sides' velocities.
  QS_HD S rate(int k) const {
    const RowGeometry<S>& row = g_[k];
    if (row.kind == RowKind::point) return point_rate(0)[row.axis] - point_rate(1)[row.axis];
    const Vec3<S> ud = side_[0].vector_rate(row.a) + side_[0].vector(row.a_rate);
    const Vec3<S> w = row.kind == RowKind::dot ? v_[k] : separation();
    const Vec3<S> wd = row.kind == RowKind::dot ? side_[1].vector_rate(row.b) : Vec3<S>(point_rate(1) - point_rate(0));
    return ud.dot(w) + u_[k].dot(wd);
  }

  /// d²c_k/dt² − C_q q̈ = q̇ᵀ(∂²c/∂q²)q̇ + 2 C_qt q̇ + C_tt: minus the right-hand side of the
  /// acceleration-level constraint C_q q̈ = −(…) (Negrut eq. 7c).
  QS_HD S curvature(int k) const {
    const RowGeometry<S>& row = g_[k];
    if (row.kind == RowKind::point) return point_curvature(0)[row.axis] - point_curvature(1)[row.axis];
    const Side<S>& si = side_[0];
    const Vec3<S> ud = si.vector_rate(row.a) + si.vector(row.a_rate);
    const Vec3<S> udd = si.vector_curvature(row.a) + S(2) * si.vector_rate(row.a_rate) + si.vector(row.a_accel);
    Vec3<S> w, wd, wdd;
    if (row.kind == RowKind::dot) {
      w = v_[k];
      wd = side_[1].vector_rate(row.b);
      wdd = side_[1].vector_curvature(row.b);
    } else {
      w = separation();
      wd = point_rate(1) - point_rate(0);
      wdd = point_curvature(1) - point_curvature(0);
    }
    return udd.dot(w) + S(2) * ud.dot(wd) + u_[k].dot(wdd);
  }

 private:
  QS_HD Vec3<S> point_rate(int s) const { return side_[s].point_rate(joint_.frame[s].origin); }
  QS_HD Vec3<S> point_curvature(int s) const { return side_[s].vector_curvature(joint_.frame[s].origin); }

  const Joint<S>& joint_;
  Side<S> side_[2];
  int rows_;
  Vec3<S> p_[2];
  Mat34<S> wo_[2];
  RowGeometry<S> g_[R];
  Vec3<S> u_[R], v_[R];
  Mat34<S> wa_[R], wb_[R];
};

}  // namespace quatstep::mechanism
