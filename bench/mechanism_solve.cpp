// The mechanism HHT step and its Newton linear algebra, structured against dense (docs/mechanisms.md):
// for the double pendulum (2 bodies), the four-bar of Kinon §5.5 (4), an inline four (9) and a V8
// (17) (problems/mechanisms.hpp, problems/v_engine.hpp), per case
//   Step        one MechanismModifiedHht step (inertia shift; α = −0.2, h = 1e-3 for the small ones,
//               α = −0.3, h = 1e-4 for the engines) — steps per second on one core;
//   Structured  factorising the saddle-point Newton matrix by its body blocks and the Schur
//               complement onto the joint rows (kkt.hpp), and one solve;
//   Dense       the same matrix as one dense K×K LU with partial pivoting (lu.hpp's arithmetic,
//               row-major, on the heap), and one solve;
//   StepEml     one MechanismLivensEm step (mechanism/livens.hpp, equivariant joint gradient) at the
//               same h — the Livens scheme's steps per second on one core.
// Single-threaded: a mechanism is one thread's work, on the CPU as on the GPU.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "mechanisms.hpp"
#include "v_engine.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::mechanism;

/// Textbook dense LU with partial pivoting, lu.hpp's operations on a runtime size.
struct DenseLu {
  int n;
  std::vector<double> a;
  std::vector<int> pivot;
  void factorize() {
    for (int k = 0; k < n; ++k) {
      int p = k;
      for (int i = k + 1; i < n; ++i)
        if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) p = i;
      pivot[k] = p;
      if (p != k)
        for (int j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      const double inv = 1.0 / a[k * n + k];
      for (int i = k + 1; i < n; ++i) {
        const double l = (a[i * n + k] *= inv);
        for (int j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
      }
    }
  }
  void solve(std::vector<double>& x) const {
    for (int k = 0; k < n; ++k) std::swap(x[k], x[pivot[k]]);
    for (int i = 1; i < n; ++i)
      for (int j = 0; j < i; ++j) x[i] -= a[i * n + j] * x[j];
    for (int i = n - 1; i >= 0; --i) {
      for (int j = i + 1; j < n; ++j) x[i] -= a[i * n + j] * x[j];
      x[i] /= a[i * n + i];
    }
  }
};

enum class Part { step, structured, dense };

template <class Cap>
void run(benchmark::State& state, const testing::TestMechanism<Cap>& tm, double alpha, double h, Part part) {
  using Mech = Mechanism<double, Cap>;
  using I = MechanismModifiedHht<Mech>;
  MechanismHhtSettings<double> settings;
  settings.alpha = alpha;
  settings.inertia_shift = true;
  const I integrator(settings);
  typename I::State s;
  integrator.initialize(tm.mech, tm.initial, 0.0, s);
  for (int i = 0; i < 10; ++i) integrator.step(tm.mech, s, i * h, h);
  const typename I::Step sys(tm.mech, integrator, s, 10 * h, h);
  const typename I::VecK x = I::unknowns(s);
  typename I::VecK r;
  typename I::Kkt assembled;
  sys.assemble(x, r, &assembled);
  // The live unknowns and the dense copy of the same matrix.
  std::vector<int> index, where(I::K, -1);
  for (int i = 0; i < I::K; ++i)
    if (i >= I::Kkt::joint_index() ? i - I::Kkt::joint_index() < tm.mech.n_rows : i / 8 < tm.mech.n_bodies)
      where[i] = static_cast<int>(index.size()), index.push_back(i);
  const int n = static_cast<int>(index.size());
  DenseLu dense{n, std::vector<double>(n * n, 0.0), std::vector<int>(n)};
  for (int b = 0; b < tm.mech.n_bodies; ++b)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) dense.a[where[8 * b + i] * n + where[8 * b + j]] = assembled.body[b].lu(i, j);
  for (int k = 0; k < tm.mech.n_joints; ++k)
    for (int side = 0; side < 2; ++side) {
      const int b = tm.mech.joints[k].body[side];
      if (b == ground) continue;
      for (int i = 0; i < tm.mech.joints[k].rows; ++i)
        for (int j = 0; j < 7; ++j) {
          const int row = where[I::Kkt::joint_index() + tm.mech.joints[k].offset + i], col = where[8 * b + j];
          dense.a[row * n + col] = dense.a[col * n + row] = assembled.jac[k][side](i, j);
        }
    }
  std::vector<double> rhs(n);
  for (int i = 0; i < n; ++i) rhs[i] = r[index[i]];
  for (auto _ : state) {
    switch (part) {
      case Part::step: {
        typename I::State next = s;
        benchmark::DoNotOptimize(integrator.step(tm.mech, next, 10 * h, h));
        break;
      }
      case Part::structured: {
        typename I::Kkt kkt = assembled;
        kkt.factorize(tm.mech);
        benchmark::DoNotOptimize(kkt.solve(r));
        break;
      }
      case Part::dense: {
        DenseLu lu = dense;
        lu.factorize();
        std::vector<double> y = rhs;
        lu.solve(y);
        benchmark::DoNotOptimize(y.data());
        break;
      }
    }
  }
  state.counters["K"] = n;
  state.counters["joint_rows"] = tm.mech.n_rows;
  state.counters["per_second"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

template <class Cap>
void run_eml(benchmark::State& state, const testing::TestMechanism<Cap>& tm, double h) {
  using I = MechanismLivensEm<Mechanism<double, Cap>>;
  const I integrator;
  typename I::State s;
  integrator.initialize(tm.mech, tm.initial, 0.0, s);
  for (int i = 0; i < 10; ++i) integrator.step(tm.mech, s, i * h, h);
  long iterations = 0;
  for (auto _ : state) {
    typename I::State next = s;
    const NewtonOutcome o = integrator.step(tm.mech, next, 10 * h, h);
    iterations += o.iterations;
    benchmark::DoNotOptimize(o);
  }
  state.counters["newton_per_step"] = double(iterations) / double(state.iterations());
  state.counters["per_second"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  const auto pendulum = testing::double_pendulum<SmallCapacity>();
  const auto four_bar = testing::four_bar<SmallCapacity>(0.5, 100.0);
  const auto inline_four = testing::engine<LargeCapacity>(testing::inline_four_geometry(), 0.3, 100.0, 10.0);
  const auto v8 = testing::engine<LargeCapacity>(testing::v8_geometry(), 0.3, 100.0, 10.0);
  for (const auto& [name, part] : {std::pair{"Step", Part::step}, std::pair{"Structured", Part::structured},
                                    std::pair{"Dense", Part::dense}}) {
    const Part p = part;
    const std::string n = name;
    benchmark::RegisterBenchmark((n + "/pendulum_2").c_str(), [&, p](benchmark::State& s) { run(s, pendulum, -0.2, 1e-3, p); });
    benchmark::RegisterBenchmark((n + "/four_bar_4").c_str(), [&, p](benchmark::State& s) { run(s, four_bar, -0.2, 1e-3, p); });
    benchmark::RegisterBenchmark((n + "/inline_four_9").c_str(), [&, p](benchmark::State& s) { run(s, inline_four, -0.3, 1e-4, p); });
    benchmark::RegisterBenchmark((n + "/v8_17").c_str(), [&, p](benchmark::State& s) { run(s, v8, -0.3, 1e-4, p); });
  }
  benchmark::RegisterBenchmark("StepEml/pendulum_2", [&](benchmark::State& s) { run_eml(s, pendulum, 1e-3); });
  benchmark::RegisterBenchmark("StepEml/four_bar_4", [&](benchmark::State& s) { run_eml(s, four_bar, 1e-3); });
  benchmark::RegisterBenchmark("StepEml/inline_four_9", [&](benchmark::State& s) { run_eml(s, inline_four, 1e-4); });
  benchmark::RegisterBenchmark("StepEml/v8_17", [&](benchmark::State& s) { run_eml(s, v8, 1e-4); });
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
