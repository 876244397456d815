// Adaptive steps across an ensemble (include/quatstep/adaptive/adaptive_ensemble.hpp):
//   - work–precision on 16 torque-free asymmetric bodies whose spin spans 100×: body-steps needed
//     for a worst-body accuracy, per-body adaptive steps against the fixed step that the fastest body
//     needs, and against Project Chrono's halve/double rule;
//   - a body that cannot meet its tolerance above h_min fails with step_size_too_small, the others
//     are bit-for-bit what they are alone;
//   - the trajectory does not depend on how a run is cut into launches;
//   - in float, a body's time stays the sum of its steps far from t = 0;
//   - the classical method at α = 0 still fails by its velocity-constraint drift (docs/errata.md S4);
//   - dense output stays on the constraints and within the local error of its step.
#include <gtest/gtest.h>

#include <algorithm>
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

namespace quatstep {
namespace {

using Top = HeavyTop<double>;
using Stepper = AdaptiveHht<ModifiedHht<Top>>;
using reference::HeavyTopReference;

HhtSettings<double> shifted(double alpha) {
  HhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = true;
  return s;
}

AdaptiveSettings<double> tolerance(ErrorControl control, double eps) {
  AdaptiveSettings<double> a;
  a.control = control;
  a.rotation_atol = eps;
  a.h_initial = 1e-3;
  return a;
}

// ---------------------------------------------------------------- work–precision
constexpr int bodies = 16;
constexpr double end_time = 2.0, interval = 0.01;
constexpr index_t samples = 200;

/// Torque-free J = diag(6, 8, 3) with Ω(0) = s·(10, 20, 20), s from 0.01 to 1 geometrically
/// (|Ω| from 0.3 to 30 rad/s).
struct SpinEnsemble {
  std::vector<Top> models = std::vector<Top>(bodies);
  std::vector<RigidBodyKinematics<double>> start = std::vector<RigidBodyKinematics<double>>(bodies);
  std::vector<HeavyTopReference> references;
  SpinEnsemble() {
    for (int i = 0; i < bodies; ++i) {
      models[i] = testing::torque_free_body();
      start[i].omega_body = std::pow(100.0, double(i) / (bodies - 1)) / 100 * testing::torque_free_start().omega_body;
      references.emplace_back(models[i], start[i], 1e-5, std::lround(end_time / 1e-5));
    }
  }
  Vec4<double> exact(int i, index_t j) const {
    return references[i].quaternion(references[i].index_of(double(j) * interval));
  }
};
const SpinEnsemble& ensemble() {
  static const SpinEnsemble e;
  return e;
}

struct WorkPoint {
  double body_steps, worst_error;
};

/// Body-steps (accepted + rejected, summed over bodies) and the worst |e − e_ref| over bodies and samples.
WorkPoint adaptive_run(const AdaptiveSettings<double>& a) {
  const SpinEnsemble& e = ensemble();
  const auto results = testing::run_adaptive(Stepper(ModifiedHht<Top>(shifted(-0.2)), a), e.models, e.start, interval,
                                             samples, samples);
  WorkPoint w{0, 0};
  for (int i = 0; i < bodies; ++i) {
    EXPECT_EQ(results[i].status, Status::ok) << "body " << i;
    w.body_steps += double(results[i].accepted + results[i].rejected);
    for (index_t j = 0; j <= samples; ++j)
      w.worst_error = std::max(w.worst_error, (results[i].quaternion[j] - e.exact(i, j)).norm());
  }
  return w;
}

/// Fixed steps h = interval/k for every body.
WorkPoint fixed_run(int k) {
  const SpinEnsemble& e = ensemble();
  const ModifiedHht<Top> hht(shifted(-0.2));
  const double h = interval / k;
  WorkPoint w{double(bodies) * double(samples) * k, 0};
  for (int i = 0; i < bodies; ++i) {
    ModifiedHht<Top>::State s;
    EXPECT_EQ(hht.initialize(e.models[i], e.start[i], 0.0, s), Status::ok);
    for (index_t j = 0; j < samples; ++j) {
      for (int q = 0; q < k; ++q) EXPECT_EQ(hht.step(e.models[i], s, double(j * k + q) * h, h).status, Status::ok);
      w.worst_error = std::max(w.worst_error, (s.q - e.exact(i, j + 1)).norm());
    }
  }
  return w;
}

/// Body-steps at the worst error `target`, interpolated log-log between the two runs around it.
double work_at(const std::string& name, std::vector<WorkPoint> points, double target) {
  std::sort(points.begin(), points.end(), [](const WorkPoint& a, const WorkPoint& b) { return a.worst_error < b.worst_error; });
  for (const WorkPoint& p : points) std::printf("%-22s body-steps %9.0f  worst error %.3e\n", name.c_str(), p.body_steps, p.worst_error);
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const WorkPoint &a = points[i], &b = points[i + 1];
    if (a.worst_error <= target && target <= b.worst_error) {
      const double s = std::log(target / a.worst_error) / std::log(b.worst_error / a.worst_error);
      return std::exp(std::log(a.body_steps) + s * std::log(b.body_steps / a.body_steps));
    }
  }
  ADD_FAILURE() << name << ": the runs do not bracket the target error " << target;
  return NAN;
}

// Measured at a worst error of 2e-4: fixed 8.3e4 body-steps; per step 1.9e4 (4.3× fewer), per unit
// step 1.5e4 (5.5×), halve/double 2.8e4 (1.45× more than per step).
TEST(AdaptiveEnsemble, WorkPrecisionAgainstTheFixedStepOfTheFastestBody) {
  const double target = 2e-4;
  std::vector<WorkPoint> fixed, per_step, per_unit_step, halve_double;
  for (int k : {8, 16, 32}) fixed.push_back(fixed_run(k));
  for (double eps : {1e-6, 1e-7, 1e-8}) {
    per_step.push_back(adaptive_run(tolerance(ErrorControl::per_step, eps)));
    halve_double.push_back(adaptive_run(tolerance(ErrorControl::halve_double, eps)));
  }
  for (double eps : {1e-3, 1e-4, 1e-5}) per_unit_step.push_back(adaptive_run(tolerance(ErrorControl::per_unit_step, eps)));
  const double w_fixed = work_at("fixed", fixed, target), w_step = work_at("per step", per_step, target),
               w_unit = work_at("per unit step", per_unit_step, target),
               w_chrono = work_at("halve/double", halve_double, target);
  std::printf("at worst error %.0e: fixed %.3g, per step %.3g (%.2f× fewer), per unit step %.3g (%.2f× fewer), "
              "halve/double %.3g (%.2f× per step)\n",
              target, w_fixed, w_step, w_fixed / w_step, w_unit, w_fixed / w_unit, w_chrono, w_chrono / w_step);
  EXPECT_GE(w_fixed / w_step, 3.0);
  EXPECT_GE(w_fixed / w_unit, 3.0);
  EXPECT_GE(w_chrono / w_step, 1.2);
}

// ---------------------------------------------------------------- failures stay with their body
// Three heavy tops; the middle one spins at 50× the others. With h_min = 1e-5 it cannot meet
// ε = 1e-8 (it needs h ≈ 1e-6) and fails; the others are bit-for-bit what they are alone.
TEST(AdaptiveEnsemble, ABodyAtTheMinimumStepFailsAlone) {
  std::vector<Top> models(3, reference::sherif_heavy_top());
  std::vector<RigidBodyKinematics<double>> start(3, reference::sherif_heavy_top_initial());
  start[1].omega_body *= 50;
  AdaptiveSettings<double> a = tolerance(ErrorControl::per_step, 1e-8);
  a.h_min = 1e-5;
  const Stepper stepper(ModifiedHht<Top>(shifted(-0.2)), a);
  const auto all = testing::run_adaptive(stepper, models, start, 0.01, 20, 20);
  EXPECT_EQ(all[1].status, Status::step_size_too_small);
  EXPECT_EQ(all[1].failed_step, all[1].accepted) << "failed_step is the number of accepted steps";
  EXPECT_TRUE(std::isnan(all[1].quaternion.back()[0])) << "a failed body's samples are NaN";
  for (int i : {0, 2}) {
    const auto alone = testing::run_adaptive(stepper, {models[i]}, {start[i]}, 0.01, 20, 20)[0];
    EXPECT_EQ(all[i].status, Status::ok);
    EXPECT_EQ(all[i].accepted, alone.accepted);
    EXPECT_EQ(all[i].rejected, alone.rejected);
    for (index_t j = 0; j <= 20; ++j) EXPECT_EQ(all[i].quaternion[j], alone.quaternion[j]) << "body " << i << " sample " << j;
  }
}

// A body whose corrector keeps failing down to h_min reports the corrector's status.
TEST(AdaptiveEnsemble, ACorrectorFailingAtTheMinimumStepKeepsItsStatus) {
  HhtSettings<double> s = shifted(-0.2);
  s.newton.max_iterations = 1;  // no rate can be certified in one iteration
  AdaptiveSettings<double> a = tolerance(ErrorControl::per_step, 1e-6);
  a.h_min = 1e-4;
  const auto r = testing::run_adaptive(AdaptiveHht<ModifiedHht<Top>>(ModifiedHht<Top>(s), a),
                                       {reference::sherif_heavy_top()}, {reference::sherif_heavy_top_initial()}, 0.01,
                                       2, 2)[0];
  EXPECT_EQ(r.status, Status::newton_not_converged);
  EXPECT_EQ(r.accepted, 0);
}

// docs/errata.md S4: classical HHT at α = 0 loses eᵀė = 0 on the heavy top whatever the step; the
// adaptive steps report it (measured at t = 0.21, 0.28 for ε = 1e-4, 1e-6) instead of shrinking h.
TEST(AdaptiveEnsemble, ClassicalHhtWithoutDampingStillDiverges) {
  for (double eps : {1e-4, 1e-6}) {
    HhtSettings<double> s;
    s.alpha = 0;
    const auto r = testing::run_adaptive(AdaptiveHht<Hht<Top>>(Hht<Top>(s), tolerance(ErrorControl::per_step, eps)),
                                         {reference::sherif_heavy_top()}, {reference::sherif_heavy_top_initial()},
                                         0.01, 100, 100)[0];
    EXPECT_EQ(r.status, Status::constraint_drift) << "ε = " << eps << ": " << to_string(r.status);
  }
}

// ---------------------------------------------------------------- launches
TEST(AdaptiveEnsemble, LaunchesDoNotChangeTheTrajectory) {
  const SpinEnsemble& e = ensemble();
  const Stepper stepper(ModifiedHht<Top>(shifted(-0.2)), tolerance(ErrorControl::per_step, 1e-6));
  const auto one = testing::run_adaptive(stepper, e.models, e.start, 0.001, 500, 500);
  for (index_t launch : {1, 7}) {
    const auto cut = testing::run_adaptive(stepper, e.models, e.start, 0.001, 500, launch);
    for (int i = 0; i < bodies; ++i) {
      EXPECT_EQ(cut[i].accepted, one[i].accepted);
      EXPECT_EQ(cut[i].newton_iterations, one[i].newton_iterations);
      EXPECT_EQ(cut[i].smallest_step, one[i].smallest_step);
      for (index_t j = 0; j <= 500; ++j) ASSERT_EQ(cut[i].quaternion[j], one[i].quaternion[j]) << launch << " " << i << " " << j;
    }
  }
}

// ---------------------------------------------------------------- float, late start
// In float, t = 1000 s has an ulp of 6.1e-5 s, about 1 % of a 5e-3 s step: a plain sum of the steps
// drifts by a part of that per step. The adaptive state keeps t with its rounding error (Kahan), so
// t + t_low stays the sum of the accepted steps. Measured over 2000 steps (h ≈ 5.2e-3) from
// t0 = 1000 s: |t + t_low − (t0 + Σh)| = 1.2e-10 s against 1.2e-3 s for the plain float sum.
TEST(AdaptiveEnsemble, FloatTimeIsTheSumOfTheSteps) {
  const auto body_d = testing::torque_free_body();
  HeavyTop<float> body;
  body.inertia = body_d.inertia.cast<float>();
  RigidBodyKinematics<float> start;
  start.omega_body = testing::torque_free_start().omega_body.cast<float>();
  HhtSettings<float> sf;
  sf.alpha = -0.2f;
  sf.inertia_shift = true;
  AdaptiveSettings<float> af;
  af.rotation_atol = 1e-4f;
  af.h_initial = 1e-3f;
  const AdaptiveHht<ModifiedHht<HeavyTop<float>>> stepper(ModifiedHht<HeavyTop<float>>(sf), af);
  AdaptiveHht<ModifiedHht<HeavyTop<float>>>::State st;
  const float t0 = 1000.0f;
  ASSERT_EQ(stepper.initialize(body, start, t0, st), Status::ok);
  double exact = t0;
  float plain = t0;
  for (int k = 0; k < 2000; ++k) {
    const auto outcome = stepper.step(body, st);
    ASSERT_EQ(outcome.status, Status::ok) << k;
    exact += double(outcome.h);
    plain += outcome.h;
  }
  const double kahan_error = std::abs(double(st.t) + double(st.t_low) - exact);
  std::printf("float, 2000 steps from t0 = 1000 s (h ≈ %.1e): |t + t_low − Σ| = %.1e s, plain sum %.1e s\n",
              double(st.h_last), kahan_error, std::abs(double(plain) - exact));
  EXPECT_LE(kahan_error, 1e-9);
  EXPECT_LE(std::abs(double(st.t) - exact), 3.1e-5) << "t itself is the sum rounded to float";
}

// ---------------------------------------------------------------- dense output
// One step of H from an exact state of the heavy top: at θ = ¼, ½, ¾ the interpolant is on the
// constraints |e| = 1, eᵀė = 0 (round-off), and its error is below the step's own local error
// (the cubic Hermite interpolant errs by O(H⁴), the step by O(H³)).
/// Sherif's heavy top in float.
HeavyTop<float> float_top(const Top& d) {
  HeavyTop<float> f;
  f.inertia = d.inertia.cast<float>();
  f.loads.gravity = d.loads.gravity.cast<float>();
  f.loads.lever = d.loads.lever.cast<float>();
  f.loads.mass = float(d.loads.mass);
  return f;
}

// Float adaptive steps (per unit step, modified HHT + shift, α = −0.2) on Sherif's heavy top spun at
// 1.5 … 150 rad/s (8 bodies, t ∈ [0, 0.1], samples every 0.01), against the same runs in double:
//   - at ε = 1e-3 and 1e-4 every float body runs, and its quaternions stay within 2e-4 of double's
//     (measured 2.5e-5 at ε = 1e-3, within ε·t; 1.2e-4 at 1e-4, where float's own rounding over the
//     fast body's ≈ 10⁴ steps, ≈ 15 rad of rotation, is already larger than ε·t);
//   - at ε = 1e-6 the fast bodies reach float's floor — an error estimate made of rounding never
//     meets the tolerance — and fail alone with step_size_too_small while the slow ones run: a float
//     tolerance must stay well above ε_float·|ω| per unit time (bench/adaptive.md §3 says so).
TEST(AdaptiveEnsemble, FloatFollowsDoubleWhereFloatCanResolveTheTolerance) {
  constexpr int n = 8;
  constexpr index_t steps = 10;
  constexpr double dt = 0.01;
  std::vector<Top> tops(n, reference::sherif_heavy_top());
  std::vector<HeavyTop<float>> float_tops(n, float_top(reference::sherif_heavy_top()));
  std::vector<RigidBodyKinematics<double>> start(n);
  std::vector<RigidBodyKinematics<float>> float_start(n);
  for (int i = 0; i < n; ++i) {
    start[i] = reference::sherif_heavy_top_initial();
    start[i].omega_body *= std::pow(100.0, double(i) / (n - 1)) / 100;  // 1.5 … 150 rad/s
    float_start[i].quaternion = start[i].quaternion.cast<float>();
    float_start[i].omega_body = start[i].omega_body.cast<float>();
  }
  HhtSettings<float> sf;
  sf.alpha = -0.2f;
  sf.inertia_shift = true;
  const auto run_both = [&](double eps) {
    AdaptiveSettings<float> af;
    af.control = ErrorControl::per_unit_step;
    af.rotation_atol = float(eps);
    af.h_initial = 1e-5f;
    const auto f = testing::run_adaptive(AdaptiveHht<ModifiedHht<HeavyTop<float>>>(ModifiedHht<HeavyTop<float>>(sf), af),
                                         float_tops, float_start, float(dt), steps, steps);
    const auto d = testing::run_adaptive(Stepper(ModifiedHht<Top>(shifted(-0.2)), tolerance(ErrorControl::per_unit_step, eps)),
                                         tops, start, dt, steps, steps);
    return std::pair{f, d};
  };
  for (double eps : {1e-3, 1e-4}) {
    const auto [f, d] = run_both(eps);
    double gap = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(f[i].status, Status::ok) << "eps " << eps << " body " << i << ": " << to_string(f[i].status);
      for (index_t j = 0; j <= steps; ++j) gap = std::max(gap, (f[i].quaternion[j] - d[i].quaternion[j]).norm());
    }
    std::printf("float vs double, per unit step, eps = %.0e: max |q_float - q_double| = %.2e (eps*t = %.0e)\n", eps, gap,
                eps * 0.1);
    EXPECT_LE(gap, 2e-4) << eps;
  }
  const auto [f, d] = run_both(1e-6);
  std::printf("float at eps = 1e-6:");
  for (int i = 0; i < n; ++i) std::printf(" %s", to_string(f[i].status));
  std::printf("\n");
  EXPECT_EQ(f[0].status, Status::ok);
  EXPECT_EQ(f[n - 1].status, Status::step_size_too_small);
  for (int i = 0; i < n; ++i) EXPECT_EQ(d[i].status, Status::ok) << i;
}

