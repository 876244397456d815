// The CPU twin of dem_coupling.cu: a granular (DEM) code's time loop coupled to quatstep through the
// coupled-step API on the CPU (host/cpu_batch_stepper.hpp). The DEM code computes its torques and
// forces each step from the orientations and angular velocities it just read (the same toy contact
// model: rolling friction against a floor plus a spin-up drive on the even bodies) and hands them
// over as host arrays; the steps are the GPU's bit for bit in strict mode.
//
// Build: part of the CMake project (target example_dem_coupling_cpu).
// Run:   build/examples/example_dem_coupling_cpu [bodies] [steps]
#include <chrono>
#include <cstdio>
#include <vector>

#include "cpu_batch_stepper.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "toy_dem.hpp"

using Integrator = quatstep::ExplicitNewmarkLie<quatstep::FreeRigidBody<double>>;

// The DEM side: toy_dem.hpp's loads of every body from its current state (the CUDA twin's).
void contact_loads(const std::vector<double>& quaternion, const std::vector<double>& omega_body, long n,
                   std::vector<double>& torque, std::vector<double>& force) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) toy_contact_loads(quaternion.data(), omega_body.data(), n, i, torque.data(), force.data());
}

int main(int argc, char** argv) {
  long n, steps;
  if (!toy_arguments(argc, argv, n, steps)) return 2;
  const double h = 1e-4;
  std::vector<quatstep::FreeRigidBody<double>> models;
  std::vector<quatstep::RigidBodyKinematics<double>> initial;
  toy_grains(n, models, initial);
  quatstep::CpuBatchStepper<Integrator> batch(Integrator{}, models, initial, 0.0);  // throws naming a bad body

  // The DEM code's own arrays (component-major: component c of body i at [c·n + i]).
  std::vector<double> quaternion(4 * n), omega(3 * n), torque(3 * n), force(3 * n);
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < steps; ++k) {
    batch.kinematics(quaternion.data(), omega.data(), nullptr, nullptr);
    contact_loads(quaternion, omega, n, torque, force);
    batch.step(h, torque.data(), force.data());
  }
  batch.kinematics(quaternion.data(), omega.data(), nullptr, nullptr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  long failed = 0;
  for (const auto s : batch.status()) failed += s != quatstep::Status::ok;
  std::printf("dem_coupling_cpu: %ld bodies, %ld steps of %g s on the CPU: %.3g body-steps/s (loads + step + "
              "readback); %ld bodies in SIMD lanes\n", n, steps, h, double(n) * double(steps) / seconds,
              long(batch.bodies_in_lanes()));
  std::printf("  body 0: q = (%.6f, %.6f, %.6f, %.6f), omega_body = (%.4f, %.4f, %.4f); failed bodies: %ld\n",
              quaternion[0], quaternion[n], quaternion[2 * n], quaternion[3 * n], omega[0], omega[n], omega[2 * n],
              failed);
  return failed ? 1 : 0;
}
