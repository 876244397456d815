// Single-axis spin-up under a constant body moment (Sherif §3–7): a body with inertia I·1 about
// its centre (HeavyTop with zero lever), moment M about body x, exact solution ω(t) = ω₀ + t·M/I.
//   - modified HHT, α = 0, and modified HHT with the inertia shift (docs/second_order_hht.md), any α:
//     exact to round-off (Sherif §7 eq. 42; docs/second_order_hht.md);
//   - classical HHT, α < 0: levels off at ω∞ = (4M/(|α| I h))^{1/3} (docs/errata.md S5); α = 0: loses the
//     velocity constraint (docs/errata.md S4);
//   - one step from a consistent state: the spin defects of Sherif eq. (28) and eqs. (41)–(42).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "quatstep/integrators/hht.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "test_support.hpp"

namespace quatstep {
namespace {

using testing::kEps;
using Body = HeavyTop<double>;

constexpr double kInertia = 1.0;  // I
constexpr double kMoment = 1.0;   // M about body x
constexpr double kRate = kMoment / kInertia;

Body spin_body() {
  Body b;
  b.inertia = kInertia * Mat3<double>::Identity();
  b.loads.body_torque.constant = Vec3<double>(kMoment, 0.0, 0.0);
  return b;
}

/// HHT settings with the Newton iteration converged to round-off: the claims below are about the
/// methods, and a stopping tolerance of 1e-10 (the default until 2026-11-22; it is 1e-12 now) leaves
/// per-step errors of that order (measured with 1e-10: modified α = 0 drifts to 3.7e-11 relative over
/// 10⁴ steps instead of 2.6e-14).
HhtSettings<double> settings(double alpha, bool inertia_shift) {
  HhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = inertia_shift;
  s.newton.tolerance = 1e-13;
  s.newton.max_iterations = 20;
  return s;
}

struct SpinUp {
  int steps_done = 0;          ///< steps that succeeded
  Status status = Status::ok;  ///< of the first failing step, if any
  double worst_relative = 0;   ///< max over steps of |ω_n − n·h·M/I| / (n·h·M/I)
  double worst_unity = 0;      ///< max over steps of | ‖q‖ − 1 |
  double omega = 0;            ///< ω_x after the last successful step
  double omega_at_80_percent = 0;
};

/// Spin-up from rest over `steps` steps of size h.
template <class Integrator>
SpinUp spin_up(const Integrator& integrator, int steps, double h) {
  const Body body = spin_body();
  typename Integrator::State s;
  SpinUp r;
  EXPECT_EQ(integrator.initialize(body, RigidBodyKinematics<double>{}, 0.0, s), Status::ok);
  for (int n = 1; n <= steps; ++n) {
    const NewtonOutcome out = integrator.step(body, s, (n - 1) * h, h);
    if (out.status != Status::ok) {
      r.status = out.status;
      return r;
    }
    const RigidBodyKinematics<double> k = integrator.kinematics(body, s);
    const double exact = n * h * kRate;
    r.steps_done = n;
    r.omega = k.omega_body[0];
    r.worst_relative = std::max(r.worst_relative, std::abs(r.omega - exact) / exact);
    r.worst_unity = std::max(r.worst_unity, std::abs(k.quaternion.norm() - 1.0));
    if (n == steps * 4 / 5) r.omega_at_80_percent = r.omega;
  }
  return r;
}

constexpr int kSteps = 10000;
constexpr double kStep = 0.01;

TEST(SpinUp, ModifiedHhtWithoutDampingIsExact) {
  const SpinUp r = spin_up(ModifiedHht<Body>(settings(0.0, false)), kSteps, kStep);
  std::printf("  modified, alpha = 0: worst |w - w_exact|/w_exact %.2e, worst | |q| - 1 | %.2e\n", r.worst_relative,
              r.worst_unity);
  ASSERT_EQ(r.steps_done, kSteps) << to_string(r.status);
  EXPECT_LE(r.worst_relative, 1e-12);  // measured 2.6e-14 (ω = 100 after 10⁴ steps)
  EXPECT_LE(r.worst_unity, 1e-12);     // measured 2.2e-16
}

TEST(SpinUp, ModifiedHhtWithInertiaShiftIsExactForEveryAlpha) {
  for (double alpha : {-0.1, -0.2, -0.3}) {
    const SpinUp r = spin_up(ModifiedHht<Body>(settings(alpha, true)), kSteps, kStep);
    std::printf("  modified + shift, alpha = %.1f: worst relative %.2e, worst | |q| - 1 | %.2e\n", alpha,
                r.worst_relative, r.worst_unity);
    ASSERT_EQ(r.steps_done, kSteps) << "alpha " << alpha << ": " << to_string(r.status);
    EXPECT_LE(r.worst_relative, 1e-12) << "alpha " << alpha;  // measured 3.0e-14, 1.9e-14, 2.6e-14
    EXPECT_LE(r.worst_unity, 1e-12) << "alpha " << alpha;     // measured 2.2e-16 each
  }
}

TEST(SpinUp, ClassicalHhtLevelsOffAtTheTerminalSpin) {
  for (double alpha : {-0.1, -0.2, -0.3}) {
    const SpinUp r = spin_up(Hht<Body>(settings(alpha, false)), kSteps, kStep);
    const double terminal = std::cbrt(4.0 * kMoment / (std::abs(alpha) * kInertia * kStep));  // docs/errata.md S5
    std::printf(
        "  classical, alpha = %.1f: w(1e4 steps) = %.8f, w_inf = %.8f, ratio - 1 = %.2e, "
        "w(1e4) - w(8e3) = %.2e\n",
        alpha, r.omega, terminal, r.omega / terminal - 1, r.omega - r.omega_at_80_percent);
    ASSERT_EQ(r.steps_done, kSteps) << "alpha " << alpha << ": " << to_string(r.status);
    // measured ratio − 1: −6.8e-5, −4.0e-5, +7.6e-6 (the h³ term of eq. 28 shifts the fixed point)
    EXPECT_LE(std::abs(r.omega / terminal - 1), 1e-3) << "alpha " << alpha;
    // levelled off: measured change over the last 2000 steps 2.0e-5, 3.1e-7, 1.7e-8
    EXPECT_LE(std::abs(r.omega - r.omega_at_80_percent), 1e-5 * terminal) << "alpha " << alpha;
  }
}

// docs/errata.md S4: trapezoidal Newmark on Euler parameters (classical, α = 0) loses eᵀė = 0 exponentially;
// the step must report it as a failure rather than return a wrong spin.
TEST(SpinUp, ClassicalHhtWithoutDampingReportsConstraintDrift) {
  const SpinUp r = spin_up(Hht<Body>(settings(0.0, false)), kSteps, kStep);
  std::printf("  classical, alpha = 0: %s after %d steps (t = %.2f s), w = %.5f\n", to_string(r.status), r.steps_done,
              r.steps_done * kStep, r.omega);
  EXPECT_EQ(r.status, Status::constraint_drift);  // measured: step 815 fails, 814 done (t = 8.14 s)
  EXPECT_GT(r.steps_done, 100);                   // the spin-up itself is sound before the drift takes over
}

// ---------------------------------------------------------------- one step from a consistent state
/// One step of size h from angle 0 and spin ω′ about x (Sherif eqs. 22–23, via initialize).
template <class Integrator>
RigidBodyKinematics<double> one_step(const Integrator& integrator, double spin, double h) {
  const Body body = spin_body();
  RigidBodyKinematics<double> k0;
  k0.omega_body = Vec3<double>(spin, 0.0, 0.0);
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(body, k0, 0.0, s), Status::ok);
  EXPECT_EQ(integrator.step(body, s, 0.0, h).status, Status::ok);
  return integrator.kinematics(body, s);
}

constexpr double kSpins[] = {1.0, 5.0};
constexpr double kOneSteps[] = {1e-2, 1e-3};

// Sherif eq. (28): ω − ω′ − hM/I = α/4·ω′³h² + c₃(α)·M/I·ω′²h³ + O(h⁴).
TEST(OneStepDefect, ClassicalHhtMatchesEq28) {
  for (double alpha : {0.0, -0.1, -0.2, -0.3}) {
    const double c3 = (10 * std::pow(alpha, 4) + 3 * std::pow(alpha, 3) - 12 * alpha * alpha + 11 * alpha - 4) /
                      (16 * (alpha - 1) * (alpha - 1));
    for (double spin : kSpins)
      for (double h : kOneSteps) {
        const double defect = one_step(Hht<Body>(settings(alpha, false)), spin, h).omega_body[0] - spin - h * kRate;
        const double t2 = alpha / 4 * std::pow(spin, 3) * h * h, t3 = c3 * kRate * spin * spin * std::pow(h, 3);
        const double whole = defect / (t2 + t3) - 1;  // both terms of eq. (28)
        const double cubic = (defect - t2) / t3 - 1;  // the h³ coefficient alone
        std::printf("  alpha %5.2f w' %g h %g: defect %.6e, defect/(eq. 28) - 1 = %.2e, h^3 coefficient - 1 = %.2e\n",
                    alpha, spin, h, defect, whole, cubic);
        // remainders O(h⁴)/O(h²) and O(h⁴)/O(h³): measured |whole| ≤ 1.13·h, |cubic| ≤ 1.13·ω′²h
        EXPECT_LE(std::abs(whole), 2 * h) << "alpha " << alpha << " w' " << spin << " h " << h;
        EXPECT_LE(std::abs(cubic), 2 * spin * spin * h) << "alpha " << alpha << " w' " << spin << " h " << h;
      }
  }
}

// Sherif eq. (42): ω = ω′ + hM/I + γα·hM/I·(1 − e₀), exact for the modified method given the new e₀;
// eq. (41): 1 − e₀ = ω′²h²/8 + M/I·ω′h³/8 + O(h⁴).
TEST(OneStepDefect, ModifiedHhtMatchesEqs41And42) {
  for (double alpha : {0.0, -0.1, -0.2, -0.3}) {
    const double gamma = 0.5 * (1 - 2 * alpha);  // Sherif eq. (19)
    for (double spin : kSpins)
      for (double h : kOneSteps) {
        const RigidBodyKinematics<double> k = one_step(ModifiedHht<Body>(settings(alpha, false)), spin, h);
        const double defect = k.omega_body[0] - spin - h * kRate;
        const double one_minus_e0 = 1 - k.quaternion[0];
        const double eq42 = gamma * alpha * h * kRate * one_minus_e0;
        const double eq41 = spin * spin * h * h / 8 + kRate * spin * std::pow(h, 3) / 8;
        std::printf("  alpha %5.2f w' %g h %g: defect %.6e, defect - eq. 42 = %.2e, (1 - e0)/eq. 41 - 1 = %.2e\n",
                    alpha, spin, h, defect, defect - eq42, one_minus_e0 / eq41 - 1);
        // exact up to the rounding of ω: measured ≤ 1.2e-15 = 1.05·ε·ω′
        EXPECT_LE(std::abs(defect - eq42), 8 * kEps * spin) << "alpha " << alpha << " w' " << spin << " h " << h;
        // O(h⁴)/O(h²) remainder: measured ≤ 0.15·(ω′² + 1)h²
        EXPECT_LE(std::abs(one_minus_e0 / eq41 - 1), 0.5 * (spin * spin + 1) * h * h)
            << "alpha " << alpha << " w' " << spin << " h " << h;
      }
  }
}

}  // namespace
}  // namespace quatstep