TEST(AdaptiveEnsemble, DenseOutputStaysWithinTheStepsError) {
  const Top top = reference::sherif_heavy_top();
  const ModifiedHht<Top> hht(shifted(-0.2));
  const double H = 2e-3;
  ModifiedHht<Top>::State s0, s1;
  ASSERT_EQ(hht.initialize(top, reference::sherif_heavy_top_initial(), 0.0, s0), Status::ok);
  s1 = s0;
  ASSERT_EQ(hht.step(top, s1, 0.0, H).status, Status::ok);
  const HeavyTopReference exact(top, reference::sherif_heavy_top_initial(), H / 400, 400);
  const double step_error = (s1.q - exact.quaternion(400)).norm();
  for (int quarter : {1, 2, 3}) {
    const auto s = dense_output(top, s0, s1, H, quarter / 4.0);
    const double error = (s.q - exact.quaternion(100 * quarter)).norm();
    std::printf("θ = %.2f  |e − e_exact| = %.3e  (step end %.3e)  | |e| − 1 | = %.1e  eᵀė = %.1e\n", quarter / 4.0,
                error, step_error, std::abs(s.q.norm() - 1), s.q.dot(s.v));
    EXPECT_LE(error, step_error);
    EXPECT_LE(std::abs(s.q.norm() - 1), 1e-15);
    EXPECT_LE(std::abs(s.q.dot(s.v)), 1e-13);
  }
}

