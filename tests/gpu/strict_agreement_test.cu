// Strict mode: CPU and GPU give the same bits for every integrator on both models. This file is
// compiled with --fmad=false (tests/CMakeLists.txt), whatever QUATSTEP_STRICT_FP says, and its host
// code with -ffp-contract=off like all host code; sin/cos in the step are the project's own
// (math/trig.hpp), so nothing differs between g++/glibc and nvcc/CUDA. Each ensemble is random
// (inertia, orientation, spin, torque profiles with sin) and runs 1000 steps in two launches;
// samples, states, statuses, failed steps and Newton iteration counts must all be identical.
// The coupled-step API (BatchStepper) is checked the same way against the CPU's (CpuBatchStepper)
// with the same per-step loads. Without a usable GPU every test here skips and says why.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cpu_batch_stepper.hpp"
#include "cpu_ensemble.hpp"
#include "gpu_test_support.hpp"
#include "host/ensemble_builder.hpp"
#include "kernels/batch_stepper.cuh"
#include "kernels/cuda_ensemble.cuh"
#include "random_ensemble.hpp"

namespace quatstep {
namespace {

using testing::same_bits;

/// The scenario's per-body models and initial states, as the scenario factory builds them.
template <class ModelEntry, class Integrator>
struct Bodies {
  using Model = typename Integrator::ModelType;
  std::vector<Model> models;
  std::vector<typename CpuEnsemble<Integrator>::Kinematics> initial;
  explicit Bodies(const Scenario& sc) {
    for (index_t i = 0; i < sc.ensemble_size; ++i) {
      const auto p = build::parameters<ModelEntry>(body_parameters(sc, i), 0);
      models.push_back(ModelEntry::template build<double>(p));
      initial.push_back(ModelEntry::template initial<double>(p));
    }
  }
};

/// Both backends from the same inputs, advanced in the same chunks, compared bit for bit.
template <class ModelEntry, class Integrator>
void expect_identical_runs(const Scenario& sc) {
  const Integrator integrator = build::make_integrator<Integrator>(sc.integrator);
  const Bodies<ModelEntry, Integrator> in(sc);
  const index_t n = sc.ensemble_size, steps = sc.time.steps, stride = sc.stride;
  CpuEnsemble<Integrator> cpu(integrator, in.models, sc.time.t_start, sc.time.dt);
  cuda::CudaEnsemble<Integrator> gpu(integrator, in.models, sc.time.t_start, sc.time.dt);
  constexpr int scalars = sample_scalars<Integrator>();
  std::vector<double> cpu_out(sc.samples() * scalars * n), gpu_out(cpu_out.size());
  const auto view = [&](std::vector<double>& v) { return SampleView<double>{v.data(), n, 0, sc.samples(), stride, scalars}; };
  cpu.initialize(in.initial, view(cpu_out));
  gpu.initialize(in.initial, view(gpu_out));
  const index_t first_chunk = 4 * stride;  // two launches: the state must survive between them
  for (const index_t k : {first_chunk, steps - first_chunk}) {
    cpu.advance(k, view(cpu_out));
    gpu.advance(k, view(gpu_out));
  }
  std::vector<double> cpu_state, gpu_state;
  for (index_t i = 0; i < n; ++i)
    for (int c = 0; c < Integrator::State::size; ++c) {
      cpu_state.push_back(cpu.state(i)[c]);
      gpu_state.push_back(gpu.state(i)[c]);
    }
  EXPECT_TRUE(same_bits(cpu_out, gpu_out, "samples")) << testing::differing_channels(cpu_out, gpu_out, n, scalars);
  EXPECT_TRUE(same_bits(cpu_state, gpu_state, "final states"));
  EXPECT_TRUE(same_bits(cpu.status(), gpu.status(), "status"));
  EXPECT_TRUE(same_bits(cpu.failed_step(), gpu.failed_step(), "failed_step"));
  EXPECT_TRUE(same_bits(cpu.newton_iterations(), gpu.newton_iterations(), "newton_iterations"));
}

class StrictAgreement : public ::testing::TestWithParam<std::tuple<testing::IntegratorCase, int>> {};

TEST_P(StrictAgreement, RandomEnsembleIsBitwiseIdenticalOnCpuAndGpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const auto [integrator, model] = GetParam();
  if (!testing::runs_on(integrator, model)) GTEST_SKIP() << integrator.name << " does not run on " << testing::model_name(model);
  const Scenario sc = parse_scenario(testing::random_ensemble_toml(integrator, model, 300, 1000, 100), "random.toml");
  with_registered_integrator<double, void>(sc.model, sc.integrator.method, sc.integrator.variant,
                                           [&](auto model_tag, auto integrator_tag) {
                                             expect_identical_runs<tag_type<decltype(model_tag)>,
                                                                   tag_type<decltype(integrator_tag)>>(sc);
                                           });
}

INSTANTIATE_TEST_SUITE_P(EveryIntegrator, StrictAgreement,
                         ::testing::Combine(::testing::ValuesIn(testing::all_integrators()),
                                            ::testing::ValuesIn(testing::all_models())),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" + testing::model_name(std::get<1>(info.param));
                         });

TEST(StrictAgreement, FailingBodyFailsAloneAndAtTheSameStepOnBothBackends) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  // Body 5 spins at ~3200 rad/s: 3 rad per step, beyond what Newton converges from.
  const std::string text = testing::random_ensemble_toml(testing::default_case("modified_hht"), testing::model_index("heavy_top"), 64, 200, 10) +
                           "[[ensemble.override]]\nbody = 5\ninitial.omega_body = [0.0, 3000.0, 1000.0]\n";
  const Scenario sc = parse_scenario(text, "failing.toml");
  using Integrator = ModifiedHht<HeavyTop<double>>;
  expect_identical_runs<HeavyTopModel, Integrator>(sc);
  const Bodies<HeavyTopModel, Integrator> in(sc);
  CpuEnsemble<Integrator> cpu(build::make_integrator<Integrator>(sc.integrator), in.models, 0.0, sc.time.dt);
  cpu.initialize(in.initial, SampleView<double>{nullptr, sc.ensemble_size, 0, 0, 1, 0});
  cpu.advance(sc.time.steps, SampleView<double>{nullptr, sc.ensemble_size, 0, 0, 1, 0});
  EXPECT_NE(cpu.status()[5], Status::ok) << "the test needs body 5 to fail";
  for (index_t i = 0; i < sc.ensemble_size; ++i)
    if (i != 5) EXPECT_EQ(cpu.status()[i], Status::ok) << "body " << i;
}

