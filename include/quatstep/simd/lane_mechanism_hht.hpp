// MechanismHhtFamily::step (mechanism/hht.hpp) for W mechanisms at once, bit for bit the scalar step
// of each: the residual, the structured Newton matrix and its solve (lane_kkt.hpp), the Newmark
// update, the velocity projection and the drift test (MechanismHhtFamily::drifted) are the core's,
// instantiated with Lanes on a mechanism whose counts and joints the W mechanisms share
// (lane_mechanism_model.hpp); lane-wise here is only what the scalar step decides by branching: the
// Newton driver (lane_newton.hpp) and which lanes take the new state (lane_commit).
#pragma once

#include "quatstep/mechanism/hht.hpp"
#include "quatstep/simd/lane_kkt.hpp"
#include "quatstep/simd/lane_hht.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// MechanismHhtFamily::step for the mechanisms of the lanes from the Newton starting value x (lane_hht_step
/// of lane_hht.hpp for a mechanism: the adaptive steps' lane driver, lane_adaptive.hpp, calls either);
/// lanes outside `active` (failed earlier) are not advanced.
template <class Mech, VelocityUpdate U, class L = typename Mech::Scalar>
LaneOutcome<L> lane_hht_step(const mechanism::MechanismHhtFamily<Mech, U>& integrator, const Mech& m,
                             typename mechanism::MechanismHhtFamily<Mech, U>::State& s, L t, L h, typename L::Mask active,
                             typename mechanism::MechanismHhtFamily<Mech, U>::VecK x) {
  using Integrator = mechanism::MechanismHhtFamily<Mech, U>;
  const typename Integrator::Step sys(m, integrator, s, t, h);
  typename Integrator::Kkt kkt;
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

/// The same from the mechanisms' own unknowns (predictor: q̈_{n+1}⁽⁰⁾ = q̈_n, λ⁽⁰⁾ = λ_n).
template <class Mech, VelocityUpdate U, class L = typename Mech::Scalar>
LaneOutcome<L> lane_hht_step(const mechanism::MechanismHhtFamily<Mech, U>& integrator, const Mech& m,
                             typename mechanism::MechanismHhtFamily<Mech, U>::State& s, L t, L h, typename L::Mask active) {
  return lane_hht_step(integrator, m, s, t, h, active, mechanism::MechanismHhtFamily<Mech, U>::unknowns(s));
}

}  // namespace quatstep::simd
