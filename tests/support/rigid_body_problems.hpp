// The rigid-body problems of the splitting integrators' tests and work–precision benchmark
// (bench/symplectic_work_precision.cpp), each a HeavyTop with its initial state:
//   Sherif's fast top (§10.1, docs/errata.md S1, S2: a disc spinning at 150 rad/s about its symmetry axis,
//     the centre of mass on that axis: a Lagrange top) — tests/reference/sherif_heavy_top.hpp;
//   the same disc with its centre of mass moved off the symmetry axis, x_cm = (0.1, 1, 0.05): the
//     inertia about the fixed point is no longer diagonal (off-diagonal −m x_i x_j) nor symmetric;
//   Kinon & Betsch §5.3's torque-free asymmetric body, J = diag(6, 8, 3), Ω(0) = (10, 20, 20);
//   the same body under the constant body torque τ = (5, −3, 8).
#pragma once

#include "quatstep/models/heavy_top.hpp"
#include "../reference/sherif_heavy_top.hpp"

namespace quatstep::testing {

struct RigidBodyProblem {
  const char* name;
  HeavyTop<double> model;
  RigidBodyKinematics<double> initial;
};

inline RigidBodyProblem sherif_top() {
  return {"Sherif's top", reference::sherif_heavy_top(), reference::sherif_heavy_top_initial()};
}

inline RigidBodyProblem off_axis_top() {
  RigidBodyProblem p = sherif_top();
  p.name = "off-axis top";
  p.model = HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0, {0.1, 1, 0.05}, {0, 0, -9.81});
  return p;
}

inline RigidBodyProblem free_asymmetric_body() {
  RigidBodyProblem p{"torque-free asymmetric body", HeavyTop<double>(), RigidBodyKinematics<double>()};
  p.model.inertia = Vec3<double>(6, 8, 3).asDiagonal();
  p.initial.omega_body = Vec3<double>(10, 20, 20);
  return p;
}

inline RigidBodyProblem torqued_asymmetric_body() {
  RigidBodyProblem p = free_asymmetric_body();
  p.name = "asymmetric body, constant body torque";
  p.model.loads.body_torque.constant = Vec3<double>(5, -3, 8);
  return p;
}

}  // namespace quatstep::testing
