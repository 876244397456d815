// The exact flow of the free rigid body (Euler's equations and the attitude, in closed form) as the
// drift of the explicit splitting (rigid_body_splitting.hpp): torque-free motion is then exact at any
// step, and under a torque the step error is that of the kicks alone. Celledoni, Fassò, Säfström &
// Zanna, "The exact computation of the free rigid body motion and its use in splitting methods",
// SIAM J. Sci. Comput. 30 (2008) 2084–2112, give the method; the formulas below are derived in
// docs/exact_free_flow.md (equation numbers (F1)–(F9a) there), with its relabelling, signs and
// degenerate cases.
//
// With the ordered principal axes relabelled 1, 2, 3 so that the angular momentum L circles axis 3
// (the axis of the largest moment when M² > 2T·I_mid, else of the smallest; a proper rotation of the
// labels, so Euler's equations keep their form), and d_ij = 1/I_i − 1/I_j:
//   L(t) = (A₁ cn u, A₂ sn u, σ A₃ dn u),  u = τ₀ + λt,  k² = A₁² d₁₂/(A₃² d₂₃),  n = d₁₂/d₂₃      (F2–F4)
// and the attitude increment r (q ← q ∘ r, p ← p ∘ r: both flows are right multiplications) is
//   r = u(L₀) ∘ (cos ψ/2, 0, 0, sin ψ/2) ∘ u(L(t))*                                              (F6)
// with u(L) the rotation taking σe₃ to L/|L| about σe₃ × L, and
//   ψ = σ M t/I₃ + √(1 + n) (M/A₃) ΔΠ − ΔΘ,                                                       (F8)
// ΔΠ = Π(φ(t)) − Π(φ(0)), Π(φ) = ∫₀^φ dθ/((1 + n sin²θ)√(1 − k² sin²θ)) (Legendre's third kind, by
// Carlson's R_F and R_J), ΔΘ the same for Θ(φ) = atan(√(1 + n) tan φ), φ = am u.
// ΔΠ, ΔΘ and L(t) by the addition theorems for a step with |λt| ≤ π/2 (short_step: one R_F, R_J and
// R_C at the step's own small amplitude, one sn/cn/dn), else by reduction to whole half periods
// (long_step: three R_F, two or three R_J). Cost measured in bench/symplectic.md.
// Where a body's numbers pick a branch the code says so through math/choose.hpp (select, choose), so
// that a lane type runs four bodies at once, each lane the scalar bits (simd/lane_splitting.hpp).
#pragma once

#include <limits>
#include <type_traits>

#include "quatstep/integrators/free_rotation_flows.hpp"
#include "quatstep/integrators/rigid_body_splitting.hpp"
#include "quatstep/math/angle.hpp"
#include "quatstep/math/elliptic.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/settings_keys.hpp"

