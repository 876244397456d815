// Tolerance sweeps of the adaptive HHT steps (include/quatstep/adaptive/): global error and step
// count against the tolerance ε for each control mode, on
//   - the heavy top of Sherif §10.1 (docs/errata.md S1/S2), t ∈ [0, 1],
//   - the spin-up of support/adaptive_problems.hpp (a constant body torque plus a sharp sinusoidal
//     one), t ∈ [0, 3];
//   - the spin-up of the same tumble by a torque pulse of 0.1 s (support/adaptive_problems.hpp),
//     t ∈ [0, 3];
//   - the translation of a free body under a sinusoidal force (closed form), t ∈ [0, 3].
// The global error is the largest |e − e_ref| of the Euler parameters over the samples every 0.01
// (dense output) against RK4 references. Slopes are least-squares fits over the sweep.
//
// What theory says for a second-order method (α = 0, or the inertia shift): the local error is
// ∝ h³, so error per step ε gives h ∝ ε^(1/3), N ∝ ε^(−1/3) and a global error ∝ N·ε ∝ ε^(2/3)
// (docs/errata.md N6); error per unit step (e/h ≤ ε) gives h ∝ ε^(1/2), N ∝ ε^(−1/2) and a global
// error ∝ ε. The plain methods at α ≠ 0 are first order (docs/errata.md S3: the velocity's local
// error is O(h²), which the position estimate does not see): per unit step their global error goes
// as h ∝ ε^(1/2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/quatstep.hpp"
#include "reference/heavy_top_reference.hpp"
#include "reference/sherif_heavy_top.hpp"
#include "support/adaptive_problems.hpp"
#include "support/adaptive_run.hpp"
#include "support/free_body_motion.hpp"
#include "support/tolerance_sweep.hpp"

