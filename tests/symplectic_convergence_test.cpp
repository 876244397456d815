// Observed orders of NoSquish, SymmetricSplitting and ExactFreeSplitting with order = 2, 4, 6
// (composition.hpp), and of ExactFreeSplitting with composition = "near_integrable", from the errors
// at h and h/2 at t = 1 against the independent RK4 reference of
// problems/reference/heavy_top_reference.hpp at h = 2.5e-6 (it differs from h = 5e-6 by 1.4e-12 on
// Sherif's top, 3.2e-11 on the off-axis top, 7.7e-12 and 2.4e-11 on the asymmetric bodies).
// Error: max(geodesic angle between the orientations, |ω − ω_ref|/|ω_ref|). Problems
// (problems/rigid_body_problems.hpp): Sherif's fast top, the off-axis top (non-diagonal
// inertia), Kinon §5.3's torque-free asymmetric body, the same under a constant body torque.
// Each window is the largest pair of steps in the asymptotic range with errors well above the
// reference's; each window lists the order measured when it was chosen. Also: the free body's
// translation has the order of the composition, and its rotation is the heavy top's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "quatstep/integrators/exact_free_flow.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/integrators/symmetric_splitting.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "reference/heavy_top_reference.hpp"
#include "support/free_body_motion.hpp"
#include "rigid_body_problems.hpp"