namespace quatstep {
namespace exact_free_flow_detail {

using math::choose;
using math::is_equal;
using math::is_less;
using math::is_less_equal;
using math::select;

/// atan2(s, c) for c ≥ 0, in [−π/2, π/2].
template <class S>
QS_HD S half_plane_angle(S s, S c) {
  return choose(is_less(s, S(0)), [&] { return S(-math::angle(S(-s), c)); }, [&] { return math::angle(s, c); });
}

/// The frames (F6) at both ends of a step from L₀ to L₀ + ΔL: u(L), the unit quaternion of the
/// rotation taking σe₃ to L/|L| about σe₃ × L, is a/|a| with a = (|L| + σL₃, −σL₂, σL₁, 0), never
/// singular since σL₃ ≥ 0; |L| = M at both ends (the flow keeps it). The end frame, and the change
/// u(L₀) − u(L₀ + ΔL) from Δa, as small as ΔL:
///   a₀/|a₀| − a₁/|a₁| = (a₁ (|a₁| − |a₀|)/|a₁| − Δa)/|a₀|,   |a₁| − |a₀| = Δa·(a₀ + a₁)/(|a₀| + |a₁|).
template <class S>
struct StepFrames {
  Vec4<S> end, change;
  QS_HD StepFrames(const Vec3<S>& l, const Vec3<S>& dl, S M, S sigma) {
    using std::sqrt;
    const Vec4<S> a0(M + sigma * l[2], -sigma * l[1], sigma * l[0], S(0));
    const Vec4<S> da(sigma * dl[2], -sigma * dl[1], sigma * dl[0], S(0));
    const Vec4<S> a1 = a0 + da;
    const S n0 = sqrt(a0.squaredNorm()), n1 = sqrt(a1.squaredNorm());
    end = a1 * (S(1) / n1);
    change = (end * (da.dot(a0 + a1) / (n0 + n1)) - da) * (S(1) / n0);
  }
};

/// F(φ) and Π(φ) for |φ| ≤ π/2 from s = sin φ, c = cos φ ≥ 0 and Δ² = 1 − k² s² = k'² + k² c²
/// (DLMF 19.25.5, 19.25.14): F = s R_F(c², Δ², 1), Π = F − (n/3) s³ R_J(c², Δ², 1, 1 + n s²), from one
/// duplication.
template <class S>
struct Amplitude {
  S first, third;
  QS_HD Amplitude(S s, S c, S delta2, S n) {
    const math::CarlsonPair<S> r = math::carlson_rf_rj(c * c, delta2, S(1), S(1) + n * s * s);
    first = s * r.rf;
    third = first - (n / S(3)) * (s * s * s) * r.rj;
  }
};

}  // namespace exact_free_flow_detail

/// The free motion from body angular momentum L in the relabelled axes (F1–F5), and its amplitude
/// at t = 0: sin φ₀, cos φ₀ ∝ (L₂/A₂, L₁/A₁) (F2 without divisions), Δ₀ = dn u₀ (F7).
template <class S>
struct FreeMotion {
  math::ConditionOf<S> about_last;  ///< L circles the axis of the largest moment (else the smallest: relabelled)
  Vec3<S> l, i;                     ///< L and the inverse moments in the labels 1, 2, 3
  S M, a1, a2, a3, mc, k2, n, sigma, lambda;
  S s0, c0, d0;

