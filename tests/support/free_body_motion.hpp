// A free rigid body under gravity, a sinusoidal force and a sinusoidal body torque, with the
// closed-form trajectory of its centre of mass:
//   r(t) = r₀ + v₀t + gt²/2 + A/(mω) (t − sin(ωt)/ω)   for F(t) = A sin(ωt).
// Shared by the translation tests of the Lie-group and HHT schemes.
#pragma once

#include <cmath>

#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep::testing {

/// Body i of a small family (the inertia and initial spin vary with i).
inline FreeRigidBody<double> shaken_body(int i) {
  FreeRigidBody<double> b;
  b.inertia = Vec3<double>(1.0 + 0.1 * i, 2.0, 3.0).asDiagonal();
  b.mass = 2.0;
  b.gravity = Vec3<double>(0, 0, -9.81);
  b.force_profile.amplitude = Vec3<double>(3.0, -1.0, 0.5);
  b.force_profile.frequency = 2.0;
  b.loads.body_torque.amplitude = Vec3<double>(0.2, 0.1, -0.3);
  b.loads.body_torque.frequency = 1.5;
  return b;
}
inline RigidBodyKinematics<double> shaken_body_start(int i) {
  RigidBodyKinematics<double> k;
  k.quaternion = quat_from_rotation_vector<double>(Vec3<double>(0.1 * i, 0.2, -0.3));
  k.omega_body = Vec3<double>(1.0, -0.5 * i, 2.0);
  k.position = Vec3<double>(0.5, 0, 1);
  k.velocity = Vec3<double>(1, 2, 0.5 * i);
  return k;
}

/// The exact centre of mass at time t (the force profile's phase, constant and ramp are zero).
inline Vec3<double> exact_position(const FreeRigidBody<double>& b, const RigidBodyKinematics<double>& k0, double t) {
  const double w = b.force_profile.frequency;
  return k0.position + k0.velocity * t + 0.5 * b.gravity * t * t +
         b.force_profile.amplitude / (b.mass * w) * (t - std::sin(w * t) / w);
}

/// |r_numerical − r(T)| at T = 3 after steps of h; without shaking only gravity acts (a quadratic
/// trajectory, which every scheme here reproduces to round-off).
template <class I>
double position_error(const I& integrator, double h, bool with_shaking = true) {
  auto b = shaken_body(1);
  if (!with_shaking) b.force_profile.amplitude.setZero();
  const auto k0 = shaken_body_start(1);
  typename I::State s;
  if (integrator.initialize(b, k0, 0, s) != Status::ok) return NAN;
  const double T = 3;
  const long n = std::lround(T / h);
  for (long k = 0; k < n; ++k)
    if (integrator.step(b, s, k * h, h).status != Status::ok) return NAN;
  return (integrator.kinematics(b, s).position - exact_position(b, k0, T)).norm();
}

/// The observed order from h = 0.005 to 0.0025.
template <class I>
double translation_order(const I& integrator) {
  return std::log2(position_error(integrator, 0.005) / position_error(integrator, 0.0025));
}

}  // namespace quatstep::testing
