// The steps of Krysl's Lie-group schemes, MidpointLie (LIEMID[I]) and ExplicitNewmarkLie (Ξ = Φ* ∘ Φ),
// for W bodies at once, bit for bit the scalar step of each body. The incremental-rotation systems
// (incremental_rotation.hpp) and the end points are the core's, instantiated with Lanes; lane-wise
// are the Newton driver
// (lane_newton.hpp), the predictor's solve with the inertia (Lu of Lanes is LaneLu, lane_lu.hpp), the
// series-or-closed-form branches of the rotation's exponential and right Jacobian (math/choose.hpp,
// lane_trig.hpp), and the finite check and commit (lane_commit).
#pragma once

#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// MidpointLie::step for the bodies of the lanes; lanes outside `active` are not advanced.
template <class Model, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_midpoint_lie_step(const MidpointLie<Model>& integrator, const Model& model,
                                                 typename MidpointLie<Model>::State& s, L t, L h,
                                                 typename L::Mask active) {
  const typename MidpointLie<Model>::Step sys(model, s.e, s.Pi, h, true, t);
  Vec3<L> psi = sys.psi_pred;
  LaneOutcome<L> out = lane_newton(sys, psi, integrator.settings.newton, active);
  lane_commit<L>(s, integrator.end_point(model, s, sys, psi, h), active, out);
  return out;
}

/// ExplicitNewmarkLie::step for the bodies of the lanes: Φ_{h/2}, then Φ*_{h/2} in the lanes where Φ
/// converged (a lane's iterations are both solves'; its status the first failure); lanes outside
/// `active` are not advanced.
template <class Model, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_explicit_newmark_lie_step(const ExplicitNewmarkLie<Model>& integrator,
                                                         const Model& model,
                                                         typename ExplicitNewmarkLie<Model>::State& s, L t, L h,
                                                         typename L::Mask active) {
  const NewtonSettings<L>& newton = integrator.settings.newton;
  const L hh = L(0.5) * h;
  typename ExplicitNewmarkLie<Model>::State next = s;
  const IncrementalRotation<Model> phi = lie_phi_system(model, next.e, next.Pi, next.torque, t, hh);
  Vec3<L> psi = phi.psi_pred;
  LaneOutcome<L> out = lane_newton(phi, psi, newton, active);
  lie_phi_end(phi, psi, next.e, next.Pi);  // kept only where the step is accepted (lane_commit)
  const typename L::Mask converged = active && lanes_where(out.status, 0);
  const IncrementalRotation<Model> adjoint(model, next.e, next.Pi, hh, false, t + hh);
  psi = adjoint.psi_pred;
  const LaneOutcome<L> second = lane_newton(adjoint, psi, newton, converged);
  lie_phi_adjoint_end(model, adjoint, psi, next.e, next.Pi, next.torque, t + hh, hh);
  out.iterations += second.iterations;  // 0 outside `converged`
  out.status = select(converged, second.status, out.status);
  integrator.translate(model, s, next, t, h);
  lane_commit<L>(s, next, active, out);
  return out;
}

}  // namespace quatstep::simd
