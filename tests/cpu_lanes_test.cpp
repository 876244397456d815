// SIMD across bodies in the CPU backend (host/cpu_lanes.hpp): with the lanes on, every body's state,
// samples, status, Newton iteration count and failed step are those of the scalar step, bit for bit,
// for the HHT family, REML and the reduced Livens midpoint scheme on heavy tops and free bodies, with and without Jacobian reuse, on
// populations whose blocks mix bodies that share their branches (in lanes) with bodies that do not
// (stepped alone), bodies past the last full block, and bodies that fail at different steps.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "bench/heavy_top_ensemble.hpp"
#include "cpu_ensemble.hpp"  // host/

namespace {

using namespace quatstep;
using bench::sherif_top;
using bench::step_size;

constexpr index_t bodies = 23;  // five full blocks of four and three bodies past them

/// Blocks 0–1: Sherif's top (gravity), ω varied; block 2: with a constant body torque and a ramped
/// spatial torque, both in the window [0.01, 0.02) s (different in size per body: still in lanes);
/// block 3: one body with a sinusoidal torque (the block steps alone); block 4: torque windows that
/// end at different times (alone); then three bodies past the last block.
std::vector<HeavyTop<double>> population() {
  std::vector<HeavyTop<double>> m(bodies, sherif_top<double>());
  for (index_t i = 8; i < 12; ++i) {
    TimeProfile<double>& b = m[i].loads.body_torque;
    b.constant = Vec3<double>(0.5 + 0.1 * double(i), -0.3, 0.2);
    b.begin = 0.01, b.end = 0.02;
    TimeProfile<double>& s = m[i].loads.spatial_torque;
    s.ramp = Vec3<double>(0.0, 0.0, 20.0 + double(i));
    s.begin = 0.01, s.end = 0.02;
  }
  m[13].loads.body_torque.amplitude = Vec3<double>(0.0, 0.0, 1.0);
  m[13].loads.body_torque.frequency = 300.0;
  for (index_t i = 16; i < 20; ++i) {
    m[i].loads.body_torque.constant = Vec3<double>(1.0, 0.0, 0.0);
    m[i].loads.body_torque.end = 0.005 * double(i - 15);
  }
  return m;
}

/// Free bodies arranged as population()'s heavy tops: blocks 0–1 under gravity, masses and inertias
/// varied; block 2 with a windowed constant force and a windowed ramped body torque; block 3 with one
/// sinusoidal force (alone); block 4 with force windows that differ (alone); three bodies past them.
std::vector<FreeRigidBody<double>> free_population() {
  std::vector<FreeRigidBody<double>> m(bodies);
  for (index_t i = 0; i < bodies; ++i) {
    m[i].inertia = Vec3<double>(1.0 + 0.01 * double(i), 1.5, 0.8).asDiagonal();
    m[i].mass = 2.0 + 0.1 * double(i);
    m[i].gravity = Vec3<double>(0.0, 0.0, -9.81);
  }
  for (index_t i = 8; i < 12; ++i) {
    m[i].force_profile.constant = Vec3<double>(3.0 + double(i), 0.0, 1.0);
    m[i].force_profile.begin = 0.005, m[i].force_profile.end = 0.02;
    m[i].loads.body_torque.ramp = Vec3<double>(0.0, 40.0 + double(i), 0.0);
    m[i].loads.body_torque.begin = 0.01, m[i].loads.body_torque.end = 0.02;
  }
  m[13].force_profile.amplitude = Vec3<double>(1.0, 0.0, 0.0);
  m[13].force_profile.frequency = 300.0;
  for (index_t i = 16; i < 20; ++i) {
    m[i].force_profile.constant = Vec3<double>(0.0, 1.0, 0.0);
    m[i].force_profile.end = 0.005 * double(i - 15);
  }
  return m;
}

std::vector<RigidBodyKinematics<double>> initial_states(double spread = 0.001) {
  std::vector<RigidBodyKinematics<double>> k(bodies);
  for (index_t i = 0; i < bodies; ++i) {
    k[i] = bench::sherif_initial<double>(i);
    k[i].omega_body *= 1.0 + spread * double(i) / bodies;
    k[i].velocity = Vec3<double>(1.0, -0.5, 2.0 + 0.1 * double(i));  // free bodies only
  }
  return k;
}

/// What a run leaves: every state bit, the records, every sample.
struct Run {
  std::vector<double> state, samples;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  bool lanes = false;
};

/// steps steps in two calls, samples every third step (the second call's window starts past the first's).
template <class Integrator>
Run run(const Integrator& integrator, const std::vector<typename Integrator::ModelType>& models,
        const std::vector<RigidBodyKinematics<double>>& initial, index_t steps, bool lanes) {
  CpuEnsemble<Integrator> e(integrator, models, 0.0, step_size);
  e.use_lanes(lanes);
  constexpr int scalars = CpuEnsemble<Integrator>::sample_scalars;
  const index_t stride = 3, half = steps / 2, samples = steps / stride + 1;
  Run r;
  r.samples.assign(samples * scalars * bodies, 0.0);
  const auto view = [&](index_t first, index_t count) {
    return SampleView<double>{r.samples.data() + first * scalars * bodies, bodies, first, count, stride, scalars};
  };
  const index_t split = half / stride + 1;  // samples [0, split) in the first call
  e.initialize(initial, view(0, split));
  e.advance(half, view(0, split));
  e.advance(steps - half, view(split, samples - split));
  r.state = e.state_data();
  r.status = e.status(), r.iterations = e.newton_iterations(), r.failed_step = e.failed_step();
  r.lanes = e.uses_lanes();
  return r;
}

int differing_bits(const std::vector<double>& a, const std::vector<double>& b) {
  int n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
  return n;
}

template <class Integrator>
void expect_lanes_bitwise(const Integrator& integrator, index_t steps, double spread = 0.001,
                          std::set<index_t>* failed_steps = nullptr) {
  if (!lanes::available()) GTEST_SKIP() << "no SIMD lanes here (a CPU without AVX2, a build without them, or QUATSTEP_SIMD=off)";
  std::vector<typename Integrator::ModelType> models;
  if constexpr (std::is_same_v<typename Integrator::ModelType, HeavyTop<double>>) models = population();
  else models = free_population();
  const Run scalar = run(integrator, models, initial_states(spread), steps, false);
  const Run lanes = run(integrator, models, initial_states(spread), steps, true);
  ASSERT_FALSE(scalar.lanes);
  ASSERT_TRUE(lanes.lanes);
  EXPECT_EQ(differing_bits(scalar.state, lanes.state), 0);
  EXPECT_EQ(differing_bits(scalar.samples, lanes.samples), 0);
  EXPECT_EQ(scalar.status, lanes.status);
  EXPECT_EQ(scalar.iterations, lanes.iterations);
  EXPECT_EQ(scalar.failed_step, lanes.failed_step);
  for (index_t i = 0; i < bodies; ++i) {
    if (scalar.status[i] == Status::ok) EXPECT_GE(scalar.iterations[i], steps) << "body " << i;  // ≥ 1 per step
    else if (failed_steps) failed_steps->insert(scalar.failed_step[i]);
  }
}

HhtSettings<double> hht(bool shift, bool full_newton = false) {
  HhtSettings<double> s;
  s.alpha = bench::alpha;
  s.inertia_shift = shift;
  if (full_newton) s.newton.jacobian_reuse_below = 0;
  return s;
}

TEST(CpuLanes, BlocksAreThoseWhoseBodiesShareTheirBranches) {
  const lanes::Blocks<HeavyTop<double>> blocks(population());
  EXPECT_TRUE(blocks.lanes(0) && blocks.lanes(1) && blocks.lanes(2));
  EXPECT_TRUE(blocks.branches[2].torques && blocks.branches[2].body_torque && blocks.branches[2].spatial_torque);
  EXPECT_FALSE(blocks.lanes(3));  // a sinusoidal torque
  EXPECT_FALSE(blocks.lanes(4));  // windows that differ
  EXPECT_FALSE(blocks.lanes(5));  // past the last full block
}

TEST(CpuLanes, FreeBodyBlocksAreThoseWhoseBodiesShareTheirBranches) {
  const lanes::Blocks<FreeRigidBody<double>> blocks(free_population());
  EXPECT_TRUE(blocks.lanes(0) && blocks.lanes(1) && blocks.lanes(2));
  EXPECT_TRUE(blocks.branches[2].torques && blocks.branches[2].body_torque && !blocks.branches[2].spatial_torque);
  EXPECT_FALSE(blocks.lanes(3));  // a sinusoidal force
  EXPECT_FALSE(blocks.lanes(4));  // force windows that differ
}

TEST(CpuLanes, ModifiedHhtIsBitwiseScalar) {
  expect_lanes_bitwise(ModifiedHht<HeavyTop<double>>(hht(true)), 300);
  expect_lanes_bitwise(ModifiedHht<HeavyTop<double>>(hht(false)), 300);
  expect_lanes_bitwise(ModifiedHht<HeavyTop<double>>(hht(true, true)), 300);
}

TEST(CpuLanes, HhtIsBitwiseScalar) {
  expect_lanes_bitwise(Hht<HeavyTop<double>>(hht(false)), 300);
  expect_lanes_bitwise(Hht<HeavyTop<double>>(hht(true)), 300);
}

TEST(CpuLanes, RemlIsBitwiseScalar) {
  expect_lanes_bitwise(LivensEm<HeavyTop<double>>(), 300);
  LivensSettings<double> full, literal;
  full.newton.jacobian_reuse_below = 0;
  literal.project_normal_components = false;
  expect_lanes_bitwise(LivensEm<HeavyTop<double>>(full), 300);
  expect_lanes_bitwise(LivensEm<HeavyTop<double>>(literal), 300);
}

TEST(CpuLanes, LivensMidpointIsBitwiseScalar) {
  expect_lanes_bitwise(LivensMidpoint<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(LivensMidpoint<FreeRigidBody<double>>(), 300);
}

TEST(CpuLanes, FreeBodiesAreBitwiseScalar) {
  expect_lanes_bitwise(ModifiedHht<FreeRigidBody<double>>(hht(true)), 300);
  expect_lanes_bitwise(ModifiedHht<FreeRigidBody<double>>(hht(false, true)), 300);
  expect_lanes_bitwise(Hht<FreeRigidBody<double>>(hht(false)), 300);
  expect_lanes_bitwise(LivensEm<FreeRigidBody<double>>(), 300);
}

/// Body 2 has a non-unit quaternion: with skip_invalid it is marked invalid_input and never steps;
/// its lane in block 0 carries a zero state through every step of the others.
template <class Integrator>
void expect_rejected_body_left_alone(const Integrator& integrator) {
  std::vector<RigidBodyKinematics<double>> initial = initial_states();
  initial[2].quaternion = Vec4<double>(1.0, 0.5, 0.0, 0.0);
  std::vector<std::vector<double>> states;
  for (const bool on : {false, true}) {
    CpuEnsemble<Integrator> e(integrator, population(), 0.0, step_size);
    e.use_lanes(on);
    const SampleView<double> none{nullptr, bodies, 0, 0, 1, 0};
    e.initialize(initial, none, /*skip_invalid=*/true);
    e.advance(200, none);
    EXPECT_EQ(e.status()[2], Status::invalid_input);
    EXPECT_EQ(e.newton_iterations()[2], 0);
    EXPECT_EQ(e.status()[1], Status::ok);
    EXPECT_EQ(e.bodies_in_lanes(), on ? 12 : 0);
    states.push_back(e.state_data());
  }
  EXPECT_EQ(differing_bits(states[0], states[1]), 0);
}

TEST(CpuLanes, BodiesRejectedAtTheStartStayOutOfTheirBlocksSteps) {
  if (!lanes::available()) GTEST_SKIP() << "no SIMD lanes here (a CPU without AVX2, a build without them, or QUATSTEP_SIMD=off)";
  expect_rejected_body_left_alone(LivensEm<HeavyTop<double>>());
  expect_rejected_body_left_alone(ModifiedHht<HeavyTop<double>>(hht(true)));
}

TEST(CpuLanes, FailingLanesStopLikeScalarBodies) {
  HhtSettings<double> s = hht(false);
  s.alpha = 0.0;  // classical HHT, α = 0: diverges near t ≈ 0.35–0.43 s (docs/errata.md S4)
  std::set<index_t> failed_steps;
  expect_lanes_bitwise(Hht<HeavyTop<double>>(s), 5000, 0.1, &failed_steps);
  EXPECT_GT(failed_steps.size(), 4u);  // the bodies of a block fail apart
}

}  // namespace
