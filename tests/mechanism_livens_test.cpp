// The Livens schemes on mechanisms (include/quatstep/mechanism/livens.hpp):
//   - Kinon & Betsch §5.5, the closed four-bar loop (docs/errata.md K5 data, f_m = 100 during
//     t ∈ [0, 1], h = 0.1, t_end = 10 as in Table 5): once the load is off, EML keeps the
//     generalized energy (74), the linear momentum and the joints to round-off, and with the
//     G-equivariant joint gradient the spatial angular momentum too (the paper's Fig. 16); with the
//     paper's midpoint gradient the energy still holds but the angular momentum drifts;
//   - the undamped slider-crank with gravity and a spring (dot rows between two bodies and offset
//     rows, which are not quadratic): EML with the equivariant gradient keeps the energy (74) to
//     round-off, the midpoint gradient does not;
//   - orders against RK4 on the index-1 form: EML and MPL second order on the 3-D double pendulum
//     and the slider-crank;
//   - the momenta of the load: Σ p_φ ends at the impulse 8∫f dt e₁ = 400 e₁;
//   - the undamped 3-D double pendulum: EML keeps the energy (74) to the Newton tolerance over
//     t ∈ [0, 2] (later its end-point velocities carry a growing alternating mode, docs/errata.md K6); MPL keeps (74) within O(h²) bounds
//     on the pendulum and the slider-crank, and the constraints to the Newton tolerance;
//   - the Newton matrix of both schemes and both gradients against central differences of the step's
//     residual (namespace newton_matrix: what is exact, what is left out and how small that is);
//   - steps that are rigid for a joint (the four-bar spinning about e_z, a welded pair tumbling): the
//     equivariant gradient runs (it used to fail there) and keeps the momenta; on the welded pair, whose
//     every step is rigid, its energy error is second order in h, as the midpoint gradient's angular
//     momentum error is.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "quatstep/mechanism/assembly.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "mechanism_reference.hpp"
#include "mechanisms.hpp"
#include "test_support.hpp"

namespace quatstep::mechanism {
namespace {

using Cap = SmallCapacity;
using Mech = Mechanism<double, Cap>;
using testing::TestMechanism;
using testing::JointType;

struct Conservation {
  Status status = Status::ok;
  double energy = 0, linear = 0, angular = 0;  ///< largest relative change over t ∈ [t_quiet, t_end]
  double residual = 0;                         ///< max |C| over the run
  double iterations = 0;                       ///< Newton iterations per step
  Vec3<double> final_linear = Vec3<double>::Zero();
};

template <class Integrator>
Conservation conservation(const Integrator& integrator, const TestMechanism<Cap>& tm, double h, double t_quiet,
                          double t_end) {
  Conservation c;
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const long n = std::lround(t_end / h);
  long iterations = 0;
  double e0 = NAN;
  Vec3<double> l0, a0;
  if (t_quiet <= 0) {  // changes from the initial state
    e0 = integrator.generalized_energy(tm.mech, s);
    l0 = integrator.linear_momentum(tm.mech, s);
    a0 = integrator.angular_momentum(tm.mech, s);
  }
  for (long i = 0; i < n; ++i) {
    const NewtonOutcome o = integrator.step(tm.mech, s, i * h, h);
    iterations += o.iterations;
    if (o.status != Status::ok) {
      c.status = o.status;
      return c;
    }
    const double t = (i + 1) * h;
    c.residual = std::max(c.residual, observe(tm.mech, s.q, s.v, t).position_residual);
    if (t < t_quiet - 1e-9) continue;
    const double e = integrator.generalized_energy(tm.mech, s);
    const Vec3<double> l = integrator.linear_momentum(tm.mech, s), a = integrator.angular_momentum(tm.mech, s);
    if (std::isnan(e0)) e0 = e, l0 = l, a0 = a;
    c.energy = std::max(c.energy, std::abs(e - e0) / std::abs(e0));
    c.linear = std::max(c.linear, (l - l0).norm() / std::max(l0.norm(), 1e-300));
    c.angular = std::max(c.angular, (a - a0).norm() / std::max(a0.norm(), 1e-300));
  }
  c.iterations = double(iterations) / n;
  c.final_linear = integrator.linear_momentum(tm.mech, s);
  return c;
}

/// Round-off conservation needs the Newton error below round-off: the tests ask 1e-14 (file comment).
MechanismLivensSettings<double> settings(ConstraintGradient g, double tolerance = 1e-14) {
  MechanismLivensSettings<double> s;
  s.gradient = g;
  s.newton.tolerance = tolerance;
  return s;
}

void print(const char* name, const Conservation& c) {
  std::printf("%-44s dE/E = %.2e  dP/P = %.2e  dL/L = %.2e  max|C| = %.1e  Newton/step = %.2f\n", name, c.energy,
              c.linear, c.angular, c.residual, c.iterations);
}

TEST(MechanismLivensFourBar, EquivariantGradientConservesEnergyAndMomenta) {
  const TestMechanism<Cap> tm = testing::four_bar<Cap>();
  const Conservation c = conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::equivariant)), tm, 0.1, 1.0, 10.0);
  print("four-bar EML, equivariant gradient, h = 0.1", c);
  ASSERT_EQ(c.status, Status::ok) << to_string(c.status);
  EXPECT_LE(c.energy, 1e-12);
  EXPECT_LE(c.linear, 1e-12);
  EXPECT_LE(c.angular, 1e-12);
  EXPECT_LE(c.residual, 1e-12);
  // The load's impulse: 8 ∫₀¹ f dt = 8 · f_m/2 = 400 along e₁.
  EXPECT_NEAR(c.final_linear[0], 400.0, 1e-9);
  EXPECT_NEAR(c.final_linear.tail<2>().norm(), 0.0, 1e-9);
}