// ---------------------------------------------------------------- coupled-step API

/// Loads of step k for body i, in [−1, 1]: different every step, like contact torques.
std::vector<double> step_loads(index_t n, index_t k, std::uint64_t seed) {
  std::mt19937_64 gen(seed * 100003 + k);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(3 * n);
  for (double& x : v) x = u(gen);
  return v;
}

/// With `without_own_loads` every body is stripped to Model::unloaded(inertia, mass), so that the
/// batch steps from its inertia and mass alone (coupled_step.hpp).
template <class ModelEntry, class Integrator>
void expect_coupled_steps_match_cpu(const Scenario& sc, bool with_force, bool without_own_loads = false,
                                    LoadTiming timing = LoadTiming::at_start) {
  using S = double;
  const Integrator integrator = build::make_integrator<Integrator>(sc.integrator);
  const Bodies<ModelEntry, Integrator> in(sc);
  using Model = typename Integrator::ModelType;
  std::vector<Model> models = in.models;
  if constexpr (has_unloaded_form<Model>::value)
    if (without_own_loads)
      for (Model& m : models) {
        if constexpr (Model::translates)
          m = Model::unloaded(m.inertia, m.mass);
        else
          m = Model::unloaded(m.inertia, m.loads.mass);
      }
  const index_t n = sc.ensemble_size;
  const S h = sc.time.dt;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  cuda::BatchStepper<Integrator> batch(integrator, models, in.initial, 0.0, stream, timing);
  cuda::DeviceArray<S> torque(3 * n), force(3 * n), quaternion(4 * n), omega(3 * n);

  // The CPU's coupled step (host/cpu_batch_stepper.hpp; tests/cpu_batch_stepper_test.cpp checks it
  // against the per-body functions, one body after the other, bit for bit).
  CpuBatchStepper<Integrator> cpu(integrator, models, in.initial, 0.0, timing);
  for (index_t k = 0; k < sc.time.steps; ++k) {
    const std::vector<S> tau = step_loads(n, k, 1), f = step_loads(n, k, 2);
    torque.upload(tau);
    force.upload(f);
    batch.step(h, torque.data(), with_force ? force.data() : nullptr, stream);
    cpu.step(h, tau.data(), with_force ? f.data() : nullptr);
  }
  batch.kinematics(quaternion.data(), omega.data(), nullptr, nullptr, stream);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<S> gpu_q, gpu_w, cpu_q(4 * n), cpu_w(3 * n);
  quaternion.download(gpu_q);
  omega.download(gpu_w);
  cpu.kinematics(cpu_q.data(), cpu_w.data(), nullptr, nullptr);
  std::vector<Status> gpu_status(n);
  std::vector<index_t> gpu_iterations(n);
  cuda::check(cudaMemcpy(gpu_status.data(), batch.status(), n * sizeof(Status), cudaMemcpyDeviceToHost), "status");
  cuda::check(cudaMemcpy(gpu_iterations.data(), batch.newton_iterations(), n * sizeof(index_t), cudaMemcpyDeviceToHost),
              "iterations");
  EXPECT_TRUE(same_bits(cpu_q, gpu_q, "quaternions"));
  EXPECT_TRUE(same_bits(cpu_w, gpu_w, "angular velocities"));
  EXPECT_TRUE(same_bits(cpu.status(), gpu_status, "status"));
  EXPECT_TRUE(same_bits(cpu.newton_iterations(), gpu_iterations, "Newton iterations"));
  EXPECT_EQ(batch.steps_done(), sc.time.steps);
  EXPECT_EQ(batch.time(), cpu.time());
  cudaStreamDestroy(stream);
}

