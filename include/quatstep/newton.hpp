// The one Newton driver every implicit integrator uses.
//
// A System provides
//   QS_HD void evaluate(const Vec<S,K>& x, Vec<S,K>& R, Mat<S,K,K>& J) const;  // residual, Jacobian
//   QS_HD S correction_norm(const Vec<S,K>& dx, const Vec<S,K>& x) const;
//     // weighted size of the correction dx that produced the iterate x (scales may use x, so that a
//     // body starting from rest, where the old state gives no scale, still converges)
//
// Stopping rule (Negrut et al. §3.3, eqs. 42–45, read as in docs/errata.md N3): after iteration k ≥ 2 the
// convergence rate ξ_k = ‖Δx_k‖/‖Δx_{k−1}‖ bounds the distance of the updated iterate from the
// solution by ξ_k/(1−ξ_k)·‖Δx_k‖; the iteration stops once that bound is ≤ tolerance. A first
// correction a thousand times below the tolerance is accepted without a rate (nothing to correct).
// Reaching max_iterations without that certificate is a per-body failure, as is a zero or
// non-finite pivot or a non-finite correction.
//
// Round-off stall. A System that knows the size of a correction made of rounding errors alone,
//   QS_HD S round_off_norm(const Vec<S,K>& x) const;  // in correction_norm's units, at the iterate x
// also stops, from iteration 2 on, once a correction is no larger than that: the iterate is then
// as converged as the scalar type can represent, and the corrections only wander over the last bits
// (ξ ≈ 1 or a two-cycle, which the rate rule can never certify). For the index-3 HHT family that
// floor grows like 1/h (constraint rows scaled by 1/(βh²)): in float it is above the tolerance at
// ordinary steps; in double it passed the 1e-12 tolerance below h ≈ 5e-6 on slow bodies (Sherif's
// top at 1.5–15 rad/s failed with newton_not_converged at h = 4e-6 and 2e-6 within its first steps,
// a mechanism at rest without loads at any h), and everywhere else it lies orders below the
// tolerance, where the rule never acts. The Hamiltonian schemes' multiplier (hamiltonian_quaternion.hpp)
// turns the constraint row's rounding into momentum corrections of 4 tr(J) ε/h, above the 1e-12
// tolerance relative to a slow body's momentum; a body spinning steadily about a principal axis,
// whose predictor is the solution, two-cycled there and failed.
//
// A System that can also evaluate the residual alone,
//   QS_HD void residual(const Vec<S,K>& x, Vec<S,K>& R) const;
// keeps the first iteration's Jacobian and LU for the later iterations (simplified Newton) when the
// first correction is at most settings.jacobian_reuse_below in the weighted norm: the Jacobian's
// error is then of that size, so is the linear rate, and the rate certificate above stays valid.
// Large first corrections (big rotations per step) get a fresh Jacobian every iteration.
//
// The linear algebra is the dense Lu<S, K> unless the caller passes its own factorisation F (a
// structured solver, mechanism/kkt.hpp): then the System provides
//   QS_HD void evaluate(const Vec<S,K>& x, Vec<S,K>& R, F& f) const;  // residual, f assembled and factorised
// and F provides `bool singular` and `Vec<S,K> solve(const Vec<S,K>&) const`, as Lu does.
#pragma once

#include <type_traits>
#include <utility>

#include "quatstep/linalg/lu.hpp"
#include "quatstep/math/choose.hpp"
#include "quatstep/settings_keys.hpp"
#include "quatstep/status.hpp"

namespace quatstep {

/// Default Newton tolerance per scalar type (NewtonSettings::tolerance).
template <class S>
struct NewtonDefaults {
  /// Double (and double-based scalars): 1e-12 (the heavy top still takes 2.00 iterations per step at
  /// h = 1e-4; 1e-10 lets the exact spin-up drift 5e-11).
  static constexpr double tolerance = 1e-12;
};
template <>
struct NewtonDefaults<float> {
  /// Float: 1e-3. The corrections of a float run stall at a round-off floor where the rate rule
  /// cannot certify them; for the index-3 HHT family that floor is ≈ ε_float·γ/(β h |q̇|) from the
  /// constraint row scaled by 1/(βh²). Measured on the Sherif heavy top at h = 1e-4: ModifiedHht
  /// fails (newton_not_converged) after 7012 steps at 1e-4 and runs 10^5 at 3e-4; HamiltonianEm
  /// failed after 1345 / 18607 steps at 1e-4 / 3e-4 and ran 10^5 at 1e-3 until its system stated its
  /// round-off level (2026-12-03; since, 10^5 steps at all three, 2.25 / 2.10 / 2.02 iterations per
  /// step). The float trajectories' distance from double is the same for 1e-4 … 1e-3 (round-off dominates), at 2.0–2.1 iterations
  /// per step.
  /// The HHT family's corrections stall at that floor even below 1e-3: classical Hht failed every
  /// body of Sherif's top after ≈ 1e4 steps, its corrections stuck at 8.4e-6 / 1.7e-5 (one and two
  /// ulps of q_{n+1} over βh²); the round-off stall below ends the failures
  /// (tests/float_long_run_test.cpp).
  static constexpr double tolerance = 1e-3;
};

template <class S>
struct NewtonSettings {
  /// Bound on the remaining weighted error of the accepted iterate. Default: NewtonDefaults<S>,
  /// 1e-12 in double, 1e-3 in float.
  S tolerance = S(NewtonDefaults<S>::tolerance);
  int max_iterations = 10;  ///< iteration cap. Default: 10.
  /// Reuse the first iteration's Jacobian and LU when the first correction is at most this (weighted
  /// norm), where the system supports it; 0 disables. Default: 1e-4 (the heavy top at h = 1e-4 reuses
  /// it, 1.6× faster, same result to 1e-12; the exact spin-up stays exact to 3e-14; 1e-3 would not).
  S jacobian_reuse_below = S(1e-4);

