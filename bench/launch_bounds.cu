// Occupancy against spills, measured (issue 20: REML ≥ 9e9 body-steps/s). The kernels are
// __launch_bounds__(128): ptxas may use up to 255 registers a thread, and REML's fixed-step kernel
// takes 218, so an H100 SM holds 2 blocks, 8 warps, 2 a scheduler, perhaps too few to hide FP64
// latency (its executed instructions bound it near 1.7e10 body-steps/s; it ran at 6.74e9:
// bench/README.md, "Executed, not static"). Here the production kernel, cuda::advance_bodies, is
// instantiated at minimum blocks 1 (the kernel bench_gpu runs), 3 and 4 per SM, which caps it at
// 168 and 128 registers (12 and 16 warps an SM) at the price of spills (ptxas sm_90, 2026-12-05:
// REML 256/428 B stored/loaded at 3, 720/1108 B at 4; modified HHT 524/1032 and 988/1784 B). Each
// runs Sherif's heavy top (heavy_top_ensemble.hpp, h = 1e-4, N = 10⁶, 1,000 steps a launch, no
// samples, time from cudaEvents) with REML and with the modified HHT with the inertia shift
// (α = −0.2): the workload of bench_gpu's rows of those names, which min_blocks:1 should match.
// Runs launch_bounds/<method>/min_blocks:<k>; counters: body_steps/s; registers, local (stack)
// bytes and resident warps per SM of the instantiation; max_diff, the largest difference of the
// state after 1,000 steps from min_blocks:1's (register allocation changes no arithmetic, so 0
// unless ptxas fuses differently); failed, the bodies not ok.
// Built on demand, not by default (bench/device_kit.sh builds and packs it): CMake target
// bench_launch_bounds. Without a usable GPU each run reports why and runs nothing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "heavy_top_ensemble.hpp"
#include "kernels/ensemble_kernels.cuh"

namespace {

using namespace quatstep;

constexpr index_t bodies = 1'000'000;
constexpr index_t steps_per_launch = 1'000;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
T* device_array(std::size_t n) {
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  return p;
}

/// N heavy tops on the GPU, initialized by the project's initialize_bodies.
template <class Integrator>
struct Bodies {
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  static constexpr int components = Integrator::State::size;
  Model* models = device_array<Model>(bodies);
  S* state = device_array<S>(std::size_t(components) * bodies);
  Status* status = device_array<Status>(bodies);
  index_t* iterations = device_array<index_t>(bodies);
  index_t* failed_step = device_array<index_t>(bodies);

  explicit Bodies(const Integrator& integrator) {
    const std::vector<Model> host_models(bodies, bench::sherif_top<S>());
    std::vector<RigidBodyKinematics<S>> initial(bodies);
    for (index_t i = 0; i < bodies; ++i) initial[i] = bench::sherif_initial<S>(i);
    auto* d_initial = device_array<RigidBodyKinematics<S>>(bodies);
    check(cudaMemcpy(models, host_models.data(), bodies * sizeof(Model), cudaMemcpyHostToDevice), "models");
    check(cudaMemcpy(d_initial, initial.data(), bodies * sizeof(initial[0]), cudaMemcpyHostToDevice), "initial");
    check(cudaMemset(status, 0, bodies * sizeof(Status)), "status");  // Status::ok
    check(cudaMemset(iterations, 0, bodies * sizeof(index_t)), "iterations");
    check(cudaMemset(failed_step, 0xff, bodies * sizeof(index_t)), "failed_step");  // −1
    cuda::initialize_bodies<<<cuda::blocks_for(bodies), cuda::block_size>>>(integrator, models, d_initial, soa(),
                                                                            record(), S(0), SampleView<S>{});
    check(cudaGetLastError(), "initialize_bodies launch");
    check(cudaDeviceSynchronize(), "initialize_bodies");
    check(cudaFree(d_initial), "cudaFree");
  }
  ~Bodies() {
    for (void* p : {static_cast<void*>(models), static_cast<void*>(state), static_cast<void*>(status),
                    static_cast<void*>(iterations), static_cast<void*>(failed_step)})
      cudaFree(p);
  }
  Bodies(const Bodies&) = delete;
  Bodies& operator=(const Bodies&) = delete;
  SoaView<S> soa() const { return {state, bodies}; }
  BodyRecord record() const { return {status, iterations, failed_step}; }
  template <class Kernel>
  void advance(Kernel kernel, const Integrator& integrator, index_t first_step) const {
    kernel<<<cuda::blocks_for(bodies), cuda::block_size>>>(integrator, models, soa(), record(), S(0),
                                                          S(bench::step_size), first_step, steps_per_launch,
                                                          SampleView<S>{});
    check(cudaGetLastError(), "advance launch");
  }
  std::vector<S> states() const {
    std::vector<S> host(std::size_t(components) * bodies);
    check(cudaMemcpy(host.data(), state, host.size() * sizeof(S), cudaMemcpyDeviceToHost), "state");
    return host;
  }
  index_t failed() const {
    std::vector<Status> host(bodies);
    check(cudaMemcpy(host.data(), status, bodies * sizeof(Status), cudaMemcpyDeviceToHost), "status");
    return index_t(std::count_if(host.begin(), host.end(), [](Status s) { return s != Status::ok; }));
  }
};

std::string unusable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);  // no driver: an error, not 0 (docs/toolchain.md)
  if (err != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
  return count == 0 ? "no usable CUDA device: none present" : "";
}

