// SIMD across bodies in the CPU backend (host/cpu_lanes.hpp): with the lanes on, every body's state,
// samples, status, Newton iteration count and failed step are those of the scalar step, bit for bit,
// for every integrator with lanes (cpu_lanes.hpp) on heavy tops and free bodies, in double and in
// float, with and without Jacobian reuse, on populations whose blocks mix bodies that share their
// branches (in lanes) with bodies that do not (stepped alone), bodies past the last full block, and
// bodies that fail at different steps; and adaptive steps, whose step records agree too. The lanes
// are the widest the CPU has (AVX-512: blocks of 8 doubles or 16 floats; AVX2: 4 or 8); ctest runs
// the suite again with QUATSTEP_SIMD=avx2 (avx2.*).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "bench/heavy_top_ensemble.hpp"
#include "cpu_ensemble.hpp"  // host/

namespace {

using namespace quatstep;
using bench::sherif_top;
using bench::step_size;

/// Bodies per block in S here, and the populations' size: five full blocks and three bodies past them.
template <class S>
index_t width() {
  return lanes::width<S>(lanes::best_isa());
}
template <class S>
index_t bodies_of() {
  return 5 * width<S>() + 3;
}

/// Model m in precision S (every parameter rounded to S).
template <template <class> class Model, class S>
Model<S> in_precision(Model<double> m) {
  std::vector<double> values;
  for_each_parameter(m, [&](double x) { values.push_back(x); });
  Model<S> out;
  std::size_t k = 0;
  for_each_parameter(out, [&](S& x) { x = S(values[k++]); });
  return out;
}
template <class S, template <class> class Model>
std::vector<Model<S>> in_precision(const std::vector<Model<double>>& models) {
  std::vector<Model<S>> out;
  for (const Model<double>& m : models) out.push_back(in_precision<Model, S>(m));
  return out;
}

/// Blocks of w bodies: blocks 0–1: Sherif's top (gravity), ω varied, block 1 with sinusoidal body
/// torques (their own amplitudes, frequencies and phases: the lanes' sin takes different quadrants);
/// block 2: with a constant body torque and a ramped spatial torque, both in the window
/// [0.01, 0.02) s (different in size per body: still in lanes); block 3: one body with a sinusoidal
/// torque (the block steps alone); block 4: torque windows that end at different times (alone); then
/// three bodies past the last block.
std::vector<HeavyTop<double>> population(index_t w = width<double>()) {
  std::vector<HeavyTop<double>> m(5 * w + 3, sherif_top<double>());
  for (index_t i = w; i < 2 * w; ++i) {
    TimeProfile<double>& b = m[i].loads.body_torque;
    b.amplitude = Vec3<double>(2.0, -1.0 * double(i), 0.5);
    b.frequency = 1000.0 * double(i), b.phase = 0.7 * double(i);
  }
  for (index_t i = 2 * w; i < 3 * w; ++i) {
    TimeProfile<double>& b = m[i].loads.body_torque;
    b.constant = Vec3<double>(0.5 + 0.1 * double(i), -0.3, 0.2);
    b.begin = 0.01, b.end = 0.02;
    TimeProfile<double>& s = m[i].loads.spatial_torque;
    s.ramp = Vec3<double>(0.0, 0.0, 20.0 + double(i));
    s.begin = 0.01, s.end = 0.02;
  }
  m[3 * w + 1].loads.body_torque.amplitude = Vec3<double>(0.0, 0.0, 1.0);
  m[3 * w + 1].loads.body_torque.frequency = 300.0;
  for (index_t i = 4 * w; i < 5 * w; ++i) {
    m[i].loads.body_torque.constant = Vec3<double>(1.0, 0.0, 0.0);
    m[i].loads.body_torque.end = 0.005 * double(i - 4 * w + 1);
  }
  return m;
}

/// Free bodies arranged as population()'s heavy tops: blocks 0–1 under gravity, masses and inertias
/// varied, block 1 with sinusoidal forces and spatial torques; block 2 with a windowed constant force
/// and a windowed ramped body torque; block 3 with one sinusoidal force (alone); block 4 with force
/// windows that differ (alone); three bodies past them.
std::vector<FreeRigidBody<double>> free_population(index_t w = width<double>()) {
  std::vector<FreeRigidBody<double>> m(5 * w + 3);
  for (index_t i = 0; i < index_t(m.size()); ++i) {
    m[i].inertia = Vec3<double>(1.0 + 0.01 * double(i), 1.5, 0.8).asDiagonal();
    m[i].mass = 2.0 + 0.1 * double(i);
    m[i].gravity = Vec3<double>(0.0, 0.0, -9.81);
  }
  for (index_t i = w; i < 2 * w; ++i) {
    m[i].force_profile.amplitude = Vec3<double>(1.0, 0.0, -2.0 * double(i));
    m[i].force_profile.frequency = 500.0 * double(i), m[i].force_profile.phase = -1.3 * double(i);
    m[i].loads.spatial_torque.amplitude = Vec3<double>(0.0, 3.0, 0.1 * double(i));
    m[i].loads.spatial_torque.frequency = 800.0 * double(i);
  }
  for (index_t i = 2 * w; i < 3 * w; ++i) {
    m[i].force_profile.constant = Vec3<double>(3.0 + double(i), 0.0, 1.0);
    m[i].force_profile.begin = 0.005, m[i].force_profile.end = 0.02;
    m[i].loads.body_torque.ramp = Vec3<double>(0.0, 40.0 + double(i), 0.0);
    m[i].loads.body_torque.begin = 0.01, m[i].loads.body_torque.end = 0.02;
  }
  m[3 * w + 1].force_profile.amplitude = Vec3<double>(1.0, 0.0, 0.0);
  m[3 * w + 1].force_profile.frequency = 300.0;
  for (index_t i = 4 * w; i < 5 * w; ++i) {
    m[i].force_profile.constant = Vec3<double>(0.0, 1.0, 0.0);
    m[i].force_profile.end = 0.005 * double(i - 4 * w + 1);
  }
  return m;
}

template <class S = double>
std::vector<RigidBodyKinematics<S>> initial_states(double spread = 0.001) {
  const index_t n = bodies_of<S>();
  std::vector<RigidBodyKinematics<S>> k(n);
  for (index_t i = 0; i < n; ++i) {
    k[i] = bench::sherif_initial<S>(i);
    k[i].omega_body *= S(1.0 + spread * double(i) / double(n));
    k[i].velocity = Vec3<S>(1.0, -0.5, 2.0 + 0.1 * double(i));  // free bodies only
  }
  return k;
}

/// What a run leaves: every state bit, the records, every sample.
template <class S>
struct Run {
  std::vector<S> state, samples;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  bool lanes = false;
  index_t in_lanes = 0;  ///< bodies stepped in lanes
};

/// steps steps in two calls, samples every third step (the second call's window starts past the first's).
template <class Integrator, class S = typename Integrator::Scalar>
Run<S> run(const Integrator& integrator, const std::vector<typename Integrator::ModelType>& models,
           const std::vector<RigidBodyKinematics<S>>& initial, index_t steps, bool lanes) {
  CpuEnsemble<Integrator> e(integrator, models, S(0), S(step_size));
  e.use_lanes(lanes);
  constexpr int scalars = CpuEnsemble<Integrator>::sample_scalars;
  const index_t n = index_t(models.size()), stride = 3, half = steps / 2, samples = steps / stride + 1;
  Run<S> r;
  r.samples.assign(samples * scalars * n, S(0));
  const auto view = [&](index_t first, index_t count) {
    return SampleView<S>{r.samples.data() + first * scalars * n, n, first, count, stride, scalars};
  };
  const index_t split = half / stride + 1;  // samples [0, split) in the first call
  e.initialize(initial, view(0, split));
  e.advance(half, view(0, split));
  e.advance(steps - half, view(split, samples - split));
  r.state = e.state_data();
  r.status = e.status(), r.iterations = e.newton_iterations(), r.failed_step = e.failed_step();
  r.lanes = e.uses_lanes();
  r.in_lanes = e.bodies_in_lanes();
  return r;
}

template <class S>
int differing_bits(const std::vector<S>& a, const std::vector<S>& b) {
  int n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(S)) != 0;
  return n;
}