TEST(MechanismLivensFourBar, DefaultNewtonToleranceConservesToItsLevel) {
  const TestMechanism<Cap> tm = testing::four_bar<Cap>();
  const Conservation c =
      conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::equivariant, 1e-12)), tm, 0.1, 1.0, 10.0);
  print("four-bar EML, equivariant, Newton 1e-12", c);
  ASSERT_EQ(c.status, Status::ok) << to_string(c.status);
  EXPECT_LE(c.energy, 1e-11);   // measured 4.0e-13
  EXPECT_LE(c.linear, 1e-11);   // 1.6e-14
  EXPECT_LE(c.angular, 5e-11);  // 7.9e-12
}

TEST(MechanismLivensFourBar, MidpointGradientDriftsInAngularMomentum) {
  const TestMechanism<Cap> tm = testing::four_bar<Cap>();
  const Conservation c = conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::midpoint)), tm, 0.1, 1.0, 10.0);
  print("four-bar EML, midpoint gradient, h = 0.1", c);
  ASSERT_EQ(c.status, Status::ok) << to_string(c.status);
  EXPECT_LE(c.energy, 1e-12);  // every row of a spherical joint is quadratic: the midpoint gradient is exact
  EXPECT_LE(c.linear, 1e-12);
  EXPECT_GE(c.angular, 1e-5);  // docs/errata.md K5: ~1e-3
}

TEST(MechanismLivensFourBar, SpinningLoopRunsWithTheEquivariantGradient) {
  // The loop turning rigidly about e_z at 0.5 rad/s, h = 1e-3, without and with the load: each step
  // is rigid for every joint (or nearly so), where the equivariant correction of the point rows used
  // to be solved from a singular matrix and the first step failed with newton_not_converged
  // (docs/mechanisms.md). Newton to 1e-16 for both gradients: at 1e-14 it stops after 2 iterations and
  // its error, not the gradient, sets the drift (energy 8e-10 with either gradient under the load).
  for (const double f_m : {0.0, 100.0}) {
    const TestMechanism<Cap> tm = testing::four_bar<Cap>(0.5, f_m);
    const double quiet = f_m > 0 ? 1.0 : 0.0;
    const Conservation eq =
        conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::equivariant, 1e-16)), tm, 1e-3, quiet, 3.0);
    const Conservation mid =
        conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::midpoint, 1e-16)), tm, 1e-3, quiet, 3.0);
    print(f_m > 0 ? "spinning four-bar, load, EML equivariant" : "spinning four-bar, EML equivariant", eq);
    print(f_m > 0 ? "spinning four-bar, load, EML midpoint" : "spinning four-bar, EML midpoint", mid);
    ASSERT_EQ(eq.status, Status::ok) << to_string(eq.status);
    ASSERT_EQ(mid.status, Status::ok) << to_string(mid.status);
    // 3000 steps (2000 after the load): measured 2.5e-11 / 7.8e-12 (energy), 1.3e-11 / 1.1e-11 (angular)
    EXPECT_LE(eq.energy, 1e-10);
    EXPECT_LE(eq.angular, 1e-10);
    EXPECT_LE(eq.linear, 1e-10);
    EXPECT_LE(eq.residual, 1e-12);
    EXPECT_LE(eq.iterations, 3.5);
    if (f_m > 0) EXPECT_GE(mid.angular, 1e-6);  // the deforming loop: the midpoint gradient drifts (1.8e-5)
  }
}

/// Two unequal bodies welded by a fixed joint, tumbling and drifting freely: a rigid body made of two,
/// each of whose steps is rigid for the joint — where the equivariant point-row correction has no
/// usable value and keeps the equivariance only (livens.hpp), and no symmetry cancels what it gives up.
TestMechanism<Cap> welded_pair() {
  TestMechanism<Cap> t;
  auto& b = t.builder;
  const int a = b.add_body("a", 1.0, Vec3<double>(0.1, 0.2, 0.25)), c = b.add_body("c", 3.0, Vec3<double>(0.3, 0.2, 0.4));
  const Vec3<double> ra(1, 0, 0), rc(-0.5, 0.2, 0), joint(0.2, 0.1, 0.1), w(0.3, -0.2, 1.0), drift(0.1, 0.05, 0);
  b.add_joint("weld", JointType::fixed, a, testing::at(joint - ra), c, testing::at(joint - rc));
  t.mech = b.template build<Cap>();
  const Vec3<double> centre = (1.0 * ra + 3.0 * rc) / 4.0;
  t.initial.body[a] = testing::pose(Vec4<double>(1, 0, 0, 0), ra, w, drift + w.cross(ra - centre));
  t.initial.body[c] = testing::pose(Vec4<double>(1, 0, 0, 0), rc, w, drift + w.cross(rc - centre));
  return t;
}

TEST(MechanismLivensWeldedPair, RigidStepsKeepTheMomentaAndLoseEnergyAtSecondOrder) {
  // On rigid steps one of the two properties must give: the equivariant gradient keeps the angular
  // momentum to round-off and its energy error is O(h²) over a fixed time; the midpoint gradient
  // the other way round (measured: energy 1.6e-7 → 1.6e-9, angular momentum 4.7e-6 → 4.7e-8 from
  // h = 1e-2 to 1e-3 over 3 s).
  Conservation eq[2], mid[2];
  const double hs[2] = {1e-2, 1e-3};
  const TestMechanism<Cap> tm = welded_pair();
  for (int k = 0; k < 2; ++k) {
    eq[k] = conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::equivariant, 1e-16)), tm, hs[k], 0.0, 3.0);
    mid[k] = conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::midpoint, 1e-16)), tm, hs[k], 0.0, 3.0);
    std::printf("h = %g\n", hs[k]);
    print("welded pair, EML equivariant", eq[k]);
    print("welded pair, EML midpoint", mid[k]);
    ASSERT_EQ(eq[k].status, Status::ok) << to_string(eq[k].status);
    ASSERT_EQ(mid[k].status, Status::ok) << to_string(mid[k].status);
    EXPECT_LE(eq[k].angular, 1e-10);
    EXPECT_LE(eq[k].linear, 1e-10);  // round-off over 3000 steps: 2.3e-11, as with the midpoint gradient
    EXPECT_LE(mid[k].energy, 1e-10);
    EXPECT_LE(eq[k].residual, 1e-12);
  }
  EXPECT_NEAR(std::log10(eq[0].energy / eq[1].energy), 2.0, 0.2);    // second order
  EXPECT_NEAR(std::log10(mid[0].angular / mid[1].angular), 2.0, 0.2);
  EXPECT_LE(eq[0].energy, 1e-6);
}