/// The state after the first launch of each method's min_blocks:1 kernel, to compare the others with.
std::map<std::string, std::vector<double>>& references() {
  static std::map<std::string, std::vector<double>> r;
  return r;
}

template <class Integrator, int MinBlocks>
void measure(benchmark::State& state, const std::string& method, const Integrator& integrator) {
  const auto kernel = cuda::advance_bodies<Integrator, MinBlocks>;
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  int blocks_per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, cuda::block_size, 0), "occupancy");

  const Bodies<Integrator> b(integrator);
  b.advance(kernel, integrator, 0);  // also the warm-up
  check(cudaDeviceSynchronize(), "advance");
  const std::vector<double> after = b.states();
  if (MinBlocks == 1) references()[method] = after;
  double max_diff = 0;
  if (const auto r = references().find(method); r != references().end())
    for (std::size_t k = 0; k < after.size(); ++k) max_diff = std::max(max_diff, std::abs(after[k] - r->second[k]));
  else
    max_diff = NAN;  // run without its min_blocks:1 kernel (a filter)

  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  index_t first = steps_per_launch;
  double seconds = 0;
  for (auto _ : state) {
    check(cudaEventRecord(start), "record");
    b.advance(kernel, integrator, first);
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "advance");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    state.SetIterationTime(1e-3 * ms);
    seconds += 1e-3 * ms;
    first += steps_per_launch;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  state.counters["body_steps/s"] = double(bodies) * double(steps_per_launch) * double(state.iterations()) / seconds;
  state.counters["registers"] = attributes.numRegs;
  state.counters["local_bytes"] = double(attributes.localSizeBytes);
  state.counters["warps/SM"] = blocks_per_sm * (cuda::block_size / 32);
  state.counters["max_diff"] = max_diff;
  state.counters["failed"] = double(b.failed());
}

template <class Integrator, int MinBlocks>
void run(benchmark::State& state, const std::string& method, const Integrator& integrator) {
  if (const std::string reason = unusable_reason(); !reason.empty()) return state.SkipWithError(reason.c_str());
  try {
    measure<Integrator, MinBlocks>(state, method, integrator);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <class Integrator>
void register_variants(const std::string& method, const Integrator& integrator) {
  const auto add = [&](const char* bounds, auto f) {
    benchmark::RegisterBenchmark(("launch_bounds/" + method + "/min_blocks:" + bounds).c_str(), f)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.5);
  };
  add("1", [=](benchmark::State& s) { run<Integrator, 1>(s, method, integrator); });
  add("3", [=](benchmark::State& s) { run<Integrator, 3>(s, method, integrator); });
  add("4", [=](benchmark::State& s) { run<Integrator, 4>(s, method, integrator); });
}

const bool registered = [] {
  using Top = HeavyTop<double>;
  register_variants("livens_em_reml", LivensEm<Top>{});
  register_variants("modified_hht_shift", ModifiedHht<Top>(bench::hht_settings<double>(true)));
  return true;
}();

}  // namespace
