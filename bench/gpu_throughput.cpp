// Throughput of the production path on both backends: `integrator × backend × precision × N`, the
// scenario factory (make_ensemble) exactly as `quatstep run` uses it, on the heavy top of Sherif
// §10.1 (h = 1e-4, spins swept 150·(1 … 1.001) rad/s so no two bodies are alike). One benchmark
// iteration is one Ensemble::advance (one kernel launch on the GPU) of enough steps for ~1e9
// body-steps on the GPU (1e8 at N = 1e3) and ~2e6 on the CPU; the samples window is empty, so
// what is timed is the integration plus the per-launch copy of the per-body records. Counters:
//   body_steps/s      bodies × steps per wall-clock second
//   newton_it/step    Newton iterations per body-step (0 for explicit schemes)
//   failed            bodies not ok at the end (a run with failures is an error, not a figure)
//   flops/step        the step's flops, counted with the counting scalar (step_flops.hpp)
//   peak_fraction     flops/step × body_steps/s over the H100/H200 peak without tensor cores:
//                     34 TFLOP/s in FP64, 67 TFLOP/s in FP32 (CUDA rows only)
// The peers (bench/peers_gpu.cu) are linked into the same program and run in the same invocation.
// mechanism/…: the mechanisms of bench_mechanism_flops — the double pendulum (2 bodies) and Kinon's
// four-bar spinning (4), SmallCapacity, h = 1e-3, α = −0.2; an inline four (9) and the V8 crank drive
// (17, problems/v_engine.hpp), LargeCapacity, h = 1e-4, α = −0.3 — on the GPU mechanism batch
// (kernels/cuda_mechanisms.cuh) with issue 15's two methods, one launch per 100 steps with one sample
// copied back; body_steps/s counts mechanism-steps there, flops/step is the mechanism step's
// (mechanism_step_flops.hpp) and peak_fraction the FP64 one.
// Without a usable GPU the CUDA benchmarks report the reason and the CPU ones still run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "ensemble_factory.hpp"
#include "host/ensemble_builder.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_mechanisms.hpp"
#include "mechanism_step_flops.hpp"
#include "mechanisms.hpp"
#include "quatstep/mechanism/channels.hpp"
#include "quatstep/mechanism/registry.hpp"
#include "scenario.hpp"
#include "step_flops.hpp"
#include "v_engine.hpp"

