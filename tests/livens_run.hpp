// Runs one body with a conserving integrator and records what the Livens tests assert: increments
// and drift of the (generalized) energy, drift of the spatial angular momentum, the unity constraint.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/status.hpp"

namespace quatstep::livens_testing {

template <class Integrator>
struct Run {
  using State = typename Integrator::State;
  State state;
  Status status = Status::ok;
  long failed_step = -1;
  long iterations = 0;
  double energy0 = 0, max_energy_increment = 0, max_energy_drift = 0;
  Vec3<double> momentum0 = Vec3<double>::Zero(), max_momentum_drift = Vec3<double>::Zero();
  double max_unity = 0;               ///< max |q·q − 1|
  double max_normal_velocity = 0;     ///< max |q·v| (Livens state only)
  std::vector<Vec4<double>> quaternions;  ///< q after each step

  Run(const Integrator& in, const typename Integrator::ModelType& model, const RigidBodyKinematics<double>& k0,
      double h, long steps) {
    in.initialize(model, k0, 0.0, state);
    energy0 = in.generalized_energy(model, state);
    momentum0 = in.angular_momentum(model, state);
    double previous = energy0;
    for (long i = 0; i < steps; ++i) {
      const auto out = in.step(model, state, i * h, h);
      iterations += out.iterations;
      if (out.status != Status::ok) {
        status = out.status;
        failed_step = i;
        return;
      }
      const double e = in.generalized_energy(model, state);
      max_energy_increment = std::max(max_energy_increment, std::abs(e - previous));
      max_energy_drift = std::max(max_energy_drift, std::abs(e - energy0));
      previous = e;
      max_momentum_drift = max_momentum_drift.cwiseMax((in.angular_momentum(model, state) - momentum0).cwiseAbs());
      const Vec4<double> q = in.kinematics(model, state).quaternion;
      max_unity = std::max(max_unity, std::abs(q.squaredNorm() - 1));
      if constexpr (requires_velocity<State>(0)) max_normal_velocity = std::max(max_normal_velocity, std::abs(q.dot(state.v)));
      quaternions.push_back(q);
    }
  }
  double relative_energy_increment() const { return max_energy_increment / std::abs(energy0); }
  double relative_energy_drift() const { return max_energy_drift / std::abs(energy0); }
  double relative_momentum_drift() const { return max_momentum_drift.maxCoeff() / momentum0.norm(); }
  double iterations_per_step() const { return double(iterations) / double(quaternions.size()); }

 private:
  template <class T>
  static constexpr bool requires_velocity(decltype(&T::v)) { return true; }
  template <class T>
  static constexpr bool requires_velocity(...) { return false; }
};

/// Largest |q_a − q_b|∞ along two runs of the same length.
template <class A, class B>
double max_difference(const Run<A>& a, const Run<B>& b) {
  double d = 0;
  for (size_t i = 0; i < std::min(a.quaternions.size(), b.quaternions.size()); ++i)
    d = std::max(d, (a.quaternions[i] - b.quaternions[i]).template lpNorm<Eigen::Infinity>());
  return d;
}

}  // namespace quatstep::livens_testing
