// What the CPU backend needs to step a model's bodies in SIMD lanes (host/cpu_lanes.hpp), without the
// lane type itself (this header is read by every unit, the lanes only by the lane units):
//   for_each_parameter(model, f)  f(x) on every scalar of the model, in one fixed order: a block's
//                                 parameters travel as plain numbers, [parameter][lane], and are
//                                 read back into the lane model in the same order;
//   lane_branches(model)          the branches a step takes on the body's data, which every body of a
//                                 block must share (Lanes' comparisons, simd/lanes.hpp): which loads
//                                 act, which profiles have a sinusoid, and the load windows.
#pragma once

#include <cmath>
#include <cstring>

#include "quatstep/integrators/rigid_body_forces.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep {

template <class S, class F>
void for_each_parameter(TimeProfile<S>& p, F&& f) {
  for (int c = 0; c < 3; ++c) f(p.constant[c]), f(p.ramp[c]), f(p.amplitude[c]);
  f(p.frequency), f(p.phase), f(p.begin), f(p.end);
}
template <class S, class F>
void for_each_parameter(RigidBodyLoads<S>& l, F&& f) {
  for (int c = 0; c < 3; ++c) f(l.gravity[c]), f(l.lever[c]);
  f(l.mass);
  for_each_parameter(l.body_torque, f);
  for_each_parameter(l.spatial_torque, f);
}
template <class S, class F>
void for_each_parameter(HeavyTop<S>& m, F&& f) {
  for (int k = 0; k < 9; ++k) f(m.inertia(k));
  for_each_parameter(m.loads, f);
}
template <class S, class F>
void for_each_parameter(FreeRigidBody<S>& m, F&& f) {
  for (int k = 0; k < 9; ++k) f(m.inertia(k));
  f(m.mass);
  for (int c = 0; c < 3; ++c) f(m.gravity[c]);
  for_each_parameter(m.force_profile, f);
  for_each_parameter(m.loads, f);
}

/// Scalars per model, all of them parameters (a field added to a model must be added above).
template <class Model>
inline constexpr int lane_parameters = sizeof(Model) / sizeof(typename Model::Scalar);
static_assert(lane_parameters<HeavyTop<double>> == 9 + 7 + 2 * 13, "for_each_parameter misses a field");
static_assert(lane_parameters<FreeRigidBody<double>> == 9 + 1 + 3 + 13 + 7 + 2 * 13, "for_each_parameter misses a field");
static_assert(lane_parameters<HeavyTop<float>> == lane_parameters<HeavyTop<double>>, "a float model has padding");
static_assert(lane_parameters<FreeRigidBody<float>> == lane_parameters<FreeRigidBody<double>>, "a float model has padding");

/// The data-dependent branches of a rigid body's steps that its loads decide.
struct LaneBranches {
  bool laneable = false;                             ///< the bodies of the block share the rest
  bool gravity = false, torques = false;             ///< RigidBodyForces' flags (REML)
  bool body_torque = false, spatial_torque = false;  ///< RigidBodyLoads: the profiles that are not zero
  bool sinusoids[3] = {};                            ///< TimeProfile: the profiles with an amplitude
  double windows[6] = {};                            ///< begin and end of every profile (a float's exactly)

  /// Whether no profile has a window (each acts at all times): then no step branches on time, and
  /// bodies with their own times (adaptive steps) can share a block.
  bool windowless() const {
    for (int k = 0; k < 6; k += 2)
      if (!(windows[k] == -INFINITY && windows[k + 1] == INFINITY)) return false;
    return true;
  }

  friend bool operator==(const LaneBranches& a, const LaneBranches& b) {
    return a.laneable == b.laneable && a.gravity == b.gravity && a.torques == b.torques &&
           a.body_torque == b.body_torque && a.spatial_torque == b.spatial_torque &&
           std::memcmp(a.sinusoids, b.sinusoids, sizeof a.sinusoids) == 0 &&
           std::memcmp(a.windows, b.windows, sizeof a.windows) == 0;
  }
};

namespace detail {
template <class S>
LaneBranches load_branches(const RigidBodyLoads<S>& l, const TimeProfile<S>& force) {
  LaneBranches b;
  b.laneable = true;
  const TimeProfile<S>* profiles[3] = {&l.body_torque, &l.spatial_torque, &force};
  for (int k = 0; k < 3; ++k) b.sinusoids[k] = !profiles[k]->amplitude.isZero(S(0));
  b.gravity = livens::RigidBodyForces<S>::gravity_acts(l);
  b.torques = livens::RigidBodyForces<S>::torques_act(l);
  b.body_torque = !l.body_torque.is_zero();
  b.spatial_torque = !l.spatial_torque.is_zero();
  const double windows[6] = {l.body_torque.begin, l.body_torque.end, l.spatial_torque.begin,
                             l.spatial_torque.end, force.begin, force.end};
  std::memcpy(b.windows, windows, sizeof windows);
  return b;
}
}  // namespace detail

template <class S>
LaneBranches lane_branches(const HeavyTop<S>& m) {
  return detail::load_branches(m.loads, TimeProfile<S>{});
}
template <class S>
LaneBranches lane_branches(const FreeRigidBody<S>& m) {
  return detail::load_branches(m.loads, m.force_profile);
}

}  // namespace quatstep