/// The double pendulum of problems/mechanisms.hpp with a universal joint at the elbow (the upper
/// body's x against the lower's y): its dot row couples two bodies rotating in 3-D, a quartic in q.
/// Free in space (no pivot, no gravity) so that both momenta are conserved too; assembled.
TestMechanism<Cap> universal_pair() {
  TestMechanism<Cap> t;
  auto& b = t.builder;
  const Vec3<double> J = testing::box_inertia(1.0, 0.2, 0.3, 1.0);
  const int upper = b.add_body("upper", 1.0, J), lower = b.add_body("lower", 2.0, J);
  const Vec3<double> top(0, 0, 0.5), bottom(0, 0, -0.5);
  b.add_joint("elbow", JointType::universal, upper, frame_with_axis<double>(bottom, Vec3<double>::UnitX()), lower,
              frame_with_axis<double>(top, Vec3<double>::UnitY()));
  t.mech = b.template build<Cap>();
  const Vec4<double> e0 = testing::about(Vec3<double>(1, 0.2, 0), 0.5), e1 = testing::about(Vec3<double>(0.3, 1, 0.1), -0.8);
  const Vec3<double> w0(1.0, -2.0, 3.0), w1(-2.0, 1.5, -4.0);
  t.initial.body[upper] = testing::pose(e0, Vec3<double>::Zero(), w0, Vec3<double>(0.1, 0, 0));
  t.initial.body[lower] = testing::pose(e1, Vec3<double>(0, 0, -1.0), w1, Vec3<double>(0, 0.2, 0));
  AssemblySettings<double> a;
  a.max_correction = 2.0;
  const AssemblyReport<double> r = assemble(t.mech, t.initial, 0.0, a);
  EXPECT_EQ(r.status, Status::ok) << to_string(r.status);
  return t;
}

TEST(MechanismLivensUniversalJoint, EquivariantGradientConservesEnergyAndMomenta) {
  const TestMechanism<Cap> tm = universal_pair();
  const Conservation eq = conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::equivariant)), tm, 1e-2, 0.0, 2.0);
  print("universal pair EML, equivariant gradient, h = 1e-2", eq);
  ASSERT_EQ(eq.status, Status::ok) << to_string(eq.status);
  // 200 steps, each closed to the Newton tolerance; measured 1.0e-12, 3.2e-13, 1.0e-12
  EXPECT_LE(eq.energy, 5e-12);
  EXPECT_LE(eq.linear, 5e-12);
  EXPECT_LE(eq.angular, 5e-12);
  EXPECT_LE(eq.residual, 1e-12);
  const Conservation mid = conservation(MechanismLivensEm<Mech>(settings(ConstraintGradient::midpoint)), tm, 1e-2, 0.0, 2.0);
  print("universal pair EML, midpoint gradient, h = 1e-2", mid);
  ASSERT_EQ(mid.status, Status::ok) << to_string(mid.status);
  // The dot row is not quadratic, so the midpoint gradient is no discrete gradient (measured 5.9e-6),
  // and not equivariant (angular momentum 2.4e-4).
  EXPECT_GE(mid.energy, 1e-7);
  EXPECT_GE(mid.angular, 1e-5);
}

TEST(MechanismLivensSliderCrank, EquivariantGradientConservesEnergy) {
  // Gravity, a spring, a prismatic joint and a revolute joint to the ground: only the energy is
  // conserved. Planar, so every row stays quadratic along the motion and both gradients keep it.
  const TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  for (ConstraintGradient g : {ConstraintGradient::equivariant, ConstraintGradient::midpoint}) {
    const Conservation c = conservation(MechanismLivensEm<Mech>(settings(g)), tm, 1e-2, 0.0, 2.0);
    print(g == ConstraintGradient::equivariant ? "slider-crank EML, equivariant, h = 1e-2" : "slider-crank EML, midpoint, h = 1e-2", c);
    ASSERT_EQ(c.status, Status::ok) << to_string(c.status);
    EXPECT_LE(c.energy, 1e-12);
    EXPECT_LE(c.residual, 1e-12);
  }
}