// The velocities of dense output (the derivative of the Hermite cubic, dense_output.hpp), of the
// method's order: with exact end data the derivative would be O(H³), but it divides the ends'
// O(H³) position errors by H, so the body rate ω = 2Gė inside a step is O(H²), as is the step's
// own ω at its end (from an exact start, whose accelerations do not lag as Negrut eq. 23 says). Its
// constant is larger: on Sherif's fast top (150 rad/s) the midpoint's ω is off by 43× the step
// end's. A sample's error is that once, not accumulated over the run's steps.
TEST(AdaptiveEnsemble, DenseOutputVelocitiesAreSecondOrder) {
  const Top top = reference::sherif_heavy_top();
  const ModifiedHht<Top> hht(shifted(-0.2));
  const double steps[] = {1e-3, 5e-4, 2.5e-4};
  double midpoint_error[3];
  for (int k = 0; k < 3; ++k) {
    const double H = steps[k];
    ModifiedHht<Top>::State s0, s1;
    ASSERT_EQ(hht.initialize(top, reference::sherif_heavy_top_initial(), 0.0, s0), Status::ok);
    s1 = s0;
    ASSERT_EQ(hht.step(top, s1, 0.0, H).status, Status::ok);
    const HeavyTopReference exact(top, reference::sherif_heavy_top_initial(), H / 400, 400);
    const auto omega_of = [](const ModifiedHht<Top>::State& s) {
      return Vec3<double>(euler_parameters::body_rate(Vec4<double>(s.q), Vec4<double>(s.v)));
    };
    const double step_error = (omega_of(s1) - exact.omega(400)).norm();
    midpoint_error[k] = (omega_of(dense_output(top, s0, s1, H, 0.5)) - exact.omega(200)).norm();
    std::printf("H = %.2e  |ω − ω_exact| at θ = 1/2: %.3e  (step end %.3e)\n", H, midpoint_error[k], step_error);
    EXPECT_LE(midpoint_error[k], 50 * step_error) << "H = " << H;  // measured 43.0×, 43.2×, 43.2×
  }
  for (int k = 0; k < 2; ++k)  // O(H²): 4 per halving (measured 3.992, 3.998)
    EXPECT_NEAR(midpoint_error[k] / midpoint_error[k + 1], 4.0, 0.2) << steps[k] << " → " << steps[k + 1];
}

}  // namespace
}  // namespace quatstep
