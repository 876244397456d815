// SIMD across bodies: the HHT-family and REML steps with Lanes<W> (lanes = bodies, simd_step.hpp,
// reml_step.hpp) against the scalar CpuEnsemble, same workload and counters as bench_cpu_throughput (throughput.hpp), compiled
// with the same flags in one program so that the ratio is fair. Built twice: study_simd_lanes
// (baseline x86-64, SSE2: W = 2 is one register, W = 4 two) and study_simd_lanes_avx2 (-mavx2).
// Results are bitwise those of the scalar code (simd_lanes_test.cpp). Single-threaded, so the rates
// are per CPU second of the thread (less disturbed by other processes than wall-clock time).
#include "cpu_ensemble.hpp"
#include "heavy_top_ensemble.hpp"
#include "lane_ensemble.hpp"
#include "throughput.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::bench;

struct Workload {
  std::vector<HeavyTop<double>> models;
  std::vector<RigidBodyKinematics<double>> initial;
  explicit Workload(index_t bodies) : models(bodies, sherif_top<double>()), initial(bodies) {
    for (index_t i = 0; i < bodies; ++i) initial[i] = sherif_initial<double>(i);
  }
};

// Both sides run the default Newton settings (Jacobian reuse where the first correction is small:
// the lane-wise driver of simd_step.hpp reuses lane by lane as newton.hpp does).
template <class Method>
typename Method::Scalar integrator(bool inertia_shift) {
  if constexpr (std::is_same_v<Method, RemlLanes>) return typename Method::Scalar();
  else return typename Method::Scalar(hht_settings<double>(inertia_shift));
}

template <class Method>
void scalar(benchmark::State& state, bool inertia_shift) {
  omp_set_num_threads(1);
  const Workload w(state.range(0));
  CpuEnsemble<typename Method::Scalar> e(integrator<Method>(inertia_shift), w.models, 0.0, step_size);
  const SampleView<double> none{nullptr, e.bodies(), 0, 0, 1, 0};
  measure_throughput(
      state, e, 1, [&] { e.initialize(w.initial, none); }, [&](index_t steps) { e.advance(steps, none); });
}

template <int W, class Method>
void lanes(benchmark::State& state, bool inertia_shift) {
  omp_set_num_threads(1);
  const Workload w(state.range(0));
  LaneEnsemble<W, Method> e(integrator<Method>(inertia_shift), w.models, 0.0, step_size);
  measure_throughput(
      state, e, 1, [&] { e.initialize(w.initial); }, [&](index_t steps) { e.advance(steps); });
}

template <class Method>
void register_all(const std::string& name, bool inertia_shift) {
  const auto add = [&](const std::string& variant, void (*f)(benchmark::State&, bool)) {
    benchmark::RegisterBenchmark((name + "/" + variant).c_str(), f, inertia_shift)
        ->ArgNames({"bodies"})
        ->Arg(1024)
        ->Unit(benchmark::kMillisecond);
  };
  add("scalar", scalar<Method>);
  add("lanes2", lanes<2, Method>);
  add("lanes4", lanes<4, Method>);
}

}  // namespace

int main(int argc, char** argv) {
  register_all<HhtLanes<VelocityUpdate::modified>>("ModifiedHht+shift", true);
  register_all<HhtLanes<VelocityUpdate::modified>>("ModifiedHht", false);
  register_all<HhtLanes<VelocityUpdate::classical>>("Hht", false);
  register_all<RemlLanes>("LivensEm (REML)", false);
  add_machine_context();
#ifdef __AVX2__
  benchmark::AddCustomContext("simd", "AVX2");
#else
  benchmark::AddCustomContext("simd", "SSE2");
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