namespace quatstep {
namespace {

using Top = HeavyTop<double>;
using reference::HeavyTopReference;

struct Problem {
  Top top;
  RigidBodyKinematics<double> start;
  double end_time;
  const HeavyTopReference& reference;
};

const Problem& heavy_top() {
  static const HeavyTopReference ref(reference::sherif_heavy_top(), reference::sherif_heavy_top_initial(),
                                     reference::sherif_heavy_top_reference_step,
                                     std::lround(1.0 / reference::sherif_heavy_top_reference_step));
  static const Problem p{reference::sherif_heavy_top(), reference::sherif_heavy_top_initial(), 1.0, ref};
  return p;
}

const Problem& spin_up() {
  static const HeavyTopReference ref(testing::spin_up_body(), testing::spin_up_start(), 1e-5, 300000);
  static const Problem p{testing::spin_up_body(), testing::spin_up_start(), 3.0, ref};
  return p;
}

const Problem& torque_pulse() {
  static const HeavyTopReference ref(testing::torque_pulse_body(), testing::spin_up_start(), 1e-5, 300000);
  static const Problem p{testing::torque_pulse_body(), testing::spin_up_start(), 3.0, ref};
  return p;
}

using Point = testing::SweepPoint;
using testing::error_slope;
using testing::steps_slope;

constexpr double interval = 0.01;

template <class Integrator>
std::vector<Point> sweep(const std::string& name, const Problem& problem, const Integrator& integrator,
                         ErrorControl control, const std::vector<double>& tolerances) {
  std::vector<Point> points;
  for (double eps : tolerances) {
    AdaptiveSettings<double> a;
    a.control = control;
    a.rotation_atol = eps;
    const index_t samples = std::lround(problem.end_time / interval);
    const auto r = testing::run_adaptive(AdaptiveHht<Integrator>(integrator, a), std::vector<Top>{problem.top},
                                         {problem.start}, interval, samples, samples)[0];
    EXPECT_EQ(r.status, Status::ok) << name << " ε = " << eps << ": " << to_string(r.status);
    double error = 0;
    for (index_t j = 0; j <= samples; ++j) {
      const long k = problem.reference.index_of(double(j) * interval);
      error = std::max(error, (r.quaternion[j] - problem.reference.quaternion(k)).norm());
    }
    points.push_back({eps, error, r.accepted});
    std::printf("%-34s ε = %.0e  steps %8ld (rejected %5ld)  h %.2e … %.2e  Newton/attempt %.2f  error %.3e\n",
                name.c_str(), eps, long(r.accepted + r.rejected), long(r.rejected), r.smallest_step, r.largest_step,
                double(r.newton_iterations) / double(r.accepted + r.rejected), error);
  }
  return points;
}

void expect_slopes(const std::string& name, const std::vector<Point>& points, double error_order, double error_tolerance,
                   double steps_order, double steps_tolerance) {
  const double e = error_slope(points), s = steps_slope(points);
  std::printf("%-34s global error ∝ ε^%.3f, accepted steps ∝ ε^%.3f\n", name.c_str(), e, s);
  EXPECT_NEAR(e, error_order, error_tolerance) << name;
  EXPECT_NEAR(s, steps_order, steps_tolerance) << name;
}

HhtSettings<double> hht(double alpha, bool shift) {
  HhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = shift;
  return s;
}

const std::vector<double> per_step_tolerances = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
/// Per second of simulated time; 1e-7 already takes 7·10⁵ steps on the heavy top.
const std::vector<double> per_unit_step_tolerances = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7};

// Slopes of the global error and of the accepted steps (the rejections, a few dozen per run on the
// spin-up, are printed). Measured on the heavy top, modified + shift α = −0.2: errors 0.140, 0.0290,
// 6.14e-3, 1.32e-3, 2.84e-4 for ε = 1e-4 … 1e-8 (slope 0.673, steps 827 … 17791, slope −0.333);
// per unit step 1.77e-3 … 1.76e-7 for ε = 1e-3 … 1e-7 (slope 1.001, steps −0.500).
TEST(AdaptiveTolerance, ErrorPerStepGivesTwoThirdsOnTheHeavyTop) {
  expect_slopes("heavy top, ModifiedHht+shift a=-0.2",
                sweep("heavy top, ModifiedHht+shift a=-0.2", heavy_top(), ModifiedHht<Top>(hht(-0.2, true)),
                      ErrorControl::per_step, per_step_tolerances),
                2.0 / 3, 0.03, -1.0 / 3, 0.02);
  expect_slopes("heavy top, ModifiedHht a=0",
                sweep("heavy top, ModifiedHht a=0", heavy_top(), ModifiedHht<Top>(hht(0.0, false)),
                      ErrorControl::per_step, per_step_tolerances),
                2.0 / 3, 0.03, -1.0 / 3, 0.02);
}

TEST(AdaptiveTolerance, ErrorPerUnitStepIsToleranceProportionalOnTheHeavyTop) {
  expect_slopes("heavy top, ModifiedHht+shift a=-0.2",
                sweep("heavy top, ModifiedHht+shift a=-0.2", heavy_top(), ModifiedHht<Top>(hht(-0.2, true)),
                      ErrorControl::per_unit_step, per_unit_step_tolerances),
                1.0, 0.03, -0.5, 0.02);
  expect_slopes("heavy top, Hht+shift a=-0.2",
                sweep("heavy top, Hht+shift a=-0.2", heavy_top(), Hht<Top>(hht(-0.2, true)),
                      ErrorControl::per_unit_step, per_unit_step_tolerances),
                1.0, 0.03, -0.5, 0.02);
}

// docs/errata.md S3: without the shift, α ≠ 0 is first order, and the error-per-unit-step control,
// which puts h ∝ ε^(1/2), gives a global error ∝ ε^(1/2), not ε.
TEST(AdaptiveTolerance, PlainMethodsWithDampingStayFirstOrder) {
  expect_slopes("heavy top, ModifiedHht a=-0.2",
                sweep("heavy top, ModifiedHht a=-0.2", heavy_top(), ModifiedHht<Top>(hht(-0.2, false)),
                      ErrorControl::per_unit_step, per_unit_step_tolerances),
                0.5, 0.05, -0.5, 0.02);
}

// The spin-up's torque oscillates, and so does the sign of its local errors, which partly cancel in
// the global error: the per-decade slopes scatter (0.62–0.69 per step, 0.88–1.34 per unit step), the
// fitted ones (measured 0.657 and 1.158) are asserted with that spread.
TEST(AdaptiveTolerance, SpinUpWithASharpTorque) {
  expect_slopes("spin-up, ModifiedHht+shift a=-0.2 per step",
                sweep("spin-up, ModifiedHht+shift a=-0.2 per step", spin_up(), ModifiedHht<Top>(hht(-0.2, true)),
                      ErrorControl::per_step, per_step_tolerances),
                2.0 / 3, 0.1, -1.0 / 3, 0.03);
  expect_slopes("spin-up, ModifiedHht+shift a=-0.2 per unit step",
                sweep("spin-up, ModifiedHht+shift a=-0.2 per unit step", spin_up(), ModifiedHht<Top>(hht(-0.2, true)),
                      ErrorControl::per_unit_step, per_step_tolerances),
                1.0, 0.2, -0.5, 0.03);
}

// A pulse: the steps must shrink for the 0.1 s the torque acts and grow back after it. Within the
// pulse the smallest step is a small fraction of the largest outside it, and the global error and
// step counts follow each control mode's law over the sweep. Measured: per step errors 1.44e-2 …
// 3.13e-5 for ε = 1e-4 … 1e-8 (slope 0.678, steps −0.325); per unit step 5.2e-4 … 1.5e-8 (slope
// 1.134, steps −0.498).
TEST(AdaptiveTolerance, SpinUpByATorquePulse) {
  const Problem& p = torque_pulse();
  {
    AdaptiveSettings<double> a;
    a.rotation_atol = 1e-6;
    const AdaptiveHht<ModifiedHht<Top>> stepper(ModifiedHht<Top>(hht(-0.2, true)), a);
    AdaptiveHht<ModifiedHht<Top>>::State st;
    ASSERT_EQ(stepper.initialize(p.top, p.start, 0.0, st), Status::ok);
    double before = 0, inside = INFINITY, after = 0;  // largest step before the pulse, smallest in it, largest after
    while (st.t < p.end_time) {
      const double t0 = st.t;
      const auto o = stepper.step(p.top, st);
      ASSERT_EQ(o.status, Status::ok);
      if (st.t <= 1.0) before = std::max(before, o.h);
      else if (t0 >= 1.1) after = std::max(after, o.h);
      else inside = std::min(inside, o.h);
    }
    std::printf("torque pulse, per step 1e-6: largest step before %.3g, smallest inside %.3g, largest after %.3g\n",
                before, inside, after);
    EXPECT_LT(inside, 0.2 * before);
    EXPECT_LT(inside, 0.2 * after);
  }
  const std::vector<Point> per_step = sweep("pulse, ModifiedHht+shift a=-0.2 per step", p,
                                            ModifiedHht<Top>(hht(-0.2, true)), ErrorControl::per_step, per_step_tolerances);
  // At ε = 1e-4 the steps before the pulse reach 0.16 s: without the loads' step limit one step went
  // over the whole 0.1 s pulse and missed it (error 1.97, the spin-up lost); with it, 1.4e-2.
  EXPECT_LT(per_step.front().error, 0.05);
  expect_slopes("pulse, ModifiedHht+shift a=-0.2 per step", per_step, 2.0 / 3, 0.1, -1.0 / 3, 0.03);
  expect_slopes("pulse, ModifiedHht+shift a=-0.2 per unit step",
                sweep("pulse, ModifiedHht+shift a=-0.2 per unit step", p, ModifiedHht<Top>(hht(-0.2, true)),
                      ErrorControl::per_unit_step, per_step_tolerances),
                1.0, 0.2, -0.5, 0.03);
}

// The translation rows drive the steps of a free body when its rotation tolerance is loose: the
// shaken body of support/free_body_motion.hpp (gravity plus A sin 2t at the centre of mass, closed-form
// trajectory), translation_atol = ε, rotation_atol = 1, t ∈ [0, 3], samples every 0.01 by dense
// output. Measured: position errors 1.32e-2 … 4.03e-5 per step (ε^0.63), 1.89e-3 … 3.89e-7 per unit
// step (ε^0.92), for ε = 1e-4 … 1e-8.
TEST(AdaptiveTolerance, TranslationToleranceControlsAFreeBody) {
  using Body = FreeRigidBody<double>;
  const Body body = testing::shaken_body(1);
  const RigidBodyKinematics<double> start = testing::shaken_body_start(1);
  for (ErrorControl control : {ErrorControl::per_step, ErrorControl::per_unit_step}) {
    std::vector<Point> points;
    for (double eps : per_step_tolerances) {
      AdaptiveSettings<double> a;
      a.control = control;
      a.translation_atol = eps;
      a.translation_rtol = 0;
      a.rotation_atol = 1;
      const AdaptiveHht<ModifiedHht<Body>> stepper(ModifiedHht<Body>(hht(-0.2, true)), a);
      AdaptiveHht<ModifiedHht<Body>>::State st;
      ASSERT_EQ(stepper.initialize(body, start, 0.0, st), Status::ok);
      index_t accepted = 0;
      double error = 0;
      for (int j = 1; j <= 300; ++j) {
        const double tj = j * interval;
        while (st.t < tj) {
          ASSERT_EQ(stepper.step(body, st).status, Status::ok);
          ++accepted;
        }
        const Vec3<double> r = stepper.sample(body, st, tj).q.head<3>();
        error = std::max(error, (r - testing::exact_position(body, start, tj)).norm());
      }
      std::printf("free body, translation ε = %.0e, control %d: %ld steps, position error %.3e\n", eps, int(control),
                  long(accepted), error);
      points.push_back({eps, error, accepted});
    }
    const bool per_step = control == ErrorControl::per_step;
    expect_slopes(per_step ? "free body translation, per step" : "free body translation, per unit step", points,
                  per_step ? 2.0 / 3 : 1.0, 0.1, per_step ? -1.0 / 3 : -0.5, 0.03);
  }
}

}  // namespace
}  // namespace quatstep