  QS_HD FreeMotion(const Vec3<S>& inverse, const Vec3<S>& L) {
    using namespace exact_free_flow_detail;
    using std::sqrt;
    M = sqrt(L.squaredNorm());
    // (F1): L circles axis 3 when L₃² d₂₃ ≥ L₁² d₁₂ (M² ≥ 2T·I_mid), else swap the roles of the
    // outer axes: (L₁, L₂, L₃) = (−L_2, L_1, L_0), a proper rotation of the labels.
    about_last = is_less_equal(L[0] * L[0] * (inverse[0] - inverse[1]), L[2] * L[2] * (inverse[1] - inverse[2]));
    l = choose(about_last, [&] { return L; }, [&] { return Vec3<S>(-L[2], L[1], L[0]); });
    i = choose(about_last, [&] { return inverse; }, [&] { return Vec3<S>(inverse[2], inverse[1], inverse[0]); });
    const S d12 = i[0] - i[1], d23 = i[1] - i[2], d13 = i[0] - i[2];  // all of one sign
    // Amplitudes, parameter and rate (F3–F5), each a sum of terms of one sign.
    const S a1sq = l[0] * l[0] + l[1] * l[1] * (d23 / d13), a3sq = l[2] * l[2] + l[1] * l[1] * (d12 / d13);
    a1 = sqrt(a1sq), a2 = sqrt(a1sq * (d13 / d23)), a3 = sqrt(a3sq);
    const S tiny = std::numeric_limits<S>::epsilon() * std::numeric_limits<S>::epsilon();
    mc = (l[2] * l[2] * d23 - l[0] * l[0] * d12) / (a3sq * d23);  // k'² = 1 − k² (F4)
    mc = select(is_less(mc, tiny), tiny, select(is_less(S(1), mc), S(1), mc));  // the separatrix itself: k'² = ε²
    k2 = S(1) - mc, n = d12 / d23;
    sigma = select(is_less(l[2], S(0)), S(-1), S(1));
    lambda = sigma * select(is_less(d13, S(0)), S(-1), S(1)) * a3 * sqrt(d13 * d23);
    s0 = l[1] * a1, c0 = l[0] * a2;
    const S h0 = sqrt(s0 * s0 + c0 * c0);
    const auto positive = is_less(S(0), h0);
    const S over_h0 = select(positive, S(S(1) / h0), S(0));
    s0 = select(positive, S(s0 * over_h0), S(0)), c0 = select(positive, S(c0 * over_h0), S(1));
    d0 = sqrt(mc + k2 * c0 * c0);
  }
};

/// What the attitude needs from u₀ to u₀ + λt: the increments of sn, cn, dn (of the amplitude φ) over
/// the step, the increment ΔΠ of (F8), and ΔΘ as the rotation by half of it, (cos ΔΘ/2, sin ΔΘ/2).
/// Increments rather than end values: a short step's are as accurate as they are small (short_step),
/// where an end value of order 1 carries an error of order ε into L and r every step.
template <class S>
struct FreeMotionStep {
  S d_sn, d_cn, d_dn, third, half_theta_cos, half_theta_sin;
};
/// m ? a : b field by field, for a lane type's choose (simd/lane_trig.hpp); blend is the lane type's.
template <class Mask, class S>
FreeMotionStep<S> blend(const Mask& m, const FreeMotionStep<S>& a, const FreeMotionStep<S>& b) {
  return {blend(m, a.d_sn, b.d_sn),
          blend(m, a.d_cn, b.d_cn),
          blend(m, a.d_dn, b.d_dn),
          blend(m, a.third, b.third),
          blend(m, a.half_theta_cos, b.half_theta_cos),
          blend(m, a.half_theta_sin, b.half_theta_sin)};
}

/// A step with |λt| ≤ π/2 (≤ K): the addition theorems. sn, cn, dn of u₀ + λt from those of u₀ and of
/// λt (DLMF 22.8.1–3), and from the symmetric integrals' addition theorems (DLMF 19.26.1, 19.26.9)
///   ΔΠ = Π(am λt) − n S R_C(Γ − δS², Γ),   S = sn u₀ · sn λt · sn(u₀ + λt),
///   Γ = Π over the three of (1 + n sn²),   δ = n(1 + n)(k² + n),                                 (F9a)
/// so one evaluation of R_F and R_J at the step's own amplitude, which is small for a short step
/// (Carlson's duplication then stops early); ΔΘ (|ΔΘ| < π: Θ − φ is π-periodic and |Δφ| ≤ |λt|) as
/// the half-angle rotation of a complex number, two square roots and no arctangent.
template <class S>
QS_HD FreeMotionStep<S> short_step(const FreeMotion<S>& m, S du) {
  using namespace exact_free_flow_detail;
  using std::sqrt;
  FreeMotionStep<S> r;
  S s1, c1, d1;
  math::jacobi_sncndn(du, m.mc, s1, c1, d1);
  // The addition theorems less the values at u₀, over their common denominator 1 − k² s₀² s₁², with
  // cn λt − 1 = −sn²/(1 + cn) and dn λt − 1 = −k² sn²/(1 + dn): every term is of the step's order.
  const S c1_minus_one = -(s1 * s1) / (S(1) + c1), d1_minus_one = -m.k2 * (s1 * s1) / (S(1) + d1);
  const S k2_s0_s1 = m.k2 * m.s0 * s1, extra = k2_s0_s1 * m.s0 * s1;  // k² s₀ s₁, k² s₀² s₁²
  const S scale = S(1) / (S(1) - extra);
  r.d_sn = (m.s0 * (c1_minus_one * d1 + d1_minus_one + extra) + s1 * m.c0 * m.d0) * scale;
  r.d_cn = (m.c0 * (c1_minus_one + extra) - m.s0 * s1 * m.d0 * d1) * scale;
  r.d_dn = (m.d0 * (d1_minus_one + extra) - k2_s0_s1 * m.c0 * c1) * scale;
  const S sn = m.s0 + r.d_sn, cn = m.c0 + r.d_cn;
  const exact_free_flow_detail::Amplitude<S> step(s1, c1, m.mc + m.k2 * c1 * c1, m.n);
  const S product = sn * m.s0 * s1;
  const S gamma = (S(1) + m.n * sn * sn) * (S(1) + m.n * m.s0 * m.s0) * (S(1) + m.n * s1 * s1);
  const S delta = m.n * (S(1) + m.n) * (m.k2 + m.n);
  r.third = step.third - m.n * product * math::carlson_rc(gamma - delta * product * product, gamma);
  // ΔΘ: the angle of w = (cn + i√(1+n) sn)(c₀ − i√(1+n) s₀). Its half angle (in (−π/2, π/2)) is that
  // of |w| + w, or, without the cancellation for Re w < 0, of sign(Im w)·(Im w + i(|w| − Re w)).
  // Im w = √(1+n)(sn c₀ − cn s₀) from the increments, as small as they are.
  const S re = cn * m.c0 + (S(1) + m.n) * sn * m.s0, im = sqrt(S(1) + m.n) * (r.d_sn * m.c0 - r.d_cn * m.s0);
  const S w = sqrt(re * re + im * im);
  const auto re_non_negative = is_less_equal(S(0), re), im_negative = is_less(im, S(0));
  const S hc = select(re_non_negative, S(w + re), select(im_negative, S(-im), im));
  const S hs = select(re_non_negative, im, select(im_negative, S(re - w), S(w - re)));
  const S over = S(1) / sqrt(hc * hc + hs * hs);
  r.half_theta_cos = hc * over, r.half_theta_sin = hs * over;
  return r;
}

/// Any step: u₀ = τ₀ from F (F7), u₀ + λt reduced to [−K, K] by whole half periods 2K, ΔΠ and ΔΘ as
/// differences with the complete integrals for the half periods crossed (F9).
template <class S>
QS_HD FreeMotionStep<S> long_step(const FreeMotion<S>& m, S du) {
  using std::floor;
  using std::sqrt;
  using namespace exact_free_flow_detail;
  namespace d = exact_free_flow_detail;
  S sn, cn, dn;
  FreeMotionStep<S> r;
  // φ₀ = m₀π + φ_r, |φ_r| ≤ π/2
  const auto c0_negative = is_less(m.c0, S(0));
  const S m0 = select(c0_negative, select(is_less(m.s0, S(0)), S(-1), S(1)), S(0));
  const S s0 = select(c0_negative, S(-m.s0), m.s0), c0 = select(c0_negative, S(-m.c0), m.c0);
  const S quarter = math::carlson_rf(S(0), m.mc, S(1));  // K(k)
  const d::Amplitude<S> start(s0, c0, m.mc + m.k2 * c0 * c0, m.n);
  const S u = (S(2) * quarter * m0 + start.first) + du;
  const S m1 = floor(u / (S(2) * quarter) + S(0.5));
  math::jacobi_sncndn(u - S(2) * quarter * m1, m.mc, sn, cn, dn);
  const d::Amplitude<S> end(sn, cn, m.mc + m.k2 * cn * cn, m.n);
  const S turns = m1 - m0;
  const S complete = choose(
      is_equal(turns, S(0)), [] { return S(0); },
      [&] { return S(quarter - (m.n / S(3)) * math::carlson_rj(S(0), m.mc, S(1), S(1) + m.n)); });
  r.third = S(2) * turns * complete + (end.third - start.third);
  const S root_1n = sqrt(S(1) + m.n);
  const S theta = turns * S(3.14159265358979323846264338327950288) +
                  (d::half_plane_angle(root_1n * sn, cn) - d::half_plane_angle(root_1n * s0, c0));
  using math::sincos;
  sincos(S(0.5) * theta, r.half_theta_sin, r.half_theta_cos);
  const S odd = m1 - S(2) * floor(S(0.5) * m1);  // sn and cn change sign with each half period
  const auto even = is_equal(odd, S(0));
  r.d_sn = select(even, sn, S(-sn)) - m.s0, r.d_cn = select(even, cn, S(-cn)) - m.c0, r.d_dn = dn - m.d0;
  return r;
}

namespace exact_free_flow_detail {

/// exact_free_rotation for L ≠ 0: r − 1 (F6).
template <class S>
QS_HD Vec4<S> rotation_of_moving_body(const Vec3<S>& inverse, const Vec3<S>& L, S t) {
  using std::sqrt;
  namespace d = exact_free_flow_detail;
  const FreeMotion<S> m(inverse, L);
  const S du = m.lambda * t;
  const S quarter_turn = S(1.5707963267948966);  // π/2 ≤ K
  const auto short_enough = is_less_equal(du, quarter_turn) && is_less_equal(-quarter_turn, du);
  const FreeMotionStep<S> e = choose(short_enough, [&] { return short_step(m, du); }, [&] { return long_step(m, du); });
  const S psi = m.sigma * m.M * t * m.i[2] + sqrt(S(1) + m.n) * (m.M / m.a3) * e.third;  // (F8) but −ΔΘ
  const Vec3<S> dl(m.a1 * e.d_cn, m.a2 * e.d_sn, m.sigma * m.a3 * e.d_dn);  // L(t) − L(0) (F2)
  using math::sincos;  // a custom scalar's own sincos by argument-dependent lookup
  S sh, ch;
  sincos(S(0.5) * psi, sh, ch);  // then the half angle less ΔΘ/2:
  const S c = ch * e.half_theta_cos + sh * e.half_theta_sin, s = sh * e.half_theta_cos - ch * e.half_theta_sin;
  // r − 1 = u₀ ∘ c ∘ u₁* − 1 = u₁ ∘ (c − 1) ∘ u₁* + (u₀ − u₁) ∘ c ∘ u₁* (F6; u₁ ∘ u₁* = 1): each term
  // of the step's order and as accurate, where the product of the frames carried an error of order ε.
  // c − 1 carries the absolute rounding of c, which reaches only r's scalar part, recomputed below.
  const d::StepFrames<S> f(m.l, dl, m.M, m.sigma);
  const Vec4<S> end_conj = quat_conj(f.end);
  const Vec4<S> r = quat_mul(quat_mul(f.end, Vec4<S>(c - S(1), S(0), S(0), s)), end_conj) +
                    quat_mul(quat_mul(f.change, Vec4<S>(c, S(0), S(0), s)), end_conj);
  // Back to the ordered axes, and w − 1 = −|v|²/(1 + w) again, which keeps |r| = 1 to a rounding of
  // |v|² (the spatial angular momentum scales with |r|²).
  const Vec3<S> v =
      choose(m.about_last, [&] { return Vec3<S>(r[1], r[2], r[3]); }, [&] { return Vec3<S>(r[3], r[2], -r[1]); });
  const S w = S(1) + r[0];
  return Vec4<S>(select(is_less_equal(S(0), w), S(-v.squaredNorm() / (S(1) + w)), r[0]), v[0], v[1], v[2]);
}

}  // namespace exact_free_flow_detail

/// r − 1, r the attitude increment of the free rigid body over t from body angular momentum L, with
/// the inverse moments `inverse` in decreasing order (1/I₀ > 1/I₁ > 1/I₂: no two moments equal).
template <class S>
QS_HD Vec4<S> exact_free_rotation(const Vec3<S>& inverse, const Vec3<S>& L, S t) {
  using namespace exact_free_flow_detail;
  return choose(is_equal(L.squaredNorm(), S(0)), [] { return Vec4<S>(Vec4<S>::Zero()); },
                [&] { return rotation_of_moving_body(inverse, L, t); });
}

/// The drift of ExactFreeSplitting: the exact free flow over t. The axes are ordered by increasing
/// moment; a body with two equal moments takes the symmetric top's flow (free_rotation_flows.hpp),
/// exact for it and cheaper.
struct ExactFreeFlow {
  template <class S>
  QS_HD static void exchange_if_less(const Vec3<S>& moments, int& i, int& j) {
    if (component(moments, i) < component(moments, j)) {
      const int k = i;
      i = j;
      j = k;
    }
  }

