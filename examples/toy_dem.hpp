// The toy granular problem of examples/dem_coupling.cu and dem_coupling_cpu.cpp: its grains, and
// its contact model (a CUDA kernel calls it there, an OpenMP loop here).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "quatstep/models/free_rigid_body.hpp"

/// The examples' arguments [bodies] [steps] (defaults 100000 and 1000): false, after a usage line,
/// unless bodies is a whole number >= 1 and steps one >= 0.
inline bool toy_arguments(int argc, char** argv, long& n, long& steps) {
  const auto whole = [](const char* text, long least, long& value) {
    char* end = nullptr;
    value = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && value >= least;
  };
  n = 100000, steps = 1000;
  if (argc <= 3 && (argc < 2 || whole(argv[1], 1, n)) && (argc < 3 || whole(argv[2], 0, steps))) return true;
  std::fprintf(stderr, "usage: %s [bodies >= 1] [steps >= 0]\n", argv[0]);
  return false;
}

/// n unit-mass axisymmetric grains, inertia (0.4, 0.4, 0.30 … 0.39): slightly elongated along body z
/// (I_z < I_x = I_y), under gravity, spinning.
inline void toy_grains(long n, std::vector<quatstep::FreeRigidBody<double>>& models,
                       std::vector<quatstep::RigidBodyKinematics<double>>& initial) {
  models.assign(n, {});
  initial.assign(n, {});
  for (long i = 0; i < n; ++i) {
    models[i].inertia = quatstep::Vec3<double>(0.4, 0.4, 0.3 + 0.1 * double(i % 7) / 7).asDiagonal();
    models[i].gravity = quatstep::Vec3<double>(0, 0, -9.81);
    initial[i].omega_body = quatstep::Vec3<double>(0.1 * double(i % 11), -0.2, 1.0);
  }
}

/// The loads of body i of n from its current state (component-major arrays: component c of body i at
/// [c·n + i]): the torque τ = −c R(e) ω (rolling friction against a floor, R(e) ω the spatial angular
/// velocity) plus a spin-up drive about z on the even bodies, and a normal force that carries the
/// weight (mass 1, gravity −9.81 e_z).

QS_HD inline void toy_contact_loads(const double* quaternion, const double* omega_body, long n, long i, double* torque,
                                    double* force) {
  const double e0 = quaternion[i], e1 = quaternion[n + i], e2 = quaternion[2 * n + i], e3 = quaternion[3 * n + i];
  const double w[3] = {omega_body[i], omega_body[n + i], omega_body[2 * n + i]};
  const double R[3][3] = {{1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)},
                          {2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)},
                          {2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)}};
  const double c = 0.05, drive = (i % 2 == 0) ? 0.5 : 0.0;
  for (int k = 0; k < 3; ++k) {
    const double ws = R[k][0] * w[0] + R[k][1] * w[1] + R[k][2] * w[2];
    torque[k * n + i] = -c * ws + (k == 2 ? drive : 0.0);
    force[k * n + i] = k == 2 ? 9.81 : 0.0;
  }
}
