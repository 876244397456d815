// CpuBatchStepper (host/cpu_batch_stepper.hpp), the coupled-step API on the CPU:
// - it is the body-by-body witness (step_body_with_loads on each body's own state, the loads of the
//   step as external loads) bit for bit, for splittings, explicit Newmark, Zupan3 and the HHT
//   family, in double and in float (16 lanes in AVX-512), with both load timings, bodies stepped
//   from their models or from inertia and mass alone, a change of h in the middle of the run, and
//   any thread count; with SIMD lanes (cpu_lanes.hpp) in the widest instruction set the CPU has
//   and again (avx2.*) in AVX2, the blocks whose bodies share their branches in lanes, a block with
//   a body without torque alone;
// - constant loads given every step are the model's own constant loads, bitwise (CpuEnsemble), for
//   the HHT family and Simo–Vu-Quoc too: the first step initializes the bodies with its loads;
// - a body whose loads are NaN or ±∞ fails alone with non_finite, at that step, the others keep
//   their bits, and the failed body's state is left alone after (for the HHT family, explicit
//   Newmark and NoSquish: the latter two take the loads of each step in the lanes, a failed lane
//   must not); an infinite force fails the free body's HHT step too, whose orientation it never
//   reaches;
// - bad input is refused naming the body, the field or the key.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_batch_stepper.hpp"  // host/
#include "cpu_ensemble.hpp"       // host/
#include "quatstep/quatstep.hpp"
#include "support/free_body_motion.hpp"

using namespace quatstep;

namespace {

using Top = HeavyTop<double>;
using Body = FreeRigidBody<double>;

template <class I>
I second_order() {
  if constexpr (std::is_constructible_v<I, SplittingSettings<typename I::Scalar>>) {
    SplittingSettings<typename I::Scalar> settings;
    settings.order = 2;
    return I(settings);
  } else {
    return I();
  }
}

/// The body whose loads are zero on every third step: its block of lanes then steps body by body
/// (a body with no torque takes other branches than those with one).
constexpr int unloaded_body = 1;
bool unloaded_step(index_t k) { return k % 3 == 0; }

/// n bodies with rotated inertia tensors and masses (computed in double, rounded to the model's
/// precision); with `own_loads` gravity besides (the steps then read the whole models, else the
/// inertia and mass alone: CoupledModels), and a constant spatial torque of unloaded_body's own,
/// which the caller's torque cancels on its unloaded steps (step_loads): the branches follow the
/// loads the model is left with, not the caller's alone.
template <class Model>
std::vector<Model> bodies(int n, bool own_loads) {
  using S = typename Model::Scalar;
  std::vector<Model> m;
  for (int i = 0; i < n; ++i) {
    const Mat3<double> r = rotation_matrix(quat_from_rotation_vector<double>(Vec3<double>(0.3 * i, -0.2, 0.1 * i)));
    const Vec3<double> moments(1.0 + 0.05 * i, 1.6, 2.2 - 0.03 * i);
    const Mat3<double> inertia = r * moments.asDiagonal() * r.transpose();
    Model b = Model::unloaded(inertia.cast<S>(), S(0.5 + 0.25 * i));
    const Vec3<S> gravity(0, 0, S(-9.81));
    if (own_loads) {
      if constexpr (Model::translates) b.gravity = gravity;
      else b.loads.mass = S(0.5), b.loads.lever = Vec3<S>(S(0.1), 0, S(0.2)), b.loads.gravity = gravity;
      if (i == unloaded_body) b.loads.spatial_torque.constant = Vec3<S>(S(0.3), S(-0.2), S(0.1));
    }
    m.push_back(b);
  }
  return m;
}

template <class S = double>
std::vector<RigidBodyKinematics<S>> starts(int n) {
  std::vector<RigidBodyKinematics<S>> k;
  for (int i = 0; i < n; ++i) {
    const RigidBodyKinematics<double> d = quatstep::testing::shaken_body_start(i);
    k.push_back(RigidBodyKinematics<S>::of(d.quaternion.cast<S>(), d.omega_body.cast<S>(), d.position.cast<S>(),
                                           d.velocity.cast<S>()));
  }
  return k;
}

/// The loads of step k as the caller's 3 × n arrays (component-major); unloaded_body's are −own on
/// its unloaded steps.
template <class S = double>
std::vector<S> step_loads(int n, index_t k, double scale, const Vec3<S>& own = Vec3<S>::Zero()) {
  std::vector<S> a(std::size_t(3 * n));
  for (int i = 0; i < n; ++i) {
    const double s = i == unloaded_body && unloaded_step(k) ? 0.0 : scale;
    a[i] = S(s * std::sin(0.1 * double(k) + i));
    a[n + i] = S(s * std::cos(0.07 * double(k) - i));
    a[2 * n + i] = S(0.5 * s * std::sin(0.13 * double(k) + 2 * i));
    if (s == 0.0)
      for (int c = 0; c < 3; ++c) a[c * n + i] = -own[c];
  }
  return a;
}
/// The torques of step k: unloaded_body's cancel its own (bodies).
template <class Model, class S = typename Model::Scalar>
std::vector<S> step_torques(const std::vector<Model>& models, index_t k) {
  return step_loads<S>(int(models.size()), k, 2.0, models[unloaded_body].loads.spatial_torque.constant);
}

template <class S>
bool same_bits(const std::vector<S>& a, const std::vector<S>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(S)) == 0;
}

