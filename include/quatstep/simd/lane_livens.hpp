// One step of the Livens schemes on rigid bodies (LivensEm: REML, Kinon & Betsch eq. 103 with λ
// eliminated, the full form eqs. 72a–d, the null-space form of Remark 4.11; LivensMidpoint, App. B
// eq. 132, likewise) for W bodies at once, bit for bit LivensIntegrator::step of each body. The
// discretization, the Newton system (LivensIntegrator::StepSystem) and the end state are the core's,
// instantiated with Lanes; lane-wise here are what the core decides per body in its step:
//   RigidBodyForces' "is there gravity, are there torques", decided per body by the CPU backend,
//   which puts only bodies that agree into one block (simd/lane_model.hpp): the step takes them;
//   the Newton driver (lane_newton.hpp); the finite check and the commit of the accepted lanes
//   (lane_commit). The series of the null-space form's exponential and Jacobian, and the projection
//   of the normal components, take each lane's own side through math::choose.
#pragma once

#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// LivensIntegrator<Model, Rule, Variant>::step on a rigid-body Model for the bodies of the lanes,
/// whose loads all have (gravity) or all lack gravity, and all have (torques) or all lack prescribed
/// torques; lanes outside `active` are not advanced.
template <class Model, LivensRule Rule, LivensVariant Variant, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_livens_step(const LivensIntegrator<Model, Rule, Variant>& integrator, const Model& model,
                                           typename LivensIntegrator<Model, Rule, Variant>::State& s, L t, L h,
                                           typename L::Mask active, bool gravity, bool torques) {
  using Integrator = LivensIntegrator<Model, Rule, Variant>;
  const livens::RigidBodyForces<L> forces(model.loads, t + L(0.5) * h, gravity, torques);
  const typename Integrator::Discretization d(model, s.q, s.v, s.p, h, forces);
  const typename Integrator::StepSystem sys(d);
  auto x = sys.predictor(d.predictor(), s.lambda);
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active);
  lane_commit<L>(s, integrator.end_state(model, s, sys.end_point(x), t, h), active, out);
  return out;
}

}  // namespace quatstep::simd
