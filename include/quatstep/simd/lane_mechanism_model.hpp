// What the CPU backend needs to step mechanisms in SIMD lanes (host/cpu_mechanism_lanes.hpp), without
// the lane type itself (lane_model.hpp's counterpart for mechanism/mechanism.hpp):
//   for_each_parameter(mechanism, f)  f(x) on every number of the mechanism (its bodies, joint frames,
//                                     drivers, springs, loads, length scale), in one fixed order, for
//                                     the counts and joints it has;
//   copy_structure(from, to)          the rest: the counts, the joints' types, bodies and rows, the
//                                     springs' and loads' bodies, the incidence lists;
//   lane_kind(mechanism)              what the mechanisms of a block must share: that structure, and
//                                     the branches a step takes on the numbers (lane_model.hpp's
//                                     LaneBranches of every body, every load's window and which of
//                                     its constant, ramp and sinusoid are zero, every driver's
//                                     sinusoid).
// The held loads of a step (Mechanism::bodies_at) are sums of the loads acting; a sum that is exactly
// zero at some step in one lane and not in another (two loads cancelling, a sinusoid crossing zero
// exactly at a step time) makes that lane add a zero the scalar step skips: the same bits except for
// the sign of a zero.
#pragma once

#include <vector>

#include "quatstep/mechanism/mechanism.hpp"
#include "quatstep/simd/lane_model.hpp"

namespace quatstep::mechanism {

template <class S, class Cap, class F>
void for_each_parameter(Mechanism<S, Cap>& m, F&& f) {
  for (int b = 0; b < m.n_bodies; ++b) quatstep::for_each_parameter(m.bodies[b], f);
  for (int k = 0; k < m.n_joints; ++k) {
    Joint<S>& j = m.joints[k];
    for (JointFrame<S>& frame : j.frame) {
      for (int c = 0; c < 3; ++c) f(frame.origin[c]);
      for (int c = 0; c < 9; ++c) f(frame.axes(c));
    }
    quatstep::for_each_parameter(j.angle, f);
  }
  for (int k = 0; k < m.n_springs; ++k) {
    SpringDamper<S>& s = m.springs[k];
    for (Vec3<S>& p : s.point)
      for (int c = 0; c < 3; ++c) f(p[c]);
    f(s.stiffness), f(s.damping), f(s.rest_length);
  }
  for (int l = 0; l < m.n_loads; ++l) quatstep::for_each_parameter(m.loads[l].profile, f);
  f(m.length_scale);
}

/// Everything of `from` but its numbers, into `to` (of another scalar type).
template <class From, class To>
void copy_structure(const From& from, To& to) {
  to.n_bodies = from.n_bodies, to.n_joints = from.n_joints, to.n_rows = from.n_rows;
  to.n_springs = from.n_springs, to.n_loads = from.n_loads;
  for (int b = 0; b < From::max_bodies; ++b) {
    to.n_incident[b] = from.n_incident[b];
    for (int k = 0; k < From::max_joints; ++k) to.incident[b][k] = from.incident[b][k];
  }
  for (int k = 0; k < from.n_joints; ++k) {
    to.joints[k].type = from.joints[k].type;
    to.joints[k].body[0] = from.joints[k].body[0], to.joints[k].body[1] = from.joints[k].body[1];
    to.joints[k].driven = from.joints[k].driven;
    to.joints[k].rows = from.joints[k].rows, to.joints[k].offset = from.joints[k].offset;
  }
  for (int k = 0; k < from.n_springs; ++k)
    to.springs[k].body[0] = from.springs[k].body[0], to.springs[k].body[1] = from.springs[k].body[1];
  for (int l = 0; l < from.n_loads; ++l) to.loads[l].body = from.loads[l].body, to.loads[l].kind = from.loads[l].kind;
}

/// The kind of a mechanism (file comment) as numbers: two mechanisms share a block when theirs are equal.
template <class S, class Cap>
std::vector<double> lane_kind(const Mechanism<S, Cap>& m) {
  std::vector<double> kind{double(m.n_bodies), double(m.n_joints), double(m.n_rows), double(m.n_springs),
                           double(m.n_loads)};
  const auto flag = [&](bool b) { kind.push_back(b ? 1.0 : 0.0); };
  for (int b = 0; b < m.n_bodies; ++b) {
    const LaneBranches branches = lane_branches(m.bodies[b]);
    for (bool x : {branches.laneable, branches.gravity, branches.torques, branches.body_torque,
                   branches.spatial_torque, branches.sinusoids[0], branches.sinusoids[1], branches.sinusoids[2]})
      flag(x);
    kind.insert(kind.end(), std::begin(branches.windows), std::end(branches.windows));
    kind.push_back(m.n_incident[b]);
    for (int i = 0; i < m.n_incident[b]; ++i) kind.push_back(m.incident[b][i].joint), kind.push_back(m.incident[b][i].side);
  }
  for (int k = 0; k < m.n_joints; ++k) {
    const Joint<S>& j = m.joints[k];
    for (int x : {int(j.type), j.body[0], j.body[1], int(j.driven), j.rows, j.offset}) kind.push_back(x);
    flag(j.angle.amplitude[0] != S(0));
  }
  for (int k = 0; k < m.n_springs; ++k) kind.push_back(m.springs[k].body[0]), kind.push_back(m.springs[k].body[1]);
  for (int l = 0; l < m.n_loads; ++l) {
    const TimedLoad<S>& load = m.loads[l];
    kind.push_back(load.body), kind.push_back(int(load.kind));
    kind.push_back(double(load.profile.begin)), kind.push_back(double(load.profile.end));
    flag(load.profile.constant.isZero(S(0))), flag(load.profile.ramp.isZero(S(0))), flag(load.profile.amplitude.isZero(S(0)));
  }
  return kind;
}

}  // namespace quatstep::mechanism
