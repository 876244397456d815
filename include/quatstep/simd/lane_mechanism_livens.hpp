// MechanismLivens::step (mechanism/livens.hpp: EML and MPL on a mechanism) for W mechanisms at once,
// bit for bit the scalar step of each: the per-body discretization, the residual, the structured
// Newton matrix with its columns apart (lane_kkt.hpp) and the end point are the core's, instantiated
// with Lanes on a mechanism whose counts and joints the W mechanisms share
// (lane_mechanism_model.hpp); the core's data-dependent choices — the equivariant joint gradient's
// corrections where the joint's bodies move, the spring's discrete slope — are written as lane
// conditions there. Lane-wise here: the Newton driver (lane_newton.hpp), and the finite check and the
// commit of the accepted lanes (lane_commit).
#pragma once

#include "quatstep/mechanism/livens.hpp"
#include "quatstep/simd/lane_kkt.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::simd {

/// MechanismLivens::step for the mechanisms of the lanes; lanes outside `active` (failed earlier) are
/// not advanced.
template <class Integrator, class L = typename Integrator::Scalar>
LaneOutcome<L> lane_mechanism_livens_step(const Integrator& integrator, const typename Integrator::ModelType& m,
                                          typename Integrator::State& s, L t, L h, typename L::Mask active) {
  const typename Integrator::Step sys(m, integrator, s, t, h);
  typename Integrator::VecK x = sys.predictor();
  typename Integrator::Kkt kkt;
  LaneOutcome<L> out = lane_newton(sys, x, integrator.settings.newton, active, kkt);
  typename Integrator::State next = sys.end_point(x);
  flush_subnormals(next);
  lane_commit<L>(s, next, active, out);
  return out;
}

}  // namespace quatstep::simd
