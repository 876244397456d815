// Shared test helpers: fixed-seed random inputs and central finite differences.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "quatstep/quaternion.hpp"

namespace quatstep::testing {

inline constexpr double kEps = std::numeric_limits<double>::epsilon();

/// Reproducible random inputs (std::mt19937_64, fixed seed per test).
class Random {
 public:
  explicit Random(std::uint64_t seed) : gen_(seed) {}

  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }

  /// Components uniform in [−scale, scale].
  template <int N>
  Vec<double, N> vector(double scale = 1.0) {
    Vec<double, N> v;
    for (int i = 0; i < N; ++i) v[i] = uniform(-scale, scale);
    return v;
  }

  /// Uniform on S³: a normalised Gaussian 4-vector (q and −q both occur).
  Vec4<double> unit_quaternion() {
    std::normal_distribution<double> normal;
    Vec4<double> q;
    for (int i = 0; i < 4; ++i) q[i] = normal(gen_);
    return q.normalized();
  }

  /// Unit vector uniform on S².
  Vec3<double> unit_vector() {
    std::normal_distribution<double> normal;
    return Vec3<double>(normal(gen_), normal(gen_), normal(gen_)).normalized();
  }

  /// A full (non-diagonal) inertia tensor: principal values (1.2, 2.3, 2.9), which satisfy the
  /// triangle inequality, in randomly rotated axes.
  Mat3<double> inertia() {
    const Mat3<double> r = rotation_matrix(unit_quaternion());
    return r * Vec3<double>(1.2, 2.3, 2.9).asDiagonal() * r.transpose();
  }

 private:
  std::mt19937_64 gen_;
};

/// Central differences of f at x, step 1e-6·max(1, |x_j|) per coordinate.
/// Error of one entry: truncation δ²/6·|f'''| plus rounding ≈ ε|f|/δ, i.e. ~1e-10 relative to
/// |f'| when |f| ≈ |f'|·max(1, |x|) — the tests' 1e-7 tolerance leaves a factor ~100–1000.
template <class F, class X>
Eigen::MatrixXd central_difference(const F& f, const X& x, double relative_step = 1e-6) {
  const Eigen::VectorXd f0 = f(x);
  Eigen::MatrixXd d(f0.size(), x.size());
  for (int j = 0; j < x.size(); ++j) {
    X xp = x, xm = x;
    const double step = relative_step * std::max(1.0, std::abs(x[j]));
    xp[j] += step;
    xm[j] -= step;
    d.col(j) = (Eigen::VectorXd(f(xp)) - Eigen::VectorXd(f(xm))) / (xp[j] - xm[j]);
  }
  return d;
}

/// Largest mismatch of each row relative to that row's largest analytic entry, maximised over rows.
/// Rows are equations with their own units, so each is judged on its own scale; a row that is zero
/// analytically must be zero in the reference too.
inline double row_relative_error(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& reference) {
  double worst = 0.0;
  for (int i = 0; i < analytic.rows(); ++i) {
    const double diff = (analytic.row(i) - reference.row(i)).cwiseAbs().maxCoeff();
    const double scale = analytic.row(i).cwiseAbs().maxCoeff();
    worst = std::max(worst, diff == 0.0 ? 0.0 : diff / std::max(scale, std::numeric_limits<double>::min()));
  }
  return worst;
}

}  // namespace quatstep::testing