template <class Integrator>
constexpr bool is_explicit = false;
template <class M, class F, template <class> class Settings>
constexpr bool is_explicit<RigidBodySplitting<M, F, Settings>> = true;

/// population() of heavy tops, or free_population(), in the precision of Model.
template <class Model, class S = typename Model::Scalar>
std::vector<Model> population_of() {
  if constexpr (std::is_same_v<Model, HeavyTop<S>>) return in_precision<S>(population(width<S>()));
  else return in_precision<S>(free_population(width<S>()));
}

/// A run without lanes and one with them leave the same bits, in_lanes bodies at least in lanes.
template <class S>
void expect_same_bits(const Run<S>& scalar, const Run<S>& lanes, index_t in_lanes) {
  EXPECT_FALSE(scalar.lanes);
  EXPECT_TRUE(lanes.lanes);
  EXPECT_GE(lanes.in_lanes, in_lanes);
  EXPECT_EQ(differing_bits(scalar.state, lanes.state), 0);
  EXPECT_EQ(differing_bits(scalar.samples, lanes.samples), 0);
  EXPECT_EQ(scalar.status, lanes.status);
  EXPECT_EQ(scalar.iterations, lanes.iterations);
  EXPECT_EQ(scalar.failed_step, lanes.failed_step);
}

template <class Integrator, class S = typename Integrator::Scalar>
void expect_lanes_bitwise(const Integrator& integrator, index_t steps, double spread = 0.001,
                          std::set<index_t>* failed_steps = nullptr,
                          std::vector<typename Integrator::ModelType> models = {},
                          std::vector<RigidBodyKinematics<S>> initial = {}) {
  if (models.empty()) models = population_of<typename Integrator::ModelType>();
  if (initial.empty()) initial = initial_states<S>(spread);
  const index_t n = index_t(models.size());
  const Run<S> scalar = run(integrator, models, initial, steps, false);
  const Run<S> lanes = run(integrator, models, initial, steps, true);
  expect_same_bits(scalar, lanes, 3 * width<S>());  // blocks 0–2 at least
  for (index_t i = 0; i < n; ++i) {
    if (scalar.status[i] != Status::ok) {
      if (failed_steps) failed_steps->insert(scalar.failed_step[i]);
    } else if (is_explicit<Integrator>) {
      EXPECT_EQ(scalar.iterations[i], 0) << "body " << i;
    } else {
      EXPECT_GE(scalar.iterations[i], steps) << "body " << i;  // ≥ 1 per step
    }
  }
}

