// What the CPU backend needs to step a model's bodies in SIMD lanes (host/cpu_lanes.hpp), without the
// lane type itself (this header is read by every unit, the lanes only by the AVX2 one):
//   for_each_parameter(model, f)  f(x) on every scalar of the model, in one fixed order: a block's
//                                 parameters travel as plain doubles, [parameter][lane], and are
//                                 read back into the lane model in the same order;
//   lane_branches(model)          the branches the step takes on the body's data, which every body
//                                 of a block must share (Lanes' comparisons, simd/lanes.hpp): which
//                                 loads act, and the torque windows. A sinusoidal torque keeps its
//                                 body out of the lanes (math::sin branches on its argument).
#pragma once

#include <cstring>

#include "quatstep/integrators/rigid_body_forces.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep {

template <class S, class F>
void for_each_parameter(TimeProfile<S>& p, F&& f) {
  for (int c = 0; c < 3; ++c) f(p.constant[c]), f(p.ramp[c]), f(p.amplitude[c]);
  f(p.frequency), f(p.phase), f(p.begin), f(p.end);
}

template <class S, class F>
void for_each_parameter(HeavyTop<S>& m, F&& f) {
  for (int k = 0; k < 9; ++k) f(m.inertia(k));
  for (int c = 0; c < 3; ++c) f(m.loads.gravity[c]), f(m.loads.lever[c]);
  f(m.loads.mass);
  for_each_parameter(m.loads.body_torque, f);
  for_each_parameter(m.loads.spatial_torque, f);
}

/// Scalars per HeavyTop, all of them parameters (a field added to the model must be added above).
inline constexpr int heavy_top_parameters = 9 + 7 + 2 * 13;
static_assert(sizeof(HeavyTop<double>) == heavy_top_parameters * sizeof(double), "for_each_parameter misses a field");

/// The data-dependent branches of a heavy top's HHT and REML steps.
struct LaneBranches {
  bool laneable = false;  ///< no sinusoidal torque
  bool gravity = false, torques = false;  ///< RigidBodyForces' flags (REML)
  bool body_torque = false, spatial_torque = false;  ///< RigidBodyLoads: the profiles that are not zero
  double windows[4] = {};  ///< begin and end of both profiles

  friend bool operator==(const LaneBranches& a, const LaneBranches& b) {
    return a.laneable == b.laneable && a.gravity == b.gravity && a.torques == b.torques &&
           a.body_torque == b.body_torque && a.spatial_torque == b.spatial_torque &&
           std::memcmp(a.windows, b.windows, sizeof a.windows) == 0;
  }
};

inline LaneBranches lane_branches(const HeavyTop<double>& m) {
  const RigidBodyLoads<double>& l = m.loads;
  LaneBranches b;
  b.laneable = l.body_torque.amplitude.isZero(0.0) && l.spatial_torque.amplitude.isZero(0.0);
  b.gravity = livens::RigidBodyForces<double>::gravity_acts(l);
  b.torques = livens::RigidBodyForces<double>::torques_act(l);
  b.body_torque = !l.body_torque.is_zero();
  b.spatial_torque = !l.spatial_torque.is_zero();
  const double windows[4] = {l.body_torque.begin, l.body_torque.end, l.spatial_torque.begin, l.spatial_torque.end};
  std::memcpy(b.windows, windows, sizeof windows);
  return b;
}

}  // namespace quatstep
