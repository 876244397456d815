// An independent reference solution for a heavy top, sharing none of the integrators under test:
// Euler's equations J ω̇ + ω × Jω = τ(q) (Sherif eq. 8) with the quaternion kinematics
// q̇ = ½ q ∘ (0, ω) (body-frame ω; the same as ω = 2 G(q) q̇, Sherif eq. 3), integrated by the
// classical fourth-order Runge–Kutta method on the fixed grid t_k = k·h. q is never renormalised:
// max_norm_drift() records |‖q‖ − 1| so that a test can check it stays at round-off.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "quatstep/models/heavy_top.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep::reference {

class HeavyTopReference {
 public:
  /// Integrates [0, steps·h] and keeps ω and q at every grid point.
  HeavyTopReference(const HeavyTop<double>& top, const RigidBodyKinematics<double>& initial, double h, long steps)
      : top_(top), inverse_inertia_(top.inertia.inverse()), h_(h) {
    Y y;
    y << initial.omega_body, initial.quaternion;
    omega_.reserve(steps + 1);
    quaternion_.reserve(steps + 1);
    record(y);
    for (long k = 0; k < steps; ++k) {
      const double t = double(k) * h;
      // classical RK4
      const Y k1 = rate(y, t);
      const Y k2 = rate(y + 0.5 * h * k1, t + 0.5 * h);
      const Y k3 = rate(y + 0.5 * h * k2, t + 0.5 * h);
      const Y k4 = rate(y + h * k3, t + h);
      y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
      record(y);
    }
  }

  double step() const { return h_; }
  long steps() const { return long(omega_.size()) - 1; }
  double max_norm_drift() const { return max_norm_drift_; }

  /// ω and q at grid point k (t = k·h).
  const Vec3<double>& omega(long k) const { return omega_.at(k); }
  const Vec4<double>& quaternion(long k) const { return quaternion_.at(k); }

  /// Grid index of time t; t must lie on the grid (to 1e-6 of a step).
  long index_of(double t) const {
    const double x = t / h_;
    const long k = std::lround(x);
    if (std::abs(x - double(k)) > 1e-6 || k < 0 || k > steps())
      throw std::invalid_argument("HeavyTopReference: time not on the reference grid");
    return k;
  }

 private:
  using Y = Vec<double, 7>;  // (ω, q)

  /// (ω̇, q̇) = (J⁻¹(τ(q) − ω × Jω), ½ q ∘ (0, ω)).
  Y rate(const Y& y, double t) const {
    const Vec3<double> w = y.head<3>();
    const Vec4<double> q = y.tail<4>();
    const Vec3<double> tau = top_.body_torque(q, t);
    Y d;
    d << inverse_inertia_ * (tau - w.cross(top_.inertia * w)), 0.5 * quat_mul<double>(q, pure<double>(w));
    return d;
  }

  void record(const Y& y) {
    omega_.push_back(y.head<3>());
    quaternion_.push_back(y.tail<4>());
    max_norm_drift_ = std::max(max_norm_drift_, std::abs(quaternion_.back().norm() - 1.0));
  }

  HeavyTop<double> top_;
  Mat3<double> inverse_inertia_;
  double h_;
  std::vector<Vec3<double>> omega_;
  std::vector<Vec4<double>> quaternion_;
  double max_norm_drift_ = 0.0;
};

}  // namespace quatstep::reference