/// The steps of the runs below: 64 of 1/256, then 64 of 1/512 (the clock's t_base + k·h).
double step_size(index_t k) { return k < 64 ? 1.0 / 256 : 1.0 / 512; }
constexpr index_t steps = 128;

/// The kinematics (quaternion, ω, position, velocity) and records of a CpuBatchStepper run with
/// step_loads, and the bodies in lanes on each step.
template <class S>
struct Outcome {
  std::vector<S> q, w, x, v;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed;
  std::vector<index_t> in_lanes;
};

template <class I, class S = typename I::Scalar>
Outcome<S> batch_run(const I& integrator, const std::vector<typename I::ModelType>& models, LoadTiming timing) {
  using Model = typename I::ModelType;
  const int n = int(models.size());
  CpuBatchStepper<I> batch(integrator, models, starts<S>(n), S(0.25), timing);
  std::vector<index_t> o_lanes;
  for (index_t k = 0; k < steps; ++k) {
    const std::vector<S> torque = step_torques(models, k), force = step_loads<S>(n, k + 7, 5.0);
    batch.step(S(step_size(k)), torque.data(), Model::translates ? force.data() : nullptr);
    o_lanes.push_back(batch.bodies_in_lanes());
  }
  EXPECT_EQ(batch.steps_done(), steps);
  EXPECT_EQ(batch.time(), S(0.25 + 64.0 / 256 + 64.0 / 512));
  Outcome<S> o{std::vector<S>(4 * n), std::vector<S>(3 * n), std::vector<S>(3 * n), std::vector<S>(3 * n),
               batch.status(), batch.newton_iterations(), batch.failed_step(), o_lanes};
  batch.kinematics(o.q.data(), o.w.data(), Model::translates ? o.x.data() : nullptr,
                   Model::translates ? o.v.data() : nullptr);  // a top's: refused (BadInputIsRefused…)
  return o;
}

