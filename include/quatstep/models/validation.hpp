// The per-body rules of the rigid-body models, written once: the scenario checks (each model entry's
// check(), on the numbers of a scenario file) and the library checks (model_problem() next to each
// model, on models built in code, host/body_validation.hpp) both call these. Each returns an empty
// string or the problem, without the field's name (the caller knows which key or field it was).
#pragma once

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include <Eigen/Eigenvalues>

#include "quatstep/config.hpp"

namespace quatstep::validation {

/// Quaternions within this distance of unit norm are accepted: a scenario's are normalised, a
/// library caller's are taken as given (normalise them first: the splittings keep the norm they get).
inline constexpr double unit_tolerance = 1e-6;

/// A problem of one body's input: the key or field, and what is wrong.
struct Problem {
  std::string key, message;
};

template <class Derived>
bool all_finite(const Eigen::MatrixBase<Derived>& m) {
  return m.array().isFinite().all();
}

/// x for a message, to 10 significant digits: enough to tell an input at a bound's edge from the bound
/// (a norm of 1.0000011, a moment of 0.2000001), few enough to hide a computed value's round-off.
inline std::string format(double x) {
  std::ostringstream os;
  os << std::setprecision(10) << x;
  return os.str();
}

/// Principal moments of inertia of a real body, about its centre of mass or any other point: each
/// finite and > 0, and I1 + I2 ≥ I3 for every ordering, in the moments' own precision T with a
/// relative slack for round-off: 1e-12, or 64 ulp where T's round-off is larger (a float top's
/// moments about its fixed point, shifted there in float, break a flat body's I1 + I2 = I3 by a few
/// ulp). The inequality holds about every point, as I1 + I2 − I3 = 2∫r3² dm in the principal axes there.
template <class V>
std::string principal_moments_problem(const V& I) {
  using T = std::decay_t<decltype(I[0])>;
  const T slack = std::max(T(1e-12), T(64) * std::numeric_limits<T>::epsilon());
  for (int c = 0; c < 3; ++c) {
    if (!(I[c] > 0)) return "component " + std::to_string(c) + " is " + format(I[c]) + ", must be > 0";
    if (!(I[c] < std::numeric_limits<T>::infinity()))
      return "component " + std::to_string(c) + " is " + format(I[c]) + ", must be finite";
  }
  for (int c = 0; c < 3; ++c)
    if (I[(c + 1) % 3] + I[(c + 2) % 3] < I[c] * (T(1) - slack))
      return "moments (" + format(I[0]) + ", " + format(I[1]) + ", " + format(I[2]) +
             ") violate the triangle inequality I1 + I2 >= I3 (no real body has them)";
  return {};
}

/// An inertia tensor, about the centre of mass or a fixed point: finite, symmetric, positive definite
/// (its smallest eigenvalue above 1e-12 of its largest), and its eigenvalues principal moments of a
/// real body.
template <class S>
std::string inertia_problem(const Mat3<S>& J) {
  if (!all_finite(J)) return "not finite";
  if (!J.isApprox(J.transpose(), S(1e-12))) return "not symmetric";
  const Vec3<S> I = Eigen::SelfAdjointEigenSolver<Mat3<S>>(J, Eigen::EigenvaluesOnly).eigenvalues();  // ascending
  if (!(I[0] > S(1e-12) * I[2]))
    return "not positive definite (principal moments " + format(I[0]) + ", " + format(I[1]) + ", " + format(I[2]) + ")";
  return principal_moments_problem(I);
}

/// A load's time profile (models/torque_profile.hpp): finite values, and a window with begin <= end
/// (either may be infinite).
template <class Profile>
std::string profile_problem(const Profile& p) {
  if (!all_finite(p.constant) || !all_finite(p.ramp) || !all_finite(p.amplitude) || !std::isfinite(double(p.frequency)) ||
      !std::isfinite(double(p.phase)))
    return "not finite";
  if (!(p.begin <= p.end)) return "window [" + format(double(p.begin)) + ", " + format(double(p.end)) + "): end before begin";
  return {};
}

/// A finite quaternion within unit_tolerance of unit norm.
template <class V>
std::string unit_quaternion_problem(const V& q) {
  double norm2 = 0;
  for (int c = 0; c < 4; ++c) norm2 += double(q[c]) * double(q[c]);
  const double norm = std::sqrt(norm2);
  if (!(std::abs(norm - 1) <= unit_tolerance))
    return "not a unit quaternion (norm " + format(norm) + ", must be 1 to " + format(unit_tolerance) + ")";
  return {};
}

}  // namespace quatstep::validation
