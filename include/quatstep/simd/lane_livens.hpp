// One step of the reduced Livens schemes on rigid bodies (REML, LivensEm: Kinon & Betsch eq. 103 with
// λ eliminated; LivensMidpoint, App. B eq. 132, likewise) for W bodies at once, bit for bit
// LivensIntegrator::step of each body. The discretization, the Newton system
// (livens::EliminatedSystem) and the end point are the core's, instantiated with Lanes; lane-wise
// here are what the core writes with data-dependent branches:
//   RigidBodyForces' "is there gravity, are there torques", decided per body by the CPU backend,
//   which puts only bodies that agree into one block (simd/lane_model.hpp): the step takes them;
//   the Newton driver (lane_newton.hpp); project_normal_components as a blend; the finite check and
//   the commit of the accepted lanes (lane_commit).
#pragma once

#include <limits>

#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// The Livens settings of a lane integrator: the scalar ones in every lane.
template <class L>
LivensSettings<L> lane_settings(const LivensSettings<double>& s) {
  LivensSettings<L> out;
  out.project_normal_components = s.project_normal_components;
  out.newton = lane_settings<L>(s.newton);
  return out;
}

/// LivensIntegrator<Model, Rule, reduced>::step on a rigid-body Model for the bodies of the lanes,
/// whose loads all have (gravity) or all lack gravity, and all have (torques) or all lack prescribed
/// torques; lanes outside `active` are not advanced.
template <class Model, LivensRule Rule, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_livens_step(const LivensIntegrator<Model, Rule>& integrator, const Model& model,
                                           typename LivensIntegrator<Model, Rule>::State& s, L t, L h,
                                           typename L::Mask active, bool gravity, bool torques) {
  using Integrator = LivensIntegrator<Model, Rule>;
  const livens::RigidBodyForces<L> forces(model.loads, t + L(0.5) * h, gravity, torques);
  const typename Integrator::Discretization d(model, s.q, s.v, s.p, h, forces);
  const livens::EliminatedSystem<typename Integrator::Discretization> sys(d);
  Vec4<L> x = sys.predictor(d.predictor(), s.lambda);
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active);
  const livens::EndPoint<L, 4, 1> e = sys.end_point(x);
  typename Integrator::State next = s;
  next.q = e.q, next.v = e.v, next.p = e.p, next.lambda = e.lambda;
  if (integrator.settings.project_normal_components) {  // Problem::project_normal_components, per lane
    const L qq = next.q.squaredNorm(), nu = next.q.dot(next.v) / qq, a = next.q.dot(next.p) / qq;
    const typename L::Mask project =
        (abs(a * nu) * qq).v <= (L(std::numeric_limits<double>::epsilon()) * abs(next.p.dot(next.v))).v;
    for (int i = 0; i < 4; ++i) {
      next.v[i] = select(project, next.v[i] - nu * next.q[i], next.v[i]);
      next.p[i] = select(project, next.p[i] - a * next.q[i], next.p[i]);
    }
  }
  if constexpr (model_translates<Model>()) midpoint_translation(model, next.r, next.vr, t, h);
  lane_commit<L>(s, next, active, out);
  return out;
}

}  // namespace quatstep::simd
