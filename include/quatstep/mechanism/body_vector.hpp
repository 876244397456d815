// Body-fixed vectors and points seen in space, the building blocks of every joint, spring and load
// of a mechanism (Sherif §9's redundant coordinates q_b = (r_b, e_b) per body).
//
// R(e) a is quadratic in e (Sherif eq. 2, valid off the unit sphere as the same polynomial), so its
// derivative W(e, a) = ∂(R(e) a)/∂e is linear in e, R(e) a = ½ W(e, a) e, and every second
// derivative is a constant: ∂/∂e (W(e, a) δ) ε = W(ε, a) δ. From
//   R(e) a = (e₀² − |ε|²) a + 2 ε (ε·a) + 2 e₀ ε × a,   e = (e₀, ε),
//   W(e, a) = 2 [ e₀ a + ε × a  |  (ε·a) I + ε aᵀ − a εᵀ − e₀ ã ].
// Along a motion: d/dt R(e) a = W(e, a) ė, d²/dt² R(e) a = W(e, a) ë + W(ė, a) ė.
#pragma once

#include "quatstep/quaternion.hpp"

namespace quatstep::mechanism {

/// W(e, a) = ∂(R(e) a)/∂e (3×4), linear in e.
template <class S>
QS_HD Mat34<S> rotation_jacobian(const Vec4<S>& e, const Vec3<S>& a) {
  const Vec3<S> eps(e[1], e[2], e[3]);
  Mat34<S> w;
  w.col(0) = S(2) * (e[0] * a + eps.cross(a));
  w.template rightCols<3>() =
      S(2) * (eps.dot(a) * Mat3<S>::Identity() + eps * a.transpose() - a * eps.transpose() - e[0] * skew(a));
  return w;
}

/// R(e) a = ½ W(e, a) e.
template <class S>
QS_HD Vec3<S> rotate(const Vec4<S>& e, const Vec3<S>& a) {
  return rotation_matrix(e) * a;
}

/// A translation block and a rotation block of one body's 7 coordinates (Sherif §9 order r, e).
template <class S>
QS_HD Vec3<S> translation_of(const Vec<S, 7>& q) {
  return q.template head<3>();
}
template <class S>
QS_HD Vec4<S> rotation_of(const Vec<S, 7>& q) {
  return q.template tail<4>();
}
template <class S>
QS_HD Vec<S, 7> join(const Vec3<S>& r, const Vec4<S>& e) {
  Vec<S, 7> q;
  q << r, e;
  return q;
}

/// One side of a joint, spring or load: a body's coordinates and velocities, or the ground (fixed,
/// its vectors given in space). Ground sides have no coordinates: their derivatives vanish.
template <class S>
struct Side {
  bool ground = true;
  Vec3<S> r = Vec3<S>::Zero(), rd = Vec3<S>::Zero();
  Vec4<S> e = Vec4<S>(S(1), S(0), S(0), S(0)), ed = Vec4<S>::Zero();

  QS_HD static Side body(const Vec<S, 7>& q, const Vec<S, 7>& v) {
    Side s;
    s.ground = false;
    s.r = translation_of(q);
    s.e = rotation_of(q);
    s.rd = translation_of(v);
    s.ed = rotation_of(v);
    return s;
  }

  /// The body vector a in space, R(e) a (a itself on the ground).
  QS_HD Vec3<S> vector(const Vec3<S>& a) const { return ground ? a : rotate(e, a); }
  /// The body point o in space, r + R(e) o.
  QS_HD Vec3<S> point(const Vec3<S>& o) const { return ground ? o : Vec3<S>(r + rotate(e, o)); }
  /// W(e, a); zero on the ground.
  QS_HD Mat34<S> jacobian(const Vec3<S>& a) const { return ground ? Mat34<S>::Zero() : rotation_jacobian(e, a); }
  /// d/dt R(e) a = W(e, a) ė.
  QS_HD Vec3<S> vector_rate(const Vec3<S>& a) const { return ground ? Vec3<S>::Zero() : Vec3<S>(jacobian(a) * ed); }
  /// d/dt (r + R(e) o) = ṙ + W(e, o) ė.
  QS_HD Vec3<S> point_rate(const Vec3<S>& o) const { return ground ? Vec3<S>::Zero() : Vec3<S>(rd + vector_rate(o)); }
  /// d²/dt² R(e) a without the ë term: W(ė, a) ė.
  QS_HD Vec3<S> vector_curvature(const Vec3<S>& a) const {
    return ground ? Vec3<S>::Zero() : Vec3<S>(rotation_jacobian(ed, a) * ed);
  }
};

}  // namespace quatstep::mechanism