/// The witness: each body's own state stepped by step_body_with_loads with the step's loads.
template <class I, class S = typename I::Scalar>
Outcome<S> witness_run(const I& integrator, const std::vector<typename I::ModelType>& models, LoadTiming timing) {
  using Model = typename I::ModelType;
  const int n = int(models.size());
  const auto initial = starts<S>(n);
  Outcome<S> o{std::vector<S>(4 * n), std::vector<S>(3 * n), std::vector<S>(3 * n), std::vector<S>(3 * n),
               std::vector<Status>(n, Status::ok), std::vector<index_t>(n, 0), std::vector<index_t>(n, -1)};
  const BodyRecord rec{o.status.data(), o.iterations.data(), o.failed.data()};
  for (int i = 0; i < n; ++i) {
    typename I::State s;
    S t = S(0.25);
    for (index_t k = 0; k < steps; ++k) {
      const std::vector<S> torque = step_torques(models, k), force = step_loads<S>(n, k + 7, 5.0);
      const Vec3<S> tau(torque[i], torque[n + i], torque[2 * n + i]);
      const Vec3<S> f = Model::translates ? Vec3<S>(force[i], force[n + i], force[2 * n + i]) : Vec3<S>::Zero();
      const Model loaded = with_external_load(models[i], tau, f);
      if (k == 0) EXPECT_EQ(integrator.initialize(loaded, initial[i], t, s), Status::ok);  // with the first loads
      const S h = S(step_size(k)), h_previous = timing == LoadTiming::at_start && k > 0 ? S(step_size(k - 1)) : S(0);
      Status st = o.status[i];
      step_body_with_loads(integrator, loaded, s, st, o.iterations[i], rec, i, k, t, h, h_previous);
      o.status[i] = st;
      t += h;  // dyadic steps: the clock's t_base + k·h is this sum
    }
    const auto k = integrator.kinematics(models[i], s);
    for (int c = 0; c < 4; ++c) o.q[c * n + i] = k.quaternion[c];
    for (int c = 0; c < 3; ++c)
      o.w[c * n + i] = k.omega_body[c], o.x[c * n + i] = k.position[c], o.v[c * n + i] = k.velocity[c];
  }
  return o;
}

/// The bodies in lanes on step k of `n` (the full blocks; not the first step, which initializes the
/// bodies anew, nor the block of unloaded_body where it has no loads).
template <class I>
index_t expected_in_lanes(int n, index_t k) {
  if (!lanes::LaneForm<I>::exists || !lanes::available() || k == 0) return 0;
  const int width = lanes::width<typename I::Scalar>(lanes::best_isa());
  return width * (n / width - (unloaded_step(k) && unloaded_body < n / width * width));
}

template <class I>
void expect_the_witness(const char* name, const I& integrator) {
  using S = typename I::Scalar;
  const int n = 19;  // blocks of 4, 8 or 16 with bodies left over
  for (bool own_loads : {false, true}) {
    for (LoadTiming timing : {LoadTiming::at_start, LoadTiming::held}) {
      const auto models = bodies<typename I::ModelType>(n, own_loads);
      const Outcome<S> witness = witness_run(integrator, models, timing);
      omp_set_num_threads(1);
      const Outcome<S> one = batch_run(integrator, models, timing);
      omp_set_num_threads(3);
      const Outcome<S> three = batch_run(integrator, models, timing);
      const std::string what = std::string(name) + (own_loads ? ", own loads" : ", inertia and mass") +
                               (timing == LoadTiming::at_start ? ", at_start" : ", held");
      for (const Outcome<S>* o : {&one, &three}) {
        EXPECT_TRUE(same_bits(o->q, witness.q)) << what;
        EXPECT_TRUE(same_bits(o->w, witness.w)) << what;
        if constexpr (I::ModelType::translates) {  // a top's position and velocity mean nothing
          EXPECT_TRUE(same_bits(o->x, witness.x)) << what;
          EXPECT_TRUE(same_bits(o->v, witness.v)) << what;
        }
        EXPECT_EQ(o->status, witness.status) << what;
        EXPECT_EQ(o->iterations, witness.iterations) << what;
        for (index_t k = 0; k < steps; ++k)
          ASSERT_EQ(o->in_lanes[k], expected_in_lanes<I>(n, k)) << what << ", step " << k;
      }
      EXPECT_EQ(witness.status, std::vector<Status>(n, Status::ok)) << what;
      EXPECT_GT((Vec4<double>(witness.q[0], witness.q[n], witness.q[2 * n], witness.q[3 * n]) -
                 quatstep::testing::shaken_body_start(0).quaternion).norm(), 0.05) << what << ": the bodies turned";
      if (lanes::LaneForm<I>::exists && lanes::available() && lanes::built_in<S>)
        EXPECT_GT(one.in_lanes[steps - 1], 0) << what << ": a block took the lanes";
    }
  }
  omp_set_num_threads(omp_get_num_procs());
}

}  // namespace

