// A granular (DEM) code's time loop coupled to quatstep through the coupled-step API
// (kernels/batch_stepper.cuh): the bodies' orientations live on the GPU, the DEM code computes its
// torques and forces there each step (here a toy contact model: rolling friction against a floor
// plus a spin-up drive about z on the even bodies), hands them over as device arrays on its own stream, and
// reads the new orientations and angular velocities back into its own device arrays. Nothing is
// copied to the host inside the loop.
//
// Build: part of the CMake project (target example_dem_coupling, CUDA builds only).
// Run:   build/examples/example_dem_coupling [bodies] [steps]   (exit 77: no usable GPU, skipped)
#include <cstdio>
#include <vector>

#include "kernels/batch_stepper.cuh"
#include "kernels/cuda_device.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "toy_dem.hpp"

using Integrator = quatstep::ExplicitNewmarkLie<quatstep::FreeRigidBody<double>>;

// The DEM side, in device memory: toy_dem.hpp's loads of every body from its current state.
__global__ void contact_loads(const double* quaternion, const double* omega_body, long n, double* torque,
                              double* force) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) toy_contact_loads(quaternion, omega_body, n, i, torque, force);
}

int main(int argc, char** argv) {
  long n, steps;
  if (!toy_arguments(argc, argv, n, steps)) return 2;
  const double h = 1e-4;
  if (const std::string reason = quatstep::cuda::device_unusable_reason(); !reason.empty()) {
    std::printf("dem_coupling: skipped, %s\n", reason.c_str());
    return 77;  // "skipped" for ctest (SKIP_RETURN_CODE in examples/CMakeLists.txt)
  }
  std::vector<quatstep::FreeRigidBody<double>> models;
  std::vector<quatstep::RigidBodyKinematics<double>> initial;
  toy_grains(n, models, initial);
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
  quatstep::cuda::check(cudaGetLastError(), "contact_loads launch");
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
