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

}  // namespace
}  // namespace quatstep::mechanism
