// Body-steps per second of each scheme on the same CPU ensemble: heavy tops (Sherif §10.1 disc
// about a fixed point, docs/errata.md S1–S2) with spins and tilts varied over the ensemble, h = 1e-3,
// 100 steps per iteration, OpenMP over bodies (CpuEnsemble). Counter `body_steps` is a rate.
// Default settings: Newton tolerance 1e-10; α = −0.2 for Simo–Vu-Quoc and the modified HHT.
//
//   lie_group_throughput [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <vector>

#include "cpu_ensemble.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/models/heavy_top.hpp"

using namespace quatstep;
using Top = HeavyTop<double>;

namespace {

constexpr double h = 1e-3;
constexpr index_t steps_per_iteration = 100;

template <class I>
void body_steps(benchmark::State& state, const I& integrator) {
  const index_t n = state.range(0);
  const Top top = Top::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0, {0, 1, 0}, {0, 0, -9.81});
  std::vector<Top> models(n, top);
  std::vector<RigidBodyKinematics<double>> initial(n);
  for (index_t i = 0; i < n; ++i) {
    const double f = double(i) / n;
    initial[i].quaternion = quat_from_rotation_vector<double>(Vec3<double>(0.3 * f, 0, 0.1));
    initial[i].omega_body = Vec3<double>(0, 150 * (0.5 + f), -4.61538);
  }
  CpuEnsemble<I> ens(integrator, models, 0.0, h);
  const SampleView<double> none{nullptr, n, 0, 0, 1};  // no samples written
  ens.initialize(initial, none);
  for (auto _ : state) ens.advance(steps_per_iteration, none);
  index_t failed = 0;
  for (const Status s : ens.status()) failed += s != Status::ok;
  state.counters["body_steps"] =
      benchmark::Counter(double(n * steps_per_iteration), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["failed_bodies"] = double(failed);
}

HhtSettings<double> hht_settings() {  // second-order modified HHT, α = −0.2
  HhtSettings<double> s;
  s.inertia_shift = true;
  return s;
}

void zupan3(benchmark::State& s) { body_steps(s, Zupan3<Top>()); }
void explicit_newmark_lie(benchmark::State& s) { body_steps(s, ExplicitNewmarkLie<Top>()); }
void midpoint_lie(benchmark::State& s) { body_steps(s, MidpointLie<Top>()); }
void simo_vu_quoc(benchmark::State& s) { body_steps(s, SimoVuQuoc<Top>()); }
void modified_hht_shift(benchmark::State& s) { body_steps(s, ModifiedHht<Top>(hht_settings())); }

}  // namespace

BENCHMARK(zupan3)->RangeMultiplier(4)->Range(64, 1024)->UseRealTime();
BENCHMARK(explicit_newmark_lie)->RangeMultiplier(4)->Range(64, 1024)->UseRealTime();
BENCHMARK(midpoint_lie)->RangeMultiplier(4)->Range(64, 1024)->UseRealTime();
BENCHMARK(simo_vu_quoc)->RangeMultiplier(4)->Range(64, 1024)->UseRealTime();
BENCHMARK(modified_hht_shift)->RangeMultiplier(4)->Range(64, 1024)->UseRealTime();

BENCHMARK_MAIN();
