// The settings of per-body adaptive HHT steps (include/quatstep/adaptive/adaptive_hht.hpp): the
// accuracy test of Negrut eq. (34) with tolerances per coordinate kind, the step-size rule (37) and
// its limits, the control mode and the predictor.
#pragma once

#include <stdexcept>
#include <string>

#include "quatstep/adaptive/predictor.hpp"
#include "quatstep/config.hpp"
#include "quatstep/settings_keys.hpp"

namespace quatstep {

/// What the step-size controller holds at the tolerance.
enum class ErrorControl {
  /// The error of each step (Negrut §3.2–3.3): e ≤ 1, h_new = s·h·e^(−1/3) (eq. 37, e² = Θ).
  /// A second-order method then has a global error ∝ ε^(2/3) (docs/errata.md N6).
  per_step,
  /// The error per unit time (e/h ≤ 1 with h in seconds; the tolerances are per second of
  /// simulated time): h_new = s·h·(e/h)^(−1/2). Global error ∝ ε (tolerance proportionality) for a
  /// second-order method.
  per_unit_step,
  /// Project Chrono's HHT rule applied to the per-step error test: halve h on a rejection, double it
  /// after 5 consecutive accepted steps that took at most 3 Newton iterations each. For comparison.
  halve_double,
};

inline constexpr keys::Choice<ErrorControl> error_control_names[] = {
    {ErrorControl::per_step, "per_step"},
    {ErrorControl::per_unit_step, "per_unit_step"},
    {ErrorControl::halve_double, "halve_double"},
};

template <class S>
struct AdaptiveSettings {
  ErrorControl control = ErrorControl::per_step;  ///< Default: per_step (Negrut).
  /// Absolute tolerance on the Euler parameters (dimensionless; an error δ in e is a rotation of
  /// ≈ 2|δ| rad). Default: 1e-6.
  S rotation_atol = S(1e-6);
  S rotation_rtol = S(0);  ///< relative tolerance on the Euler parameters. Default: 0.
  S translation_atol = S(1e-6);  ///< absolute tolerance on positions [m]. Default: 1e-6.
  S translation_rtol = S(1e-6);  ///< relative tolerance on positions. Default: 1e-6.
  S h_initial = S(1e-4);  ///< first step tried [s]. Default: 1e-4.
  S h_min = S(1e-10);     ///< a body whose error test fails at this step fails (step_size_too_small). Default: 1e-10.
  S h_max = S(1);         ///< largest step [s]. Default: 1.
  S safety = S(0.9);      ///< safety factor s of Negrut eq. (37b). Default: 0.9.
  S growth_limit = S(5);  ///< largest h_new/h. Default: 5.
  S shrink_limit = S(0.2);  ///< smallest h_new/h, also the factor after a failed Newton solve. Default: 0.2.
  /// Highest degree of the polynomial predictor of the Newton starting value (Negrut §3.5); 0 starts
  /// from the previous accelerations and multipliers (Sherif, quatstep's fixed steps). Default: 3.
  int predictor_degree = 3;

  template <class Keys>
  void describe(Keys& k) {
    k("control", control, "what the step-size rule holds at the tolerance: the error per step (Negrut eq. 37), "
                          "per unit time, or Chrono's halve/double rule", keys::Choices<ErrorControl>(error_control_names));
    k("rotation_atol", rotation_atol, "absolute tolerance on the Euler parameters", keys::positive);
    k("rotation_rtol", rotation_rtol, "relative tolerance on the Euler parameters", keys::non_negative);
    k("translation_atol", translation_atol, "absolute tolerance on positions [m]", keys::non_negative);
    k("translation_rtol", translation_rtol, "relative tolerance on positions", keys::non_negative);
    k("h_initial", h_initial, "first step tried [s], in [h_min, h_max]", keys::positive);
    k("h_min", h_min, "a body whose error test fails at this step fails with step_size_too_small [s]", keys::positive);
    k("h_max", h_max, "largest step [s]", keys::positive);
    k("safety", safety, "safety factor of the step-size rule (Negrut eq. 37b)",
      keys::Range{0.0, 1.0, false, true, "in (0, 1]"});
    k("growth_limit", growth_limit, "largest ratio of consecutive steps", keys::between(1.0, keys::infinity, ">= 1"));
    k("shrink_limit", shrink_limit, "smallest ratio of consecutive steps, and the factor after a failed corrector",
      keys::Range{0.0, 1.0, false, false, "in (0, 1)"});
    k("predictor_degree", predictor_degree, "highest degree of the extrapolating Newton predictor (Negrut §3.5)",
      keys::between(0.0, max_predictor_degree, "in [0, 3]"));
  }

  /// Host-side check (device code cannot throw): keys::KeyError naming the key as declared above
  /// (the scenario parser puts its table in front: "time.h_min").
  void validate() const {
    auto fail = [](const char* key, double value, const char* rule) { throw keys::KeyError::of(key, value, rule); };
    if (!(rotation_atol > S(0))) fail("rotation_atol", rotation_atol, "> 0 (Euler parameters pass zero)");
    if (!(rotation_rtol >= S(0))) fail("rotation_rtol", rotation_rtol, ">= 0");
    if (!(translation_atol > S(0) || translation_rtol > S(0)))
      fail("translation_atol", translation_atol, "> 0 where translation_rtol is 0");
    if (!(translation_atol >= S(0))) fail("translation_atol", translation_atol, ">= 0");
    if (!(translation_rtol >= S(0))) fail("translation_rtol", translation_rtol, ">= 0");
    if (!(h_min > S(0))) fail("h_min", h_min, "> 0");
    if (!(h_max >= h_min)) fail("h_max", h_max, ">= h_min");
    if (!(h_initial >= h_min && h_initial <= h_max)) fail("h_initial", h_initial, "in [h_min, h_max]");
    if (!(safety > S(0) && safety <= S(1))) fail("safety", safety, "in (0, 1]");
    if (!(growth_limit >= S(1))) fail("growth_limit", growth_limit, ">= 1");
    if (!(shrink_limit > S(0) && shrink_limit < S(1))) fail("shrink_limit", shrink_limit, "in (0, 1)");
    if (predictor_degree < 0 || predictor_degree > max_predictor_degree)
      fail("predictor_degree", predictor_degree, "in [0, 3]");
  }
};

}  // namespace quatstep