TEST(MechanismLivensAtRest, AMechanismAtRestWithoutLoadsStaysAtRest) {
  TestMechanism<Cap> tm = testing::double_pendulum<Cap>();
  for (int b = 0; b < 2; ++b) {
    tm.mech.bodies[b].gravity.setZero();
    tm.initial.body[b].omega_body.setZero();
    tm.initial.body[b].velocity.setZero();
  }
  const MechanismLivensEm<Mech> eml;
  MechanismLivensEm<Mech>::State s;
  ASSERT_EQ(eml.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const Dae<Mech>::VecN q0 = s.q;
  for (long i = 0; i < 1000; ++i) ASSERT_EQ(eml.step(tm.mech, s, i * 1e-3, 1e-3).status, Status::ok) << i;
  // Rounding walks: v¹ = 2Δq/h − v⁰ carries each step's last bits on (measured 3.5e-12 after 1000 steps).
  EXPECT_LE((s.q - q0).lpNorm<Eigen::Infinity>(), 1e-11);
  EXPECT_LE(s.v.lpNorm<Eigen::Infinity>(), 1e-10);
}

namespace orders {

constexpr double kEnd = 1.0;
const std::vector<double> kSteps = {4e-3, 2e-3, 1e-3};
using Reference = testing::Rk4Reference<Mech>::Sample;

Reference reference(const TestMechanism<Cap>& tm) {
  Status status;
  const Reference end = testing::rk4_end(tm.mech, tm.initial, 1e-4, kEnd, status);
  EXPECT_EQ(status, Status::ok);
  return end;
}

/// max over bodies of |ω − ω_ref| at kEnd.
template <class Integrator>
double error(const Integrator& integrator, const TestMechanism<Cap>& tm, const Reference& ref, double h) {
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const long n = std::lround(kEnd / h);
  for (long i = 0; i < n; ++i) {
    const NewtonOutcome o = integrator.step(tm.mech, s, i * h, h);
    if (o.status != Status::ok) {
      ADD_FAILURE() << to_string(o.status) << " at step " << i;
      return NAN;
    }
  }
  return testing::max_omega_error(tm.mech, s.q, s.v, ref.q, ref.v);
}

template <class Integrator>
void expect_second_order(const char* name, const Integrator& integrator, const TestMechanism<Cap>& tm,
                         const Reference& ref) {
  std::vector<double> e;
  for (double h : kSteps) e.push_back(error(integrator, tm, ref, h));
  for (std::size_t i = 0; i + 1 < e.size(); ++i) {
    const double p = std::log(e[i] / e[i + 1]) / std::log(kSteps[i] / kSteps[i + 1]);
    std::printf("%-28s h = %.0e -> %.0e: |w - w_ref| %.3e -> %.3e, order %.3f\n", name, kSteps[i], kSteps[i + 1], e[i],
                e[i + 1], p);
    EXPECT_NEAR(p, 2.0, 0.1) << name;
  }
}

TEST(MechanismLivensOrder, DoublePendulumAndSliderCrank) {
  const TestMechanism<Cap> pendulum = testing::double_pendulum<Cap>(), slider = testing::slider_crank<Cap>();
  const Reference rp = reference(pendulum), rs = reference(slider);
  const MechanismLivensSettings<double> s = settings(ConstraintGradient::equivariant, 1e-12);
  expect_second_order("pendulum EML", MechanismLivensEm<Mech>(s), pendulum, rp);
  expect_second_order("pendulum MPL", MechanismLivensMidpoint<Mech>(s), pendulum, rp);
  expect_second_order("slider-crank EML", MechanismLivensEm<Mech>(s), slider, rs);
  expect_second_order("slider-crank MPL", MechanismLivensMidpoint<Mech>(s), slider, rs);
}

}  // namespace orders

// ---------------------------------------------------------------- undamped energy, MPL's constraints
//
// Issue 15: "energy of the undamped ones bounded, constraints to the Newton tolerance" for the 3-D
// double pendulum and the slider-crank (both undamped: gravity, and the slider-crank's spring).

TEST(MechanismLivensDoublePendulum, EmlConservesTheGeneralizedEnergy) {
  // Undamped, gravity and a ground joint: only the energy (74) is conserved. Both joints are spherical,
  // whose rows are quadratic, so both gradients are discrete gradients and EML conserves (74) up to
  // each step's Newton error: the bound is n·tol, the sum of n steps' errors at the tolerance tol.
  // Only to t = 2 s: EML's end-point velocities drift from the motion after that (docs/errata.md K6;
  // tests below), and Newton fails at t = 2.45 s (h = 1e-2) or 4.03 s (h = 1e-3).
  const TestMechanism<Cap> tm = testing::double_pendulum<Cap>();
  for (ConstraintGradient g : {ConstraintGradient::equivariant, ConstraintGradient::midpoint}) {
    const char* name = g == ConstraintGradient::equivariant ? "equivariant" : "midpoint";
    const Conservation tight = conservation(MechanismLivensEm<Mech>(settings(g, 1e-14)), tm, 1e-2, 0.0, 1.0);
    const Conservation deflt = conservation(MechanismLivensEm<Mech>(settings(g, 1e-12)), tm, 1e-3, 0.0, 2.0);
    std::printf("double pendulum EML, %s gradient\n", name);
    print("  h = 1e-2, Newton 1e-14, t in [0, 1]", tight);
    print("  h = 1e-3, Newton 1e-12 (default), t in [0, 2]", deflt);
    ASSERT_EQ(tight.status, Status::ok) << to_string(tight.status);
    ASSERT_EQ(deflt.status, Status::ok) << to_string(deflt.status);
    // 100 steps at 1e-14: measured 4.7e-14 (equivariant), 5.7e-15 (midpoint); n·tol = 1e-12
    EXPECT_LE(tight.energy, 1e-12) << name;
    // 2000 steps at 1e-12: measured 1.2e-10 (both); n·tol = 2e-9
    EXPECT_LE(deflt.energy, 2e-9) << name;
    // the constraint rows are Newton equations: measured max|C| 4.4e-16 (h = 1e-2), 7.7e-13 (h = 1e-3)
    EXPECT_LE(tight.residual, 1e-14) << name;
    EXPECT_LE(deflt.residual, 1e-12) << name;
  }
}

/// Per window of 0.25 s: the largest |Ω(q¹, v¹) − Ω(q^{n+½}, Δq/h)| over bodies, the share of steps
/// whose departure reverses direction (d_n·d_{n−1} < 0 for every body), the largest |ΔE/E| of (74).
struct DepartureWindow {
  double departure = 0, alternating = 0, energy = 0;
};
template <class Integrator>
std::vector<DepartureWindow> departure_windows(const Integrator& integrator, const TestMechanism<Cap>& tm, double h,
                                               double t_end) {
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const double e0 = integrator.generalized_energy(tm.mech, s);
  const long per = std::lround(0.25 / h);
  std::vector<DepartureWindow> w;
  Vec3<double> prev[2];
  long reversals = 0;
  for (long i = 0; i < std::lround(t_end / h); ++i) {
    if (i % per == 0) w.emplace_back(), reversals = 0;
    const Dae<Mech>::VecN q0 = s.q;
    const NewtonOutcome o = integrator.step(tm.mech, s, i * h, h);
    EXPECT_EQ(o.status, Status::ok) << "t = " << (i + 1) * h;
    if (o.status != Status::ok) return w;
    bool reversed = i > 0;
    for (int b = 0; b < 2; ++b) {
      const Vec4<double> e = s.q.template segment<4>(7 * b + 3), ep = q0.template segment<4>(7 * b + 3);
      const Vec3<double> d = 2.0 * (G(e) * Vec4<double>(s.v.template segment<4>(7 * b + 3))) -
                             2.0 * (G(Vec4<double>(0.5 * (e + ep))) * Vec4<double>((e - ep) / h));
      w.back().departure = std::max(w.back().departure, d.norm());
      reversed = reversed && d.dot(prev[b]) < 0;
      prev[b] = d;
    }
    reversals += reversed;
    w.back().alternating = double(reversals) / per;
    w.back().energy = std::max(w.back().energy, std::abs(integrator.generalized_energy(tm.mech, s) - e0) / std::abs(e0));
  }
  return w;
}

TEST(MechanismLivensDoublePendulum, EmlEndPointVelocitiesCarryAnAlternatingMode) {
  // docs/errata.md K6: the paper's EML, not a defect of this implementation (an independent
  // implementation of Kinon eqs. (72), (86)–(88), (93), (101)–(103) gives the same q to 4e-14 at t = 1).
  // h = 1e-2, t in [0, 2.25]: the departure of the end-point velocities from the step's rotation is
  // O(h) and smooth at first, then the step-alternating mode of v¹ = 2Δq/h − v⁰, fed back through
  // Ω̄ of eq. (88), grows ~3.5× per 0.25 s while the energy (74) holds; Newton fails at t = 2.45 s
  // (h = 1e-3: 4.03 s). MPL, whose Ω̄ has no v⁰, stays at O(h) for 40 s.
  const TestMechanism<Cap> tm = testing::double_pendulum<Cap>();
  for (ConstraintGradient g : {ConstraintGradient::equivariant, ConstraintGradient::midpoint}) {
    const std::vector<DepartureWindow> w =
        departure_windows(MechanismLivensEm<Mech>(settings(g, 1e-12)), tm, 1e-2, 2.25);
    ASSERT_EQ(w.size(), 9u);
    for (size_t k = 0; k < w.size(); ++k)
      std::printf("EML %s, t in [%.2f, %.2f]: max departure %.3e rad/s, reversing steps %.2f, |dE/E| %.1e\n",
                  g == ConstraintGradient::equivariant ? "equivariant" : "midpoint", 0.25 * k, 0.25 * (k + 1),
                  w[k].departure, w[k].alternating, w[k].energy);
    for (int k = 0; k < 3; ++k) EXPECT_LE(w[k].departure, 0.3);  // O(h), smooth
    EXPECT_LE(w[0].alternating, 0.2);
    EXPECT_GE(w[8].departure, 20.0);      // measured ~80
    EXPECT_GE(w[8].departure, 30 * w[2].departure);
    EXPECT_GE(w[7].alternating, 0.8);     // the mode flips sign every step
    for (const DepartureWindow& x : w) EXPECT_LE(x.energy, 1e-10);  // (74) holds throughout
  }
}

TEST(MechanismLivensMidpointRule, EnergyBoundedAndConstraintsAtTheNewtonTolerance) {
  // MPL (Kinon eq. 132) is no energy scheme: its rotational kinetic energy is the midpoint rule's, so
  // (74) oscillates at O(h²) (the range shrinks 4× when h halves: a truncation error, not a drift).
  // The constraint rows c(q¹) = 0 and ½(eᵀe − 1) = 0 are Newton equations: they hold to the Newton
  // tolerance. The pendulum is chaotic (nearby trajectories part at ~5/s), so it runs 5 s only, where
  // its trajectory does not depend on the library's rounding; the slider-crank is periodic, 10 s.
  struct Case {
    const char* name;
    TestMechanism<Cap> tm;
    double t_end, bound;
  };
  // Bounds 4× the measured range at h = 1e-2 (pendulum 1.9e-5, slider-crank 1.39e-4, either
  // gradient): over 40 s the measured range stays within 2.4× (pendulum, 4.6e-5) and 1.01× (slider-
  // crank) of these — bounded, and varying with the chaotic motion, not growing.
  const Case cases[] = {{"double pendulum", testing::double_pendulum<Cap>(), 5.0, 8e-5},
                        {"slider-crank", testing::slider_crank<Cap>(), 10.0, 6e-4}};
  for (const Case& c : cases)
    for (ConstraintGradient g : {ConstraintGradient::equivariant, ConstraintGradient::midpoint}) {
      const char* gname = g == ConstraintGradient::equivariant ? "equivariant" : "midpoint";
      const MechanismLivensMidpoint<Mech> mpl(settings(g, 1e-12));  // the default Newton tolerance
      const Conservation coarse = conservation(mpl, c.tm, 1e-2, 0.0, c.t_end), fine = conservation(mpl, c.tm, 5e-3, 0.0, c.t_end);
      std::printf("%s MPL, %s gradient\n", c.name, gname);
      print("  h = 1e-2", coarse);
      print("  h = 5e-3", fine);
      ASSERT_EQ(coarse.status, Status::ok) << to_string(coarse.status);
      ASSERT_EQ(fine.status, Status::ok) << to_string(fine.status);
      const double range = coarse.energy, order = std::log2(range / fine.energy);
      std::printf("  energy range order %.2f\n", order);
      EXPECT_LE(range, c.bound) << c.name << " " << gname;
      EXPECT_NEAR(order, 2.0, 0.3) << c.name << " " << gname;  // measured 2.01 (pendulum), 2.00
      // measured max|C| ≤ 1.1e-15: the last Newton correction squares the error
      EXPECT_LE(coarse.residual, 1e-12) << c.name << " " << gname;
      EXPECT_LE(fine.residual, 1e-12) << c.name << " " << gname;
    }
}

// ---------------------------------------------------------------- the Newton matrix
//
// Issue 15: "every derivative the Newton matrix needs is analytic and checked against finite
// differences". The Livens step's Newton matrix (livens.hpp, MechanismLivens::Step::assemble) is the
// non-symmetric saddle point [B Eᵀ; D 0] of kkt.hpp: rebuilt here densely from the StructuredKkt blocks
// (body[b].lu, jac = D, col = E) and compared with central differences of Step::residual. The code keeps
// exactly: the joint rows ∂c/∂q at q¹ and the Euler-parameter rows e¹ᵀ (D), the columns ∇̄c and e^{n+½}
// (E: the residual is affine in the multipliers μ), and in the body blocks the inertia (the rigid-body
// discrete derivatives), the loads and ½ Σμ ∂²c/∂q² at q^{n+½} on each body itself. It leaves out
//   (a) ½ Σμ ∂²c/∂q_i∂q_j, the curvature between a joint's two bodies (zero for spherical joints),
//   (b) the derivatives of the equivariant gradient's corrections (point-row C, Gonzalez's ε w/(w·Δq)),
//   (c) on a spring's bodies, the derivative of the spring's discrete gradient: the matrix holds the
//       continuous spring force's derivative at (q^{n+½}, v^{n+½}) instead.
// The test adds (a) from JointState::hessian and asks exactness for the midpoint gradient off the
// springs' bodies; it measures (b) and (c), the omission, against the retained block at small steps.
namespace newton_matrix {

using testing::central_difference;
using testing::Random;
using Kkt = MechanismLivensEm<Mech>::Kkt;
using VecK = MechanismLivensEm<Mech>::VecK;
using VecN = Dae<Mech>::VecN;
constexpr int K = Kkt::K;

struct Check {
  double rows = 0;         ///< constraint rows (joint rows, Euler rows) × every column: assembled vs differences
  double columns = 0;      ///< balance rows × multiplier columns (∇̄c, e^{n+½})
  double coordinates = 0;  ///< balance rows × coordinates, bodies without a spring: assembled + (a) vs differences
  double spring = 0;       ///< the same on a spring's bodies
  double curvature = 0;    ///< (a): its largest entry relative to the retained block row
  double omitted = 0;      ///< |differences − assembled| on balance rows × coordinates, relative to the retained block row
  double solve = 0;        ///< |A · kkt.solve(r) − r|∞ / |r|∞: the structured solve inverts A
  Eigen::MatrixXd assembled;
};

/// The Newton matrix of the step from (s, t) with h at the step's predictor, each live unknown moved
/// by `perturbation`·max(1, |x_i|)·U(−1, 1) (0: the predictor itself, Newton's first matrix).
template <class Integrator>
Check check(const Integrator& integrator, const TestMechanism<Cap>& tm, const typename Integrator::State& s, double t,
            double h, double perturbation) {
  const Mech& m = tm.mech;
  const typename Integrator::Step sys(m, integrator, s, t, h);
  VecK x = sys.predictor();
  const int J = Kkt::joint_index(), n = 8 * m.n_bodies + m.n_rows;
  const auto unknown = [&](int i) { return i < 8 * m.n_bodies ? i : J + (i - 8 * m.n_bodies); };  // live → x
  const auto multiplier = [&](int i) { return i >= 8 * m.n_bodies || i % 8 == 7; };  // a multiplier's column, a constraint's row
  Random rnd(1501);
  for (int i = 0; i < n; ++i) x[unknown(i)] += perturbation * std::max(1.0, std::abs(x[unknown(i)])) * rnd.uniform(-1, 1);

  Check c;
  VecK r0;
  Kkt kkt;
  sys.assemble(x, r0, &kkt);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int b = 0; b < m.n_bodies; ++b) A.block(8 * b, 8 * b, 8, 8) = kkt.body[b].lu;
  for (int k = 0; k < m.n_joints; ++k)
    for (int side = 0; side < 2; ++side) {
      const int b = m.joints[k].body[side];
      if (b == ground) continue;
      const int row = 8 * m.n_bodies + m.joints[k].offset, rows = m.joints[k].rows;
      A.block(row, 8 * b, rows, 7) = kkt.jac[k][side].topRows(rows);
      A.block(8 * b, row, 7, rows) = kkt.col[k][side].topRows(rows).transpose();
    }
  // (a): ½ Σμ ∂²c/∂q_i∂q_j at q^{n+½} (∂q^{n+½}/∂q¹ = ½), between the two bodies of each joint.
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, n);
  const VecN qm = 0.5 * (s.q + Integrator::Step::coordinates(x));
  const auto mu = Integrator::Step::multipliers(x);
  for (int k = 0; k < m.n_joints; ++k) {
    const int bi = m.joints[k].body[0], bj = m.joints[k].body[1];
    if (bi == ground || bj == ground) continue;
    Mat<double, 7, 7> diag[2], cross;
    joint_at(m, k, qm, VecN(VecN::Zero()), t + 0.5 * h).hessian(&mu[Kkt::NB + m.joints[k].offset], diag, cross);
    X.block(8 * bi, 8 * bj, 7, 7) += 0.5 * cross;
    X.block(8 * bj, 8 * bi, 7, 7) += 0.5 * cross.transpose();
  }
  // Central differences of the residual: step 1e-6 relative in the coordinates (the residual is a
  // polynomial of degree ≤ 4 there, besides the spring and the corrections); the residual is affine in
  // the multipliers, so there any step is exact and a step of 1 (relative) has the least rounding.
  const auto residual = [&](const Eigen::VectorXd& y) {
    VecK xx = x, rr;
    for (int i = 0; i < n; ++i) xx[unknown(i)] = y[i];
    sys.residual(xx, rr);
    Eigen::VectorXd out(n);
    for (int i = 0; i < n; ++i) out[i] = rr[unknown(i)];
    return out;
  };
  Eigen::VectorXd x0(n);
  for (int i = 0; i < n; ++i) x0[i] = x[unknown(i)];
  Eigen::MatrixXd fd = central_difference(residual, x0);
  const Eigen::MatrixXd fd_affine = central_difference(residual, x0, 1.0);
  for (int j = 0; j < n; ++j)
    if (multiplier(j)) fd.col(j) = fd_affine.col(j);

  std::vector<bool> spring_body(m.n_bodies, false);
  for (int k = 0; k < m.n_springs; ++k)
    for (int side = 0; side < 2; ++side)
      if (m.springs[k].body[side] != ground) spring_body[m.springs[k].body[side]] = true;
  // Largest |a − b| of a row over the chosen columns, relative to that row's largest |scale| over the
  // same columns (block) or over the whole row. The multiplier columns are judged on their own scale
  // (∇̄c ~ 1 against masses 2m/h); the coordinate blocks on the whole row, as row_relative_error does:
  // an Euler-parameter row of B has no coordinate entries along e (M̃₄(e)e = 0), only its border e^{n+½}.
  const auto worst = [&](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Eigen::MatrixXd& scale, auto row_in,
                         bool multiplier_columns, bool whole_row) {
    double w = 0;
    for (int i = 0; i < n; ++i) {
      if (!row_in(i)) continue;
      double diff = 0, size = 0;
      for (int j = 0; j < n; ++j) {
        const bool in = multiplier(j) == multiplier_columns;
        if (in) diff = std::max(diff, std::abs(a(i, j) - b(i, j)));
        if (in || whole_row) size = std::max(size, std::abs(scale(i, j)));
      }
      if (diff > 0) w = std::max(w, diff / std::max(size, 1e-300));
    }
    return w;
  };
  const auto constraint_row = [&](int i) { return multiplier(i); };
  const auto balance_row = [&](int i) { return !multiplier(i); };
  const auto free_row = [&](int i) { return !multiplier(i) && !spring_body[i / 8]; };
  const auto spring_row = [&](int i) { return !multiplier(i) && spring_body[i / 8]; };
  const Eigen::MatrixXd scale = A.cwiseAbs().cwiseMax(fd.cwiseAbs());
  c.rows = std::max(worst(A, fd, scale, constraint_row, false, false), worst(A, fd, scale, constraint_row, true, false));
  c.columns = worst(A, fd, scale, balance_row, true, false);
  const Eigen::MatrixXd kept = A + X;
  c.coordinates = worst(kept, fd, scale, free_row, false, true);
  c.spring = worst(kept, fd, scale, spring_row, false, true);
  c.curvature = worst(X, Eigen::MatrixXd::Zero(n, n), A, balance_row, false, true);
  c.omitted = worst(fd, A, A, balance_row, false, true);
  // The structured factorisation solves with exactly this matrix.
  kkt.factorize(m);
  EXPECT_FALSE(kkt.singular);
  VecK rhs = VecK::Zero();
  Eigen::VectorXd rl(n);
  for (int i = 0; i < n; ++i) rhs[unknown(i)] = rl[i] = rnd.uniform(-1, 1);
  const VecK sol = kkt.solve(rhs);
  Eigen::VectorXd sl(n);
  for (int i = 0; i < n; ++i) sl[i] = sol[unknown(i)];
  // normwise backward error
  c.solve = (A * sl - rl).lpNorm<Eigen::Infinity>() /
            (A.cwiseAbs().rowwise().sum().maxCoeff() * sl.lpNorm<Eigen::Infinity>() + rl.lpNorm<Eigen::Infinity>());
  c.assembled = A;
  return c;
}

