// Peers on the CPU, in the same run and on the same ensemble: quatstep's integrators (CpuEnsemble on
// FreeRigidBody) and the three peer baselines (bench/peers/), swept over the step size at a fixed
// t_end so that error against time (work–precision) can be read off.
//   ensemble: free_rotation_ensemble.hpp, seed 1, 512 torque-free bodies, J ∈ [1, 3], |ω| ≤ 20 rad/s;
//   run: t ∈ [0, 1] in `steps` steps (h = 1/steps), 10 timed chunks, all OpenMP threads;
//   counters (measure.hpp): body_steps/s, body_steps/cpu_s, h, err_q, err_w, drift_E, drift_L.
// quatstep's integrators and their settings: peers/quatstep_methods.hpp.
//   bench_peers_cpu --benchmark_format=json > peers_cpu.json; bench/peers_table.py peers_cpu.json
#include <chrono>

#include "peers/cpu_runners.hpp"
#include "peers/measure.hpp"
#include "peers/odeint_rk4.hpp"
#include "peers/quatstep_methods.hpp"
#include "peers/semi_implicit_euler_step.hpp"
#include "throughput.hpp"

using namespace quatstep;
using namespace quatstep::peers;

namespace {

constexpr index_t bodies = 512;
constexpr double t_end = 1.0;
constexpr int checkpoints = 10;
const FreeRotationSpec spec{};

const Reference& reference() {
  static const Reference r = make_reference(spec, strided_bodies(bodies, bodies), t_end);
  return r;
}

/// Wall clock and CPU seconds of the process (all threads) around the stepping.
struct CpuTimer {
  template <class F>
  Elapsed operator()(F&& f) const {
    const auto wall = std::chrono::steady_clock::now();
    const double cpu = bench::process_cpu_seconds();
    f();
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
            bench::process_cpu_seconds() - cpu};
  }
};

template <class Runner>
void run(benchmark::State& state, Runner& runner) {
  measure_peer(state, runner, reference(), bodies, state.range(0), checkpoints, CpuTimer());
}

double step_size(const benchmark::State& state) { return t_end / double(state.range(0)); }

template <class Integrator>
void quatstep_method(benchmark::State& state, Integrator integrator) {
  CpuQuatstepRunner<Integrator> runner(integrator, spec, bodies, step_size(state));
  run(state, runner);
}

template <class Step, class S>
void peer_loop(benchmark::State& state) {
  CpuPeerLoop<Step, S> runner(spec, bodies, step_size(state));
  run(state, runner);
}

void odeint_rk4(benchmark::State& state) {
  OdeintRk4<thrust::device_vector<double>> runner(spec, bodies, step_size(state));
  run(state, runner);
}

void sweep(benchmark::internal::Benchmark* b, std::initializer_list<int> steps) {
  b->ArgName("steps")->UseManualTime()->Unit(benchmark::kMillisecond);
  for (int s : steps) b->Arg(s);
}
const std::initializer_list<int> steps_2x = {100, 200, 400, 800, 1600, 3200};
const std::initializer_list<int> steps_4x = {100, 400, 1600, 6400, 25600, 102400};

const int registered = [] {
  for_each_quatstep_method([](const char* name, auto integrator) {
    sweep(benchmark::RegisterBenchmark(name, quatstep_method<decltype(integrator)>, integrator), steps_2x);
  });
  sweep(benchmark::RegisterBenchmark("peer:odeint_rk4_thrust_omp", odeint_rk4), steps_2x);
  sweep(benchmark::RegisterBenchmark("peer:rk4_registers", peer_loop<Rk4Step, double>), steps_2x);
  sweep(benchmark::RegisterBenchmark("peer:semi_implicit_euler_f32", peer_loop<SemiImplicitEulerStep, float>), steps_4x);
  return 0;
}();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::add_machine_context();
  benchmark::AddCustomContext("ensemble", "free rotation, seed 1, 512 bodies, torque-free, t_end = 1");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
