#include "sampling/marginal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/special_functions/erf.hpp>

namespace quatstep::sampling {
namespace {

constexpr double sqrt2 = 1.41421356237309504880;
constexpr double inf = std::numeric_limits<double>::infinity();

/// Throws "name: value, problem" unless ok.
void require(bool ok, const char* name, int component, double value, const std::string& problem) {
  if (!ok) throw SamplingError(parameter_name(name, component) + ": " + format_number(value) + ", " + problem);
}
void require_finite(const char* name, int component, double value) {
  require(std::isfinite(value), name, component, value, "must be finite");
}
/// A bound of a truncated normal: finite or the infinity on its own side.
void require_bound(const char* name, int component, double value, double allowed_infinity) {
  require(std::isfinite(value) || value == allowed_infinity, name, component, value,
          std::string("must be finite or ") + (allowed_infinity > 0 ? "inf" : "-inf"));
}

/// Φ(z) = P(Z < z) and Q(z) = P(Z > z) for Z ~ N(0, 1), each accurate in its own small tail.
double lower_tail(double z) { return 0.5 * std::erfc(-z / sqrt2); }
double upper_tail(double z) { return 0.5 * std::erfc(z / sqrt2); }

}  // namespace

double standard_normal_quantile(double u) {
  return u < 0.5 ? -sqrt2 * boost::math::erfc_inv(2 * u) : sqrt2 * boost::math::erfc_inv(2 * (1 - u));
}

Marginal Marginal::fixed(double value, int component) {
  require_finite("value", component, value);
  return Marginal(Kind::fixed, value);
}

Marginal Marginal::uniform(double low, double high, int component) {
  require_finite("low", component, low);
  require_finite("high", component, high);
  require(low <= high, "low", component, low, "must be <= " + parameter_name("high", component) + " (" + format_number(high) + ")");
  require(std::isfinite(high - low), "high", component, high, "too far from low: high - low overflows");
  return Marginal(Kind::uniform, low, high);
}

Marginal Marginal::normal(double mean, double stddev, int component) {
  require_finite("mean", component, mean);
  require_finite("stddev", component, stddev);
  require(stddev >= 0, "stddev", component, stddev, "must be >= 0");
  return Marginal(Kind::normal, mean, stddev);
}

Marginal Marginal::truncated_normal(double mean, double stddev, double low, double high, int component) {
  require_finite("mean", component, mean);
  require_finite("stddev", component, stddev);
  require(stddev > 0, "stddev", component, stddev, "must be > 0");
  require_bound("low", component, low, -inf);
  require_bound("high", component, high, inf);
  require(low < high, "low", component, low, "must be < " + parameter_name("high", component) + " (" + format_number(high) + ")");
  Marginal m(Kind::truncated_normal, mean, stddev, low, high);
  const double alpha = (low - mean) / stddev, beta = (high - mean) / stddev;  // standardised bounds
  m.lower_tail_ = alpha <= 0 ? lower_tail(alpha) : 1 - upper_tail(alpha);
  m.upper_tail_ = beta >= 0 ? upper_tail(beta) : 1 - lower_tail(beta);
  m.mass_ = alpha >= 0 ? upper_tail(alpha) - upper_tail(beta)
            : beta <= 0 ? lower_tail(beta) - lower_tail(alpha)
                        : 1 - m.lower_tail_ - m.upper_tail_;
  if (!(m.mass_ >= 1e-300))
    throw SamplingError(parameter_name("low", component) + ", " + parameter_name("high", component) + ": [" +
                        format_number(low) + ", " + format_number(high) + "] holds probability " +
                        format_number(m.mass_) + " of N(" + format_number(mean) + ", " + format_number(stddev) +
                        "^2), must be >= 1e-300");
  return m;
}

Marginal Marginal::log_normal(double mu, double sigma, int component) {
  require_finite("mu", component, mu);
  require_finite("sigma", component, sigma);
  require(sigma >= 0, "sigma", component, sigma, "must be >= 0");
  return Marginal(Kind::log_normal, mu, sigma);
}

Marginal Marginal::log_uniform(double low, double high, int component) {
  require_finite("low", component, low);
  require_finite("high", component, high);
  require(low > 0, "low", component, low, "must be > 0");
  require(low <= high, "low", component, low, "must be <= " + parameter_name("high", component) + " (" + format_number(high) + ")");
  return Marginal(Kind::log_uniform, low, high);
}

double Marginal::quantile(double u) const {
  switch (kind_) {
    case Kind::fixed:
      return p_[0];
    case Kind::uniform:  // clamped: high − low may round up
      return std::clamp(p_[0] + u * (p_[1] - p_[0]), p_[0], p_[1]);
    case Kind::normal:
      return p_[0] + p_[1] * standard_normal_quantile(u);
    case Kind::truncated_normal: {
      // p = Φ(α) + u·mass; above 1/2 the same point as an upper-tail probability Q(β) + (1 − u)·mass.
      const double p = lower_tail_ + u * mass_;
      const double z = p < 0.5 ? standard_normal_quantile(p) : -standard_normal_quantile(upper_tail_ + (1 - u) * mass_);
      return std::clamp(p_[0] + p_[1] * z, p_[2], p_[3]);
    }
    case Kind::log_normal:
      return std::exp(p_[0] + p_[1] * standard_normal_quantile(u));
    case Kind::log_uniform: {
      const double a = std::log(p_[0]), b = std::log(p_[1]);
      return std::clamp(std::exp(a + u * (b - a)), p_[0], p_[1]);
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double Marginal::lower() const {
  switch (kind_) {
    case Kind::normal: return -inf;
    case Kind::log_normal: return 0;
    case Kind::truncated_normal: return p_[2];
    default: return p_[0];  // fixed, uniform, log_uniform
  }
}

double Marginal::upper() const {
  switch (kind_) {
    case Kind::fixed: return p_[0];
    case Kind::normal:
    case Kind::log_normal: return inf;
    case Kind::truncated_normal: return p_[3];
    default: return p_[1];  // uniform, log_uniform
  }
}

}  // namespace quatstep::sampling