struct Case {
  const char* name;
  TestMechanism<Cap> tm;
  double t;  ///< the checked step starts here, reached with steps of the checked h
};

std::vector<Case> cases() {
  return {{"double pendulum (spherical, ground)", testing::double_pendulum<Cap>(), 0.3},
          {"four-bar K5 (spherical, loads)", testing::four_bar<Cap>(), 0.5},
          {"slider-crank (revolute, universal, prismatic, damped spring)", testing::slider_crank<Cap>(4.0), 0.05},
          {"universal pair (3-D dot row between two bodies)", universal_pair(), 0.3}};
}

/// The state at c.t, stepped there with h by the same scheme.
template <class Integrator>
typename Integrator::State state_at(const Integrator& integrator, const Case& c, double h) {
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(c.tm.mech, c.tm.initial, 0.0, s), Status::ok);
  const long n = std::lround(c.t / h);
  for (long i = 0; i < n; ++i) EXPECT_EQ(integrator.step(c.tm.mech, s, i * h, h).status, Status::ok) << c.name << " " << i;
  return s;
}

template <class Integrator>
void expect_exact_parts(const char* rule) {
  for (const Case& c : cases()) {
    const double h = 1e-2, t = std::lround(c.t / h) * h;
    Eigen::MatrixXd midpoint_matrix;
    // One state for both gradients, so that their matrices are taken at the same unknowns.
    const auto s = state_at(Integrator(settings(ConstraintGradient::equivariant, 1e-14)), c, h);
    for (ConstraintGradient g : {ConstraintGradient::midpoint, ConstraintGradient::equivariant}) {
      const Integrator integrator(settings(g, 1e-14));
      // Off the constraints and the unit sphere by 1e-2: every term of the matrix is generic there.
      const Check k = check(integrator, c.tm, s, t, h, 1e-2);
      const bool mid = g == ConstraintGradient::midpoint;
      std::printf("%s %-62s %-11s rows %.1e  columns %.1e  coordinates %.1e  spring %.1e  (a) %.1e  solve %.1e\n", rule,
                  c.name, mid ? "midpoint" : "equivariant", k.rows, k.columns, k.coordinates, k.spring, k.curvature,
                  k.solve);
      // Central differences: ~1e-10 relative (test_support.hpp); 1e-7 as in mechanism_jacobian_test.
      EXPECT_LE(k.rows, 1e-7) << c.name;
      EXPECT_LE(k.columns, 1e-7) << c.name;
      EXPECT_LE(k.solve, 1e-10) << c.name;  // LU with partial pivoting on blocks of condition ≲ 1e4
      if (mid) {
        EXPECT_LE(k.coordinates, 1e-7) << c.name;  // the body blocks and (a) are the whole derivative
        // (c): the continuous spring's derivative at q^{n+½} for its discrete gradient's, apart by O(|Δq|):
        // measured 1.5e-5 of the row here (Δq ≈ 1e-2), 1e-13 at the predictor (below)
        EXPECT_LE(k.spring, 1e-4) << c.name;
        midpoint_matrix = k.assembled;
      } else {
        // The equivariant gradient changes the columns only: its corrections' derivatives (b) are left
        // out, the coordinate blocks are the midpoint gradient's — at the same unknowns, so bit for bit.
        Eigen::MatrixXd diff = k.assembled - midpoint_matrix;
        for (int j = 0; j < diff.cols(); ++j)
          if (j >= 8 * c.tm.mech.n_bodies || j % 8 == 7) diff.col(j).setZero();
        for (int i = 0; i < diff.rows(); ++i)
          if (i >= 8 * c.tm.mech.n_bodies || i % 8 == 7) diff.row(i).setZero();
        EXPECT_EQ(diff.cwiseAbs().maxCoeff(), 0.0) << c.name;
      }
    }
  }
}

