// CPU throughput of CpuEnsemble::advance on the Sherif §10.1 heavy-top ensemble, per integrator,
// bodies and OpenMP thread count (counters: throughput.hpp).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <string>
#include <vector>

#include "cpu_ensemble.hpp"
#include "heavy_top_ensemble.hpp"
#include "throughput.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::bench;

template <class Integrator>
void run(benchmark::State& state, const Integrator& integrator) {
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  const index_t bodies = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  omp_set_num_threads(threads);

  const std::vector<Model> models(bodies, Model(sherif_top<S>()));
  std::vector<RigidBodyKinematics<S>> initial(bodies);
  for (index_t i = 0; i < bodies; ++i) initial[i] = sherif_initial<S>(i);
  CpuEnsemble<Integrator> ensemble(integrator, models, S(0), S(step_size));
  const SampleView<S> no_samples{nullptr, bodies, 0, 0, 1};  // holds() is false for every step
  measure_throughput(
      state, ensemble, threads, [&] { ensemble.initialize(initial, no_samples); },
      [&](index_t steps) { ensemble.advance(steps, no_samples); });
}

}  // namespace

int main(int argc, char** argv) {
  const int max_threads = omp_get_max_threads();
  const auto add = [&](const std::string& name, const auto& integrator) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [integrator](benchmark::State& s) { run(s, integrator); });
    b->ArgNames({"bodies", "threads"})->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
    for (const int64_t bodies : {1024, 16384}) {
      b->Args({bodies, 1});
      if (max_threads > 1) b->Args({bodies, max_threads});
    }
  };
  for (const Method m : all_methods) with_integrator<HeavyTop<double>>(m, [&](const auto& i) { add(name(m), i); });
  add_machine_context();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
