// HhtFamily::step (integrators/hht.hpp) for W bodies at once, bit for bit the scalar step of each
// body. The residual and Jacobian (HhtFamily::Step), the predictors and the Newmark update are the
// core's, instantiated with Lanes; lane-wise here are what the core writes with data-dependent
// branches: the Newton driver (lane_newton.hpp) and HhtFamily::check (a finite state, then the
// core's velocity-constraint drift test, HhtFamily::drifted, as a lane mask).
#pragma once

#include "quatstep/integrators/hht.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// HhtFamily::step for the bodies of the lanes, from the Newton starting value x; lanes outside
/// `active` (failed earlier) are not advanced.
template <class Model, VelocityUpdate U, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_hht_step(const HhtFamily<Model, U>& integrator, const Model& model,
                                        typename HhtFamily<Model, U>::State& s, L t, L h, typename L::Mask active,
                                        Vec<L, HhtFamily<Model, U>::K> x) {
  using Integrator = HhtFamily<Model, U>;
  const typename Integrator::Step sys(model, integrator, s, t, h);
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active);
  typename Integrator::State next;
  next.a = sys.accelerations(x);
  next.lambda = x.template tail<Integrator::m>();
  sys.kinematics(next.a, next.q, next.v);
  const auto drift = integrator.drifted(next, h);
  lane_commit<L>(s, next, active, out, drift.holds, Status::constraint_drift);
  return out;
}

/// The same from the start's own unknowns (predictor: q̈_{n+1}⁽⁰⁾ = q̈_n, λ⁽⁰⁾ = λ_n).
template <class Model, VelocityUpdate U, class L = typename Model::Scalar>
LaneOutcome<L> lane_hht_step(const HhtFamily<Model, U>& integrator, const Model& model,
                             typename HhtFamily<Model, U>::State& s, L t, L h, typename L::Mask active) {
  return lane_hht_step(integrator, model, s, t, h, active, HhtFamily<Model, U>::unknowns(s));
}

}  // namespace quatstep::simd
