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
/// M(e_l, e_r) a, without forming M.
template <class S>
QS_HD Vec4<S> mass_times(const Mat3<S>& J, const Vec4<S>& el, const Vec4<S>& er, const Vec4<S>& a) {
  return S(4) * (G(el).transpose() * (J * (G(er) * a)));
}
/// The derivative of M(e_l, e_r) a along (δe_l, δe_r, δa); M is bilinear and G(e) b = −G(b) e, so
///   4 G(δe_l)ᵀ J G(e_r) a + 4 G(e_l)ᵀ J (G(e_r) δa + G(δe_r) a).
template <class S>
QS_HD Vec4<S> mass_times_derivative(const Mat3<S>& J, const Vec4<S>& el, const Vec4<S>& er, const Vec4<S>& a,
                                    const Vec4<S>& del, const Vec4<S>& der, const Vec4<S>& da) {
  return S(4) * (G(del).transpose() * (J * (G(er) * a)) + G(el).transpose() * (J * (G(er) * da + G(der) * a)));
}

/// Gyroscopic generalized force, Sherif eq. (9) taken literally: −8 Gᵀ G Ġᵀ J G ė with Ġ = G(ė)
/// (off the velocity constraint eᵀė = 0 this differs from −2Gᵀ(ω × Jω); the classical HHT lives
/// there, docs/errata.md S4, so the literal form is kept), at (e, ė) and linearised there. From
/// GᵀG = |e|² I₄ − e eᵀ and u = G(ė)ᵀ J G(e) ė = G(ė)ᵀ p, p = J G(e) ė = −J G(ė) e:
///   force  = −8 (|e|² u − (eᵀu) e),
/// and along (δe, δė), with δp = J (G(e) δė − G(ė) δe) and δu = G(δė)ᵀ p + G(ė)ᵀ δp:
///   δforce = −8 (2 (eᵀδe) u + |e|² δu − (δeᵀu + eᵀδu) e − (eᵀu) δe).
template <class S>
struct GyroscopicForce {
  const Mat3<S>& J;  // the model's: a linearisation lives no longer than its model
  Vec4<S> e, ed;
  Vec3<S> p;
  Vec4<S> u;
  S ee, eu;
  Vec4<S> force;

  QS_HD GyroscopicForce(const Mat3<S>& inertia, const Vec4<S>& e_, const Vec4<S>& ed_)
      : J(inertia), e(e_), ed(ed_), p(-(J * (G(ed) * e))), u(G(ed).transpose() * p), ee(e.squaredNorm()),
        eu(e.dot(u)), force(S(-8) * (ee * u - eu * e)) {}

  /// ∂force/∂e δe + ∂force/∂ė δė.
  QS_HD Vec4<S> derivative(const Vec4<S>& de, const Vec4<S>& ded) const {
    const Vec3<S> dp = J * (G(e) * ded - G(ed) * de);
    const Vec4<S> du = G(ded).transpose() * p + G(ed).transpose() * dp;
    return S(-8) * (S(2) * e.dot(de) * u + ee * du - (de.dot(u) + e.dot(du)) * e - eu * de);
  }
};

/// The gyroscopic force alone.
template <class S>
QS_HD Vec4<S> gyroscopic_force(const Mat3<S>& J, const Vec4<S>& e, const Vec4<S>& ed) {
  return GyroscopicForce<S>(J, e, ed).force;
}

/// Generalized force of a body-frame torque τ: 2 G(e)ᵀ τ (virtual work τ·2Gδe).
template <class S>
QS_HD Vec4<S> torque_force(const Vec4<S>& e, const Vec3<S>& tau) {
  return S(2) * G(e).transpose() * tau;
}
/// Its derivative along δe, given τ and δτ = ∂τ/∂e δe: 2 (G(δe)ᵀ τ + G(e)ᵀ δτ).
template <class S>
QS_HD Vec4<S> torque_force_derivative(const Vec4<S>& e, const Vec4<S>& de, const Vec3<S>& tau, const Vec3<S>& dtau) {
  return S(2) * (G(de).transpose() * tau + G(e).transpose() * dtau);
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
