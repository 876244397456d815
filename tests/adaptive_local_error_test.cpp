// The local error estimate of the HHT family (include/quatstep/adaptive/local_error.hpp) against the
// true local error: one step from an exact state, compared with the exact solution through that
// state (RK4 with h/200 substeps, whose own error is at round-off), on
//   - the heavy top of Sherif §10.1 (docs/errata.md S1/S2), from states along its RK4 reference,
//   - a torque-free asymmetric body, J = diag(6, 8, 3), Ω(0) = (10, 20, 20),
// for α ∈ {0, −0.1, −0.2, −0.3}, every method of the family, h = 2.5e-4 and 1e-4;
// the translation rows of a free body under a sinusoidal force (Negrut eq. 25) against the
// closed-form trajectory; that eq. (25) is biased on Euler parameters (docs/errata.md N4); and how the
// estimate compares with the error a running simulation commits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "quatstep/adaptive/local_error.hpp"
#include "quatstep/quatstep.hpp"
#include "reference/heavy_top_reference.hpp"
#include "reference/sherif_heavy_top.hpp"
#include "support/adaptive_problems.hpp"
#include "support/free_body_motion.hpp"

namespace quatstep {
namespace {

using Top = HeavyTop<double>;

using testing::torque_free_body;
using testing::torque_free_start;

HhtSettings<double> hht_settings(double alpha, bool shift) {
  HhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = shift;
  return s;
}

/// ‖δ_est‖/‖δ_true‖ and ‖δ_est − δ_true‖/‖δ_true‖ of one step of h from the exact state k (an
/// autonomous top: the exact solution through k is the reference started at t = 0).
struct Comparison {
  double ratio, deviation;
};
template <class Integrator>
Comparison compare(const Integrator& integrator, const Top& top, const RigidBodyKinematics<double>& k, double h) {
  typename Integrator::State s0, s1;
  EXPECT_EQ(integrator.initialize(top, k, 0.0, s0), Status::ok);
  s1 = s0;
  EXPECT_EQ(integrator.step(top, s1, 0.0, h).status, Status::ok);
  const reference::HeavyTopReference exact(top, k, h / 200, 200);
  const Vec4<double> truth = s1.q - exact.quaternion(200);
  const Vec4<double> estimate = local_error(integrator, top, s0, s1, h, h);
  return {estimate.norm() / truth.norm(), (estimate - truth).norm() / truth.norm()};
}

struct Worst {
  double low = INFINITY, high = 0, deviation = 0;
  void add(const Comparison& c) {
    low = std::min(low, c.ratio);
    high = std::max(high, c.ratio);
    deviation = std::max(deviation, c.deviation);
  }
};

/// Every method at every α and h from the states k of one body.
void expect_unbiased(const char* body, const Top& top, const std::vector<RigidBodyKinematics<double>>& states,
                     double ratio_tolerance, double deviation_tolerance) {
  for (double alpha : {0.0, -0.1, -0.2, -0.3}) {
    Worst classical, classical_shift, modified, modified_shift;
    for (double h : {2.5e-4, 1e-4}) {
      for (const auto& k : states) {
        classical.add(compare(Hht<Top>(hht_settings(alpha, false)), top, k, h));
        classical_shift.add(compare(Hht<Top>(hht_settings(alpha, true)), top, k, h));
        modified.add(compare(ModifiedHht<Top>(hht_settings(alpha, false)), top, k, h));
        modified_shift.add(compare(ModifiedHht<Top>(hht_settings(alpha, true)), top, k, h));
      }
    }
    const std::pair<const char*, Worst*> methods[] = {{"Hht", &classical},
                                                      {"Hht+shift", &classical_shift},
                                                      {"ModifiedHht", &modified},
                                                      {"ModifiedHht+shift", &modified_shift}};
    for (const auto& [name, w] : methods) {
      std::printf("%-16s %-18s a = %4.1f  estimate/true %.5f … %.5f  |est − true|/|true| ≤ %.4f\n", body, name, alpha,
                  w->low, w->high, w->deviation);
      EXPECT_GE(w->low, 1 - ratio_tolerance) << body << " " << name << " α = " << alpha;
      EXPECT_LE(w->high, 1 + ratio_tolerance) << body << " " << name << " α = " << alpha;
      EXPECT_LE(w->deviation, deviation_tolerance) << body << " " << name << " α = " << alpha;
    }
  }
}

TEST(AdaptiveLocalError, IsUnbiasedOnTheHeavyTop) {
  const Top top = reference::sherif_heavy_top();
  const double h_ref = reference::sherif_heavy_top_reference_step;
  const reference::HeavyTopReference trajectory(top, reference::sherif_heavy_top_initial(), h_ref, std::lround(0.7 / h_ref));
  std::vector<RigidBodyKinematics<double>> states;
  for (double t : {0.0, 0.3, 0.7}) {
    RigidBodyKinematics<double> k;
    k.quaternion = trajectory.quaternion(trajectory.index_of(t));
    k.omega_body = trajectory.omega(trajectory.index_of(t));
    states.push_back(k);
  }
  expect_unbiased("heavy top", top, states, 0.01, 0.01);
}

TEST(AdaptiveLocalError, IsUnbiasedOnATorqueFreeAsymmetricBody) {
  const Top body = torque_free_body();
  const reference::HeavyTopReference trajectory(body, torque_free_start(), 1e-5, 70000);
  std::vector<RigidBodyKinematics<double>> states;
  for (double t : {0.0, 0.3, 0.7}) {
    RigidBodyKinematics<double> k;
    k.quaternion = trajectory.quaternion(trajectory.index_of(t));
    k.omega_body = trajectory.omega(trajectory.index_of(t));
    states.push_back(k);
  }
  expect_unbiased("torque-free body", body, states, 0.01, 0.01);
}

// docs/errata.md N4: the test above can see a biased estimate. Negrut's eq. (25) on the Euler
// parameters of the modified method with its shift underestimates by [β − 1/(6(1+α))]/(β − 1/6) for a
// pure spin (0.864, 0.785, 0.721 at α = −0.1, −0.2, −0.3); measured on the heavy top 0.8645, 0.7853,
// 0.7214 at t = 0.
TEST(AdaptiveLocalError, NegrutEq25IsBiasedForEulerParameters) {
  const Top top = reference::sherif_heavy_top();
  for (double alpha : {-0.1, -0.2, -0.3}) {
    const ModifiedHht<Top> hht(hht_settings(alpha, true));
    typename ModifiedHht<Top>::State s0, s1;
    ASSERT_EQ(hht.initialize(top, reference::sherif_heavy_top_initial(), 0.0, s0), Status::ok);
    s1 = s0;
    const double h = 1e-4;
    ASSERT_EQ(hht.step(top, s1, 0.0, h).status, Status::ok);
    const reference::HeavyTopReference exact(top, reference::sherif_heavy_top_initial(), h / 200, 200);
    const double truth = (s1.q - exact.quaternion(200)).norm();
    const double eq25 = (hht.p.beta - 1 / (6 * (1 + alpha))) * h * h * (s1.a - s0.a).norm();
    const double pure_spin = (hht.p.beta - 1 / (6 * (1 + alpha))) / (hht.p.beta - 1.0 / 6);
    std::printf("a = %4.1f  eq. (25)/true = %.4f  pure-spin factor %.4f\n", alpha, eq25 / truth, pure_spin);
    EXPECT_NEAR(eq25 / truth, pure_spin, 0.01) << "α = " << alpha;
  }
}

// In a running simulation the start of a step is not exact: HHT's accelerations lag by αh (Negrut
// eq. 23), so a lagging row takes x = h q⃛ instead of (1+α)h q⃛ and commits (α/2 + β − 1/6)h³q⃛
// instead of (β(1+α) − 1/6)h³q⃛. The estimate, unbiased from exact states, is then conservative by the
// ratio of the two: for the classical method with its shift (the whole ë lags) 1.367, 1.625, 1.742
// at α = −0.1, −0.2, −0.3 on the heavy top, as measured; for the modified one (only ω̇ lags)
// 1.0014–1.0017 on the heavy top and 1.08–1.11 on the torque-free body. It costs steps (h ∝ ratio^(−1/3),
// at most 20 % more), not accuracy. One step of h = 1e-4 after 1000 steps.
template <class Integrator>
double in_run_ratio(const Integrator& integrator, const Top& top, const RigidBodyKinematics<double>& k0) {
  const double h = 1e-4;
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(top, k0, 0.0, s), Status::ok);
  for (int n = 0; n < 1000; ++n) EXPECT_EQ(integrator.step(top, s, n * h, h).status, Status::ok);
  const typename Integrator::State s0 = s;
  EXPECT_EQ(integrator.step(top, s, 1000 * h, h).status, Status::ok);
  const reference::HeavyTopReference exact(top, integrator.kinematics(top, s0), h / 200, 200);
  return local_error(integrator, top, s0, s, 1001 * h, h).norm() / (s.q - exact.quaternion(200)).norm();
}

TEST(AdaptiveLocalError, InARunTheEstimateIsConservativeForLaggingRows) {
  const Top top = reference::sherif_heavy_top();
  for (double alpha : {-0.1, -0.2, -0.3}) {
    const Hht<Top> classical(hht_settings(alpha, true));
    const double beta = classical.p.beta;
    const double lag = (beta - 1 / (6 * (1 + alpha))) / (alpha / 2 + beta - 1.0 / 6);
    const double c = in_run_ratio(classical, top, reference::sherif_heavy_top_initial());
    const double m = in_run_ratio(ModifiedHht<Top>(hht_settings(alpha, true)), top, reference::sherif_heavy_top_initial());
    const double f = in_run_ratio(ModifiedHht<Top>(hht_settings(alpha, true)), torque_free_body(), torque_free_start());
    std::printf("a = %4.1f  in a run, estimate/true: Hht+shift %.4f (lag factor %.4f), ModifiedHht+shift %.4f, "
                "torque-free %.4f\n", alpha, c, lag, m, f);
    EXPECT_NEAR(c, lag, 0.01 * lag) << "α = " << alpha;
    EXPECT_GE(m, 1.0);
    EXPECT_LE(m, 1.01);
    EXPECT_GE(f, 1.0);
    EXPECT_LE(f, 1.15);
  }
}

// Negrut eq. (25) on the translation of a free body (constant mass) under the force A sin(ωt) of
// support/free_body_motion.hpp: one step from the exact state at t_n, against the closed form.
TEST(AdaptiveLocalError, TranslationRowsFollowNegrutEq25) {
  const FreeRigidBody<double> body = testing::shaken_body(1);
  const RigidBodyKinematics<double> k0 = testing::shaken_body_start(1);
  const double w = body.force_profile.frequency;
  for (double alpha : {0.0, -0.1, -0.2, -0.3}) {
    Worst worst;
    for (double tn : {0.0, 0.5, 1.3}) {
      for (double h : {2e-3, 1e-3}) {
        RigidBodyKinematics<double> k = k0;
        k.position = testing::exact_position(body, k0, tn);
        k.velocity = k0.velocity + body.gravity * tn +
                     body.force_profile.amplitude / (body.mass * w) * (1 - std::cos(w * tn));
        const ModifiedHht<FreeRigidBody<double>> hht(hht_settings(alpha, false));
        typename ModifiedHht<FreeRigidBody<double>>::State s0, s1;
        ASSERT_EQ(hht.initialize(body, k, tn, s0), Status::ok);
        s1 = s0;
        ASSERT_EQ(hht.step(body, s1, tn, h).status, Status::ok);
        const Vec3<double> truth = s1.q.head<3>() - testing::exact_position(body, k0, tn + h);
        const Vec3<double> estimate = local_error(hht, body, s0, s1, tn + h, h).head<3>();
        worst.add({estimate.norm() / truth.norm(), (estimate - truth).norm() / truth.norm()});
      }
    }
    std::printf("free-body translation a = %4.1f  estimate/true %.5f … %.5f  |est − true|/|true| ≤ %.4f\n", alpha,
                worst.low, worst.high, worst.deviation);
    EXPECT_GE(worst.low, 0.99) << "α = " << alpha;
    EXPECT_LE(worst.high, 1.01) << "α = " << alpha;
    EXPECT_LE(worst.deviation, 0.01) << "α = " << alpha;
  }
}

}  // namespace
}  // namespace quatstep