HhtSettings<double> hht(bool shift, bool full_newton = false) {
  HhtSettings<double> s;
  s.alpha = bench::alpha;
  s.inertia_shift = shift;
  if (full_newton) s.newton.jacobian_reuse_below = 0;
  return s;
}

/// The tests that step bodies in lanes: skipped, with the reason, where there are none (a skip in a
/// helper would let the test's own checks run on).
class CpuLanes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lanes::available())
      GTEST_SKIP() << "no SIMD lanes here (a build without them, a CPU without AVX2, or QUATSTEP_SIMD=off)";
    RecordProperty("isa", lanes::to_string(lanes::best_isa()));
  }
};

TEST(LaneBlocks, AreThoseWhoseBodiesShareTheirBranches) {
  const lanes::Blocks<HeavyTop<double>> blocks(population());
  EXPECT_TRUE(blocks.lanes(0) && blocks.lanes(1) && blocks.lanes(2));
  EXPECT_TRUE(blocks.branches[2].torques && blocks.branches[2].body_torque && blocks.branches[2].spatial_torque);
  EXPECT_TRUE(blocks.branches[1].sinusoids[0] && !blocks.branches[1].sinusoids[1]);
  EXPECT_FALSE(blocks.lanes(3));  // a sinusoidal torque in one body of four
  EXPECT_FALSE(blocks.lanes(4));  // windows that differ
  EXPECT_FALSE(blocks.lanes(5));  // past the last full block
}

TEST(LaneBlocks, OfFreeBodiesAreThoseWhoseBodiesShareTheirBranches) {
  const lanes::Blocks<FreeRigidBody<double>> blocks(free_population());
  EXPECT_TRUE(blocks.lanes(0) && blocks.lanes(1) && blocks.lanes(2));
  EXPECT_TRUE(blocks.branches[2].torques && blocks.branches[2].body_torque && !blocks.branches[2].spatial_torque);
  EXPECT_TRUE(!blocks.branches[1].sinusoids[0] && blocks.branches[1].sinusoids[1] && blocks.branches[1].sinusoids[2]);
  EXPECT_FALSE(blocks.lanes(3));  // a sinusoidal force in one body of four
  EXPECT_FALSE(blocks.lanes(4));  // force windows that differ
}

TEST_F(CpuLanes, ModifiedHhtIsBitwiseScalar) {
  expect_lanes_bitwise(ModifiedHht<HeavyTop<double>>(hht(true)), 300);
  expect_lanes_bitwise(ModifiedHht<HeavyTop<double>>(hht(false)), 300);
  expect_lanes_bitwise(ModifiedHht<HeavyTop<double>>(hht(true, true)), 300);
}

TEST_F(CpuLanes, HhtIsBitwiseScalar) {
  expect_lanes_bitwise(Hht<HeavyTop<double>>(hht(false)), 300);
  expect_lanes_bitwise(Hht<HeavyTop<double>>(hht(true)), 300);
}

TEST_F(CpuLanes, RemlIsBitwiseScalar) {
  expect_lanes_bitwise(LivensEm<HeavyTop<double>>(), 300);
  LivensSettings<double> full, literal;
  full.newton.jacobian_reuse_below = 0;
  literal.project_normal_components = false;
  expect_lanes_bitwise(LivensEm<HeavyTop<double>>(full), 300);
  expect_lanes_bitwise(LivensEm<HeavyTop<double>>(literal), 300);
}