TEST(CpuBatchStepper, IsTheBodyByBodyWitnessBitForBit) {
  expect_the_witness("NoSquish order 2", second_order<NoSquish<Body>>());
  expect_the_witness("SymmetricSplitting order 2, top", second_order<SymmetricSplitting<Top>>());
  expect_the_witness("ExactFreeSplitting order 2", second_order<ExactFreeSplitting<Body>>());
  expect_the_witness("ExplicitNewmarkLie, top", ExplicitNewmarkLie<Top>());
  expect_the_witness("Zupan3", Zupan3<Body>());
  expect_the_witness("ModifiedHht", ModifiedHht<Body>());
  expect_the_witness("ModifiedHht, top", ModifiedHht<Top>());
}

// In float the lanes are twice as wide (16 in AVX-512): the splittings and explicit Newmark take
// this step's loads in them (cpu_coupled_lanes.hpp), as in double.
TEST(CpuBatchStepper, IsTheBodyByBodyWitnessBitForBitInFloat) {
  using BodyF = FreeRigidBody<float>;
  using TopF = HeavyTop<float>;
  expect_the_witness("float NoSquish order 2", second_order<NoSquish<BodyF>>());
  expect_the_witness("float SymmetricSplitting order 2, top", second_order<SymmetricSplitting<TopF>>());
  expect_the_witness("float ExplicitNewmarkLie", ExplicitNewmarkLie<BodyF>());
  expect_the_witness("float Zupan3, top", Zupan3<TopF>());
  expect_the_witness("float ModifiedHht", ModifiedHht<BodyF>());
}

namespace {

/// (coupled_step_loads_test (a)): the same model values, added exactly as the model's own constant
/// loads. The first step initializes the bodies with its loads: the HHT family's and Simo–Vu-Quoc's
/// initial accelerations include them (initialized without, their velocities kept an offset of
/// (1 − γ)h·F/m and differed from the first step on).
template <class I>
void expect_constant_loads_are_the_models_own(const char* name, const I& integrator) {
  const int n = 5;
  const Vec3<double> tau(0.4, 0.2, -0.9), f(-2.0, 1.5, 19.0);
  std::vector<Body> bare = bodies<Body>(n, true), loaded = bare;
  for (Body& b : loaded) b.loads.spatial_torque.constant += tau, b.force_profile.constant += f;  // body 1 has its own
  constexpr double h = 1.0 / 256;
  CpuEnsemble<I> ensemble(integrator, loaded, 0.0, h);
  ensemble.initialize(starts(n), SampleView<double>{});
  ensemble.advance(200, SampleView<double>{});
  for (LoadTiming timing : {LoadTiming::at_start, LoadTiming::held}) {
    CpuBatchStepper<I> batch(integrator, bare, starts(n), 0.0, timing);
    std::vector<double> torque(3 * n), force(3 * n);
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < n; ++i) torque[c * n + i] = tau[c], force[c * n + i] = f[c];
    for (int k = 0; k < 200; ++k) batch.step(h, torque.data(), force.data());
    std::vector<double> q(4 * n), w(3 * n), x(3 * n), v(3 * n), q_e(4 * n), w_e(3 * n), x_e(3 * n), v_e(3 * n);
    batch.kinematics(q.data(), w.data(), x.data(), v.data());
    for (int i = 0; i < n; ++i) {
      const auto k = ensemble.kinematics(i);
      for (int c = 0; c < 4; ++c) q_e[c * n + i] = k.quaternion[c];
      for (int c = 0; c < 3; ++c)
        w_e[c * n + i] = k.omega_body[c], x_e[c * n + i] = k.position[c], v_e[c * n + i] = k.velocity[c];
    }
    const std::string what = std::string(name) + (timing == LoadTiming::at_start ? ", at_start" : ", held");
    EXPECT_TRUE(same_bits(q, q_e)) << what;
    EXPECT_TRUE(same_bits(w, w_e)) << what;
    EXPECT_TRUE(same_bits(x, x_e)) << what;
    EXPECT_TRUE(same_bits(v, v_e)) << what;
    EXPECT_EQ(batch.status(), std::vector<Status>(n, Status::ok)) << what;
    EXPECT_GT(std::abs(x[2 * n] - starts(n)[0].position[2]), 0.5) << what << ": the force lifts the bodies";
  }
}

}  // namespace

