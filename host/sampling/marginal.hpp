// Scalar laws, each given by its quantile function (inverse CDF): the same law is then drawn from an
// independent uniform (RandomStream), from a Latin-hypercube stratum or from a Sobol point
// (design.hpp) with nothing else to change. u is always in the open interval (0, 1).
//
//   fixed(value)                          value
//   uniform(low, high)                    low + u·(high − low)
//   normal(mean, stddev)                  mean + stddev·Φ⁻¹(u)
//   truncated_normal(mean, stddev, low, high)
//                                         exact: Φ⁻¹ of u mapped onto [Φ(α), Φ(β)], α, β the standardised
//                                         bounds, computed in whichever tail keeps the digits (upper-tail
//                                         probabilities when α ≥ 0, so low = mean + 10σ works), never by
//                                         clipping; the result is kept inside [low, high] against the last
//                                         ulp of rounding
//   log_normal(mu, sigma)                 exp(mu + sigma·Φ⁻¹(u)): ln X ~ N(mu, sigma²)
//   log_uniform(low, high)                exp(ln low + u·(ln high − ln low)), 0 < low ≤ high
//
// Φ⁻¹(u) = −√2·erfc⁻¹(2u) below 1/2 and √2·erfc⁻¹(2(1 − u)) above (Boost.Math's erfc_inv), 1 − u being
// exact for the uniforms of counter_rng.hpp: tails are resolved to u = 2^-53 on both sides (±8.2σ).
// The draws use the host's libm (through Boost.Math): bitwise reproducible for a given build and C
// library, which is where bodies are drawn (on the host, before the run).
#pragma once

#include <string>

#include "sampling/sampling_error.hpp"

namespace quatstep::sampling {

class Marginal {
 public:
  enum class Kind { fixed, uniform, normal, truncated_normal, log_normal, log_uniform };

  /// Validating factories; `component` ≥ 0 names parameters "stddev[2]" in messages (vector keys).
  /// Every parameter must be finite.
  static Marginal fixed(double value, int component = -1);
  /// low <= high.
  static Marginal uniform(double low, double high, int component = -1);
  /// stddev >= 0 (0: always the mean).
  static Marginal normal(double mean, double stddev, int component = -1);
  /// stddev > 0, low < high (either may be ±inf), and the interval's probability under
  /// N(mean, stddev²) at least 1e-300 (it underflows farther out, ~37σ).
  static Marginal truncated_normal(double mean, double stddev, double low, double high, int component = -1);
  /// sigma >= 0.
  static Marginal log_normal(double mu, double sigma, int component = -1);
  /// 0 < low <= high.
  static Marginal log_uniform(double low, double high, int component = -1);

  /// The value at u ∈ (0, 1).
  double quantile(double u) const;
  Kind kind() const { return kind_; }
  /// Closure of the support: every value quantile() returns lies in [lower(), upper()].
  double lower() const;
  double upper() const;

 private:
  Marginal(Kind kind, double p0, double p1 = 0, double p2 = 0, double p3 = 0) : kind_(kind), p_{p0, p1, p2, p3} {}
  Kind kind_;
  // fixed: value; uniform, log_uniform: low, high; normal: mean, stddev; log_normal: mu, sigma;
  // truncated_normal: mean, stddev, low, high.
  double p_[4];
  // truncated_normal: Φ(α), Q(β) = 1 − Φ(β) and the interval's probability Φ(β) − Φ(α), each
  // computed from the tail that holds its digits.
  double lower_tail_ = 0, upper_tail_ = 0, mass_ = 0;
};

/// Standard normal quantile Φ⁻¹(u), u ∈ (0, 1).
double standard_normal_quantile(double u);

}  // namespace quatstep::sampling
