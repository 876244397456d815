// Bodies shared by the adaptive-step tests, besides the heavy top of reference/sherif_heavy_top.hpp:
//   - a torque-free asymmetric body, J = diag(6, 8, 3), Ω(0) = (10, 20, 20);
//   - a spin-up of the same body from a slow tumble, Ω(0) = (0.5, 0.2, 1), under a constant body
//     torque plus a sharp sinusoidal one, τ = (1, 0.5, 6) + (0, 0, 20) sin(20 t) (|Ω(3)| = 7.7 rad/s);
//   - the same tumble spun up by a torque pulse, τ = A sin²(π(t − 1)/0.1) for 1 ≤ t < 1.1 and 0
//     otherwise, A = (20, 0, 300) N m: an impulse A·0.05, Ω₃ from ≈1 to ≈6 rad/s within 0.1 s (the
//     smooth pulse of models/torque_profile.hpp, continuous with its slope at both ends).
#pragma once

#include <cmath>

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
/// The pulse of width w from `begin` with peak A as a TimeProfile: A/2 − (A/2) cos(2π(t − begin)/w) in its window.
inline TimeProfile<double> smooth_pulse(const Vec3<double>& peak, double begin, double width) {
  TimeProfile<double> f;
  f.constant = peak / 2;
  f.amplitude = -peak / 2;
  f.frequency = 2 * M_PI / width;
  f.phase = M_PI / 2 - 2 * M_PI * begin / width;
  f.begin = begin;
  f.end = begin + width;
  return f;
}
inline HeavyTop<double> torque_pulse_body() {
  HeavyTop<double> body = torque_free_body();
  body.loads.body_torque = smooth_pulse({20, 0, 300}, 1.0, 0.1);
  return body;
}

inline RigidBodyKinematics<double> spin_up_start() {
  RigidBodyKinematics<double> k;
  k.omega_body = {0.5, 0.2, 1};
  return k;
}

}  // namespace quatstep::testing
