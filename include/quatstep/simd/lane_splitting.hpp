// One step of the explicit splittings (NoSquish, SymmetricSplitting: rigid_body_splitting.hpp) for W
// bodies at once, bit for bit RigidBodySplitting::step of each body. The composition, the kicks and
// the exact rotations are the core's, instantiated with Lanes; lane-wise are the branches they take
// on the body's data: the rotations' sin and cos and the sinc of the rotation about L
// (math/choose.hpp, lane_trig.hpp), the loads' flags and windows (shared by the bodies of a block, lane_model.hpp),
// and the finite check and commit of the end point (lane_commit).
#pragma once

#include "quatstep/integrators/rigid_body_splitting.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// The splitting settings of a lane integrator: the scalar ones.
template <class L>
SplittingSettings<L> lane_settings(const SplittingSettings<double>& s) {
  SplittingSettings<L> out;
  out.order = s.order;
  return out;
}

/// RigidBodySplitting::step for the bodies of the lanes; lanes outside `active` are not advanced.
template <class Model, class Flow, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_splitting_step(const RigidBodySplitting<Model, Flow>& integrator, const Model& model,
                                              typename RigidBodySplitting<Model, Flow>::State& s, L t, L h,
                                              typename L::Mask active) {
  typename RigidBodySplitting<Model, Flow>::State next = s;
  integrator.compose_step(model, next, t, h);
  LaneOutcome<L> out;  // explicit: status ok, 0 iterations, until the finite check
  lane_commit<L>(s, next, active, out);
  return out;
}

}  // namespace quatstep::simd