  /// The [integrator] keys of every implicit method (settings_keys.hpp).
  template <class Keys>
  void describe(Keys& k) {
    k("newton_tolerance", tolerance,
      "bound on the remaining weighted error of the accepted Newton iterate (default 1e-12 in double, 1e-3 in float)",
      keys::positive);
    k("newton_max_iterations", max_iterations, "Newton iteration cap; reaching it fails the body",
      keys::between(1, 1000, "in [1, 1000]"));
    k("newton_jacobian_reuse_below", jacobian_reuse_below,
      "keep the first Jacobian and its LU when the first correction is at most this; 0 disables", keys::non_negative);
  }
};

/// Systems that know the round-off level of their corrections.
template <class System, class V, class = void>
struct has_round_off_norm : std::false_type {};
template <class System, class V>
struct has_round_off_norm<System, V, std::void_t<decltype(std::declval<const System&>().round_off_norm(
                                         std::declval<const V&>()))>> : std::true_type {};

/// Systems that can evaluate their residual without the Jacobian.
template <class System, class V, class = void>
struct has_residual : std::false_type {};
template <class System, class V>
struct has_residual<System, V, std::void_t<decltype(std::declval<const System&>().residual(
                                   std::declval<const V&>(), std::declval<V&>()))>> : std::true_type {};

struct NewtonOutcome {
  Status status;
  int iterations;
};

namespace detail {
/// Residual and factorised Newton matrix at x: the dense Jacobian is assembled in lu.lu and
/// factorised in place; a structured factorisation is assembled and factorised by the system.
template <class System, class V, class S, int K>
QS_HD void linearize(const System& sys, const V& x, V& r, Lu<S, K>& lu) {
  sys.evaluate(x, r, lu.lu);
  lu.factorize();
}
template <class System, class V, class Factorization>
QS_HD void linearize(const System& sys, const V& x, V& r, Factorization& f) {
  sys.evaluate(x, r, f);
}
}  // namespace detail

/// The stopping rule (Negrut §3.3 read as docs/errata.md N3), for newton_solve and its lane form
/// (simd/lane_newton.hpp): whether iteration k, whose weighted correction is d (the previous one
/// `previous`), has converged at x. A tiny first correction is accepted at once; later, the
/// estimated remaining error ξ/(1 − ξ)·d (ξ = d/previous, the convergence rate) within the
/// tolerance, a zero correction, or one at the system's round-off level. A condition of
/// math/choose.hpp: a bool for a number, a lane mask for a lane type.
template <class S, class System, class V>
QS_HD auto newton_converged(const System& sys, const V& x, int k, const S& d, const S& previous, const S& tolerance) {
  using math::is_less;
  using math::is_less_equal;
  if (k == 1) return is_less_equal(d, S(1e-3) * tolerance);
  const S xi = d / previous;
  auto c = (is_less(xi, S(1)) && is_less_equal(xi / (S(1) - xi) * d, tolerance)) || is_less_equal(d, S(0));
  if constexpr (has_round_off_norm<System, V>::value) c = c || is_less_equal(d, sys.round_off_norm(x));
  return c;
}

/// Whether iteration k > 1 keeps the first Jacobian and its LU: the first correction was at most
/// settings.jacobian_reuse_below (for systems with a residual-only evaluation).
template <class S>
QS_HD auto newton_reuses_jacobian(const S& first, const NewtonSettings<S>& settings) {
  using math::is_less_equal;
  return is_less_equal(first, settings.jacobian_reuse_below);
}

/// Newton on sys from x, with the caller's factorisation (kept after the call: the last one used).
template <class S, int K, class System, class Factorization>
QS_HD NewtonOutcome newton_solve(const System& sys, Vec<S, K>& x, const NewtonSettings<S>& settings,
                                 Factorization& lu) {
  Vec<S, K> r;
  S previous = S(0), first = S(0);
  for (int k = 1; k <= settings.max_iterations; ++k) {
    bool fresh = true;
    if constexpr (has_residual<System, Vec<S, K>>::value) {
      if (k > 1 && newton_reuses_jacobian(first, settings)) {
        sys.residual(x, r);
        fresh = false;
      }
    }
    if (fresh) {
      detail::linearize(sys, x, r, lu);
      if (lu.singular) return {Status::singular_jacobian, k};
    }
    const Vec<S, K> dx = lu.solve(-r);
    x += dx;
    const S d = sys.correction_norm(dx, x);
    if (!(d < S(INFINITY))) return {Status::non_finite, k};  // NaN or ±∞
    if (k == 1) first = d;
    if (newton_converged(sys, x, k, d, previous, settings.tolerance)) return {Status::ok, k};
    previous = d;
  }
  return {Status::newton_not_converged, settings.max_iterations};
}

/// Newton on sys from x with the dense LU of its K×K Jacobian.
template <class S, int K, class System>
QS_HD NewtonOutcome newton_solve(const System& sys, Vec<S, K>& x, const NewtonSettings<S>& settings) {
  Lu<S, K> lu;  // the Jacobian is assembled in lu.lu and factorised in place
  return newton_solve<S, K>(sys, x, settings, lu);
}

}  // namespace quatstep
