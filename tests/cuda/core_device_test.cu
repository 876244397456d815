// The core headers compiled by nvcc for sm_90 and run in a kernel, one thread per body, through
// the same advance_body as the CPU backend. Skips, with the reason, when no usable GPU exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "cpu_ensemble.hpp"
#include "quatstep/quatstep.hpp"

namespace {

using namespace quatstep;

template <class Integrator>
__global__ void run_bodies(Integrator integrator, const typename Integrator::ModelType* models,
                           const RigidBodyKinematics<double>* initial, SoaView<double> soa, BodyRecord rec,
                           index_t n, double h, index_t steps, SampleView<double> out) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  initialize_body(integrator, models[i], initial[i], soa, rec, i, 0.0, out);
  advance_body(integrator, models[i], soa, rec, i, 0.0, h, 0, steps, out);
}

std::string gpu_unusable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device present";
  return {};
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  cudaMalloc(&p, v.size() * sizeof(T));
  cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

template <class Integrator>
void compare_cpu_gpu(const Integrator& integrator, double h, index_t steps, double rel_tol) {
  using Model = typename Integrator::ModelType;
  const index_t n = 64;
  std::vector<Model> models(n);
  std::vector<RigidBodyKinematics<double>> initial(n);
  for (index_t i = 0; i < n; ++i) {
    models[i] = Model::from_center_of_mass({0.234375, 0.46875 + 1e-3 * i, 0.234375}, 15.0, {0, 1, 0}, {0, 0, -9.81});
    initial[i].omega_body = {0.01 * i, 150.0, -4.61538};
  }
  const index_t samples = 2, stride = steps;
  std::vector<double> cpu_out(samples * channel::count * n);
  CpuEnsemble<Integrator> cpu(integrator, models, 0.0, h);
  const SampleView<double> cpu_view{cpu_out.data(), n, 0, samples, stride};
  cpu.initialize(initial, cpu_view);
  cpu.advance(steps, cpu_view);

  Model* d_models = to_device(models);
  RigidBodyKinematics<double>* d_initial = to_device(initial);
  double *d_state = nullptr, *d_out = nullptr;
  Status* d_status = nullptr;
  index_t *d_iter = nullptr, *d_failed = nullptr;
  cudaMalloc(&d_state, sizeof(double) * Integrator::State::size * n);
  cudaMalloc(&d_out, sizeof(double) * cpu_out.size());
  cudaMalloc(&d_status, sizeof(Status) * n);
  cudaMalloc(&d_iter, sizeof(index_t) * n);
  cudaMalloc(&d_failed, sizeof(index_t) * n);
  cudaMemset(d_status, 0, sizeof(Status) * n);
  run_bodies<<<(n + 31) / 32, 32>>>(integrator, d_models, d_initial, SoaView<double>{d_state, n},
                                    BodyRecord{d_status, d_iter, d_failed}, n, h, steps,
                                    SampleView<double>{d_out, n, 0, samples, stride});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> gpu_out(cpu_out.size());
  std::vector<Status> gpu_status(n);
  cudaMemcpy(gpu_out.data(), d_out, sizeof(double) * gpu_out.size(), cudaMemcpyDeviceToHost);
  cudaMemcpy(gpu_status.data(), d_status, sizeof(Status) * n, cudaMemcpyDeviceToHost);
  for (void* p : {(void*)d_models, (void*)d_initial, (void*)d_state, (void*)d_out, (void*)d_status, (void*)d_iter,
                  (void*)d_failed})
    cudaFree(p);

  double worst = 0;
  for (index_t i = 0; i < n; ++i) {
    ASSERT_EQ(gpu_status[i], cpu.status()[i]) << "body " << i;
    for (int c = 0; c < channel::count; ++c) {
      const double a = cpu_out[(channel::count + c) * n + i], b = gpu_out[(channel::count + c) * n + i];
      if (std::isnan(a) && std::isnan(b)) continue;  // channel the method does not provide
      worst = std::max(worst, std::abs(a - b) / (std::abs(a) + 1.0));
      if (std::isnan(a) != std::isnan(b)) worst = INFINITY;
    }
  }
  std::printf("CPU/GPU max relative difference after %lld steps: %.3e\n", (long long)steps, worst);
  EXPECT_LE(worst, rel_tol);
}

// Every integrator of the library on the heavy top: the kernel must compile for sm_90 (checked here,
// on every build with nvcc) and agree with the CPU (checked where a GPU exists). Fast mode: FMA
// contraction may differ between the sides, hence a tolerance rather than bits (issue 4 adds strict mode).
HhtSettings<double> shifted() {
  HhtSettings<double> s;
  s.inertia_shift = true;
  return s;
}
LivensSettings<double> livens(LivensVariant v) {
  LivensSettings<double> s;
  s.variant = v;
  return s;
}

#define QS_DEVICE_TEST(name, integrator, h)                          \
  TEST(CoreOnDevice, name) {                                          \
    if (const auto why = gpu_unusable_reason(); !why.empty()) GTEST_SKIP() << why; \
    compare_cpu_gpu(integrator, h, 1000, 1e-12);                      \
  }

using Top = HeavyTop<double>;
QS_DEVICE_TEST(Hht, Hht<Top>(), 1e-4)
QS_DEVICE_TEST(ModifiedHht, ModifiedHht<Top>(), 1e-4)
QS_DEVICE_TEST(ModifiedHhtInertiaShift, ModifiedHht<Top>(shifted()), 1e-4)
QS_DEVICE_TEST(SimoVuQuoc, SimoVuQuoc<Top>(), 1e-4)
QS_DEVICE_TEST(Zupan3, Zupan3<Top>(), 1e-4)
QS_DEVICE_TEST(ExplicitNewmarkLie, ExplicitNewmarkLie<Top>(), 1e-4)
QS_DEVICE_TEST(MidpointLie, MidpointLie<Top>(), 1e-4)
QS_DEVICE_TEST(LivensEmReduced, LivensEm<Top>(livens(LivensVariant::reduced)), 1e-4)
QS_DEVICE_TEST(LivensEmFull, LivensEm<Top>(livens(LivensVariant::full)), 1e-4)
QS_DEVICE_TEST(LivensEmNullspace, LivensEm<Top>(livens(LivensVariant::nullspace)), 1e-4)
QS_DEVICE_TEST(LivensMidpoint, LivensMidpoint<Top>(), 1e-4)
QS_DEVICE_TEST(HamiltonianEm, HamiltonianEm<Top>(), 1e-4)
QS_DEVICE_TEST(HamiltonianMidpoint, HamiltonianMidpoint<Top>(), 1e-4)

}  // namespace