TEST(CpuBatchStepper, ConstantLoadsGivenEachStepAreTheModelsOwnBitwise) {
  expect_constant_loads_are_the_models_own("NoSquish order 2", second_order<NoSquish<Body>>());
  expect_constant_loads_are_the_models_own("ModifiedHht", ModifiedHht<Body>());
  expect_constant_loads_are_the_models_own("Hht", Hht<Body>());
  expect_constant_loads_are_the_models_own("SimoVuQuoc", SimoVuQuoc<Body>());
  expect_constant_loads_are_the_models_own("ExplicitNewmarkLie", ExplicitNewmarkLie<Body>());
}

namespace {

/// Body `bad` gets the load `poison` (NaN or ±∞) on step 17, body `bad_at_first` on the first step:
/// each fails alone at that step with non_finite, before it moves, and the others keep their bits.
/// After the first step, bad's block of lanes still steps in lanes (the others of it) where the CPU
/// has them. Free bodies are poisoned through the force, which never reaches Π (and ω): they must
/// stay the failed step's bits — the loads of the later steps are not taken by a failed body (a
/// lane's take_loads would redo its end impulse with them).
template <class I>
void expect_non_finite_loads_fail_alone(const std::string& name, const I& integrator, double poison_value) {
  using Model = typename I::ModelType;
  const int n = 20, bad = 2, bad_at_first = 4;
  const auto models = bodies<Model>(n, false);
  CpuBatchStepper<I> clean(integrator, models, starts(n), 0.0), poisoned(integrator, models, starts(n), 0.0);
  std::vector<double> w_failed(3 * n), w(3 * n);
  for (index_t k = 0; k < 40; ++k) {
    std::vector<double> torque = step_loads(n, k, 2.0), force = step_loads(n, k + 7, 5.0);
    double* const f = Model::translates ? force.data() : nullptr;
    clean.step(1e-3, torque.data(), f);
    double* const poison = Model::translates ? f : torque.data();
    if (k == 17) poison[n + bad] = poison_value;
    if (k == 0) poison[2 * n + bad_at_first] = poison_value;
    poisoned.step(1e-3, torque.data(), f);
    if (k == 17) {
      EXPECT_EQ(poisoned.bodies_in_lanes(), clean.bodies_in_lanes()) << name;
      if (lanes::LaneForm<I>::exists && lanes::available()) EXPECT_GT(clean.bodies_in_lanes(), 0) << name;
      poisoned.kinematics(nullptr, w_failed.data(), nullptr, nullptr);
    }
  }
  EXPECT_EQ(poisoned.status()[bad], Status::non_finite) << name;
  EXPECT_EQ(poisoned.failed_step()[bad], 17) << name;
  EXPECT_EQ(poisoned.status()[bad_at_first], Status::non_finite) << name;
  EXPECT_EQ(poisoned.failed_step()[bad_at_first], 0) << name;
  std::vector<double> q(4 * n), q_clean(4 * n);
  poisoned.kinematics(q.data(), w.data(), nullptr, nullptr);
  clean.kinematics(q_clean.data(), nullptr, nullptr, nullptr);
  for (int i = 0; i < n; ++i) {
    if (i == bad || i == bad_at_first) continue;
    EXPECT_EQ(poisoned.status()[i], Status::ok) << name << ", body " << i;
    EXPECT_EQ(poisoned.failed_step()[i], -1) << name << ", body " << i;
    for (int c = 0; c < 4; ++c) EXPECT_EQ(q[c * n + i], q_clean[c * n + i]) << name << ", body " << i;
  }
  typename I::State start;
  ASSERT_EQ(integrator.initialize(models[bad_at_first], starts(n)[bad_at_first], 0.0, start), Status::ok);
  const Vec4<double> q_start = integrator.kinematics(models[bad_at_first], start).quaternion;
  for (int c = 0; c < 4; ++c) {
    EXPECT_TRUE(std::isfinite(q[c * n + bad])) << name << ": the failed body keeps its last good state";
    EXPECT_EQ(q[c * n + bad_at_first], q_start[c]) << name << ": and that of its start";
  }
  for (int c = 0; c < 3; ++c) {
    if (Model::translates) EXPECT_TRUE(std::isfinite(w[c * n + bad])) << name << ": a NaN force leaves ω finite";
    EXPECT_EQ(std::memcmp(&w[c * n + bad], &w_failed[c * n + bad], sizeof(double)), 0)
        << name << ": ω of the failed body moved after its failure";
  }
}

}  // namespace

