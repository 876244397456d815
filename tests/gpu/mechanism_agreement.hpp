// Strict mode for mechanisms, the harness of mechanism_agreement_test.cu (SmallCapacity) and
// large_mechanism_agreement_test.cu (LargeCapacity): the GPU batch (kernels/cuda_mechanisms.cuh, one
// thread per mechanism) and the CPU stepping each mechanism with the same core function
// (mechanism::advance_mechanism) give the same bits for every integrator of the mechanism registry.
// Those files are compiled with --fmad=false whatever QUATSTEP_STRICT_FP says (tests/CMakeLists.txt)
// and link no other GPU object. A batch mixes mechanisms in one array, as a scenario's ensemble may,
// plus one pushed hard enough that its Newton iteration fails (fixed steps): it must fail alone, at
// the same step on both sides.
// Samples (every channel, two windows: the state must survive between launches), statuses, failed
// steps and Newton iteration counts must all be identical; with adaptive steps (AdaptiveHht over the
// HHT family) the step records too. Without a usable GPU the CPU half runs (the failing mechanism
// fails alone) and the test then skips, saying why.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test_support.hpp"
#include "kernels/cuda_mechanisms.cuh"
#include "mechanisms.hpp"
#include "quatstep/mechanism/adaptive.hpp"
#include "quatstep/mechanism/batch.hpp"
#include "quatstep/mechanism/registry.hpp"

