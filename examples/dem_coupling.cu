// A granular (DEM) code's time loop coupled to quatstep through the coupled-step API
// (kernels/batch_stepper.cuh): the bodies' orientations live on the GPU, the DEM code computes its
// torques and forces there each step (here a toy contact model: rolling friction against a floor
// plus a pair of opposing spin-up torques), hands them over as device arrays on its own stream, and
// reads the new orientations and angular velocities back into its own device arrays. Nothing is
// copied to the host inside the loop.
//
// Build: part of the CMake project (target example_dem_coupling, CUDA builds only).
// Run:   build/examples/example_dem_coupling [bodies] [steps]   (exit 77: no usable GPU, skipped)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/batch_stepper.cuh"
#include "kernels/cuda_device.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/models/free_rigid_body.hpp"

using Integrator = quatstep::ExplicitNewmarkLie<quatstep::FreeRigidBody<double>>;

// The DEM side: torque τ = −c ω_spatial (rolling friction) + a drive about z for the even bodies,
// and a weight-balancing normal force, from the current state, all in device memory.
__global__ void contact_loads(const double* quaternion, const double* omega_body, long n, double* torque,
                              double* force) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double e0 = quaternion[i], e1 = quaternion[n + i], e2 = quaternion[2 * n + i], e3 = quaternion[3 * n + i];
  const double w[3] = {omega_body[i], omega_body[n + i], omega_body[2 * n + i]};
  // R(e) w: the spatial angular velocity.
  const double R[3][3] = {{1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)},
                          {2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)},
                          {2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)}};
  const double c = 0.05, drive = (i % 2 == 0) ? 0.5 : 0.0;
  for (int k = 0; k < 3; ++k) {
    const double ws = R[k][0] * w[0] + R[k][1] * w[1] + R[k][2] * w[2];
    torque[k * n + i] = -c * ws + (k == 2 ? drive : 0.0);
    force[k * n + i] = k == 2 ? 9.81 : 0.0;  // the floor carries the weight (mass 1, gravity −9.81 e_z)
  }
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  const long steps = argc > 2 ? std::atol(argv[2]) : 1000;
  const double h = 1e-4;
  if (const std::string reason = quatstep::cuda::device_unusable_reason(); !reason.empty()) {
    std::printf("dem_coupling: skipped, %s\n", reason.c_str());
    return 77;  // "skipped" for ctest (SKIP_RETURN_CODE in examples/CMakeLists.txt)
  }
  // The bodies: unit-mass spheres-ish (inertia 0.4, 0.4, 0.4) and slightly flattened grains.
  std::vector<quatstep::FreeRigidBody<double>> models(n);
  std::vector<quatstep::RigidBodyKinematics<double>> initial(n);
  for (long i = 0; i < n; ++i) {
    models[i].inertia = quatstep::Vec3<double>(0.4, 0.4, 0.3 + 0.1 * double(i % 7) / 7).asDiagonal();
    models[i].gravity = quatstep::Vec3<double>(0, 0, -9.81);
    initial[i].omega_body = quatstep::Vec3<double>(0.1 * double(i % 11), -0.2, 1.0);
  }
  cudaStream_t stream;
  quatstep::cuda::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  quatstep::cuda::BatchStepper<Integrator> batch(Integrator{}, models, initial, 0.0, stream);

  // The DEM code's own device arrays (component-major: component c of body i at [c·n + i]).
  quatstep::cuda::DeviceArray<double> quaternion(4 * n), omega(3 * n), torque(3 * n), force(3 * n);
  const unsigned blocks = static_cast<unsigned>((n + 127) / 128);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (long k = 0; k < steps; ++k) {
    batch.kinematics(quaternion.data(), omega.data(), nullptr, nullptr, stream);
    contact_loads<<<blocks, 128, 0, stream>>>(quaternion.data(), omega.data(), n, torque.data(), force.data());
    batch.step(h, torque.data(), force.data(), stream);
  }
  batch.kinematics(quaternion.data(), omega.data(), nullptr, nullptr, stream);
  cudaEventRecord(stop, stream);
  quatstep::cuda::check(cudaStreamSynchronize(stream), "DEM loop");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);

  std::vector<quatstep::Status> status(n);
  quatstep::cuda::check(cudaMemcpy(status.data(), batch.status(), n * sizeof(quatstep::Status), cudaMemcpyDeviceToHost),
                        "status");
  long failed = 0;
  for (const auto s : status) failed += s != quatstep::Status::ok;
  std::vector<double> q, w;
  quaternion.download(q);
  omega.download(w);
  std::printf("dem_coupling: %ld bodies, %ld steps of %g s on %s: %.3g body-steps/s (loads + step + readback)\n", n,
              steps, h, quatstep::cuda::device_description().c_str(), double(n) * double(steps) / (1e-3 * ms));
  std::printf("  body 0: q = (%.6f, %.6f, %.6f, %.6f), omega_body = (%.4f, %.4f, %.4f); failed bodies: %ld\n", q[0],
              q[n], q[2 * n], q[3 * n], w[0], w[n], w[2 * n], failed);
  cudaStreamDestroy(stream);
  return failed == 0 ? 0 : 1;
}