TEST(MechanismLivensNewtonMatrix, KeptTermsMatchDifferencesEml) { expect_exact_parts<MechanismLivensEm<Mech>>("EML"); }
TEST(MechanismLivensNewtonMatrix, KeptTermsMatchDifferencesMpl) {
  expect_exact_parts<MechanismLivensMidpoint<Mech>>("MPL");
}

template <class Integrator>
void expect_small_omission(const char* rule) {
  for (const Case& c : cases()) {
    double omitted[2][2];  // [gradient][h]
    const double hs[2] = {1e-2, 1e-3};
    for (int i = 0; i < 2; ++i) {
      const double h = hs[i], t = std::lround(c.t / h) * h;
      const auto s = state_at(Integrator(settings(ConstraintGradient::equivariant, 1e-14)), c, h);
      for (int gi = 0; gi < 2; ++gi) {
        const ConstraintGradient g = gi == 0 ? ConstraintGradient::midpoint : ConstraintGradient::equivariant;
        const Check k = check(Integrator(settings(g, 1e-14)), c.tm, s, t, h, 0.0);  // Newton's first matrix
        std::printf("%s %-62s %-11s h = %.0e  omitted %.2e = (a) %.2e + the rest: %.2e (spring bodies %.2e)\n", rule,
                    c.name, gi == 0 ? "midpoint" : "equivariant", h, k.omitted, k.curvature, k.coordinates, k.spring);
        EXPECT_LE(k.rows, 1e-7) << c.name;
        EXPECT_LE(k.columns, 1e-7) << c.name;
        omitted[gi][i] = k.omitted;
      }
    }
    for (int gi = 0; gi < 2; ++gi) {
      // At h = 1e-3 the left-out terms are at most 1.4e-6 of their row (measured: (a) 1.41e-6 on the
      // universal pair, (b) ≤ 1.3e-7, (c) ≤ 1e-13); 5e-6 leaves a factor 3.5. Newton's linear rate is
      // of this size, so two iterations reach the tolerance from the predictor.
      EXPECT_LE(omitted[gi][1], 5e-6) << c.name << " gradient " << gi;
      // They vanish with h: (a) is O(h²λ/m) against the mass block, (b) O(h³) (measured 100× and
      // 300–1000× from h = 1e-2 to 1e-3); a derivative missing at O(1) would not shrink. Below 1e-9 the
      // figure is the differences' rounding (1e-11), which does not scale.
      if (omitted[gi][0] > 1e-9) EXPECT_GE(omitted[gi][0] / omitted[gi][1], 50.0) << c.name << " gradient " << gi;
    }
  }
}

TEST(MechanismLivensNewtonMatrix, LeftOutTermsAreSmallAtSmallStepsEml) {
  expect_small_omission<MechanismLivensEm<Mech>>("EML");
}
TEST(MechanismLivensNewtonMatrix, LeftOutTermsAreSmallAtSmallStepsMpl) {
  expect_small_omission<MechanismLivensMidpoint<Mech>>("MPL");
}

}  // namespace newton_matrix

}  // namespace
}  // namespace quatstep::mechanism