namespace quatstep {
namespace {

using testing::RigidBodyProblem;
using Top = HeavyTop<double>;

constexpr double end_time = 1.0, reference_step = 2.5e-6;

const reference::HeavyTopReference& reference_of(const RigidBodyProblem& p) {
  static std::map<std::string, std::unique_ptr<reference::HeavyTopReference>> cache;
  auto& r = cache[p.name];
  if (!r) r = std::make_unique<reference::HeavyTopReference>(p.model, p.initial, reference_step,
                                                             std::lround(end_time / reference_step));
  return *r;
}

template <class I>
double error_at_end(const RigidBodyProblem& p, int order, double h) {
  SplittingSettings<double> settings;
  settings.order = order;
  const I integrator(settings);
  typename I::State s;
  EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
  const long n = std::lround(end_time / h);
  for (long k = 0; k < n; ++k) EXPECT_EQ(integrator.step(p.model, s, k * h, h).status, Status::ok);
  const auto k = integrator.kinematics(p.model, s);
  const auto& ref = reference_of(p);
  const long j = ref.index_of(end_time);
  const double angle = geodesic_angle(ref.quaternion(j), k.quaternion);
  return std::max(angle, (k.omega_body - ref.omega(j)).norm() / ref.omega(j).norm());
}

struct Window {
  int order;
  double h;         ///< the errors at h and h/2
  double measured;  ///< the observed order as measured when the window was chosen (documentation only)
  double tolerance;
};

template <class I>
void expect_orders(const RigidBodyProblem& p, const char* scheme, std::initializer_list<Window> windows) {
  for (const Window& w : windows) {
    const double coarse = error_at_end<I>(p, w.order, w.h), fine = error_at_end<I>(p, w.order, w.h / 2);
    const double observed = std::log2(coarse / fine);
    std::printf("%-38s %-19s order %d, h = %-7g: errors %.2e, %.2e, observed order %.2f (%.2f when chosen)\n", p.name,
                scheme, w.order, w.h, coarse, fine, observed, w.measured);
    EXPECT_NEAR(observed, w.order, w.tolerance) << p.name << ", " << scheme << ", order " << w.order << ", h = " << w.h;
  }
}

using NoSquishTop = NoSquish<Top>;
using SymmetricTop = SymmetricSplitting<Top>;
using ExactTop = ExactFreeSplitting<Top>;

/// ExactFreeSplitting with composition = "near_integrable" (its order is 4).
struct NearIntegrableTop : ExactTop {
  static ExactFreeSplittingSettings<double> near_integrable(const SplittingSettings<double>& s) {
    ExactFreeSplittingSettings<double> settings(s);
    settings.composition = Composition::near_integrable;
    return settings;
  }
  explicit NearIntegrableTop(const SplittingSettings<double>& s) : ExactTop(near_integrable(s)) {}
};

// Sherif's top spins at 150 rad/s: NoSquish resolves it (order 6 still pre-asymptotic at ωh = 0.6,
// and at round-off one halving later), SymmetricSplitting integrates the spin exactly and is
// asymptotic at steps 10–20× longer.
TEST(SplittingOrders, SherifTop) {
  const auto p = testing::sherif_top();
  expect_orders<NoSquishTop>(p, "NoSquish", {{2, 0.002, 2.02, 0.1}, {4, 0.002, 3.99, 0.1}, {6, 0.004, 6.59, 0.7}});
  expect_orders<SymmetricTop>(p, "SymmetricSplitting",
                              {{2, 0.01, 2.00, 0.1}, {4, 0.01, 4.00, 0.1}, {6, 0.04, 6.00, 0.1}});
}

TEST(SplittingOrders, OffAxisTopWithNonDiagonalInertia) {
  const auto p = testing::off_axis_top();
  ASSERT_GT(std::abs(p.model.inertia(0, 1)), 1.0);  // not principal axes
  expect_orders<NoSquishTop>(p, "NoSquish", {{2, 0.0025, 2.04, 0.1}, {4, 0.0025, 4.08, 0.15}, {6, 0.0025, 6.08, 0.15}});
  expect_orders<SymmetricTop>(p, "SymmetricSplitting",
                              {{2, 0.0025, 2.02, 0.1}, {4, 0.0025, 4.01, 0.1}, {6, 0.005, 6.09, 0.15}});
  expect_orders<ExactTop>(p, "ExactFreeSplitting",
                          {{2, 0.0025, 2.00, 0.1}, {4, 0.0025, 4.00, 0.1}, {6, 0.01, 6.12, 0.25}});
}

TEST(SplittingOrders, TorqueFreeAsymmetricBody) {
  const auto p = testing::free_asymmetric_body();
  expect_orders<NoSquishTop>(p, "NoSquish", {{2, 0.0025, 2.00, 0.1}, {4, 0.005, 3.99, 0.1}, {6, 0.01, 5.98, 0.1}});
  expect_orders<SymmetricTop>(p, "SymmetricSplitting",
                              {{2, 0.005, 2.00, 0.1}, {4, 0.01, 3.99, 0.1}, {6, 0.02, 6.01, 0.1}});
}

TEST(SplittingOrders, AsymmetricBodyUnderConstantBodyTorque) {
  const auto p = testing::torqued_asymmetric_body();
  expect_orders<NoSquishTop>(p, "NoSquish", {{2, 0.0025, 2.00, 0.1}, {4, 0.005, 3.99, 0.1}, {6, 0.01, 5.98, 0.1}});
  expect_orders<SymmetricTop>(p, "SymmetricSplitting",
                              {{2, 0.005, 2.00, 0.1}, {4, 0.01, 3.99, 0.1}, {6, 0.02, 6.01, 0.1}});
  // the free motion exact, the error is the torque's alone: ≈ 70× smaller at equal step (order 2:
  // 3.6e-4 at h = 0.02, so ≈ 2.2e-5 at 0.005 where SymmetricSplitting's is 1.5e-3), asymptotic at
  // longer steps; order 6 between 0.05 and 0.025 is still pre-asymptotic (6.33), one halving more
  // reaches the reference's error
  expect_orders<ExactTop>(p, "ExactFreeSplitting", {{2, 0.02, 2.00, 0.1}, {4, 0.025, 4.02, 0.1}, {6, 0.05, 6.33, 0.4}});
}

// composition = "near_integrable": error O(ε h¹⁰ + ε² h⁶ + ε³ h⁴), ε the torque against the free
// motion (the orders 4, 10 and 6 themselves are measured on a linear system in
// splitting_parts_test.cpp). Under this torque the ε² h⁶ term is what is seen down to the reference's
// error, far below the triple jump's at equal step (at h = 0.1: 2.2e-8 rad against 3.6e-3,
// bench/symplectic_work_precision.csv); with the torque 100× larger the observed order falls between
// 6 and the method's 4 (4.56 at h = 0.005, where the errors approach the reference's).
TEST(SplittingOrders, NearIntegrableCompositionUnderSmallAndLargeTorques) {
  auto p = testing::torqued_asymmetric_body();
  expect_orders<NearIntegrableTop>(p, "near_integrable", {{6, 0.1, 6.21, 0.3}});
  p.name = "asymmetric body, body torque × 100";
  p.model.loads.body_torque.constant *= 100;
  // "order 5 ± 1": between the method's order and the ε² h⁶ term's
  expect_orders<NearIntegrableTop>(p, "near_integrable", {{5, 0.04, 5.04, 1.0}, {5, 0.02, 5.16, 1.0}});
}

// The translation is velocity Verlet composed like the rotation: under gravity and a sinusoidal
// force (tests/support/free_body_motion.hpp) its position error at t = 3 has the composition's order.
TEST(SplittingOrders, FreeBodyTranslation) {
  using B = FreeRigidBody<double>;
  // measured: observed orders 2.00, 4.00, 6.01
  for (const auto& [order, h] : {std::pair{2, 0.01}, {4, 0.1}, {6, 0.2}}) {
    SplittingSettings<double> s;
    s.order = order;
    const NoSquish<B> integrator(s);
    const double observed =
        std::log2(testing::position_error(integrator, h) / testing::position_error(integrator, h / 2));
    std::printf("translation, order %d, h = %g: observed order %.2f\n", order, h, observed);
    EXPECT_NEAR(observed, order, 0.1) << "order " << order;
    // under gravity alone the trajectory is a parabola, which every composition reproduces
    EXPECT_LT(testing::position_error(SymmetricSplitting<B>(s), h, false), 1e-13) << "order " << order;
  }
}

// The rotation of a free body does not depend on its translation: it is, bit for bit, that of a
// heavy top with the same inertia and torques (lever zero).
TEST(SplittingOrders, FreeBodyRotatesAsTheHeavyTop) {
  const FreeRigidBody<double> body = testing::shaken_body(2);
  HeavyTop<double> top;
  top.inertia = body.inertia;
  top.loads = body.loads;
  const RigidBodyKinematics<double> k0 = testing::shaken_body_start(2);
  const SymmetricSplitting<FreeRigidBody<double>> free_integrator;
  const SymmetricSplitting<HeavyTop<double>> top_integrator;
  SymmetricSplitting<FreeRigidBody<double>>::State a;
  SymmetricSplitting<HeavyTop<double>>::State b;
  ASSERT_EQ(free_integrator.initialize(body, k0, 0.0, a), Status::ok);
  ASSERT_EQ(top_integrator.initialize(top, k0, 0.0, b), Status::ok);
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(free_integrator.step(body, a, k * 0.01, 0.01).status, Status::ok);
    ASSERT_EQ(top_integrator.step(top, b, k * 0.01, 0.01).status, Status::ok);
  }
  const auto expect_same = [](const auto& x, const auto& y, const char* name) {
    for (int c = 0; c < x.size(); ++c) EXPECT_EQ(x[c], y[c]) << name << "[" << c << "]";
  };
  expect_same(a.q, b.q, "q");
  expect_same(a.p, b.p, "p");
  expect_same(a.torque, b.torque, "torque");
  expect_same(a.frame, b.frame, "frame");
  expect_same(a.inverse_moments, b.inverse_moments, "inverse_moments");
}

}  // namespace
}  // namespace quatstep
