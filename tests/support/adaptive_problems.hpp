// Bodies shared by the adaptive-step tests, besides the heavy top of reference/sherif_heavy_top.hpp:
//   - a torque-free asymmetric body, J = diag(6, 8, 3), Ω(0) = (10, 20, 20);
//   - a spin-up of the same body from a slow tumble, Ω(0) = (0.5, 0.2, 1), under a constant body
//     torque plus a sharp sinusoidal one, τ = (1, 0.5, 6) + (0, 0, 20) sin(20 t) (|Ω(3)| = 7.7 rad/s).
#pragma once

#include "quatstep/models/heavy_top.hpp"

namespace quatstep::testing {

inline HeavyTop<double> torque_free_body() {
  HeavyTop<double> body;  // no lever, no gravity
  body.inertia = Vec3<double>(6, 8, 3).asDiagonal();
  return body;
}
inline RigidBodyKinematics<double> torque_free_start() {
  RigidBodyKinematics<double> k;
  k.omega_body = {10, 20, 20};
  return k;
}

inline HeavyTop<double> spin_up_body() {
  HeavyTop<double> body = torque_free_body();
  body.loads.body_torque.constant = {1, 0.5, 6};
  body.loads.body_torque.amplitude = {0, 0, 20};
  body.loads.body_torque.frequency = 20;
  return body;
}
inline RigidBodyKinematics<double> spin_up_start() {
  RigidBodyKinematics<double> k;
  k.omega_body = {0.5, 0.2, 1};
  return k;
}

}  // namespace quatstep::testing
