// Exact flows of pieces of a rigid body's kinetic energy, in the canonical coordinates of NO_SQUISH
// (Miller, Eleftheriou, Pattnaik, Ndirango, Newns & Martyna, J. Chem. Phys. 116, 8649 (2002)):
// q ∈ R⁴ the quaternion of the principal frame, p ∈ R⁴ its conjugate momentum.
//
// The body angular momentum is the momentum map of the right action (q, p) ↦ (q ∘ r, p ∘ r) of unit
// quaternions r (a cotangent lift, hence symplectic on R⁸):
//   L = ½ G(q) p,   L_k = ½ pᵀ (q ∘ e_k),   e_k = (0, unit vector k)          (G: quaternion.hpp)
// and p = 2 G(q)ᵀ L / |q|² on pᵀq = 0. For a Hamiltonian H = f(L), ∂L_k/∂p = ½ q ∘ e_k and
// ∂L_k/∂q = −½ p ∘ e_k give Hamilton's equations on all of R⁸ as
//   q̇ = ½ q ∘ (0, Ω),   ṗ = ½ p ∘ (0, Ω),   Ω = ∇f(L),   and then L̇ = L × Ω.
// Two cases keep L (hence Ω) constant along the flow, which is then a right multiplication by
// exp((0, tΩ/2)) (quat_exp), exact for every t:
//   f = ½ c L_k²   (Ω = c L_k e_k ∥ e_k): the rotation about principal axis k — with c = 1/I_k the
//                  free-rotor pieces of NO_SQUISH, with c = 1/I_k − 1/I another axis's remainder;
//   f = |L|²/(2I)  (Ω = L/I): the rotation about the angular momentum, the flow of a spherical body.
// Every f(L) is invariant under the left action q ↦ r ∘ q, whose momentum map is the spatial
// angular momentum: each of these flows conserves it exactly (Noether).
#pragma once

#include "quatstep/math/choose.hpp"
#include "quatstep/math/trig.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

/// q ∘ e_k, e_k = (0, unit vector k): a signed permutation of q (P_k q in Miller et al.).
template <int k, class S>
QS_HD Vec4<S> times_unit(const Vec4<S>& q) {
  static_assert(k >= 0 && k < 3, "principal axis 0, 1 or 2");
  if constexpr (k == 0) return Vec4<S>(-q[1], q[0], q[3], -q[2]);
  else if constexpr (k == 1) return Vec4<S>(-q[2], -q[3], q[0], q[1]);
  else return Vec4<S>(-q[3], q[2], -q[1], q[0]);
}

/// L = ½ G(q) p: the angular momentum in the frame whose orientation q is.
template <class S>
QS_HD Vec3<S> body_momentum(const Vec4<S>& q, const Vec4<S>& p) {
  return S(0.5) * (G(q) * p);
}

/// Exact flow over t of f = ½ c L_k²: (q, p) ← (q ∘ r, p ∘ r), r = exp(½ t c L_k e_k) = (cos φ, sin φ e_k).
/// Written as q + q ∘ (r − 1) with cos φ − 1 = −2 sin²(φ/2): the small increment carries the
/// rounding, while cos φ rounded and multiplied in made |q| and L drift linearly in a steady spin
/// (the same rounding every step).
template <int k, class S>
QS_HD void axis_flow(S c, S t, Vec4<S>& q, Vec4<S>& p) {
  const Vec4<S> qk = times_unit<k>(q), pk = times_unit<k>(p);
  const S quarter_angle = S(0.125) * (t * c) * p.dot(qk);  // φ/2 = ¼ t c L_k
  using math::sincos;  // a custom scalar's own sincos by argument-dependent lookup
  S sh, ch;
  sincos(quarter_angle, sh, ch);
  const S sine = S(2) * sh * ch, cosine_minus_one = S(-2) * sh * sh;
  q += cosine_minus_one * q + sine * qk;
  p += cosine_minus_one * p + sine * pk;
}

/// Exact flow over t of f = c |L|²/2: (q, p) ← (q ∘ r, p ∘ r), r = exp(½ t c L) = (cos a, sin a · v/a),
/// v = ½ t c L, as q + q ∘ (r − 1) (see axis_flow), from one sincos of a/2:
///   cos a − 1 = −2 sin²(a/2),   sin a / a = cos(a/2) · sin(a/2)/(a/2)   (1 at a = 0).
template <class S>
QS_HD void spherical_flow(S c, S t, Vec4<S>& q, Vec4<S>& p) {
  using std::sqrt;
  const Vec3<S> v = S(0.5) * (t * c) * body_momentum(q, p);
  const S half = S(0.5) * sqrt(v.squaredNorm());
  using math::sincos;
  S sh, ch;
  sincos(half, sh, ch);
  using math::choose;  // per body (math/choose.hpp)
  using math::is_less;
  const S sinc = choose(  // sin a / a; sin x/x is accurate for any x > 0
      is_less(S(0), half), [&] { return ch * (sh / half); }, [] { return S(1); });
  const Vec4<S> r_minus_one(S(-2) * sh * sh, sinc * v[0], sinc * v[1], sinc * v[2]);
  q += quat_mul(q, r_minus_one);
  p += quat_mul(p, r_minus_one);
}

}  // namespace quatstep
