// The rigid-body examples of Kinon & Betsch 2024 §5.3–5.4, shared by the Livens tests and benchmark.
#pragma once

#include <cmath>

#include "quatstep/models/heavy_top.hpp"

namespace quatstep::scenarios {

/// §5.3: J₀ = diag(6, 8, 3), q⁰ = (1, 0, 0, 0), Ω⁰ = (10, 20, 20), about the centre of mass.
struct FreeRotation {
  HeavyTop<double> model() const {
    HeavyTop<double> b;
    b.inertia = Vec3<double>(6, 8, 3).asDiagonal();
    return b;
  }
  RigidBodyKinematics<double> initial() const {
    RigidBodyKinematics<double> k;
    k.omega_body = {10, 20, 20};
    return k;
  }
};

/// §5.4, Table 4: a cone (height a, radius a/2) about its apex in steady precession.
/// The parallel-axis term m l² goes on the transverse axes (docs/errata.md K1).
struct HeavyTopPrecession {
  double rho = 2700, a = 0.1, g = 9.81, nutation = M_PI / 3, precession = 10;
  double radius = a / 2, l = 0.75 * a, mass = rho * M_PI * radius * radius * a / 3;

  /// Kinon eq. (113): principal inertia about the centre of mass.
  Vec3<double> inertia_cm() const {
    const double j1 = 3.0 / 80.0 * mass * (4 * radius * radius + a * a), j3 = 0.3 * mass * radius * radius;
    return {j1, j1, j3};
  }
  HeavyTop<double> model() const {
    return HeavyTop<double>::from_center_of_mass(inertia_cm(), mass, {0, 0, l}, {0, 0, -g});
  }
  /// Eqs. (117)–(119): q⁰ tilted by the nutation angle about e₁, ω = ω_p e₃ + ω_s d₃.
  RigidBodyKinematics<double> initial() const {
    const HeavyTop<double> top = model();
    const double j1 = top.inertia(0, 0), j3 = top.inertia(2, 2);
    const double spin = mass * g * l / (j3 * precession) + (j1 - j3) / j3 * precession * std::cos(nutation);
    RigidBodyKinematics<double> k;
    k.quaternion = {std::cos(nutation / 2), std::sin(nutation / 2), 0, 0};
    const Mat3<double> r = rotation_matrix(k.quaternion);
    k.omega_body = r.transpose() * (precession * Vec3<double>(0, 0, 1) + spin * r.col(2));
    return k;
  }
  /// Eq. (120): the centre of mass of the steady precession.
  Vec3<double> center_of_mass(double t) const {
    const double s = l * std::sin(nutation);
    return {s * std::sin(precession * t), -s * std::cos(precession * t), l * std::cos(nutation)};
  }
  /// Eq. (121): relative error of the centre of mass l R(q) e₃ at time t.
  double error(const Vec4<double>& q, double t) const {
    const Vec3<double> ref = center_of_mass(t);
    return (l * rotation_matrix(q).col(2) - ref).norm() / ref.norm();
  }
};

}  // namespace quatstep::scenarios