TEST_F(CpuLanes, LivensMidpointIsBitwiseScalar) {
  expect_lanes_bitwise(LivensMidpoint<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(LivensMidpoint<FreeRigidBody<double>>(), 300);
}

TEST_F(CpuLanes, FreeBodiesAreBitwiseScalar) {
  expect_lanes_bitwise(ModifiedHht<FreeRigidBody<double>>(hht(true)), 300);
  expect_lanes_bitwise(ModifiedHht<FreeRigidBody<double>>(hht(false, true)), 300);
  expect_lanes_bitwise(Hht<FreeRigidBody<double>>(hht(false)), 300);
  expect_lanes_bitwise(LivensEm<FreeRigidBody<double>>(), 300);
}

TEST_F(CpuLanes, LivensFullAndNullSpaceFormsAreBitwiseScalar) {
  constexpr auto full = LivensVariant::full, nullspace = LivensVariant::nullspace;
  LivensSettings<double> literal;
  literal.project_normal_components = false;
  expect_lanes_bitwise(LivensEm<HeavyTop<double>, full>(), 300);
  expect_lanes_bitwise(LivensEm<HeavyTop<double>, full>(literal), 300);
  expect_lanes_bitwise(LivensEm<FreeRigidBody<double>, full>(), 300);
  expect_lanes_bitwise(LivensMidpoint<HeavyTop<double>, full>(), 300);
  expect_lanes_bitwise(LivensEm<HeavyTop<double>, nullspace>(), 300);
  expect_lanes_bitwise(LivensEm<FreeRigidBody<double>, nullspace>(), 300);
  expect_lanes_bitwise(LivensMidpoint<FreeRigidBody<double>, nullspace>(), 300);
  // |ϑ| = |ω|h from 0.015 to 0.027: the exponential's sinc(|ϑ|/2) takes its series (|ϑ| < 0.02) in
  // some lanes of a block and its closed form in the others
  expect_lanes_bitwise(LivensEm<HeavyTop<double>, nullspace>(), 300, 0.9);
}

TEST_F(CpuLanes, SimoVuQuocIsBitwiseScalar) {
  SimoVuQuocSettings<double> full;
  full.newton.jacobian_reuse_below = 0;
  expect_lanes_bitwise(SimoVuQuoc<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(SimoVuQuoc<HeavyTop<double>>(full), 300);
  expect_lanes_bitwise(SimoVuQuoc<FreeRigidBody<double>>(), 300);
  // |ω| from 150 to 267 rad/s: in block 2 the rotation's sinc(|θ|/2) takes its series (|θ| < 0.02,
  // |ω| < 200 at h = 1e-4) in lane 0 and its closed form in lanes 1–3 (series_below: math/choose.hpp, lane_trig.hpp)
  expect_lanes_bitwise(SimoVuQuoc<HeavyTop<double>>(), 300, 0.9);
}

TEST_F(CpuLanes, Zupan3IsBitwiseScalar) {
  expect_lanes_bitwise(Zupan3<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(Zupan3<FreeRigidBody<double>>(), 300);
  expect_lanes_bitwise(Zupan3<HeavyTop<double>>(), 300, 0.9);  // sinc's series and closed form side by side
  // Newton capped at one iteration: bodies 2 and 3 of block 0 fail in stage 1 (newton_not_converged)
  // at the first step beside two that run on
  Zupan3Settings<double> capped;
  capped.newton.max_iterations = 1;
  capped.newton.tolerance = 3e-4;
  std::set<index_t> failed_steps;
  expect_lanes_bitwise(Zupan3<HeavyTop<double>>(capped), 300, 0.9, &failed_steps);
  EXPECT_EQ(failed_steps, std::set<index_t>{0});
}

/// The population in S whose body i has a sinusoidal body torque (100 rad per step) whose argument
/// passes math::sin's domain (2^50 in double, 2^21 in float: NaN beyond) at step nan_step(i)
/// (fractional: within that step).
template <class S = double, class NanStep>
std::vector<HeavyTop<S>> population_with_nan_torques(NanStep nan_step) {
  std::vector<HeavyTop<double>> m = population(width<S>());
  for (index_t i = 0; i < index_t(m.size()); ++i) {
    TimeProfile<double>& b = m[i].loads.body_torque;
    b = TimeProfile<double>{};
    b.amplitude = Vec3<double>(0.0, 0.0, 1.0);
    b.frequency = 1e6;
    b.phase = double(math::detail::TrigConstants<S>::max_argument) - 100.0 * nan_step(i);
  }
  return in_precision<S>(m);
}

/// Every body's torque turns NaN inside a step of its own (20 + 3i), before stage 1's time t + τh
/// (τ = 0.59) in even bodies and after it in odd ones: their Newton solves meet the NaN in stage 1
/// or in stage 2, lane by lane as alone.
TEST_F(CpuLanes, Zupan3LanesFailInEitherStageLikeScalarBodies) {
  const auto m = population_with_nan_torques([](index_t i) { return double(20 + 3 * i) + (i % 2 ? 0.8 : 0.3); });
  std::set<index_t> failed_steps;
  expect_lanes_bitwise(Zupan3<HeavyTop<double>>(), 300, 0.001, &failed_steps, m);
  EXPECT_GT(failed_steps.size(), 12u);
  const auto r = run(Zupan3<HeavyTop<double>>(), m, initial_states(), 300, false);
  int in_stage_1 = 0, in_stage_2 = 0;
  const index_t n = index_t(m.size());
  for (index_t i = 0; i < n; ++i) {
    ASSERT_EQ(r.status[i], Status::non_finite) << "body " << i;
    // 4 iterations per step before it (2 per stage); then 1 (the NaN in stage 1), or 2 + 1
    const index_t last = r.iterations[i] - 4 * r.failed_step[i];
    in_stage_1 += last == 1, in_stage_2 += last == 3;
  }
  EXPECT_EQ(in_stage_1, (n + 1) / 2);  // the even bodies
  EXPECT_EQ(in_stage_2, n / 2);
}

TEST_F(CpuLanes, MidpointLieIsBitwiseScalar) {
  expect_lanes_bitwise(MidpointLie<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(MidpointLie<FreeRigidBody<double>>(), 300);
  expect_lanes_bitwise(MidpointLie<HeavyTop<double>>(), 300, 0.9);  // sinc's series and closed form side by side
}

TEST_F(CpuLanes, ExplicitNewmarkLieIsBitwiseScalar) {
  expect_lanes_bitwise(ExplicitNewmarkLie<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(ExplicitNewmarkLie<FreeRigidBody<double>>(), 300);
  // Newton capped at one iteration: at tolerance 0.07 or 0.08 some bodies in lanes fail in Φ at the
  // first step beside others that run on, and some fail in Φ* later, their iterations both solves' of
  // that step (in blocks of four: 0.07 → {0}, 0.08 → {0, 75}; of eight: 0.07 → {0, 171}, 0.08 → {0})
  std::set<index_t> failed_steps;
  for (const double tolerance : {0.07, 0.08}) {
    LieGroupSettings<double> capped;
    capped.newton.max_iterations = 1;
    capped.newton.tolerance = tolerance;
    expect_lanes_bitwise(ExplicitNewmarkLie<HeavyTop<double>>(capped), 300, 0.9, &failed_steps);
  }
  EXPECT_EQ(failed_steps.count(0), 1u) << ::testing::PrintToString(failed_steps);
  EXPECT_GE(failed_steps.size(), 2u) << ::testing::PrintToString(failed_steps);
}

TEST_F(CpuLanes, HamiltonianSchemesAreBitwiseScalar) {
  expect_lanes_bitwise(HamiltonianEm<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(HamiltonianMidpoint<HeavyTop<double>>(), 300);
  expect_lanes_bitwise(HamiltonianEm<FreeRigidBody<double>>(), 300);
  expect_lanes_bitwise(HamiltonianMidpoint<FreeRigidBody<double>>(), 300);
}

/// NoSquish and SymmetricSplitting, orders 2, 4 and 6.
template <class M>
void expect_splittings_bitwise() {
  for (const int order : {2, 4, 6}) {
    SplittingSettings<double> s;
    s.order = order;
    expect_lanes_bitwise(NoSquish<M>(s), 200);
    expect_lanes_bitwise(SymmetricSplitting<M>(s), 200);
  }
}

TEST_F(CpuLanes, SplittingsAreBitwiseScalar) { expect_splittings_bitwise<HeavyTop<double>>(); }

TEST_F(CpuLanes, SplittingsOnFreeBodiesAreBitwiseScalar) { expect_splittings_bitwise<FreeRigidBody<double>>(); }

/// Free bodies for the exact free flow whose blocks mix, lane by lane, what its code decides per body:
/// inertias with two equal moments (body i, i ≡ 0 mod 4: the symmetric flows) beside three distinct
/// ones; L about the axis of the largest moment or of the smallest (the relabelling of F1); short
/// steps (|λ·dt| ≤ π/2, the addition theorems) beside long ones (≈ 1e4 rad/s: whole half periods,
/// turns ≠ 0); a body at rest (L = 0: no rotation).
std::vector<FreeRigidBody<double>> exact_flow_population() {
  std::vector<FreeRigidBody<double>> m = free_population();
  for (index_t i = 0; i < index_t(m.size()); ++i) {
    const double j = double(i);
    m[i].inertia = (i % 4 == 0 ? Vec3<double>(1.0, 1.0, 0.5) : Vec3<double>(6.0 + 0.1 * j, 8.0, 3.0)).asDiagonal();
  }
  return m;
}
std::vector<RigidBodyKinematics<double>> exact_flow_initial_states() {
  std::vector<RigidBodyKinematics<double>> k = initial_states();
  const Vec3<double> directions[] = {{10.0, 20.0, 20.0}, {20.0, 1.0, 0.5}, {0.3, 2.0, 20.0}, {1.0, -20.0, 3.0}};
  for (index_t i = 0; i < index_t(k.size()); ++i)
    k[i].omega_body = (i % 3 == 1 ? 1000.0 : 1.0) * directions[(i / 2) % 4] * (1.0 + 0.01 * double(i));
  k[9].omega_body.setZero();
  return k;
}

TEST_F(CpuLanes, ExactFreeSplittingIsBitwiseScalar) {
  for (const int order : {2, 4, 6}) {
    ExactFreeSplittingSettings<double> s;
    s.order = order;
    expect_lanes_bitwise(ExactFreeSplitting<HeavyTop<double>>(s), 200);
    expect_lanes_bitwise(ExactFreeSplitting<FreeRigidBody<double>>(s), 200);
    expect_lanes_bitwise(ExactFreeSplitting<FreeRigidBody<double>>(s), 200, 0.0, nullptr, exact_flow_population(),
                         exact_flow_initial_states());
  }
  ExactFreeSplittingSettings<double> near_integrable;
  near_integrable.composition = Composition::near_integrable;
  expect_lanes_bitwise(ExactFreeSplitting<HeavyTop<double>>(near_integrable), 200);
  expect_lanes_bitwise(ExactFreeSplitting<FreeRigidBody<double>>(near_integrable), 200, 0.0, nullptr,
                       exact_flow_population(), exact_flow_initial_states());
}

/// Every body's torque turns NaN at a step of its own (≈ 20 + 7i): the splitting fails there with
/// non_finite, lane by lane as alone.
TEST_F(CpuLanes, FailingSplittingLanesStopLikeScalarBodies) {
  const auto m = population_with_nan_torques([](index_t i) { return double(20 + 7 * i); });
  std::set<index_t> failed_steps;
  expect_lanes_bitwise(NoSquish<HeavyTop<double>>(), 300, 0.001, &failed_steps, m);
  EXPECT_GT(failed_steps.size(), 12u);  // the bodies of a block fail apart
  EXPECT_LE(*failed_steps.rbegin(), 20 + 7 * (index_t(m.size()) - 1) + 1);
}

/// Every body's force grows past what its mass of 1e-300 turns into a finite acceleration (F/m above
/// the largest double) within a step of its own (20 + 7i): its velocity becomes +∞, never NaN, and
/// the step fails there with non_finite, lane by lane as alone (±∞ passed the finite check before).
TEST_F(CpuLanes, AnInfiniteStateFailsTheStepAsNaNDoes) {
  std::vector<FreeRigidBody<double>> m = free_population();
  for (index_t i = 0; i < index_t(m.size()); ++i) {
    m[i].mass = 1e-300;
    m[i].gravity = Vec3<double>::Zero();
    m[i].force_profile = TimeProfile<double>{};
    // F(t) = ramp · t reaches 1.8e8 · mass' inverse (≈ the largest double) at t = 1.8e8 / ramp
    m[i].force_profile.ramp = Vec3<double>(1.8e8 / (step_size * (20.5 + 7.0 * double(i))), 0.0, 0.0);
  }
  const auto expect_failures = [&](const auto& integrator, const char* name) {
    std::set<index_t> failed_steps;
    expect_lanes_bitwise(integrator, 330, 0.001, &failed_steps, m);
    const auto r = run(integrator, m, initial_states(), 330, false);
    for (index_t i = 0; i < index_t(m.size()); ++i) {
      ASSERT_EQ(r.status[i], Status::non_finite) << name << ", body " << i;
      EXPECT_NEAR(double(r.failed_step[i]), 20.0 + 7.0 * double(i), 1.0) << name << ", body " << i;
    }
    EXPECT_GT(failed_steps.size(), 12u) << name;  // the bodies of a block fail apart
  };
  expect_failures(ModifiedHht<FreeRigidBody<double>>(hht(true)), "ModifiedHht");
  expect_failures(ExplicitNewmarkLie<FreeRigidBody<double>>(), "ExplicitNewmarkLie");
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
    const SampleView<double> none{nullptr, e.bodies(), 0, 0, 1, 0};
    e.initialize(initial, none, /*skip_invalid=*/true);
    e.advance(200, none);
    EXPECT_EQ(e.status()[2], Status::invalid_input);
    EXPECT_EQ(e.newton_iterations()[2], 0);
    EXPECT_EQ(e.status()[1], Status::ok);
    EXPECT_EQ(e.bodies_in_lanes(), on ? 3 * width<double>() : 0);
    states.push_back(e.state_data());
  }
  EXPECT_EQ(differing_bits(states[0], states[1]), 0);
}

TEST_F(CpuLanes, BodiesRejectedAtTheStartStayOutOfTheirBlocksSteps) {
  expect_rejected_body_left_alone(LivensEm<HeavyTop<double>>());
  expect_rejected_body_left_alone(ModifiedHht<HeavyTop<double>>(hht(true)));
}

TEST_F(CpuLanes, FailingLanesStopLikeScalarBodies) {
  HhtSettings<double> s = hht(false);
  s.alpha = 0.0;  // classical HHT, α = 0: diverges near t ≈ 0.35–0.43 s (docs/errata.md S4)
  std::set<index_t> failed_steps;
  expect_lanes_bitwise(Hht<HeavyTop<double>>(s), 5000, 0.1, &failed_steps);
  EXPECT_GT(failed_steps.size(), 4u);  // the bodies of a block fail apart
}

// Float: eight bodies per block in AVX2, sixteen in AVX-512, each lane the bits of its body's float step.

/// Blocks of T in instruction set `isa` over population(w) of that width: blocks 0–2 in lanes, 3 and 4
/// stepped alone.
template <class T>
void expect_blocks(lanes::Isa isa, index_t w) {
  const lanes::Blocks<HeavyTop<T>> blocks(in_precision<T>(population(w)), isa);
  EXPECT_EQ(blocks.width, w);
  EXPECT_EQ(blocks.branches.size(), 5u);
  EXPECT_TRUE(blocks.lanes(0) && blocks.lanes(1) && blocks.lanes(2));
  EXPECT_TRUE(blocks.branches[1].sinusoids[0] && blocks.branches[2].spatial_torque);
  EXPECT_FALSE(blocks.lanes(3) || blocks.lanes(4) || blocks.lanes(5));
  EXPECT_EQ(blocks.bodies(), 3 * w);
}

TEST(LaneBlocks, AreOneRegisterWide) {
  expect_blocks<double>(lanes::Isa::avx2, 4);
  expect_blocks<float>(lanes::Isa::avx2, 8);
  expect_blocks<double>(lanes::Isa::avx512, 8);
  expect_blocks<float>(lanes::Isa::avx512, 16);
}

/// Every integrator with lanes on model M in float.
template <class M>
void expect_float_lanes_bitwise() {
  HhtSettings<float> shift, plain;
  shift.alpha = plain.alpha = float(bench::alpha);
  shift.inertia_shift = true;
  expect_lanes_bitwise(ModifiedHht<M>(shift), 300);
  expect_lanes_bitwise(ModifiedHht<M>(plain), 300);
  expect_lanes_bitwise(Hht<M>(plain), 300);
  constexpr auto full = LivensVariant::full, nullspace = LivensVariant::nullspace;
  expect_lanes_bitwise(LivensEm<M>(), 300);
  expect_lanes_bitwise(LivensMidpoint<M>(), 300);
  expect_lanes_bitwise(LivensEm<M, full>(), 300);
  expect_lanes_bitwise(LivensEm<M, nullspace>(), 300, 0.9);
  expect_lanes_bitwise(SimoVuQuoc<M>(), 300, 0.9);
  expect_lanes_bitwise(Zupan3<M>(), 300, 0.9);
  expect_lanes_bitwise(MidpointLie<M>(), 300, 0.9);
  expect_lanes_bitwise(ExplicitNewmarkLie<M>(), 300);
  expect_lanes_bitwise(HamiltonianEm<M>(), 300);
  expect_lanes_bitwise(HamiltonianMidpoint<M>(), 300);
  for (const int order : {2, 4, 6}) {
    SplittingSettings<float> s;
    s.order = order;
    expect_lanes_bitwise(NoSquish<M>(s), 200);
    expect_lanes_bitwise(SymmetricSplitting<M>(s), 200);
    ExactFreeSplittingSettings<float> e;
    e.order = order;
    expect_lanes_bitwise(ExactFreeSplitting<M>(e), 200);
  }
}

TEST_F(CpuLanes, FloatHeavyTopsAreBitwiseScalar) { expect_float_lanes_bitwise<HeavyTop<float>>(); }

TEST_F(CpuLanes, FloatFreeBodiesAreBitwiseScalar) { expect_float_lanes_bitwise<FreeRigidBody<float>>(); }

/// Every body's torque turns NaN at a step of its own (≈ 20 + 7i, float's sin domain ends at 2^21):
/// the float lanes fail there like the scalar float steps, Newton or not.
TEST_F(CpuLanes, FailingFloatLanesStopLikeScalarBodies) {
  const auto m = population_with_nan_torques<float>([](index_t i) { return double(20 + 7 * i); });
  std::set<index_t> explicit_failed, implicit_failed;
  expect_lanes_bitwise(NoSquish<HeavyTop<float>>(), 400, 0.001, &explicit_failed, m);
  HhtSettings<float> s;
  s.alpha = float(bench::alpha);
  s.inertia_shift = true;
  expect_lanes_bitwise(ModifiedHht<HeavyTop<float>>(s), 400, 0.001, &implicit_failed, m);
  EXPECT_GT(explicit_failed.size(), std::size_t(3 * width<float>()));  // the bodies of a block fail apart
  EXPECT_GT(implicit_failed.size(), std::size_t(3 * width<float>()));
}

// Adaptive steps (AdaptiveHht over the HHT family): each lane keeps its own t and h and makes its own
// attempts; the step records too are those of the scalar steps. The blocks are bodies sorted by
// their next step size between output times (lanes::SortedBlocks); bodies whose loads have
// windows (population()'s blocks 2 and 4) step alone: their bodies' times differ.

/// What an adaptive run leaves besides Run's: the step records.
template <class S>
struct AdaptiveRun : Run<S> {
  StepRecords records;
};

/// `outputs` output times 1 ms apart in two calls: the first samples every one, the second only its
/// last three (the lanes then step through several output times at once).
template <class Integrator, class S = typename Integrator::Scalar>
AdaptiveRun<S> adaptive_run(const AdaptiveHht<Integrator>& stepper,
                            const std::vector<typename Integrator::ModelType>& models,
                            const std::vector<RigidBodyKinematics<S>>& initial, index_t outputs, bool lanes) {
  using Ensemble = CpuEnsemble<AdaptiveHht<Integrator>>;
  Ensemble e(stepper, models, S(0), S(1e-3));
  e.use_lanes(lanes);
  constexpr int scalars = Ensemble::sample_scalars;
  const index_t n = index_t(models.size()), half = outputs / 2, samples = outputs + 1;
  AdaptiveRun<S> r;
  r.samples.assign(samples * scalars * n, S(0));
  const auto view = [&](index_t first, index_t count) {
    return SampleView<S>{r.samples.data() + first * scalars * n, n, first, count, 1, scalars};
  };
  e.initialize(initial, view(0, half + 1));
  e.advance(half, view(0, half + 1));
  e.advance(outputs - half, view(outputs - 2, 3));
  r.state = e.state_data();
  r.status = e.status(), r.iterations = e.newton_iterations(), r.failed_step = e.failed_step();
  r.records = e.step_records();
  r.lanes = e.uses_lanes();
  r.in_lanes = e.bodies_in_lanes();
  return r;
}

/// The adaptive stepper's runs with and without lanes agree bit for bit, on population() (heavy tops)
/// or free_population() unless `models` are given. Returns the scalar run.
template <class Integrator, class S = typename Integrator::Scalar>
AdaptiveRun<S> expect_adaptive_lanes_bitwise(const AdaptiveHht<Integrator>& stepper, index_t outputs,
                                             double spread = 10.0,
                                             std::vector<typename Integrator::ModelType> models = {}) {
  if (models.empty()) models = population_of<typename Integrator::ModelType>();
  const std::vector<RigidBodyKinematics<S>> initial = initial_states<S>(spread);
  const AdaptiveRun<S> scalar = adaptive_run(stepper, models, initial, outputs, false);
  const AdaptiveRun<S> lanes = adaptive_run(stepper, models, initial, outputs, true);
  expect_same_bits<S>(scalar, lanes, 2 * width<S>());  // blocks 0–1 at least
  EXPECT_EQ(scalar.records.accepted, lanes.records.accepted);
  EXPECT_EQ(scalar.records.rejected, lanes.records.rejected);
  EXPECT_EQ(differing_bits(scalar.records.smallest, lanes.records.smallest), 0);
  EXPECT_EQ(differing_bits(scalar.records.largest, lanes.records.largest), 0);
  // the lanes of block 0 took steps of their own
  const std::set<index_t> counts(scalar.records.accepted.begin(), scalar.records.accepted.begin() + width<S>());
  EXPECT_GT(counts.size(), 1u);
  return scalar;
}

template <class Integrator>
AdaptiveHht<Integrator> adaptive(const Integrator& integrator, double tolerance = 1e-6) {
  AdaptiveSettings<typename Integrator::Scalar> a;
  a.rotation_atol = a.translation_atol = a.translation_rtol = typename Integrator::Scalar(tolerance);
  return AdaptiveHht<Integrator>(integrator, a);
}

TEST_F(CpuLanes, AdaptiveHhtFamilyIsBitwiseScalar) {
  for (const bool shift : {true, false}) {
    const auto r = expect_adaptive_lanes_bitwise(adaptive(ModifiedHht<HeavyTop<double>>(hht(shift))), 20);
    EXPECT_GT(*std::max_element(r.records.rejected.begin(), r.records.rejected.end()), 0);  // attempts rejected
    expect_adaptive_lanes_bitwise(adaptive(Hht<HeavyTop<double>>(hht(shift))), 20);
  }
}

TEST_F(CpuLanes, AdaptiveControlsAreBitwiseScalar) {
  AdaptiveHht<ModifiedHht<HeavyTop<double>>> a = adaptive(ModifiedHht<HeavyTop<double>>(hht(true)));
  for (const ErrorControl control : {ErrorControl::per_unit_step, ErrorControl::halve_double}) {
    a.settings.control = control;
    expect_adaptive_lanes_bitwise(a, 20);
  }
  a.settings.control = ErrorControl::per_step;
  a.settings.predictor_degree = 0;
  expect_adaptive_lanes_bitwise(a, 20);
}

TEST_F(CpuLanes, AdaptiveFreeBodiesAreBitwiseScalar) {
  expect_adaptive_lanes_bitwise(adaptive(ModifiedHht<FreeRigidBody<double>>(hht(true))), 20);
  expect_adaptive_lanes_bitwise(adaptive(Hht<FreeRigidBody<double>>(hht(false))), 20);
}

/// Bodies fail apart, each as alone: a torque that turns NaN at a time of its own (the corrector
/// fails at every step size down to h_min: a NaN pivot), and a tolerance that the fastest bodies
/// cannot meet above h_min (step_size_too_small).
TEST_F(CpuLanes, FailingAdaptiveLanesStopLikeScalarBodies) {
  const auto nan = population_with_nan_torques([](index_t i) { return double(20 + 7 * i); });
  const auto r = expect_adaptive_lanes_bitwise(adaptive(ModifiedHht<HeavyTop<double>>(hht(true))), 40, 10.0, nan);
  std::set<index_t> failed_steps;
  for (std::size_t i = 0; i < r.status.size(); ++i) {
    EXPECT_EQ(r.status[i], Status::singular_jacobian) << "body " << i;
    failed_steps.insert(r.failed_step[i]);
  }
  EXPECT_GT(failed_steps.size(), std::size_t(2 * width<double>()));

  AdaptiveHht<ModifiedHht<HeavyTop<double>>> tight = adaptive(ModifiedHht<HeavyTop<double>>(hht(true)), 1e-10);
  tight.settings.h_min = 3e-6;
  const AdaptiveRun<double> t = expect_adaptive_lanes_bitwise(tight, 10);
  const auto too_small = std::count(t.status.begin(), t.status.end(), Status::step_size_too_small);
  EXPECT_GT(too_small, 0);
  EXPECT_LT(too_small, std::ptrdiff_t(t.status.size()));  // the slow bodies meet it
}

TEST_F(CpuLanes, AdaptiveFloatLanesAreBitwiseScalar) {
  HhtSettings<float> s;
  s.alpha = float(bench::alpha);
  s.inertia_shift = true;
  expect_adaptive_lanes_bitwise(adaptive(ModifiedHht<HeavyTop<float>>(s), 1e-4), 20);
  expect_adaptive_lanes_bitwise(adaptive(ModifiedHht<FreeRigidBody<float>>(s), 1e-4), 20);
}

/// Adaptive steps: blocks of bodies of one kind (the same branches, no load windows), by their next
/// step size.
TEST(LaneBlocks, OfAdaptiveStepsAreBodiesOfOneKindByStepSize) {
  const std::vector<HeavyTop<double>> models = population();
  lanes::SortedBlocks<HeavyTop<double>> blocks(models);
  const index_t w = blocks.width, n = index_t(models.size());
  EXPECT_EQ(blocks.kinds.size(), 2u);  // no torque; a sinusoidal body torque (block 1, and body 3w + 1)
  for (index_t i = 0; i < n; ++i)  // population()'s blocks 2 and 4 have load windows
    EXPECT_EQ(blocks.kind[i] < 0, (i >= 2 * w && i < 3 * w) || (i >= 4 * w && i < 5 * w)) << i;
  std::vector<double> h(n);
  for (index_t i = 0; i < n; ++i) h[i] = 1.0 / double(1 + i % 7);
  h[1] = NAN;  // counts as +inf
  blocks.sort(h.data());
  // the 2w bodies with windows first (alone), then 2w + 2 without torque: two blocks of them
  EXPECT_EQ(blocks.bodies(), 2 * w);
  EXPECT_TRUE(!blocks.lanes(0) && !blocks.lanes(1) && blocks.lanes(2) && blocks.lanes(3) && !blocks.lanes(4));
  std::vector<double> sizes;
  for (index_t k = 2 * w; k < 4 * w + 2; ++k) {
    const index_t i = blocks.order[k];
    EXPECT_EQ(blocks.kind[i], blocks.kind[0]) << k;
    sizes.push_back(std::isnan(h[i]) ? INFINITY : h[i]);
  }
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(blocks.order[4 * w + 1], 1);  // the NaN last of its kind
}

}  // namespace
