// The scenario path on both backends, in the build's own mode (fast unless QUATSTEP_STRICT_FP):
// for every model × method × precision a random ensemble runs 1000 steps through make_ensemble on
// the CPU and on the GPU, and every sampled channel must agree to the stated relative tolerance
// (double: 1e-12 of the channel's scale; float: 1e-3, float's round-off grown over 1000 steps of
// chaotic spinning bodies). The measured worst difference is printed. Backend choice itself
// ("auto", "cuda", "cpu") is tested here too, and that part runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ensemble_factory.hpp"
#include "gpu_test_support.hpp"
#include "random_ensemble.hpp"

namespace quatstep {
namespace {

struct Outcome {
  std::vector<double> samples;
  std::vector<Status> status;
};

Outcome run_on(const Scenario& sc, Backend backend) {
  const index_t n = sc.ensemble_size;
  const std::unique_ptr<Ensemble> e = make_ensemble(sc, choose_backend(backend));
  Outcome o{std::vector<double>(sc.samples() * channel::count * n), {}};
  const SampleView<double> all{o.samples.data(), n, 0, sc.samples(), sc.stride};
  e->initialize(all);
  e->advance(sc.time.steps, all);
  o.status = e->status();
  return o;
}

/// Largest |cpu − gpu| of a channel over all samples and bodies, relative to the channel's largest
/// |value| (angles, rates, energies have their own scales). Channels that are NaN on both (methods
/// without the optional outputs) are skipped.
double worst_relative_difference(const Scenario& sc, const Outcome& a, const Outcome& b) {
  const index_t n = sc.ensemble_size;
  double worst = 0;
  for (int c = 0; c < channel::count; ++c) {
    double scale = 0, diff = 0;
    for (index_t j = 0; j < sc.samples(); ++j)
      for (index_t i = 0; i < n; ++i) {
        const std::size_t k = (j * channel::count + c) * n + i;
        if (std::isnan(a.samples[k]) && std::isnan(b.samples[k])) continue;
        scale = std::max(scale, std::abs(a.samples[k]));
        diff = std::max(diff, std::abs(a.samples[k] - b.samples[k]));
        if (std::isnan(diff)) return INFINITY;
      }
    if (scale > 0) worst = std::max(worst, diff / scale);
  }
  return worst;
}

class BackendAgreement
    : public ::testing::TestWithParam<std::tuple<testing::IntegratorCase, ModelKind, const char*>> {};

TEST_P(BackendAgreement, RandomEnsembleAgreesToTheStatedTolerance) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const auto [integrator, model, precision] = GetParam();
  const Scenario sc =
      parse_scenario(testing::random_ensemble_toml(integrator, model, 1000, 1000, 100, precision), "random.toml");
  const Outcome cpu = run_on(sc, Backend::cpu), gpu = run_on(sc, Backend::cuda);
  const double tolerance = sc.precision == Precision::double_precision ? 1e-12 : 1e-3;
  const double worst = worst_relative_difference(sc, cpu, gpu);
  std::cout << "[ measured ] " << integrator.name << " " << to_string(model) << " " << precision
            << ": worst relative CPU/GPU difference after 1000 steps " << worst << "\n";
  EXPECT_LE(worst, tolerance);
  EXPECT_EQ(cpu.status, gpu.status);
}

INSTANTIATE_TEST_SUITE_P(EveryIntegrator, BackendAgreement,
                         ::testing::Combine(::testing::ValuesIn(testing::all_integrators), ::testing::ValuesIn(testing::all_models),
                                            ::testing::Values("double", "float")),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).name) + "_" +
                                  to_string(std::get<1>(info.param)) + "_" + std::get<2>(info.param);
                         });

TEST(BackendChoice, CpuIsAlwaysAvailable) {
  const BackendChoice c = choose_backend(Backend::cpu);
  EXPECT_EQ(c.backend, Backend::cpu);
  EXPECT_EQ(c.description, "cpu");
}

TEST(BackendChoice, AutoPicksTheGpuExactlyWhenOneIsUsableAndSaysWhich) {
  const BackendChoice c = choose_backend(Backend::automatic);
  const std::string reason = cuda::device_unusable_reason();
  if (reason.empty()) {
    EXPECT_EQ(c.backend, Backend::cuda);
    EXPECT_EQ(c.description.rfind("cuda: ", 0), 0u) << c.description;
  } else {
    EXPECT_EQ(c.backend, Backend::cpu);
    EXPECT_EQ(c.description, "cpu (auto: " + reason + ")");
  }
}

TEST(BackendChoice, CudaWithoutAUsableDeviceIsAnErrorThatSaysWhy) {
  const std::string reason = cuda::device_unusable_reason();
  if (reason.empty()) GTEST_SKIP() << "a GPU is usable here; the error path needs a machine without one";
  try {
    choose_backend(Backend::cuda);
    FAIL() << "backend cuda accepted without a device";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "backend \"cuda\" requested, but " + reason);
  }
}

}  // namespace
}  // namespace quatstep
