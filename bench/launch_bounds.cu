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
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "heavy_top_ensemble.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_stream.hpp"
#include "kernels/device_array.cuh"
#include "kernels/ensemble_kernels.cuh"

namespace {

using namespace quatstep;
using cuda::check;
using cuda::DeviceArray;

constexpr index_t bodies = 1'000'000;
constexpr index_t steps_per_launch = 1'000;

/// N heavy tops on the GPU, initialized by the project's initialize_bodies.
template <class Integrator>
struct Bodies {
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  DeviceArray<Model> models{std::vector<Model>(bodies, bench::sherif_top<S>())};
  DeviceArray<S> state{std::size_t(Integrator::State::size) * bodies};
  DeviceArray<Status> status{std::vector<Status>(bodies, Status::ok)};
  DeviceArray<index_t> iterations{std::vector<index_t>(bodies, 0)};
  DeviceArray<index_t> failed_step{std::vector<index_t>(bodies, -1)};

  explicit Bodies(const Integrator& integrator) {
    std::vector<RigidBodyKinematics<S>> host(bodies);
    for (index_t i = 0; i < bodies; ++i) host[i] = bench::sherif_initial<S>(i);
    const DeviceArray<RigidBodyKinematics<S>> initial(host);
    cuda::initialize_bodies<<<cuda::blocks_for(bodies), cuda::block_size>>>(
        integrator, models.data(), initial.data(), soa(), record(), S(0), SampleView<S>{});
    check(cudaGetLastError(), "initialize_bodies launch");
    check(cudaDeviceSynchronize(), "initialize_bodies");
  }
  SoaView<S> soa() const { return {state.data(), bodies}; }
  BodyRecord record() const { return {status.data(), iterations.data(), failed_step.data()}; }
  template <class Kernel>
  void advance(Kernel kernel, const Integrator& integrator, index_t first_step) const {
    kernel<<<cuda::blocks_for(bodies), cuda::block_size>>>(integrator, models.data(), soa(), record(), S(0),
                                                          S(bench::step_size), first_step, steps_per_launch,
                                                          SampleView<S>{});
    check(cudaGetLastError(), "advance launch");
  }
  index_t failed() const {
    std::vector<Status> host;
    status.download(host);
    return index_t(std::count_if(host.begin(), host.end(), [](Status s) { return s != Status::ok; }));
  }
};

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
  std::vector<double> after;
  b.state.download(after);
  if (MinBlocks == 1) references()[method] = after;
  double max_diff = 0;
  if (const auto r = references().find(method); r != references().end())
    for (std::size_t k = 0; k < after.size(); ++k) max_diff = std::max(max_diff, std::abs(after[k] - r->second[k]));
  else
    max_diff = NAN;  // run without its min_blocks:1 kernel (a filter)

  const cuda::Event start, stop;
  index_t first = steps_per_launch;
  double seconds = 0;
  for (auto _ : state) {
    start.record();
    b.advance(kernel, integrator, first);
    stop.record();
    stop.wait("advance");
    const double launch = stop.seconds_since(start);
    state.SetIterationTime(launch);
    seconds += launch;
    first += steps_per_launch;
  }
  state.counters["body_steps/s"] = double(bodies) * double(steps_per_launch) * double(state.iterations()) / seconds;
  state.counters["registers"] = attributes.numRegs;
  state.counters["local_bytes"] = double(attributes.localSizeBytes);
  state.counters["warps/SM"] = blocks_per_sm * (cuda::block_size / 32);
  state.counters["max_diff"] = max_diff;
  state.counters["failed"] = double(b.failed());
}

template <class Integrator, int MinBlocks>
void run(benchmark::State& state, const std::string& method, const Integrator& integrator) {
  if (const std::string reason = cuda::device_unusable_reason(); !reason.empty())
    return state.SkipWithError(reason.c_str());
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
