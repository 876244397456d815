// Adaptive steps on both backends: CpuEnsemble and cuda::CudaEnsemble over the same AdaptiveHht
// stepper, bodies and launches give the same bits — samples at the output times (dense output),
// final states (t, h, last step, predictor history), statuses, failed steps, Newton iterations and
// the step records (accepted and rejected steps, smallest and largest h). This file is compiled
// with --fmad=false (tests/CMakeLists.txt), as the strict agreement test is. The ensemble is 64
// heavy tops of Sherif §10.1 whose spin spans 100× (1.5 … 150 rad/s), so that step sizes diverge
// between the threads of a warp. Without a usable GPU every test here skips and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "cpu_ensemble.hpp"
#include "gpu_test_support.hpp"
#include "kernels/cuda_ensemble.cuh"
#include "kernels/step_order.hpp"
#include "quatstep/adaptive/adaptive_hht.hpp"
#include "quatstep/quatstep.hpp"
#include "reference/sherif_heavy_top.hpp"

namespace quatstep {

// The fixed-step CudaEnsemble has (empty) step records too: the scenario factory's checkpoints ask
// every backend for them. Compiled here, where the factory's CUDA shards are not built.
template StepRecords cuda::CudaEnsemble<ModifiedHht<HeavyTop<double>>>::step_records() const;
template void cuda::CudaEnsemble<ModifiedHht<HeavyTop<double>>>::import_step_records(const StepRecords&);

namespace {

using testing::same_bits;
using Top = HeavyTop<double>;

constexpr index_t bodies = 64, intervals = 100;
constexpr double interval = 1e-3;

/// Body i of the 100× spin spread.
RigidBodyKinematics<double> start(index_t i) {
  RigidBodyKinematics<double> k = reference::sherif_heavy_top_initial();
  k.omega_body *= 0.01 + 0.99 * double(i) / double(bodies - 1);
  return k;
}

template <class Stepper>
void expect_identical_runs(const Stepper& stepper) {
  const std::vector<Top> models(bodies, reference::sherif_heavy_top());
  std::vector<RigidBodyKinematics<double>> initial;
  for (index_t i = 0; i < bodies; ++i) initial.push_back(start(i));
  CpuEnsemble<Stepper> cpu(stepper, models, 0.0, interval);
  cuda::CudaEnsemble<Stepper> gpu(stepper, models, 0.0, interval);
  constexpr int scalars = sample_scalars<Stepper>();
  const index_t samples = intervals + 1;
  std::vector<double> cpu_out(samples * scalars * bodies), gpu_out(cpu_out.size());
  const auto view = [&](std::vector<double>& v) { return SampleView<double>{v.data(), bodies, 0, samples, 1, scalars}; };
  cpu.initialize(initial, view(cpu_out));
  gpu.initialize(initial, view(gpu_out));
  for (const index_t k : {index_t(30), intervals - 30}) {  // two launches: the state must survive between them
    cpu.advance(k, view(cpu_out));
    gpu.advance(k, view(gpu_out));
  }
  const StepRecords c = cpu.step_records(), g = gpu.step_records();
  EXPECT_TRUE(same_bits(cpu_out, gpu_out, "samples")) << testing::differing_channels(cpu_out, gpu_out, bodies, scalars);
  EXPECT_TRUE(same_bits(cpu.state_data(), gpu.state_data(), "final states"));
  EXPECT_TRUE(same_bits(cpu.status(), gpu.status(), "status"));
  EXPECT_TRUE(same_bits(cpu.failed_step(), gpu.failed_step(), "failed_step"));
  EXPECT_TRUE(same_bits(cpu.newton_iterations(), gpu.newton_iterations(), "newton_iterations"));
  EXPECT_TRUE(same_bits(c.accepted, g.accepted, "accepted steps"));
  EXPECT_TRUE(same_bits(c.rejected, g.rejected, "rejected steps"));
  EXPECT_TRUE(same_bits(c.smallest, g.smallest, "smallest step"));
  EXPECT_TRUE(same_bits(c.largest, g.largest, "largest step"));
  for (index_t i = 0; i < bodies; ++i) ASSERT_EQ(cpu.status()[i], Status::ok) << "body " << i;
  EXPECT_GT(c.accepted[bodies - 1], 10 * c.accepted[0]) << "the test needs the steps to diverge across the bodies";
}

AdaptiveSettings<double> control(ErrorControl mode) {
  AdaptiveSettings<double> a;
  a.control = mode;
  a.rotation_atol = 1e-6;
  a.h_initial = 1e-5;
  a.h_max = 1e-2;
  return a;
}

HhtSettings<double> shifted() {
  HhtSettings<double> s;
  s.alpha = -0.2;
  s.inertia_shift = true;
  return s;
}

TEST(AdaptiveAgreement, ModifiedHhtPerUnitStepIsBitwiseIdenticalOnCpuAndGpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  expect_identical_runs(AdaptiveHht<ModifiedHht<Top>>(ModifiedHht<Top>(shifted()), control(ErrorControl::per_unit_step)));
}

TEST(AdaptiveAgreement, ClassicalHhtPerStepIsBitwiseIdenticalOnCpuAndGpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  expect_identical_runs(AdaptiveHht<Hht<Top>>(Hht<Top>(shifted()), control(ErrorControl::per_step)));
}

// The order the adaptive kernel's threads take the bodies in (kernels/step_order.hpp): by next step
// size, ties by index. The runs above step their bodies in it: this spread puts the fastest top,
// the last body, first.
TEST(StepOrder, ThreadsTakeTheBodiesByTheirNextStepTiesByIndex) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  std::vector<double> next_step(1000);
  for (std::size_t i = 0; i < next_step.size(); ++i) next_step[i] = 1e-5 * double((i * 7919) % 97);  // ties: 97 values
  std::vector<float> in_float(next_step.begin(), next_step.end());
  std::vector<index_t> expected(next_step.size());
  std::iota(expected.begin(), expected.end(), index_t(0));
  std::stable_sort(expected.begin(), expected.end(), [&](index_t a, index_t b) { return next_step[a] < next_step[b]; });
  cuda::StepOrder order(index_t(next_step.size()));
  const cuda::DeviceArray<double> d(next_step);
  const cuda::DeviceArray<float> f(in_float);
  const auto expect_order = [&](const index_t* sorted, const char* keys) {
    std::vector<index_t> got(next_step.size());
    cuda::check(cudaMemcpy(got.data(), sorted, got.size() * sizeof(index_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
    EXPECT_EQ(got, expected) << keys;
  };
  expect_order(order.sort(d.data()), "double");
  expect_order(order.sort(f.data()), "float");
}

}  // namespace
}  // namespace quatstep
