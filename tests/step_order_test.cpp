// The order of the first adaptive launch on the GPU (kernels/step_order.hpp, initial_order_keys),
// judged on the CPU by what it is for. A warp of 32 threads runs until its busiest lane is done, so
// the bodies a warp steps should take alike numbers of steps. Every body starts from the same
// h_initial, so the step sizes, which order the later launches, cannot order the first output
// interval; the bodies' initial spin does. The ensemble is bench/adaptive.md's torque-free spread
// (J = diag(6, 8, 3), Ω(0) = s·(10, 20, 20), per-unit-step control) with s log-uniform on
// [0.01, 1] in index order, so that nearly every warp mixes fast and slow bodies, as the shuffled
// ensemble of bench/adaptive_gpu.py does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "kernels/step_order.hpp"
#include "quatstep/adaptive/adaptive_hht.hpp"
#include "quatstep/quatstep.hpp"
#include "support/adaptive_problems.hpp"
#include "support/adaptive_run.hpp"

namespace quatstep {
namespace {

constexpr index_t warp = 32;

/// The steps the bodies take over the steps their warps issue, each warp as many as its busiest
/// lane, when thread t steps body order[t].
double lane_use(const std::vector<index_t>& steps, const std::vector<index_t>& order) {
  double taken = 0, issued = 0;
  for (std::size_t first = 0; first < order.size(); first += warp) {
    const std::size_t end = std::min(order.size(), first + warp);
    index_t busiest = 0;
    for (std::size_t t = first; t < end; ++t) {
      taken += double(steps[order[t]]);
      busiest = std::max(busiest, steps[order[t]]);
    }
    issued += double(end - first) * double(busiest);
  }
  return taken / issued;
}

/// Body indices by ascending key, ties by index: what StepOrder::sort gives (a stable radix sort).
template <class Key>
std::vector<index_t> stable_order(const std::vector<Key>& keys) {
  std::vector<index_t> order(keys.size());
  std::iota(order.begin(), order.end(), index_t(0));
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return keys[a] < keys[b]; });
  return order;
}

TEST(StepOrder, InitialOrderKeysPutTheFastestSpinFirstTiesByIndex) {
  std::vector<RigidBodyKinematics<double>> initial(6);
  const double spin[] = {1, 3, 2, 3, 0, -3};  // about body x; bodies 1, 3 and 5 turn alike
  for (std::size_t i = 0; i < initial.size(); ++i) initial[i].omega_body = Vec3<double>(spin[i], 0, 0);
  EXPECT_EQ(stable_order(cuda::initial_order_keys(initial)), (std::vector<index_t>{1, 3, 5, 2, 0, 4}));
  std::vector<RigidBodyKinematics<float>> in_float(2);
  in_float[1].omega_body = Vec3<float>(0, 2, 0);
  EXPECT_EQ(cuda::initial_order_keys(in_float), (std::vector<float>{-0.0f, -4.0f}));
}

TEST(StepOrder, OrderedByInitialSpinTheFirstIntervalsWarpsKeepTheirLanesBusy) {
  constexpr index_t bodies = 4096;  // 128 warps: each spans a 1.04× range of spins when ordered
  std::vector<HeavyTop<double>> models(bodies, testing::torque_free_body());
  std::vector<RigidBodyKinematics<double>> initial(bodies, testing::torque_free_start());
  constexpr double golden = 0.6180339887498949;
  for (index_t i = 0; i < bodies; ++i) {  // s = 0.01^u, u spread evenly over [0, 1) but not in index order
    const double u = std::fmod(double(i) * golden, 1.0);
    initial[i].omega_body *= std::pow(0.01, u);
  }
  HhtSettings<double> hht;
  hht.alpha = -0.2;
  hht.inertia_shift = true;
  AdaptiveSettings<double> a;  // as bench/adaptive_gpu.py's scenario
  a.control = ErrorControl::per_unit_step;
  a.rotation_atol = 1e-4;
  a.h_initial = 1e-5;
  a.h_max = 1e-2;
  const AdaptiveHht<ModifiedHht<HeavyTop<double>>> stepper(ModifiedHht<HeavyTop<double>>(hht), a);
  const auto results = testing::run_adaptive(stepper, models, initial, 0.2, 1, 1);  // the first output interval
  std::vector<index_t> steps;
  for (const testing::AdaptiveBodyResult& r : results) {
    ASSERT_EQ(r.status, Status::ok);
    steps.push_back(r.accepted + r.rejected);
  }
  std::vector<index_t> index_order(bodies);
  std::iota(index_order.begin(), index_order.end(), index_t(0));
  std::vector<index_t> negated(steps.size());  // most steps first: the best any order can do
  std::transform(steps.begin(), steps.end(), negated.begin(), [](index_t s) { return -s; });
  const double in_index_order = lane_use(steps, index_order),
               by_spin = lane_use(steps, stable_order(cuda::initial_order_keys(initial))),
               best = lane_use(steps, stable_order(negated));
  std::printf("first interval: %.0f … %.0f steps per body; lanes busy %.3f in index order, %.3f by initial spin, "
              "%.3f by the steps themselves\n",
              double(*std::min_element(steps.begin(), steps.end())), double(*std::max_element(steps.begin(), steps.end())),
              in_index_order, by_spin, best);
  EXPECT_LT(in_index_order, 0.5);
  EXPECT_GT(by_spin, 0.95);
  EXPECT_GT(by_spin, 0.99 * best);
}

}  // namespace
}  // namespace quatstep
