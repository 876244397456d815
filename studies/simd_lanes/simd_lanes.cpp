// SIMD across bodies: the CPU backend's lane steps (host/cpu_lanes.hpp: AVX2, four bodies per block
// in double, eight in float; AVX-512, where the CPU has it, twice that) against its scalar step, the
// same CpuEnsemble with CpuEnsemble::use_lanes(false), on the workload and counters of
// bench_cpu_throughput (throughput.hpp). The results are bitwise equal (tests/cpu_lanes_test.cpp).
// Single-threaded, so the rates are per CPU second of the thread (less disturbed by other processes
// than wall-clock time).
#include <type_traits>

#include "cpu_ensemble.hpp"
#include "heavy_top_ensemble.hpp"
#include "throughput.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::bench;

/// Sherif's heavy tops (bench_cpu_throughput's), or for free bodies the torque-free asymmetric body
/// of issue 20's targets, J = diag(6, 8, 3), Ω = (10, 20, 20) rad/s, varied by 1e-3 per body; in the
/// model's precision S.
template <class Model, class S = typename Model::Scalar>
struct Workload {
  std::vector<Model> models;
  std::vector<RigidBodyKinematics<S>> initial;
  explicit Workload(index_t bodies) : models(bodies), initial(bodies) {
    for (index_t i = 0; i < bodies; ++i) {
      if constexpr (std::is_same_v<Model, HeavyTop<S>>) {
        models[i] = sherif_top<S>();
        initial[i] = sherif_initial<S>(i);
      } else {
        models[i].inertia = Vec3<S>(6.0, 8.0, 3.0).asDiagonal();
        initial[i].omega_body = Vec3<S>(10.0, 20.0, 20.0) * S(1.0 + 1e-3 * double(i) / double(bodies));
      }
    }
  }
};

// Both sides run the default Newton settings (Jacobian reuse where the first correction is small).
template <class Integrator, class S = typename Integrator::Scalar>
void run(benchmark::State& state, Integrator integrator, bool lanes, lanes::Isa isa) {
  omp_set_num_threads(1);
  const Workload<typename Integrator::ModelType> w(state.range(0));
  CpuEnsemble<Integrator> e(integrator, w.models, S(0), S(step_size));
  e.use_lanes(lanes, isa);
  if (lanes && (!e.uses_lanes() || e.lanes_isa() != isa))
    return state.SkipWithError("no SIMD lanes of this instruction set on this CPU or in this build");
  const SampleView<S> none{nullptr, e.bodies(), 0, 0, 1, 0};
  measure_throughput(
      state, e, 1, [&] { e.initialize(w.initial, none); }, [&](index_t steps) { e.advance(steps, none); });
}

/// name/scalar, name/lanesW (AVX2) and, where the CPU has AVX-512, name/lanesW (AVX-512: W twice
/// AVX2's); a float integrator's name says "(float)".
template <class Integrator>
void register_both(std::string name, const Integrator& integrator) {
  using S = typename Integrator::Scalar;
  if (std::is_same_v<S, float>) name += " (float)";
  const auto add = [&](const std::string& variant, bool lanes, lanes::Isa isa) {
    benchmark::RegisterBenchmark((name + "/" + variant).c_str(), run<Integrator>, integrator, lanes, isa)
        ->ArgNames({"bodies"})
        ->Arg(1024)
        ->Unit(benchmark::kMillisecond);
  };
  add("scalar", false, lanes::Isa::avx2);
  for (const lanes::Isa isa : {lanes::Isa::avx2, lanes::Isa::avx512})
    if (isa == lanes::Isa::avx2 || lanes::best_isa() == isa)
      add("lanes" + std::to_string(lanes::width<S>(isa)), true, isa);
}

}  // namespace

int main(int argc, char** argv) {
  register_both("ModifiedHht+shift", ModifiedHht<HeavyTop<double>>(hht_settings<double>(true)));
  register_both("ModifiedHht", ModifiedHht<HeavyTop<double>>(hht_settings<double>(false)));
  register_both("Hht", Hht<HeavyTop<double>>(hht_settings<double>(false)));
  register_both("SimoVuQuoc", SimoVuQuoc<HeavyTop<double>>(svq_settings<double>()));
  register_both("Zupan3", Zupan3<HeavyTop<double>>());
  register_both("MidpointLie", MidpointLie<HeavyTop<double>>());
  register_both("ExplicitNewmarkLie", ExplicitNewmarkLie<HeavyTop<double>>());
  register_both("LivensEm (REML)", LivensEm<HeavyTop<double>>());
  register_both("LivensEm full", LivensEm<HeavyTop<double>, LivensVariant::full>());
  register_both("LivensEm nullspace", LivensEm<HeavyTop<double>, LivensVariant::nullspace>());
  register_both("HamiltonianEm", HamiltonianEm<HeavyTop<double>>());
  for (const int order : {2, 4}) {
    SplittingSettings<double> s;
    s.order = order;
    register_both("NoSquish order " + std::to_string(order), NoSquish<HeavyTop<double>>(s));
    register_both("SymmetricSplitting order " + std::to_string(order), SymmetricSplitting<HeavyTop<double>>(s));
  }
  register_both("ExactFreeSplitting order 4", ExactFreeSplitting<HeavyTop<double>>());
  register_both("ExactFreeSplitting order 4, asymmetric free body", ExactFreeSplitting<FreeRigidBody<double>>());
  // float: eight bodies per block (the Newton tolerance float's default, 1e-3)
  register_both("ModifiedHht+shift", ModifiedHht<HeavyTop<float>>(hht_settings<float>(true)));
  register_both("LivensEm (REML)", LivensEm<HeavyTop<float>>());
  register_both("SimoVuQuoc", SimoVuQuoc<HeavyTop<float>>(svq_settings<float>()));
  for (const int order : {2, 4}) {
    SplittingSettings<float> s;
    s.order = order;
    register_both("NoSquish order " + std::to_string(order), NoSquish<HeavyTop<float>>(s));
  }
  add_machine_context();
  benchmark::AddCustomContext("simd", lanes::available() ? lanes::to_string(lanes::best_isa()) : "none");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