  template <class S>
  QS_HD static void order_axes(const Vec3<S>& moments, const Vec3<S>&, int order[3]) {
    order[0] = 0, order[1] = 1, order[2] = 2;  // three compare-exchanges: increasing moments
    exchange_if_less(moments, order[1], order[0]);
    exchange_if_less(moments, order[2], order[1]);
    exchange_if_less(moments, order[1], order[0]);
  }

  /// r − 1 of the exact free flow over t from body momentum L.
  template <class S>
  QS_HD static Vec4<S> rotation(const Vec3<S>& inverse, S t, const Vec3<S>& L) {
    using math::choose;
    using math::is_equal;
    const auto symmetric = [&](auto axis, S spherical, S about_axis) {  // two equal moments
      Vec3<S> l = L;
      Vec4<S> d = Vec4<S>::Zero();
      spherical_flow(spherical, t, l, d);
      axis_flow<decltype(axis)::value>(about_axis, t, l, d);
      return d;
    };
    return choose(
        is_equal(inverse[0], inverse[1]),  // symmetric about axis 2 (or spherical)
        [&] { return symmetric(std::integral_constant<int, 2>{}, inverse[0], S(inverse[2] - inverse[0])); },
        [&] {
          return choose(
              is_equal(inverse[1], inverse[2]),  // symmetric about axis 0
              [&] { return symmetric(std::integral_constant<int, 0>{}, inverse[1], S(inverse[0] - inverse[1])); },
              [&] { return exact_free_rotation(inverse, L, t); });
        });
  }
};

/// How ExactFreeSplitting composes its exact drifts and kicks (composition.hpp).
enum class Composition : int { symmetric, near_integrable };
inline constexpr keys::Choice<Composition> composition_names[] = {
    {Composition::symmetric, "symmetric"},
    {Composition::near_integrable, "near_integrable"},
};

/// SplittingSettings and the choice of composition, which the exact drift opens: the method of the
/// perturbed problem needs both sub-flows exact.
template <class S>
struct ExactFreeSplittingSettings : SplittingSettings<S> {
  Composition composition = Composition::symmetric;

