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
// Two cases keep Ω constant along the flow, which is then a right multiplication by
// exp((0, tΩ/2)) (quat_exp), exact for every t:
//   f = ½ c L_k²   (Ω = c L_k e_k ∥ e_k): the rotation about principal axis k — with c = 1/I_k the
//                  free-rotor pieces of NO_SQUISH, with c = 1/I_k − 1/I another axis's remainder;
//   f = |L|²/(2I)  (Ω = L/I): the rotation about the angular momentum, the flow of a spherical body.
// Every f(L) is invariant under the left action q ↦ r ∘ q, whose momentum map is the spatial
// angular momentum: each of these flows conserves it exactly (Noether).
//
// A flow's r depends on L alone, and L after it is r* ∘ L ∘ r, so a product of flows is computed on
// L and an increment d = r₁ ∘ r₂ ∘ … − 1 (then_rotate), which (q, p) take once as q + q ∘ d,
// p + p ∘ d: the same map as the flows applied one after the other, with one rounding of q and p
// instead of one per flow (rigid_body_splitting.hpp, "Round-off").
#pragma once

#include "quatstep/math/choose.hpp"
#include "quatstep/math/trig.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

/// L = ½ G(q) p: the angular momentum in the frame whose orientation q is.
template <class S>
QS_HD Vec3<S> body_momentum(const Vec4<S>& q, const Vec4<S>& p) {
  return S(0.5) * (G(q) * p);
}

/// One more rotation after those of d, all kept as an increment: (1 + d) ∘ (1 + e) − 1 = d + e + d ∘ e.
/// A product of small rotations then loses nothing to the 1, and q and p take it in one rounding.
template <class S>
QS_HD void then_rotate(Vec4<S>& d, const Vec4<S>& e) {
  d += e + quat_mul(d, e);
}

/// Exact flow over t of f = ½ c L_k² from body momentum L: the rotation r = exp(½ t c L_k e_k) =
/// (cos φ, sin φ e_k) appended to d (then_rotate), and L ← r* ∘ L ∘ r, L turned about e_k by −2φ
/// (L̇ = L × Ω). r − 1 is written with cos φ − 1 = −2 sin²(φ/2), so that the small increment carries
/// the rounding: cos φ rounded and multiplied into q made |q| and L drift linearly in a steady spin
/// (the same rounding every step).
template <int k, class S>
QS_HD void axis_flow(S c, S t, Vec3<S>& L, Vec4<S>& d) {
  static_assert(k >= 0 && k < 3, "principal axis 0, 1 or 2");
  constexpr int i = (k + 1) % 3, j = (k + 2) % 3;
  const S quarter_angle = S(0.25) * (t * c) * L[k];  // φ/2 = ¼ t c L_k
  using math::sincos;  // a custom scalar's own sincos by argument-dependent lookup
  S sh, ch;
  sincos(quarter_angle, sh, ch);
  const S sine = S(2) * sh * ch, cosine_minus_one = S(-2) * sh * sh;  // of φ
  Vec4<S> r_minus_one(cosine_minus_one, S(0), S(0), S(0));
  r_minus_one[k + 1] = sine;
  then_rotate(d, r_minus_one);
  const S sine_2 = S(2) * sine * (S(1) + cosine_minus_one), cosine_2_minus_one = S(-2) * sine * sine;  // of 2φ
  const S li = L[i], lj = L[j];
  L[i] = li + (cosine_2_minus_one * li + sine_2 * lj);
  L[j] = lj + (cosine_2_minus_one * lj - sine_2 * li);
}

/// Exact flow over t of f = c |L|²/2 from body momentum L (which it keeps: Ω ∥ L): the rotation
/// r = exp(½ t c L) = (cos a, sin a · v/a), v = ½ t c L, appended to d (then_rotate), from one
/// sincos of a/2:   cos a − 1 = −2 sin²(a/2),   sin a / a = cos(a/2) · sin(a/2)/(a/2)   (1 at a = 0).
template <class S>
QS_HD void spherical_flow(S c, S t, const Vec3<S>& L, Vec4<S>& d) {
  using std::sqrt;
  const Vec3<S> v = S(0.5) * (t * c) * L;
  const S half = S(0.5) * sqrt(v.squaredNorm());
  using math::sincos;
  S sh, ch;
  sincos(half, sh, ch);
  using math::choose;  // per body (math/choose.hpp)
  using math::is_less;
  const S sinc = choose(  // sin a / a; sin x/x is accurate for any x > 0
      is_less(S(0), half), [&] { return ch * (sh / half); }, [] { return S(1); });
  then_rotate(d, Vec4<S>(S(-2) * sh * sh, sinc * v[0], sinc * v[1], sinc * v[2]));
}

}  // namespace quatstep
