// One step of the explicit splittings (NoSquish, SymmetricSplitting, ExactFreeSplitting:
// rigid_body_splitting.hpp) for W bodies at once, bit for bit RigidBodySplitting::step of each body.
// The composition, the kicks and the free flows are the core's, instantiated with Lanes; lane-wise
// are the branches they take on the body's data: the rotations' sin and cos, the sinc of the rotation
// about L, and in the exact free flow the symmetric or asymmetric body, the relabelled axes, the short
// or long step and the elliptic functions' loops (math/choose.hpp, lane_trig.hpp); the loads' flags
// and windows (shared by the bodies of a block, lane_model.hpp); and the finite check and commit of
// the end point (lane_commit).
#pragma once

#include "quatstep/integrators/rigid_body_splitting.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// RigidBodySplitting::step for the bodies of the lanes; lanes outside `active` are not advanced.
template <class Model, class Flow, template <class> class Settings, class L = typename Model::Scalar>
LaneOutcome<L> lane_splitting_step(const RigidBodySplitting<Model, Flow, Settings>& integrator, const Model& model,
                                   typename RigidBodySplitting<Model, Flow, Settings>::State& s, L t, L h,
                                   typename L::Mask active) {
  typename RigidBodySplitting<Model, Flow, Settings>::State next = s;
  integrator.compose_step(model, next, t, h);
  LaneOutcome<L> out;  // explicit: status ok, 0 iterations, until the finite check
  lane_commit<L>(s, next, active, out);
  return out;
}

/// lane_splitting_step with everything it calls inlined: for the flows of a few rotations
/// (NoSquish, SymmetricSplitting), whose composed stages then share registers across the step. Not
/// for the exact free flow: its elliptic functions inlined into every stage of every composition
/// kept g++ 12 on this unit for over half an hour (and 6 GB).
template <class Model, class Flow, template <class> class Settings, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_flattened_splitting_step(const RigidBodySplitting<Model, Flow, Settings>& integrator,
                                                        const Model& model,
                                                        typename RigidBodySplitting<Model, Flow, Settings>::State& s,
                                                        L t, L h, typename L::Mask active) {
  return lane_splitting_step(integrator, model, s, t, h, active);
}

}  // namespace quatstep::simd
