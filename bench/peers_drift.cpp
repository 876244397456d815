// Long run: energy and angular-momentum drift against time, quatstep's integrators and the peers on
// the same 8 bodies (free_rotation_ensemble.hpp, seed 1, torque-free, |ω| ≤ 20 rad/s), h = 0.01,
// 10⁶ steps (t ∈ [0, 10⁴]). At t = h·{1, 2, 5}·10^k the max over the bodies of |E − E0|/E0 and
// |L − L0|/|L0| (accuracy.hpp) is written as CSV (nan once a body has diverged);
// bench/peers_table.py --drift plots it.
// Odeint's RK4 is left out: it is the register RK4's scheme, equal to 1.8e-14 (peers_test.cpp).
//   peers_drift > bench/peers_drift.csv
#include <chrono>
#include <cstdio>

#include "peers/accuracy.hpp"
#include "peers/cpu_runners.hpp"
#include "peers/quatstep_methods.hpp"
#include "peers/semi_implicit_euler_step.hpp"

using namespace quatstep;
using namespace quatstep::peers;

namespace {

constexpr index_t bodies = 8;
constexpr double h = 0.01;
constexpr index_t total_steps = 1000000;
const FreeRotationSpec spec{};

template <class Runner>
void long_run(const char* method, Runner runner) {
  const Reference r = checked_bodies(spec, strided_bodies(bodies, bodies));
  runner.reset();
  const auto start = std::chrono::steady_clock::now();
  index_t done = 0;
  for (index_t decade = 1; decade <= total_steps; decade *= 10)
    for (index_t m : {1, 2, 5}) {
      const index_t target = m * decade;
      if (target > total_steps) break;
      runner.advance(target - done);
      done = target;
      Drift worst{0, 0};
      for (index_t k = 0; k < bodies; ++k) {
        const Drift d = drift(r, k, runner.state(k));
        worst = {max_or_nan(worst.energy, d.energy), max_or_nan(worst.momentum, d.momentum)};
      }
      std::printf("%s,%ld,%.6g,%.6e,%.6e\n", method, long(done), h * double(done), worst.energy, worst.momentum);
    }
  std::fprintf(stderr, "%s: %.1f s\n", method,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::fflush(stdout);
}

}  // namespace

int main() {
  std::printf("method,steps,t,energy_drift,momentum_drift\n");
  for_each_quatstep_method([](const char* name, auto integrator) {
    long_run(name, CpuQuatstepRunner<decltype(integrator)>(integrator, spec, bodies, h));
  });
  long_run("peer:rk4_registers", CpuPeerLoop<Rk4Step, double>(spec, bodies, h));
  long_run("peer:semi_implicit_euler_f32", CpuPeerLoop<SemiImplicitEulerStep, float>(spec, bodies, h));
  return 0;
}