TEST(CpuBatchStepper, ABodyWithNonFiniteLoadsFailsAloneAtThatStep) {
  for (const double poison : {double(NAN), double(INFINITY), -double(INFINITY)}) {
    const std::string with = ", load " + std::to_string(poison);
    expect_non_finite_loads_fail_alone("ModifiedHht, top" + with, ModifiedHht<Top>(), poison);
    expect_non_finite_loads_fail_alone("ModifiedHht, free body" + with, ModifiedHht<Body>(), poison);
    expect_non_finite_loads_fail_alone("ExplicitNewmarkLie" + with, ExplicitNewmarkLie<Body>(), poison);
    expect_non_finite_loads_fail_alone("NoSquish order 2" + with, second_order<NoSquish<Body>>(), poison);
  }
}

TEST(CpuBatchStepper, BadInputIsRefusedNamingTheBodyFieldOrKey) {
  using I = NoSquish<Top>;
  const auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(nothing thrown)";
  };
  const auto models = bodies<Top>(4, false);
  auto initial = starts(4);
  initial[3].quaternion *= 1.01;
  EXPECT_NE(message([&] { CpuBatchStepper<I>(I(), models, initial, 0.0); }).find("body 3: quaternion"), std::string::npos);
  auto windowed = models;
  windowed[1].loads.spatial_torque.constant = Vec3<double>(1, 0, 0);
  windowed[1].loads.spatial_torque.end = 0.5;
  EXPECT_NE(message([&] { CpuBatchStepper<I>(I(), windowed, starts(4), 0.0); }).find("body 1: "), std::string::npos);
  SplittingSettings<double> odd;
  odd.order = 3;
  EXPECT_NE(message([&] { CpuBatchStepper<I>(I(odd), models, starts(4), 0.0); }).find("order"), std::string::npos);
  EXPECT_NE(message([&] { CpuBatchStepper<I>(I(), models, starts(4), INFINITY); }).find("t0: "), std::string::npos);
  EXPECT_NE(message([&] { CpuBatchStepper<I>(I(), models, starts(4), 0.0, static_cast<LoadTiming>(7)); })
                .find("timing: 7, must be LoadTiming::at_start or LoadTiming::held"),
            std::string::npos)
      << "stepped as held before";
  CpuBatchStepper<I> batch(I(), models, starts(4), 0.0);
  std::vector<double> positions(12, 7.0);  // a DEM code's own, which a top's zeros overwrote before
  EXPECT_NE(message([&] { batch.kinematics(nullptr, nullptr, positions.data(), nullptr); })
                .find("CpuBatchStepper::kinematics: position asked for, but this model does not translate"),
            std::string::npos);
  EXPECT_EQ(positions, std::vector<double>(12, 7.0));
  std::vector<double> loads(12, 0.0);
  EXPECT_NE(message([&] { batch.step(1e-3, nullptr, loads.data()); }).find("does not translate"), std::string::npos);
  for (double h : {0.0, -1e-3, double(NAN), double(INFINITY)})
    EXPECT_NE(message([&] { batch.step(h, loads.data(), nullptr); }).find("h = "), std::string::npos) << h;
  EXPECT_EQ(batch.steps_done(), 0) << "a refused step is not counted";
}
