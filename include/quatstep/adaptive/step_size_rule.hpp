// The accuracy test and the step-size selection of Negrut et al. §3.2–3.3, per body.
//
// The composite error (Negrut eq. 34) is the root mean square of δ_i / Y_i over the coordinates, with
// the weight Y_i = atol + rtol·max(|q_{i,n}|, |q_{i,n+1}|) of the coordinate's kind (Euler parameter
// or translation); Negrut's Y_i = max(1, max_j |q_{i,j}|) against ε is atol = rtol = ε in spirit.
// A step is accepted when that error e ≤ 1 (eq. 47c with ε folded into the weights), and the next
// step follows eq. (37): since e ∝ h³, h_new = s·h·e^(−1/3) (= s·h·Θ^(−1/6), Θ = e²; docs/errata.md
// N2), or, holding the error per unit time e/h ∝ h² at 1, h_new = s·h·(e/h)^(−1/2). Factors are
// clamped to [shrink_limit, growth_limit], and never above 1 right after a rejection.
//
// The roots are computed with + − × ÷ only (Newton iterations), so that the CPU and the GPU choose
// the same steps bit for bit (std::cbrt and std::pow differ between glibc and CUDA).
#pragma once

#include "quatstep/adaptive/adaptive_settings.hpp"
#include "quatstep/adaptive/euler_parameter_blocks.hpp"
#include "quatstep/config.hpp"
#include "quatstep/math/choose.hpp"

namespace quatstep {

namespace detail {
/// x^(1/3) for x > 0 by Newton's iteration y ← (2y + x/y²)/3 from y₀ = max(1, x) ≥ x^(1/3): the
/// iterates decrease monotonically to the root, and the iteration stops at the first one that does
/// not (a lane type: each lane at its own, the loop while any lane still moves).
template <class S>
QS_HD S cube_root(S x) {
  using math::any;
  using math::is_less;
  using math::select;
  S y = select(is_less(S(1), x), x, S(1));
  for (int k = 0; k < 200; ++k) {
    const S next = (S(2) * y + x / (y * y)) / S(3);
    const auto moves = is_less(next, y);
    if (!any(moves)) break;
    y = select(moves, next, y);
  }
  return y;
}
}  // namespace detail

/// The composite error of Negrut eq. (34): RMS of δ_i / Y_i over the coordinates of `model`.
template <class Model, class S, class VecN>
QS_HD S composite_error(const Model& model, const AdaptiveSettings<S>& settings, const VecN& delta, const VecN& q0,
                        const VecN& q1) {
  using Blocks = EulerParameterBlocks<Model>;
  const int n = Blocks::coordinates(model);
  bool rotation[VecN::RowsAtCompileTime] = {};
  QS_UNROLL_UP_TO(Blocks::capacity) for (int b = 0; b < Blocks::count(model); ++b) {
    const int o = Blocks::offset(b);
    QS_UNROLL for (int c = 0; c < 4; ++c) rotation[o + c] = true;
  }
  S sum = S(0);
  QS_UNROLL_UP_TO(VecN::RowsAtCompileTime) for (int i = 0; i < n; ++i) {
    const S size = Eigen::numext::maxi(Eigen::numext::abs(q0[i]), Eigen::numext::abs(q1[i]));
    const S weight = rotation[i] ? settings.rotation_atol + settings.rotation_rtol * size
                                 : settings.translation_atol + settings.translation_rtol * size;
    const S r = delta[i] / weight;
    sum += r * r;
  }
  using std::sqrt;
  return sqrt(sum / S(n));
}

/// What the controller makes of a step whose corrector converged.
template <class S>
struct StepDecision {
  math::ConditionOf<S> accept;
  S factor;  ///< h_next / h
};

/// The accuracy test and the next step's factor for a step of size h with composite error e.
/// `successes` counts consecutive accepted steps for the halve_double rule (updated here);
/// `iterations` is the step's Newton iteration count; `after_rejection` caps the factor at 1.
/// The branches on the body's numbers are math::select and math::choose (a lane type takes them
/// lane by lane, simd/lane_adaptive.hpp).
template <class S>
QS_HD StepDecision<S> decide_step(const AdaptiveSettings<S>& settings, S e, S h, S iterations,
                                  math::ConditionOf<S> after_rejection, S& successes) {
  using math::choose;
  using math::is_less;
  using math::is_less_equal;
  using math::select;
  using std::sqrt;
  if (settings.control == ErrorControl::halve_double) {
    // Project Chrono's ChTimestepperHHT: halve on a failure, double after 5 successes that took at
    // most 3 Newton iterations each.
    const auto accept = is_less_equal(e, S(1)), few = is_less_equal(iterations, S(3));
    const S counted = successes + S(1);
    const auto doubles = accept && few && is_less_equal(S(5), counted);
    const S factor = select(accept, select(doubles, S(2), S(1)), S(0.5));
    successes = select(accept && few && !doubles, counted, S(0));
    return {accept, factor};
  }
  // With the factor f the next error is ≈ r·f^k (k = 3 per step, 2 per unit step), and the rule is
  // f = s·r^(−1/k). Whether f reaches a limit is decided from r·f^k at the limit against s^k, so the
  // root is only taken between the limits (a bounded number of iterations).
  const bool per_unit = settings.control == ErrorControl::per_unit_step;
  const S r = per_unit ? e / h : e;
  const auto accept = is_less_equal(r, S(1));
  const S high = select(after_rejection || !accept, S(1), settings.growth_limit), low = settings.shrink_limit;
  const S sk = per_unit ? settings.safety * settings.safety : settings.safety * settings.safety * settings.safety;
  const S hk = per_unit ? high * high : high * high * high, lk = per_unit ? low * low : low * low * low;
  const S factor = choose(
      is_less_equal(r * hk, sk), [&] { return high; },
      [&] {
        return choose(is_less_equal(sk, r * lk), [&] { return low; }, [&] {
          // Negrut eq. (37b), or its per-unit-step form
          return S(settings.safety / (per_unit ? S(sqrt(r)) : detail::cube_root(r)));
        });
      });
  return {accept, factor};
}

/// The factor after a step whose corrector failed (no error estimate): shrink_limit, or ½ for the
/// halve_double rule.
template <class S>
QS_HD S failed_step_factor(const AdaptiveSettings<S>& settings) {
  return settings.control == ErrorControl::halve_double ? S(0.5) : settings.shrink_limit;
}

}  // namespace quatstep
