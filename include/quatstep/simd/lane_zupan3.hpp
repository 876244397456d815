// Zupan3::step (integrators/zupan3.hpp, Zupan's third-order TR-BDF2) for W bodies at once, bit for
// bit the scalar step of each body. The stage systems, their predictors and stage 3 are the core's,
// instantiated with Lanes; lane-wise are the Newton driver (lane_newton.hpp; stage 2 runs in the
// lanes whose stage 1 converged), the inertia's factorisation (Lu of Lanes is LaneLu) and its
// singularity as a per-lane status, the per-body branches of the rotation's exponential, right
// Jacobian and logarithm (math/choose.hpp, lane_trig.hpp), and the finite check and commit.
#pragma once

#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// Zupan3::step for the bodies of the lanes: a lane's iterations are both stages', its status the
/// first failure; lanes outside `active` are not advanced.
template <class Model, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_zupan3_step(const Zupan3<Model>& integrator, const Model& model,
                                           typename Zupan3<Model>::State& s, L t, L h, typename L::Mask active) {
  using Z = Zupan3<Model>;
  const NewtonSettings<L>& newton = integrator.settings.newton;
  typename Z::Stages r;
  const typename Z::Step first = Z::Step::first(model, s, t, h);
  Vec3<L> x = integrator.first_guess(s, h);
  LaneOutcome<L> out = lane_newton(first, x, newton, active);
  r.w_tau = first.omega(x);
  r.a_tau = first.alpha(x);
  const typename L::Mask converged = active && lanes_where(out.status, 0);
  const typename Z::Step second = Z::Step::second(model, s, r.w_tau, r.a_tau, t, h);
  x = integrator.second_guess(s, r, h);
  const LaneOutcome<L> out2 = lane_newton(second, x, newton, converged);
  out.iterations += out2.iterations;  // 0 outside `converged`
  out.status = select(converged, out2.status, out.status);
  r.e = second.orientation(x);
  r.w = second.omega(x);
  const Lu<L, 3> inertia(model.inertia);
  out.status = select(lanes_where(out.status, 0) && inertia.singular,
                      typename L::V(int(Status::singular_jacobian)), out.status);
  lane_commit<L>(s, integrator.end_point(model, inertia, s, r, t, h), active, out);
  return out;
}

}  // namespace quatstep::simd
