// MechanismHhtFamily::step (mechanism/hht.hpp) for W mechanisms at once, bit for bit the scalar step
// of each: the residual, the structured Newton matrix and its solve (lane_kkt.hpp), the Newmark
// update, the velocity projection and the drift test (MechanismHhtFamily::drifted) are the core's,
// instantiated with Lanes on a mechanism whose counts and joints the W mechanisms share
// (lane_mechanism_model.hpp); lane-wise here is only what the scalar step decides by branching: the
// Newton driver (lane_newton.hpp) and which lanes take the new state (lane_commit).
#pragma once

#include "quatstep/mechanism/hht.hpp"
#include "quatstep/simd/lane_kkt.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// MechanismHhtFamily::step for the mechanisms of the lanes from their own unknowns; lanes outside
/// `active` (failed earlier) are not advanced.
template <class Integrator, class L = typename Integrator::Scalar>
LaneOutcome<L> lane_mechanism_hht_step(const Integrator& integrator, const typename Integrator::ModelType& m,
                                       typename Integrator::State& s, L t, L h, typename L::Mask active) {
  const typename Integrator::Step sys(m, integrator, s, t, h);
  typename Integrator::Kkt kkt;
  typename Integrator::VecK x = Integrator::unknowns(s);
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active, kkt);
  typename Integrator::State next;
  next.a = Integrator::accelerations(x);
  next.lambda = Integrator::multipliers(x);
  sys.kinematics(next.a, next.q, next.v);
  if (integrator.settings.project_velocities) Integrator::project_velocities(m, kkt, next, t + h);
  const auto drift = integrator.drifted(m, next, t + h, h);
  flush_subnormals(next);
  lane_commit<L>(s, next, active, out, drift.holds, Status::constraint_drift);
  return out;
}

}  // namespace quatstep::simd
