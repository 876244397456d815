// What a caller that steps an ensemble itself reads between advances (Ensemble in
// host/ensemble_factory.hpp: storage, layout, observe, kinematics), for every registered model ×
// method × precision on the CPU: observe() is the sample the run writes at that step, bit for bit;
// storage() is the state itself (save()'s values, the same address after more steps); the
// quantities layout() places in the state are kinematics()' values there; kinematics() is the
// observed quaternion and body angular velocity. The GPU's storage is checked in
// tests/gpu/backend_agreement_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "gpu/random_ensemble.hpp"

namespace quatstep {
namespace {

/// Whether two samples hold the same bits (NaN for a failed body included).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The first scalar of channel `name` in a sample of the scenario, −1 if it has none.
int offset_of(const Scenario& sc, const std::string& name) {
  int offset = 0;
  for (const Channel& c : sample_channels(sc)) {
    if (name == c.name) return offset;
    offset += c.size;
  }
  return -1;
}

/// Component c of body i of a state storage on the host, widened.
double stored(const StateStorage& s, Precision precision, index_t bodies, int c, index_t i) {
  const std::size_t k = std::size_t(c) * std::size_t(bodies) + std::size_t(i);
  return precision == Precision::single_precision ? double(static_cast<const float*>(s.data)[k])
                                                  : static_cast<const double*>(s.data)[k];
}

class EnsembleAccess : public ::testing::TestWithParam<testing::EveryCase> {};

TEST_P(EnsembleAccess, StorageObserveAndKinematicsAreTheRunsOwn) {
  const auto [integrator, model, precision] = GetParam();
  if (!testing::runs_on(integrator, model)) GTEST_SKIP() << integrator.name << " does not run on " << testing::model_name(model);
  const Scenario sc = parse_scenario(testing::random_ensemble_toml(integrator, model, 40, 20, 10, precision), "random.toml");
  const index_t n = sc.ensemble_size, steps = sc.time.steps;
  const int scalars = channel_scalars(sample_channels(sc));
  const std::unique_ptr<Ensemble> e = make_ensemble(sc, choose_backend(Backend::cpu));
  std::vector<double> samples(std::size_t(sc.samples() * scalars * n));
  const SampleView<double> all{samples.data(), n, 0, sc.samples(), sc.stride, scalars};
  e->initialize(all);
  e->advance(steps, all);
  ASSERT_EQ(e->steps_done(), steps);

  // observe: the run's last sample, every scalar of every body.
  std::vector<double> now(std::size_t(scalars * n));
  e->observe(SampleView<double>{now.data(), n, steps, 1, 1, scalars});
  const double* last = samples.data() + std::size_t((sc.samples() - 1) * scalars * n);
  for (std::size_t k = 0; k < now.size(); ++k) ASSERT_TRUE(same_bits(now[k], last[k])) << "scalar " << k / n << ", body " << k % n;

  // storage: the state save() copies, in place.
  const StateStorage storage = e->storage();
  EXPECT_EQ(storage.device, -1);
  const EnsembleState saved = e->save();
  ASSERT_EQ(saved.state.size(), std::size_t(storage.components) * std::size_t(n));
  for (int c = 0; c < storage.components; ++c)
    for (index_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bits(stored(storage, sc.precision, n, c, i), saved.state[std::size_t(c) * n + i])) << c << ", " << i;

  // kinematics: the observed quaternion and ω of every healthy body; where layout() places them in
  // the state, the stored components.
  std::vector<double> q(4 * n), w(3 * n), x(3 * n), v(3 * n);
  e->kinematics(q.data(), w.data(), e->translates() ? x.data() : nullptr, e->translates() ? v.data() : nullptr);
  const StateLayout& layout = e->layout();
  const int oq = offset_of(sc, "quaternion"), ow = offset_of(sc, "omega_body");
  ASSERT_GE(oq, 0);
  ASSERT_GE(ow, 0);
  int healthy = 0;
  for (index_t i = 0; i < n; ++i) {
    if (e->status()[i] != Status::ok) continue;
    ++healthy;
    for (int c = 0; c < 4; ++c) {
      EXPECT_TRUE(same_bits(q[4 * i + c], now[std::size_t((oq + c) * n + i)])) << "quaternion " << c << ", body " << i;
      if (layout.quaternion >= 0) EXPECT_TRUE(same_bits(q[4 * i + c], stored(storage, sc.precision, n, layout.quaternion + c, i)));
    }
    for (int c = 0; c < 3; ++c) {
      EXPECT_TRUE(same_bits(w[3 * i + c], now[std::size_t((ow + c) * n + i)])) << "omega_body " << c << ", body " << i;
      if (layout.omega_body >= 0) EXPECT_TRUE(same_bits(w[3 * i + c], stored(storage, sc.precision, n, layout.omega_body + c, i)));
      if (layout.position >= 0) EXPECT_TRUE(same_bits(x[3 * i + c], stored(storage, sc.precision, n, layout.position + c, i)));
      if (layout.velocity >= 0) EXPECT_TRUE(same_bits(v[3 * i + c], stored(storage, sc.precision, n, layout.velocity + c, i)));
    }
  }
  EXPECT_GT(healthy, n / 2);

  // The storage stays where it is and follows the next steps.
  const double before = stored(storage, sc.precision, n, 0, 0);
  e->advance(5, SampleView<double>{nullptr, n, 0, 0, 1, scalars});
  EXPECT_EQ(e->storage().data, storage.data);
  EXPECT_TRUE(same_bits(stored(storage, sc.precision, n, 0, 0), e->save().state[0]));
  if (e->status()[0] == Status::ok) EXPECT_NE(stored(storage, sc.precision, n, 0, 0), before);
}

INSTANTIATE_TEST_SUITE_P(EveryIntegrator, EnsembleAccess, testing::every_case(), testing::every_case_name);

}  // namespace
}  // namespace quatstep