namespace quatstep::testing {

/// The integrator a stepper steps with: itself, or the one AdaptiveHht runs over.
template <class Stepper>
const auto& integrator_of(const Stepper& stepper) {
  if constexpr (is_adaptive_stepper<Stepper>::value)
    return stepper.integrator;
  else
    return stepper;
}

/// `stepper` on batch.make(failing) — mechanism `failing` (fixed steps only: adaptive ones would
/// creep through it with tiny steps) pushed until its Newton iteration fails — 20 samples of 10 steps
/// of batch.h, on the CPU and, where one is usable, the GPU.
template <class Cap, class Stepper, class Batch>
void expect_identical_runs(const Stepper& stepper, const std::string& name, const Batch& batch) {
  SCOPED_TRACE(name);
  constexpr bool adaptive = is_adaptive_stepper<Stepper>::value;
  using Integrator = std::decay_t<decltype(integrator_of(stepper))>;
  const index_t failing = adaptive ? -1 : batch.failing;
  const std::vector<TestMechanism<Cap>> tm = batch.make(failing);
  const index_t n = index_t(tm.size()), stride = 10, samples = 21;
  const double t0 = 0.0, h = batch.h;
  cuda::MechanismBatchInput<Stepper> in{stepper, {}, {}, {}, {}, {}, {}, t0, h, stride, 0};
  if (adaptive) in.steps = StepRecords::before_first_step(n);
  for (const auto& t : tm) {
    typename Stepper::State s{};
    in.mechanisms.push_back(t.mech);
    in.status.push_back(stepper.initialize(t.mech, t.initial, t0, s));
    in.states.push_back(s);
    in.iterations.push_back(0);
    in.failed_step.push_back(in.status.back() == Status::ok ? -1 : 0);
  }
  // Per-body channels sized for the capacity (a run sizes them for its mechanism's bodies): the
  // smaller mechanisms leave the last scalars of a sample as the buffer's zeros, on both sides.
  in.scalars = mechanism::mechanism_channel_scalars(Cap::bodies) + 1;  // + sample_newton_iterations
  if constexpr (has_integrator_channels<Integrator>::value) in.scalars += channel_scalars(Integrator::channels);

  std::vector<Status> status = in.status;
  std::vector<index_t> iterations = in.iterations, failed = in.failed_step;
  StepRecords steps = in.steps;
  std::vector<typename Stepper::State> states = in.states;
  const BodyRecord record{status.data(), iterations.data(), failed.data()};
  const AdaptiveRecord<double> taken{steps.accepted.data(), steps.rejected.data(), steps.smallest.data(),
                                     steps.largest.data()};
  const bool gpu_usable = cuda::device_unusable_reason().empty();
  std::unique_ptr<cuda::CudaMechanisms<Stepper>> gpu;
  if (gpu_usable) gpu = std::make_unique<cuda::CudaMechanisms<Stepper>>(in);
  std::vector<double> cpu_out(std::size_t(samples * in.scalars * n), 0.0), gpu_out(cpu_out.size(), 0.0);
  for (const auto [first, count] : {std::pair<index_t, index_t>{0, 5}, {5, samples - 5}}) {
    const std::size_t offset = std::size_t(first * in.scalars * n);
    const SampleView<double> view{cpu_out.data() + offset, n, first, count, stride, in.scalars};
    for (index_t i = 0; i < n; ++i)
      if constexpr (adaptive)
        mechanism::advance_mechanism_adaptive(stepper, in.mechanisms[i], states.data(), record, taken, i, t0, h, view);
      else
        mechanism::advance_mechanism(stepper, in.mechanisms[i], states.data(), record, i, t0, h, view);
    if (gpu) gpu->advance(first, count, gpu_out.data() + offset);
  }
  // The CPU half (runs without a GPU too): the pushed four-bar fails alone, the others run on.
  for (index_t i = 0; i < n; ++i)
    EXPECT_EQ(status[i] == Status::ok, i != failing) << "mechanism " << i << ": " << to_string(status[i]);
  for (index_t i = 0; adaptive && i < n; ++i) EXPECT_GT(steps.accepted[i], 0) << "mechanism " << i;
  if (!gpu) return;
  std::vector<Status> gpu_status;
  std::vector<index_t> gpu_iterations, gpu_failed;
  StepRecords gpu_steps;
  gpu->records(gpu_status, gpu_iterations, gpu_failed, gpu_steps);
  EXPECT_TRUE(same_bits(cpu_out, gpu_out, "samples")) << differing_channels(cpu_out, gpu_out, n, in.scalars);
  EXPECT_TRUE(same_bits(status, gpu_status, "status"));
  EXPECT_TRUE(same_bits(failed, gpu_failed, "failed_step"));
  EXPECT_TRUE(same_bits(iterations, gpu_iterations, "newton_iterations"));
  if (adaptive) {
    EXPECT_TRUE(same_bits(steps.accepted, gpu_steps.accepted, "accepted steps"));
    EXPECT_TRUE(same_bits(steps.rejected, gpu_steps.rejected, "rejected steps"));
    EXPECT_TRUE(same_bits(steps.smallest, gpu_steps.smallest, "smallest step"));
    EXPECT_TRUE(same_bits(steps.largest, gpu_steps.largest, "largest step"));
  }
  // The states a checkpoint downloads are the CPU's, bit for bit (NaN of a failed step: any NaN). The
  // states are scalars only, sizeof(State) / sizeof(double) of them.
  std::vector<typename Stepper::State> gpu_states(states.size());
  gpu->states(gpu_states.data());
  const std::size_t words = states.size() * sizeof(states[0]) / sizeof(double);
  std::vector<double> cpu_words(words), gpu_words(words);
  std::memcpy(cpu_words.data(), static_cast<const void*>(states.data()), words * sizeof(double));
  std::memcpy(gpu_words.data(), static_cast<const void*>(gpu_states.data()), words * sizeof(double));
  std::size_t differing = 0;
  for (std::size_t k = 0; k < words; ++k)
    differing += !(std::isnan(cpu_words[k]) ? std::isnan(gpu_words[k]) : std::memcmp(&cpu_words[k], &gpu_words[k], sizeof(double)) == 0);
  EXPECT_EQ(differing, 0u) << "of the " << words << " scalars of the downloaded integrator states";
}

/// Every method of the mechanism registry with its default settings, fixed steps, on `batch`.
template <class Cap, class Batch>
void expect_every_method_identical(const Batch& batch) {
  int checked = 0;
  for_each_type(mechanism::MechanismMethods{}, [&](auto tag, int) {
    using Entry = tag_type<decltype(tag)>;
    typename Entry::Settings settings;
    expect_identical_runs<Cap>(typename Entry::template Integrator<mechanism::Mechanism<double, Cap>>(settings),
                               Entry::info.name, batch);
    ++checked;
  });
  EXPECT_EQ(checked, mechanism::MechanismMethods::size);
}

/// Adaptive steps (AdaptiveHht over each method that takes them, mechanism/adaptive.hpp) on `batch`:
/// every mechanism with its own t and h inside one launch, sampled by dense output.
template <class Cap, class Batch>
void expect_adaptive_steps_identical(const Batch& batch) {
  int checked = 0;
  for_each_type(mechanism::MechanismMethods{}, [&](auto tag, int) {
    using Entry = tag_type<decltype(tag)>;
    using Integrator = typename Entry::template Integrator<mechanism::Mechanism<double, Cap>>;
    if constexpr (takes_adaptive_steps<Integrator>::value) {
      typename Entry::Settings settings;
      AdaptiveSettings<double> control;
      control.rotation_atol = control.translation_atol = 1e-7;
      expect_identical_runs<Cap>(AdaptiveHht<Integrator>(Integrator(settings), control), Entry::info.name, batch);
      ++checked;
    }
  });
  EXPECT_GE(checked, 2);  // the HHT family
}

/// The two tests on a batch (a type with Capacity, failing, h and make()): every method with fixed
/// steps, and adaptive steps; each file instantiates them for its capacity's batch, named
/// StrictSmallMechanisms and StrictLargeMechanisms (ctest's names start with them).
template <class Batch>
class MechanismStrictAgreement : public ::testing::Test {};
TYPED_TEST_SUITE_P(MechanismStrictAgreement);

TYPED_TEST_P(MechanismStrictAgreement, EveryRegisteredMethodIsBitwiseIdenticalOnCpuAndGpu) {
  expect_every_method_identical<typename TypeParam::Capacity>(TypeParam{});
  QUATSTEP_SKIP_WITHOUT_GPU();  // the CPU half has run; the comparison needs the GPU
}

TYPED_TEST_P(MechanismStrictAgreement, AdaptiveStepsAreBitwiseIdenticalOnCpuAndGpu) {
  expect_adaptive_steps_identical<typename TypeParam::Capacity>(TypeParam{});
  QUATSTEP_SKIP_WITHOUT_GPU();
}

REGISTER_TYPED_TEST_SUITE_P(MechanismStrictAgreement, EveryRegisteredMethodIsBitwiseIdenticalOnCpuAndGpu,
                            AdaptiveStepsAreBitwiseIdenticalOnCpuAndGpu);

}  // namespace quatstep::testing
