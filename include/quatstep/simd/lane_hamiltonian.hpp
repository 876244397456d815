// One step of the Hamiltonian comparison schemes (HamiltonianEm, HamiltonianMidpoint:
// integrators/hamiltonian_quaternion.hpp) for W bodies at once, bit for bit the scalar step of each
// body. The Newton system, its predictor and the end point are the core's, instantiated with Lanes;
// lane-wise are RigidBodyForces' "is there gravity, are there torques" (decided per body by the CPU
// backend, which puts only bodies that agree into one block, simd/lane_model.hpp), the Newton driver
// (lane_newton.hpp), and the finite check and commit (lane_commit).
#pragma once

#include "quatstep/integrators/hamiltonian_quaternion.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// HamiltonianQuaternion<Model, Rule>::step for the bodies of the lanes, whose loads all have (gravity)
/// or all lack gravity, and all have (torques) or all lack prescribed torques; lanes outside
/// `active` are not advanced.
template <class Model, LivensRule Rule, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_hamiltonian_step(const HamiltonianQuaternion<Model, Rule>& integrator, const Model& model,
                                                typename HamiltonianQuaternion<Model, Rule>::State& s, L t, L h,
                                                typename L::Mask active, bool gravity, bool torques) {
  const livens::RigidBodyForces<L> forces(model.loads, t + L(0.5) * h, gravity, torques);
  const typename HamiltonianQuaternion<Model, Rule>::Step sys(model, s.q, s.p, h, forces);
  Vec<L, 9> x = integrator.predictor(model, s, h);
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active);
  lane_commit<L>(s, integrator.end_point(model, s, x, t, h), active, out);
  return out;
}

}  // namespace quatstep::simd