  QS_HD ExactFreeSplittingSettings(const SplittingSettings<S>& base = {}) : SplittingSettings<S>(base) {}  // NOLINT

  template <class Keys>
  void describe(Keys& k) {
    SplittingSettings<S>::describe(k);
    k("composition", composition,
      "symmetric (the kick-drift-kick step composed to `order`) or near_integrable (Blanes et al. 2013, "
      "ABA(10,6,4): 9 exact flows and 8 kicks per step, order 4, error O(eps h^10 + eps^2 h^6 + eps^3 h^4) "
      "for a torque eps small against the free motion; needs order = 4)",
      keys::Choices<Composition>(composition_names));
  }
  void validate() const {
    SplittingSettings<S>::validate();
    if (composition == Composition::near_integrable && this->order != 4)
      throw keys::KeyError::of("integrator.order", this->order, "4 with composition = \"near_integrable\" (its order)");
  }
};

/// One step of the composition the settings choose.
template <class S, class Stages>
QS_HD void compose(const ExactFreeSplittingSettings<S>& settings, S t, S h, Stages& stages) {
  if (settings.composition == Composition::near_integrable)
    compose_drift_kick_drift(t, h, stages);
  else
    compose_kick_drift_kick(settings.order, t, h, stages);
}

/// Weight of the kick that ends a step: none for near_integrable, whose step ends with a drift.
template <class S>
QS_HD S end_kick_weight(const ExactFreeSplittingSettings<S>& settings) {
  return settings.composition == Composition::near_integrable ? S(0) : end_kick_weight<S>(settings.order);
}

template <class Model>
using ExactFreeSplitting = RigidBodySplitting<Model, ExactFreeFlow, ExactFreeSplittingSettings>;

// ---------------------------------------------------------------- registry entry
struct ExactFreeSplittingMethod {
  static constexpr MethodInfo info{"exact_free_splitting", "ExactFreeSplitting<Model>", "exact_free_flow.hpp",
                                   "Celledoni, Fassò, Säfström & Zanna, SIAM J. Sci. Comput. 30 (2008): the exact "
                                   "free rigid-body flow (Jacobi elliptic functions, Carlson's integrals) between "
                                   "torque kicks; Yoshida's triple jump",
                                   "4 (order = 2 and 6 below); torque-free motion exact at any step",
                                   "symplectic, reversible; unit length and torque-free spatial "
                                   "angular momentum to round-off"};
  static constexpr Configuration configurations[] = {
      splitting_configurations[0], splitting_configurations[1],
      {"near_integrable", "composition = \"near_integrable\"",
       "Blanes, Casas, Farrés, Laskar, Makazaga & Murua, Appl. Numer. Math. 68 (2013): ABA(10,6,4)",
       "4; (10,6,4) in the size of the torque", "the same"}};
  template <class Model, int>
  using Integrator = ExactFreeSplitting<Model>;
};

}  // namespace quatstep
