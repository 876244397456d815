// Floating-point operations of one mechanism step (mechanism_step_flops.hpp: the counting scalar on the
// mechanism code, checked bit for bit against the double steps), for the cases of
// bench_mechanism_solve (double pendulum 2 bodies, four-bar 4, inline four 9, V8 17; the same
// states, methods and steps) and the two methods of issue 15's targets: the modified HHT with the
// inertia shift and the Livens EML. Prints a Markdown table: flops per step and per Newton iteration,
// and, with the double step timed here on one core, GFLOP/s and the fraction of a core's FP64 peak
// given as the first argument (GFLOP/s; default 16 flops/cycle × 2.45 GHz, an AVX2 FMA core of the
// VM this was written on).
//   bench_mechanism_flops [PEAK_GFLOPS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mechanism_step_flops.hpp"
#include "v_engine.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::mechanism;

struct Row {
  double flops = 0, iterations = 0, steps_per_second = 0;
};

/// mechanism_step_flops, and the double step from the state it started from timed over ≥ 0.2 s.
template <template <class> class M, class Cap, class MakeSettings>
Row measure(const testing::TestMechanism<Cap>& tm, double h, const MakeSettings& settings) {
  const auto counted = bench::mechanism_step_flops<M>(tm, h, settings);
  const M<Mechanism<double, Cap>> d(settings(double{}));
  long reps = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  do {
    for (int r = 0; r < 50; ++r, ++reps) {
      auto s = counted.before;
      d.step(tm.mech, s, 10 * h, h);
      if (s.q[0] != s.q[0]) std::exit(2);  // keeps the step
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (seconds < 0.2);
  return {counted.flops, counted.iterations, double(reps) / seconds};
}

template <class S>
MechanismHhtSettings<S> hht_shift(double alpha) {
  MechanismHhtSettings<S> s;
  s.alpha = S(alpha);
  s.inertia_shift = true;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const double peak = argc > 1 ? std::atof(argv[1]) : 16 * 2.45;
  const auto pendulum = testing::double_pendulum<SmallCapacity>();
  const auto four_bar = testing::four_bar<SmallCapacity>(0.5, 100.0);
  const auto inline_four = testing::engine<LargeCapacity>(testing::inline_four_geometry(), 0.3, 100.0, 10.0);
  const auto v8 = testing::engine<LargeCapacity>(testing::v8_geometry(), 0.3, 100.0, 10.0);
  std::printf("| case | method | flops/step | Newton it./step | flops/iteration | steps/s (1 core) | GFLOP/s | of %.0f GFLOP/s |\n",
              peak);
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  const auto print = [&](const std::string& name, const char* method, const Row& r) {
    const double gflops = r.flops * r.steps_per_second * 1e-9;
    std::printf("| %s | %s | %.0f | %.2f | %.0f | %.3g | %.2f | %.1f %% |\n", name.c_str(), method, r.flops, r.iterations,
                r.flops / r.iterations, r.steps_per_second, gflops, 100 * gflops / peak);
  };
  const auto both = [&](const std::string& name, const auto& tm, double alpha, double h) {
    print(name, "modified HHT + shift",
          measure<MechanismModifiedHht>(tm, h, [&](auto s) { return hht_shift<decltype(s)>(alpha); }));
    print(name, "Livens EML",
          measure<MechanismLivensEm>(tm, h, [](auto s) { return MechanismLivensSettings<decltype(s)>{}; }));
  };
  both("pendulum_2", pendulum, -0.2, 1e-3);
  both("four_bar_4", four_bar, -0.2, 1e-3);
  both("inline_four_9", inline_four, -0.3, 1e-4);
  both("v8_17", v8, -0.3, 1e-4);
  return 0;
}