namespace quatstep::bench {
namespace {

std::string heavy_top_scenario(const IntegratorCase& c, index_t bodies, const char* precision, Backend backend) {
  std::ostringstream s;
  s << "[model]\ntype = \"heavy_top\"\ninertia = [0.234375, 0.46875, 0.234375]\nmass = 15.0\n"
       "center_of_mass = [0.0, 1.0, 0.0]\ngravity = [0.0, 0.0, -9.81]\n"
       "[initial]\nomega_body = [0.0, 150.0, -4.61538]\n"
    << "[integrator]\nmethod = \"" << method_views()[c.method].info.name << "\"\n" << c.keys << "[run]\nprecision = \"" << precision << "\"\nbackend = \""
    << to_string(backend) << "\"\n[time]\ndt = 1e-4\nt_end = 1.0\n[ensemble]\nsize = " << bodies << "\n"
    << "[[ensemble.sweep]]\nkey = \"initial.omega_body\"\nfrom = [0.0, 150.0, -4.61538]\nto = [0.0, 150.15, -4.61538]\n";
  return s.str();
}

/// The flops of one step of the scenario's integrator on the heavy top (step_flops.hpp).
double scenario_flops_per_step(const Scenario& sc) {
  return with_registered_integrator<Counted, double>(
      sc.model, sc.integrator.method, sc.integrator.variant, [&](auto model_tag, auto tag) -> double {
        if constexpr (std::is_same_v<tag_type<decltype(model_tag)>, HeavyTopModel>)
          return flops_per_step(build::make_integrator<tag_type<decltype(tag)>>(sc.integrator));
        else
          throw std::logic_error("flops are counted on the heavy top");
      });
}

void throughput(benchmark::State& state, const IntegratorCase& c, Backend backend, const char* precision) {
  const index_t n = state.range(0);
  std::unique_ptr<Ensemble> ensemble;
  double flops = 0;
  try {
    const Scenario sc = parse_scenario(heavy_top_scenario(c, n, precision, backend), "bench.toml");
    flops = scenario_flops_per_step(sc);
    ensemble = make_ensemble(sc, choose_backend(backend));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const SampleView<double> none{nullptr, n, 0, 0, 1, 0};
  ensemble->initialize(none);
  // At most 1e5 steps per launch: at N = 1e3 a launch of 1e9 body-steps is 1e6 steps of one
  // under-filled wave (seconds per benchmark) and would measure nothing more.
  const double body_steps_per_launch = backend == Backend::cuda ? 1e9 : 2e6;
  const index_t steps = std::clamp<index_t>(index_t(body_steps_per_launch / double(n)), 10, 100'000);
  for (auto _ : state) ensemble->advance(steps, none);
  const auto& it = ensemble->newton_iterations();
  const double body_steps = double(n) * double(steps) * double(state.iterations());
  state.counters["body_steps/s"] = benchmark::Counter(body_steps, benchmark::Counter::kIsRate);
  state.counters["flops/step"] = flops;
  if (backend == Backend::cuda) {
    const double peak = std::string(precision) == "double" ? 34e12 : 67e12;
    state.counters["peak_fraction"] = benchmark::Counter(body_steps * flops / peak, benchmark::Counter::kIsRate);
  }
  state.counters["newton_it/step"] = double(std::accumulate(it.begin(), it.end(), index_t(0))) / body_steps;
  const auto& st = ensemble->status();
  const auto failed = std::count_if(st.begin(), st.end(), [](Status s) { return s != Status::ok; });
  state.counters["failed"] = double(failed);
  if (failed) state.SkipWithError("bodies failed: not a valid throughput figure");
}

/// n copies of the test mechanism from its consistent initial state, 100 steps of h per launch;
/// `flops` per mechanism-step.
template <class Integrator, class Cap>
void mechanism_throughput(benchmark::State& state, const Integrator& integrator, const testing::TestMechanism<Cap>& tm,
                          double h, double flops) {
  const index_t n = state.range(0), stride = 100;
  typename Integrator::State s0{};
  if (integrator.initialize(tm.mech, tm.initial, 0.0, s0) != Status::ok) {
    state.SkipWithError("the mechanism's initial state failed");
    return;
  }
  int scalars = mechanism::mechanism_channel_scalars(tm.mech.n_bodies) + 1;
  if constexpr (has_integrator_channels<Integrator>::value) scalars += channel_scalars(Integrator::channels);
  const std::size_t size = std::size_t(n);
  std::unique_ptr<MechanismBatch> batch;
  try {
    if (const std::string reason = cuda::device_unusable_reason(); !reason.empty()) throw std::runtime_error(reason);
    batch = cuda::make_cuda_mechanisms(cuda::MechanismBatchInput<Integrator>{
        integrator, std::vector(size, tm.mech), std::vector(size, s0), std::vector(size, Status::ok),
        std::vector<index_t>(size, 0), std::vector<index_t>(size, -1), StepRecords{}, 0.0, h, stride, scalars});
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::vector<double> window(std::size_t(scalars) * size);
  index_t j = 0;
  for (auto _ : state) batch->advance(++j, 1, window.data());
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  StepRecords fixed_steps;  // none
  batch->records(status, iterations, failed_step, fixed_steps);
  const double steps = double(n) * double(stride) * double(state.iterations());
  state.counters["body_steps/s"] = benchmark::Counter(steps, benchmark::Counter::kIsRate);
  state.counters["flops/step"] = flops;
  state.counters["peak_fraction"] = benchmark::Counter(steps * flops / 34e12, benchmark::Counter::kIsRate);
  state.counters["newton_it/step"] = double(std::accumulate(iterations.begin(), iterations.end(), index_t(0))) / steps;
  const auto failed = std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
  state.counters["failed"] = double(failed);
  if (failed) state.SkipWithError("mechanisms failed: not a valid throughput figure");
}

/// Method M with settings(S{}, α) on the test mechanism `name` at step h, its flops per step counted
/// once here, from 10³ to `most` mechanisms.
template <template <class> class M, class Cap, class MakeSettings>
void register_mechanism(const std::string& method, const std::string& name,
                        const std::shared_ptr<const testing::TestMechanism<Cap>>& tm, double alpha, double h,
                        const MakeSettings& settings, index_t most) {
  const auto with_alpha = [&](auto s) { return settings(s, alpha); };
  const M<mechanism::Mechanism<double, Cap>> integrator(with_alpha(double{}));
  const double flops = mechanism_step_flops<M>(*tm, h, with_alpha).flops;
  benchmark::RegisterBenchmark(("cuda/double/mechanism/" + method + "/" + name).c_str(),
                               [integrator, tm, h, flops](benchmark::State& s) {
                                 mechanism_throughput(s, integrator, *tm, h, flops);
                               })
      ->RangeMultiplier(10)
      ->Range(1000, most)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

/// Issue 15's two methods on the mechanism.
template <class Cap>
void register_mechanism_methods(const std::string& name, const testing::TestMechanism<Cap>& mechanism, double alpha,
                                double h, index_t most) {
  const auto tm = std::make_shared<const testing::TestMechanism<Cap>>(mechanism);
  register_mechanism<mechanism::MechanismModifiedHht>("modified_hht_shift", name, tm, alpha, h, [](auto s, double a) {
    mechanism::MechanismHhtSettings<decltype(s)> shifted;
    shifted.alpha = decltype(s)(a);
    shifted.inertia_shift = true;
    return shifted;
  }, most);
  register_mechanism<mechanism::MechanismLivensEm>("livens_em", name, tm, alpha, h, [](auto s, double) {
    return mechanism::MechanismLivensSettings<decltype(s)>{};
  }, most);
}

const bool registered_mechanisms = [] {
  // The cases, α and h of bench_mechanism_flops, so that the GPU's rates and fractions of peak sit
  // beside the CPU's: 2, 4, 9 and 17 bodies (the four-bar at 0.5 rad/s: the equivariant joint
  // gradient runs on the rigidly spinning loop since its closed form, docs/mechanisms.md).
  using mechanism::LargeCapacity, mechanism::SmallCapacity;
  register_mechanism_methods("double_pendulum_2", testing::double_pendulum<SmallCapacity>(), -0.2, 1e-3, 100'000);
  register_mechanism_methods("four_bar_4", testing::four_bar<SmallCapacity>(0.5, 100.0), -0.2, 1e-3, 100'000);
  register_mechanism_methods("inline_four_9",
                             testing::engine<LargeCapacity>(testing::inline_four_geometry(), 0.3, 100.0, 10.0), -0.3,
                             1e-4, 10'000);
  register_mechanism_methods("v8_17", testing::engine<LargeCapacity>(testing::v8_geometry(), 0.3, 100.0, 10.0), -0.3,
                             1e-4, 10'000);
  return true;
}();

const bool registered = [] {
  const std::string reason = cuda::device_unusable_reason();
  benchmark::AddCustomContext("gpu", reason.empty() ? cuda::device_description() : "none (" + reason + ")");
  // The CPU stops at 1e5 bodies: 1e7 would take minutes per iteration.
  static const std::vector<IntegratorCase> cases = integrator_cases();  // every registered integrator
  for (const auto& [backend, max_bodies] : {std::pair{Backend::cuda, 10'000'000}, std::pair{Backend::cpu, 100'000}})
    for (const IntegratorCase& c : cases)
      for (const char* precision : {"double", "float"})
        benchmark::RegisterBenchmark((std::string(to_string(backend)) + "/" + precision + "/" + c.name).c_str(),
                                     [&c, backend = backend, precision](benchmark::State& s) {
                                       throughput(s, c, backend, precision);
                                     })
            ->RangeMultiplier(10)
            ->Range(1000, max_bodies)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace quatstep::bench
