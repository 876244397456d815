// Runs one integrator on a heavy top over [0, steps·h] and measures it against a reference:
//   e_ω = Σ_i ∫₀^T |ω_i(t) − ω_i,ref(t)| dt    (Sherif §10.1, the integrated error of Fig. 2)
// by the trapezoid rule over the integrator's step points, the reference taken at the same times.
// Also records the unit-length drift of q after every accepted step and the Newton iterations.
#pragma once

#include <algorithm>
#include <cmath>

#include "quatstep/status.hpp"
#include "heavy_top_reference.hpp"

namespace quatstep::reference {

struct RunFigures {
  double e_omega = NAN;                    ///< NaN unless every step was accepted
  double max_norm_drift = 0.0;             ///< max over accepted steps of |‖q‖ − 1|
  double mean_newton_iterations = 0.0;     ///< per accepted step
  Status status = Status::ok;              ///< of the first failed step, if any
  double failure_time = NAN;               ///< t_n of the failed step t_n → t_n + h
};

template <class Integrator>
RunFigures measure_run(const Integrator& integrator, const typename Integrator::ModelType& model,
                       const RigidBodyKinematics<double>& initial, const HeavyTopReference& ref, double h,
                       long steps) {
  RunFigures f;
  typename Integrator::State s;
  f.status = integrator.initialize(model, initial, 0.0, s);
  if (f.status != Status::ok) return f;
  auto deviation = [&](long k) {  // Σ_i |ω_i(t_k) − ω_i,ref(t_k)|
    return (integrator.kinematics(model, s).omega_body - ref.omega(ref.index_of(double(k) * h))).template lpNorm<1>();
  };
  double integral = 0.5 * deviation(0);
  long iterations = 0;
  for (long k = 0; k < steps; ++k) {
    const auto outcome = integrator.step(model, s, double(k) * h, h);
    iterations += outcome.iterations;
    if (outcome.status != Status::ok) {
      f.status = outcome.status;
      f.failure_time = double(k) * h;
      return f;
    }
    f.max_norm_drift = std::max(f.max_norm_drift, std::abs(integrator.kinematics(model, s).quaternion.norm() - 1.0));
    integral += (k + 1 == steps ? 0.5 : 1.0) * deviation(k + 1);
  }
  f.e_omega = h * integral;
  f.mean_newton_iterations = double(iterations) / double(steps);
  return f;
}

}  // namespace quatstep::reference
