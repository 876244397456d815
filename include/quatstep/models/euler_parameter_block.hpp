// The Euler-parameter form of a rotating rigid body, one 4-coordinate block of a DAE model:
//   4 Gᵀ J G ë + 8 Gᵀ G Ġᵀ J G ė + 2 e λ = 2 Gᵀ τ          (Sherif eq. 9, with C = eᵀe − 1)
// and the derivatives the HHT Newton matrix needs (Sherif eq. 65). Every model with rotating
// bodies assembles its blocks from these functions; nothing here knows about the integrator.
#pragma once

#include "quatstep/quaternion.hpp"

namespace quatstep::euler_parameters {

/// Mass block M(e_l, e_r) = 4 G(e_l)ᵀ J G(e_r); M(e) = M(e, e) (Sherif eq. 9, Kinon eq. 46).
/// Bilinear so that the second-order modified HHT can time-shift the left factor alone.
template <class S>
QS_HD Mat4<S> mass(const Mat3<S>& J, const Vec4<S>& el, const Vec4<S>& er) {
  return S(4) * G(el).transpose() * J * G(er);
}
/// ∂(M(e_l, e_r) a)/∂e_l.
template <class S>
QS_HD Mat4<S> mass_times_d_left(const Mat3<S>& J, const Vec4<S>& er, const Vec4<S>& a) {
  return S(4) * d_Gt_times<S>(J * (G(er) * a));
}
/// ∂(M(e_l, e_r) a)/∂e_r.
template <class S>
QS_HD Mat4<S> mass_times_d_right(const Mat3<S>& J, const Vec4<S>& el, const Vec4<S>& a) {
  return S(4) * G(el).transpose() * J * d_G_times(a);
}

/// Gyroscopic generalized force, Sherif eq. (9) taken literally: −8 Gᵀ G Ġᵀ J G ė with Ġ = G(ė).
/// (Off the velocity constraint eᵀė = 0 this differs from −2Gᵀ(ω × Jω); the classical HHT lives
/// there, errata S4, so the literal form is kept.)
template <class S>
struct Gyroscopic {
  Vec4<S> force;
  Mat4<S> d_e;     ///< ∂force/∂e
  Mat4<S> d_edot;  ///< ∂force/∂ė
};

/// Value and derivatives, from GᵀG = |e|² I₄ − e eᵀ (rows e, G(e) orthogonal with norm |e|) and
/// u = G(ė)ᵀ J G(e) ė = −A e with A = G(ė)ᵀ J G(ė) (since G(e) b = −G(b) e), for symmetric J:
///   force = −8 (|e|² u − (eᵀu) e)
///   ∂/∂e  = −8 (2 (u eᵀ − e uᵀ) − |e|² A − (eᵀu) I)
///   ∂/∂ė  = −8 (|e|² D − e eᵀ D),  D = ∂u/∂ė = [(0,p)]_right + G(ė)ᵀ J G(e),  p = J G(e) ė.
template <class S>
QS_HD Gyroscopic<S> gyroscopic(const Mat3<S>& J, const Vec4<S>& e, const Vec4<S>& ed) {
  const Mat34<S> B = J * G(ed);                // J G(ė)
  const Mat4<S> A = G(ed).transpose() * B;     // G(ė)ᵀ J G(ė)
  const Vec3<S> p = -(B * e);                  // J G(e) ė
  const Vec4<S> u = G(ed).transpose() * p;     // G(ė)ᵀ p = −A e
  const S ee = e.squaredNorm(), eu = e.dot(u);
  Gyroscopic<S> r;
  r.force = S(-8) * (ee * u - eu * e);
  r.d_e = S(-8) * (S(2) * (u * e.transpose() - e * u.transpose()) - ee * A - eu * Mat4<S>::Identity());
  const Mat4<S> D = d_Gt_times(p) + (G(e).transpose() * B).transpose();  // G(ė)ᵀ J G(e) = (G(e)ᵀ J G(ė))ᵀ
  r.d_edot = S(-8) * (ee * D - e * (e.transpose() * D));
  return r;
}

/// The force alone, in the same operations as gyroscopic() (same bits).
template <class S>
QS_HD Vec4<S> gyroscopic_force(const Mat3<S>& J, const Vec4<S>& e, const Vec4<S>& ed) {
  const Mat34<S> B = J * G(ed);             // J G(ė)
  const Vec3<S> p = -(B * e);               // J G(e) ė
  const Vec4<S> u = G(ed).transpose() * p;  // G(ė)ᵀ p
  return S(-8) * (e.squaredNorm() * u - e.dot(u) * e);
}

/// Generalized force of a body-frame torque τ: 2 G(e)ᵀ τ (virtual work τ·2Gδe).
template <class S>
QS_HD Vec4<S> torque_force(const Vec4<S>& e, const Vec3<S>& tau) {
  return S(2) * G(e).transpose() * tau;
}
/// ∂(2 G(e)ᵀ τ(e))/∂e given ∂τ/∂e.
template <class S>
QS_HD Mat4<S> torque_force_de(const Vec4<S>& e, const Vec3<S>& tau, const Mat34<S>& dtau_de) {
  return S(2) * (d_Gt_times(tau) + G(e).transpose() * dtau_de);
}

/// Body angular velocity and acceleration from Euler-parameter rates (Sherif eq. 3).
template <class S>
QS_HD Vec3<S> body_rate(const Vec4<S>& e, const Vec4<S>& ed) {
  return S(2) * (G(e) * ed);
}
/// Euler-parameter rate on the velocity constraint from a body angular velocity: ė = ½ Gᵀ ω.
template <class S>
QS_HD Vec4<S> rate_from_body(const Vec4<S>& e, const Vec3<S>& w) {
  return S(0.5) * (G(e).transpose() * w);
}

}  // namespace quatstep::euler_parameters
