// Adaptive steps on mechanisms (include/quatstep/mechanism/adaptive.hpp): the local error estimate
// against the true local error of one step from exact states, for every HHT variant and α, on a
// spatial double pendulum (spherical joints, gravity) and a slider-crank (revolute, universal and
// prismatic joints, a spring); then tolerance sweeps whose global error follows what each control
// mode promises, sampled at common output times by dense output. References: RK4 on the index-1
// form (problems/mechanism_reference.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "quatstep/mechanism/adaptive.hpp"
#include "mechanism_reference.hpp"
#include "mechanisms.hpp"
#include "support/tolerance_sweep.hpp"

namespace quatstep {
namespace {

using Cap = mechanism::SmallCapacity;
using Mech = mechanism::Mechanism<double, Cap>;
using VecN = mechanism::Dae<Mech>::VecN;
using testing::TestMechanism;

mechanism::MechanismHhtSettings<double> hht_settings(double alpha, bool shift) {
  mechanism::MechanismHhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = shift;
  return s;
}

/// The exact state at t (RK4 of 2e-5 from the initial state), with consistent accelerations and
/// multipliers: the start of an HHT step.
struct ExactState {
  double t;
  VecN q, v, a;
  mechanism::Dae<Mech>::VecM lambda;
};
ExactState exact_state(const TestMechanism<Cap>& tm, double t) {
  ExactState s{t};
  mechanism::dae_from_kinematics(tm.mech, tm.initial, s.q, s.v);
  Status status = Status::ok;
  const long steps = std::lround(t / 2e-5);
  for (long k = 0; k < steps; ++k) testing::rk4_step(tm.mech, s.q, s.v, k * 2e-5, 2e-5, status);
  EXPECT_EQ(status, Status::ok);
  EXPECT_EQ(mechanism::solve_accelerations(tm.mech, s.q, s.v, t, s.a, s.lambda), Status::ok);
  return s;
}

struct Range {
  double low = 1e300, high = 0, deviation = 0;
  void add(double ratio, double dev) {
    low = std::min(low, ratio), high = std::max(high, ratio), deviation = std::max(deviation, dev);
  }
};

/// ‖δ_est‖/‖δ_true‖ and ‖δ_est − δ_true‖/‖δ_true‖ of one step of h from the exact state.
template <class Integrator>
void compare(const Integrator& integrator, const TestMechanism<Cap>& tm, const ExactState& exact, double h,
             Range& range) {
  const double t = exact.t;
  typename Integrator::State s0;
  s0.q = exact.q, s0.v = exact.v, s0.a = exact.a, s0.lambda = exact.lambda;
  typename Integrator::State s1 = s0;
  ASSERT_EQ(integrator.step(tm.mech, s1, t, h).status, Status::ok);
  VecN q = s0.q, v = s0.v;
  Status status = Status::ok;
  for (int k = 0; k < 200; ++k) testing::rk4_step(tm.mech, q, v, t + k * h / 200, h / 200, status);
  ASSERT_EQ(status, Status::ok);
  const VecN truth = s1.q - q, estimate = local_error(integrator, tm.mech, s0, s1, t + h, h);
  range.add(estimate.norm() / truth.norm(), (estimate - truth).norm() / truth.norm());
}

TEST(MechanismAdaptive, LocalErrorEstimateMatchesTheTrueLocalError) {
  // From exact states at t = 0 and 0.3, h = 2.5e-4 and 1e-4, every variant, α = 0 … −0.3. The
  // estimate's own error is the next order, O(h) relative: on the slider-crank (crank at 10 rad/s, a
  // spring of 250 s⁻² on the slider) it is 1–2 % at 2.5e-4 and 0.3–0.6 % at 1e-4.
  const TestMechanism<Cap> mechanisms[] = {testing::double_pendulum<Cap>(), testing::slider_crank<Cap>()};
  const char* names[] = {"double pendulum", "slider-crank"};
  const double steps[] = {2.5e-4, 1e-4};
  for (int p = 0; p < 2; ++p) {
    const ExactState exact[] = {exact_state(mechanisms[p], 0.0), exact_state(mechanisms[p], 0.3)};
    for (bool shift : {true, false})
      for (bool modified : {true, false}) {
        const std::string variant =
            std::string(names[p]) + (modified ? ", modified" : ", classical") + (shift ? " + shift" : " plain");
        std::printf("%-36s", variant.c_str());
        Range by_step[2];
        for (int k = 0; k < 2; ++k)
          for (double alpha : {0.0, -0.1, -0.2, -0.3})
            for (const ExactState& start : exact) {
              const double h = steps[k];
              if (modified)
                compare(mechanism::MechanismModifiedHht<Mech>(hht_settings(alpha, shift)), mechanisms[p], start, h, by_step[k]);
              else compare(mechanism::MechanismHht<Mech>(hht_settings(alpha, shift)), mechanisms[p], start, h, by_step[k]);
            }
        for (int k = 0; k < 2; ++k)
          std::printf("  h = %.1e: %.5f–%.5f (%.2f %%)", steps[k], by_step[k].low, by_step[k].high, 100 * by_step[k].deviation);
        std::printf("\n");
        EXPECT_GE(by_step[1].low, 0.99) << variant;
        EXPECT_LE(by_step[1].high, 1.01) << variant;
        EXPECT_GE(by_step[0].low, 0.97) << variant;
        EXPECT_LE(by_step[0].high, 1.03) << variant;
        // O(h): 2.5× smaller steps, about 2.5× closer (2 allows for the smaller terms)
        EXPECT_LT(by_step[1].deviation, by_step[0].deviation / 2) << variant;
      }
  }
}

using Point = testing::SweepPoint;

/// Adaptive steps of modified HHT with its shift, α = −0.2, tolerance eps on every coordinate.
AdaptiveHht<mechanism::MechanismModifiedHht<Mech>> modified_hht_shift_stepper(ErrorControl control, double eps) {
  AdaptiveSettings<double> a;
  a.control = control;
  a.rotation_atol = a.translation_atol = eps;
  a.rotation_rtol = a.translation_rtol = 0;
  a.h_initial = 1e-4;
  const AdaptiveHht<mechanism::MechanismModifiedHht<Mech>> stepper(
      mechanism::MechanismModifiedHht<Mech>(hht_settings(-0.2, true)), a);
  stepper.validate();
  return stepper;
}

/// The slider-crank over t ∈ [0, 1] under modified HHT with its shift at α = −0.2, adaptive steps of
/// tolerance eps for every coordinate: the largest coordinate error against RK4 (1e-5) over the
/// output times every 0.01 s, and the accepted steps.
Point sweep_point(ErrorControl control, double eps, const std::vector<testing::Rk4Reference<Mech>::Sample>& ref) {
  const TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  const auto stepper = modified_hht_shift_stepper(control, eps);
  decltype(stepper)::State st;
  EXPECT_EQ(stepper.initialize(tm.mech, tm.initial, 0.0, st), Status::ok);
  std::int64_t accepted = 0;
  double error = 0;
  for (std::size_t j = 1; j < ref.size(); ++j) {
    while (st.t < ref[j].t) {
      const auto outcome = stepper.step(tm.mech, st);
      EXPECT_EQ(outcome.status, Status::ok);
      if (outcome.status != Status::ok) return {eps, NAN, accepted};
      ++accepted;
    }
    const VecN q = stepper.sample(tm.mech, st, ref[j].t).q;
    error = std::max(error, (q - ref[j].q).lpNorm<Eigen::Infinity>());
  }
  return {eps, error, accepted};
}

TEST(MechanismAdaptive, ToleranceSweepsFollowTheControlMode) {
  // Global error ∝ ε^(2/3) with error per step, ∝ ε with error per unit step (second-order method;
  // adaptive_hht.hpp); accepted steps ∝ ε^(−1/3) and ε^(−1/2).
  const TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  const testing::Rk4Reference<Mech> ref(tm.mech, tm.initial, 1e-5, 100000, 1000);
  ASSERT_EQ(ref.status, Status::ok);
  struct Mode {
    ErrorControl control;
    std::vector<double> eps;
    double error_slope, steps_slope;
  };
  const Mode modes[] = {{ErrorControl::per_step, {1e-5, 1e-6, 1e-7, 1e-8}, 2.0 / 3, -1.0 / 3},
                        {ErrorControl::per_unit_step, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7}, 1.0, -0.5}};
  for (const Mode& mode : modes) {
    std::vector<Point> points;
    for (double eps : mode.eps) {
      points.push_back(sweep_point(mode.control, eps, ref.samples));
      std::printf("%s ε = %.0e: %ld steps, global error %.3e\n",
                  mode.control == ErrorControl::per_step ? "per step     " : "per unit step", eps, long(points.back().accepted),
                  points.back().error);
    }
    const double e = testing::error_slope(points), n = testing::steps_slope(points);
    std::printf("  global error ∝ ε^%.3f (theory %.3f), accepted steps ∝ ε^%.3f (theory %.3f)\n", e, mode.error_slope,
                n, mode.steps_slope);
    // The local errors change sign along the crank's turn and partly cancel: per decade the error
    // slopes scatter (per unit step 0.9–1.1 until 1e-5, 0.64 from 1e-5 to 1e-6, 1.19 beyond), as
    // on the spin-up of bench/adaptive.md; the fit over the sweep is within 0.15 of theory.
    EXPECT_NEAR(e, mode.error_slope, 0.15);
    EXPECT_NEAR(n, mode.steps_slope, 0.05);
  }
}

// A short load on a mechanism: the slider-crank's crank kicked by the smooth torque pulse
// A sin²(π(t − 0.3)/0.004) about its bearing for 0.3 ≤ t < 0.304 (25 N m: the crank speeds up by
// about half). At ε = 1e-4 per unit step the steps before the pulse are longer than the pulse; the loads'
// step limit (adaptive_hht.hpp, Mechanism::load_step_limit) makes a step end on the window's first
// edge and keeps the steps inside to at most half the window, so the pulse is integrated and the
// error after it stays of the tolerance's size.
TEST(MechanismAdaptive, StepsLandOnATorquePulseAndIntegrateIt) {
  TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  const double begin = 0.3, width = 0.004, amplitude = 25.0, pi = 3.14159265358979323846;
  TimeProfile<double> pulse;  // sin²x = (1 − cos 2x)/2 = 1/2 − sin(2x + π/2)/2
  pulse.constant = Vec3<double>(0, 0, amplitude / 2);
  pulse.amplitude = Vec3<double>(0, 0, -amplitude / 2);
  pulse.frequency = 2 * pi / width;
  pulse.phase = pi / 2 - 2 * pi * begin / width;
  tm.builder.add_load(0, mechanism::LoadKind::spatial_torque, pulse, begin, begin + width);
  tm.mech = tm.builder.template build<Cap>();
  const testing::Rk4Reference<Mech> ref(tm.mech, tm.initial, 1e-5, 60000, 1000);  // samples every 0.01 s
  ASSERT_EQ(ref.status, Status::ok);

  const double eps = 1e-4;
  const auto stepper = modified_hht_shift_stepper(ErrorControl::per_unit_step, eps);
  decltype(stepper)::State st;
  ASSERT_EQ(stepper.initialize(tm.mech, tm.initial, 0.0, st), Status::ok);
  double longest_before = 0, longest_inside = 0, error = 0, error_without = 0;
  bool landed = false;
  int inside = 0;
  for (std::size_t j = 1; j < ref.samples.size(); ++j) {
    while (st.t < ref.samples[j].t) {
      const double t0 = st.t;
      const auto outcome = stepper.step(tm.mech, st);
      ASSERT_EQ(outcome.status, Status::ok) << "t = " << t0;
      if (st.t <= begin) longest_before = std::max(longest_before, outcome.h);
      if (t0 >= begin && t0 < begin + width) longest_inside = std::max(longest_inside, outcome.h), ++inside;
      landed = landed || st.t == begin;
    }
    error = std::max(error, (stepper.sample(tm.mech, st, ref.samples[j].t).q - ref.samples[j].q).lpNorm<Eigen::Infinity>());
  }
  // Without the pulse the mechanism would be elsewhere by far more than the tolerance allows.
  const TestMechanism<Cap> plain = testing::slider_crank<Cap>();
  const testing::Rk4Reference<Mech> unkicked(plain.mech, plain.initial, 1e-5, 60000, 60000);
  error_without = (unkicked.samples.back().q - ref.samples.back().q).lpNorm<Eigen::Infinity>();
  std::printf("longest step before the pulse %.3e, inside %.3e (%d steps); error against RK4 %.3e; the pulse moves "
              "the state by %.3e\n",
              longest_before, longest_inside, inside, error, error_without);
  EXPECT_TRUE(landed) << "no step ended on the pulse's first edge";
  EXPECT_GT(longest_before, width) << "the test needs steps longer than the pulse before it";
  EXPECT_LE(longest_inside, width / 2);
  EXPECT_GE(inside, 2);
  EXPECT_GT(error_without, 0.1);
  EXPECT_LT(error, 20 * eps);
}

}  // namespace
}  // namespace quatstep
