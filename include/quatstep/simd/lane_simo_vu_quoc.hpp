// SimoVuQuoc::step (integrators/simo_vu_quoc.hpp) for W bodies at once, bit for bit the scalar step
// of each body. The system (SimoVuQuoc::Step: residual, Jacobian, correction norm) and the end point
// are the core's, instantiated with Lanes; lane-wise are the Newton driver (lane_newton.hpp), the
// series-or-closed-form branches of the rotation's exponential and right Jacobian (math/choose.hpp,
// lane_trig.hpp), and the finite check and commit (lane_commit).
#pragma once

#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// SimoVuQuoc::step for the bodies of the lanes; lanes outside `active` are not advanced.
template <class Model, class L = typename Model::Scalar>
QS_FLATTEN LaneOutcome<L> lane_simo_vu_quoc_step(const SimoVuQuoc<Model>& integrator, const Model& model,
                                                 typename SimoVuQuoc<Model>::State& s, L t, L h,
                                                 typename L::Mask active) {
  const typename SimoVuQuoc<Model>::Step sys(model, integrator, s, t, h);
  Vec3<L> x = s.wd;  // predictor ω̇_{n+1}⁽⁰⁾ = ω̇_n
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active);
  lane_commit<L>(s, integrator.end_point(model, s, sys, x, t, h), active, out);
  return out;
}

}  // namespace quatstep::simd