TEST(CoupledStep, FreeBodiesWithPerStepTorquesAndForcesMatchTheCpuBitwise) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("modified_hht"), testing::model_index("free_rigid_body"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<FreeRigidBodyModel, ModifiedHht<FreeRigidBody<double>>>(sc, true);
}

TEST(CoupledStep, HeavyTopsWithPerStepTorquesMatchTheCpuBitwise) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc =
      parse_scenario(testing::random_ensemble_toml(testing::default_case("zupan3"), testing::model_index("heavy_top"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<HeavyTopModel, Zupan3<HeavyTop<double>>>(sc, false);
}

// The splittings hold the end torque of a step for the next one: the coupled step evaluates it
// anew with each step's loads (step_body_with_loads; tests/coupled_step_loads_test.cpp checks on
// the CPU that this gives the run with the loads in the model) and, with the loads given at the
// step's start (the default), redoes the last step's end kick with them.
TEST(CoupledStep, NoSquishFreeBodiesWithPerStepTorquesAndForcesMatchTheCpuBitwise) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("no_squish"), testing::model_index("free_rigid_body"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<FreeRigidBodyModel, NoSquish<FreeRigidBody<double>>>(sc, true);
}

TEST(CoupledStep, NoSquishBodiesWithoutOwnLoadsStepFromInertiaAndMassAsTheCpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("no_squish"), testing::model_index("free_rigid_body"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<FreeRigidBodyModel, NoSquish<FreeRigidBody<double>>>(sc, true, true);
}

TEST(CoupledStep, NoSquishWithLoadsHeldOverTheStepMatchesTheCpuBitwise) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("no_squish"), testing::model_index("free_rigid_body"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<FreeRigidBodyModel, NoSquish<FreeRigidBody<double>>>(sc, true, true, LoadTiming::held);
}

TEST(CoupledStep, ExplicitNewmarkLieFreeBodiesWithPerStepTorquesAndForcesMatchTheCpuBitwise) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("explicit_newmark_lie"), testing::model_index("free_rigid_body"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<FreeRigidBodyModel, ExplicitNewmarkLie<FreeRigidBody<double>>>(sc, true);
}

TEST(CoupledStep, ModifiedHhtBodiesWithoutOwnLoadsStepFromInertiaAndMassAsTheCpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("modified_hht"), testing::model_index("free_rigid_body"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<FreeRigidBodyModel, ModifiedHht<FreeRigidBody<double>>>(sc, true, true);
}

TEST(CoupledStep, SymmetricSplittingHeavyTopsWithPerStepTorquesMatchTheCpuBitwise) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("symmetric_splitting"), testing::model_index("heavy_top"), 500, 200, 200), "dem.toml");
  expect_coupled_steps_match_cpu<HeavyTopModel, SymmetricSplitting<HeavyTop<double>>>(sc, false);
}

// A particle's orientation alone: tops about their centre of mass without loads of their own, whose
// batch reads each body's inertia alone (coupled_step.hpp), the loads at the step's start and held.
TEST(CoupledStep, NoSquishTopsWithoutOwnLoadsStepFromInertiaAsTheCpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("no_squish"), testing::model_index("heavy_top"), 500, 200, 200), "dem.toml");
  for (LoadTiming timing : {LoadTiming::at_start, LoadTiming::held})
    expect_coupled_steps_match_cpu<HeavyTopModel, NoSquish<HeavyTop<double>>>(sc, false, true, timing);
}

TEST(CoupledStep, RejectsABadBodyByNameBeforeTouchingTheDevice) {  // runs without a GPU too
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(testing::default_case("modified_hht"), testing::model_index("free_rigid_body"), 8, 10, 10), "dem.toml");
  using Integrator = ModifiedHht<FreeRigidBody<double>>;
  Bodies<FreeRigidBodyModel, Integrator> in(sc);
  in.initial[3].quaternion *= 1.01;
  try {
    cuda::BatchStepper<Integrator> batch(build::make_integrator<Integrator>(sc.integrator), in.models, in.initial, 0.0);
    FAIL() << "a non-unit quaternion was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("body 3: quaternion: not a unit quaternion"), std::string::npos) << e.what();
  }
}

TEST(CoupledStep, RejectsAForceOnABodyThatDoesNotTranslate) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const Scenario sc =
      parse_scenario(testing::random_ensemble_toml(testing::default_case("zupan3"), testing::model_index("heavy_top"), 8, 10, 10), "dem.toml");
  using Integrator = Zupan3<HeavyTop<double>>;
  const Bodies<HeavyTopModel, Integrator> in(sc);
  cuda::BatchStepper<Integrator> batch(build::make_integrator<Integrator>(sc.integrator), in.models, in.initial, 0.0);
  cuda::DeviceArray<double> force(3 * 8);
  EXPECT_THROW(batch.step(1e-3, nullptr, force.data()), std::invalid_argument);
}

}  // namespace
}  // namespace quatstep
