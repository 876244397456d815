// CPU throughput of CpuEnsemble::advance on the Sherif §10.1 heavy-top ensemble, per integrator,
// bodies and OpenMP thread count. One benchmark iteration = steps_per_iteration steps of every body;
// the ensemble is built and initialised outside the timed region. Counters:
//   body_steps/s          bodies·steps per wall-clock second (all threads together)
//   body_steps/s/thread   the same divided by the thread count
//   newton_it/step        Newton iterations per body-step (CpuEnsemble::newton_iterations)
//   failed                bodies whose status is not ok at the end (must be 0 for a valid figure)
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "cpu_ensemble.hpp"
#include "heavy_top_ensemble.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::bench;

constexpr index_t steps_per_iteration = 100;
/// The ensemble restarts from t = 0 (untimed) after this many steps, so that every run averages
/// the same window t ∈ [0, 0.1 s] whatever the iteration count the library picks.
constexpr index_t steps_per_window = 1000;

template <class Integrator>
void run(benchmark::State& state, const Integrator& integrator) {
  using S = typename Integrator::Scalar;
  const index_t bodies = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  omp_set_num_threads(threads);

  std::vector<HeavyTop<S>> models(bodies, sherif_top<S>());
  std::vector<RigidBodyKinematics<S>> initial(bodies);
  for (index_t i = 0; i < bodies; ++i) initial[i] = sherif_initial<S>(i);
  CpuEnsemble<Integrator> ensemble(integrator, models, S(0), S(step_size));
  const SampleView<S> no_samples{nullptr, bodies, 0, 0, 1};  // holds() is false for every step
  ensemble.initialize(initial, no_samples);

  const auto iterations_so_far = [&] {
    const auto& it = ensemble.newton_iterations();
    return std::accumulate(it.begin(), it.end(), index_t(0));
  };
  index_t newton = 0;
  for (auto _ : state) {
    if (ensemble.steps_done() == steps_per_window) {
      state.PauseTiming();
      newton += iterations_so_far();
      ensemble.initialize(initial, no_samples);
      state.ResumeTiming();
    }
    ensemble.advance(steps_per_iteration, no_samples);
  }
  newton += iterations_so_far();

  const auto& status = ensemble.status();
  const auto failed = std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
  const double body_steps = double(bodies) * double(steps_per_iteration) * double(state.iterations());
  state.counters["body_steps/s"] = benchmark::Counter(body_steps, benchmark::Counter::kIsRate);
  state.counters["body_steps/s/thread"] = benchmark::Counter(body_steps / threads, benchmark::Counter::kIsRate);
  state.counters["newton_it/step"] = double(newton) / body_steps;
  state.counters["failed"] = double(failed);
  if (failed > 0) state.SkipWithError("some bodies failed: the figure would not measure stepping");
}

#if defined(__clang__)
constexpr const char* compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
constexpr const char* compiler = "g++ " __VERSION__;
#else
constexpr const char* compiler = "unknown";
#endif

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  const int max_threads = omp_get_max_threads();
  for (const Method m : all_methods) {
    with_integrator<double>(m, [&](const auto& integrator) {
      auto* b = benchmark::RegisterBenchmark(name(m).c_str(), [integrator](benchmark::State& s) { run(s, integrator); });
      b->ArgNames({"bodies", "threads"})->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
      for (const int64_t bodies : {1024, 16384}) {
        b->Args({bodies, 1});
        if (max_threads > 1) b->Args({bodies, max_threads});
      }
    });
  }
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("omp_max_threads", std::to_string(max_threads));
  benchmark::AddCustomContext("compiler", compiler);
  benchmark::AddCustomContext("steps_per_iteration", std::to_string(steps_per_iteration));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
