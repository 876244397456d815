// Geometric properties of NoSquish, SymmetricSplitting and ExactFreeSplitting (rigid_body_splitting.hpp; also
// with composition = "near_integrable"): time reversibility, symplecticity of the one-step map of R⁸
// (central differences), exact conservation of the spatial angular momentum without torque, bounded
// energy error over 10⁶ steps, the exact free symmetric top and the exact spin of a Lagrange top, the
// axis order, float, failures, and the CPU ensemble. Problems: problems/rigid_body_problems.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../bench/peers/free_rotation_ensemble.hpp"  // the bodies of bench/symplectic.md's axis-order tables
#include "cpu_ensemble.hpp"
#include "quatstep/integrators/exact_free_flow.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/integrators/symmetric_splitting.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "reference/heavy_top_reference.hpp"
#include "support/free_body_motion.hpp"
#include "rigid_body_problems.hpp"
#include "test_support.hpp"

namespace quatstep {
namespace {

using testing::RigidBodyProblem;
using Top = HeavyTop<double>;

template <class I>
I with_order(int order) {
  SplittingSettings<typename I::Scalar> s;
  s.order = order;
  return I(s);
}

/// The problem with a moderate spin, so that the one-step map's derivatives are O(1).
RigidBodyProblem slow(RigidBodyProblem p) {
  p.initial.quaternion = quat_from_rotation_vector<double>(Vec3<double>(0.4, -0.3, 0.2));
  p.initial.omega_body = Vec3<double>(1.0, 5.0, -2.0);
  return p;
}

// ---------------------------------------------------------------- reversibility

/// Max over 100 steps from the start of a run of |Φ_{−h}(Φ_h(x)) − x| relative to |x| (q and p).
template <class I>
double reversibility_defect(const I& integrator, const RigidBodyProblem& p, double h) {
  typename I::State s;
  EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
  double worst = 0;
  for (int k = 0; k < 100; ++k) {
    const double t = k * h;
    typename I::State back = s;
    EXPECT_EQ(integrator.step(p.model, back, t, h).status, Status::ok);
    const typename I::State forth = back;
    EXPECT_EQ(integrator.step(p.model, back, t + h, -h).status, Status::ok);
    worst = std::max({worst, (back.q - s.q).norm(), (back.p - s.p).norm() / s.p.norm()});
    s = forth;
  }
  return worst;
}

TEST(SplittingStructure, TimeReversible) {
  for (const auto& p : {testing::sherif_top(), testing::off_axis_top(), testing::torqued_asymmetric_body()}) {
    for (int order : {2, 4, 6}) {
      const double ns = reversibility_defect(with_order<NoSquish<Top>>(order), p, 0.002);
      const double sy = reversibility_defect(with_order<SymmetricSplitting<Top>>(order), p, 0.002);
      const double ex = reversibility_defect(with_order<ExactFreeSplitting<Top>>(order), p, 0.002);
      std::printf("%-38s order %d: |Φ_{-h} Φ_h x − x| NoSquish %.2g, SymmetricSplitting %.2g, "
                  "ExactFreeSplitting %.2g\n",
                  p.name, order, ns, sy, ex);
      // measured: ≤ 5.7e-16 (NoSquish), ≤ 1.0e-15 (SymmetricSplitting), ≤ 1.4e-15 (ExactFreeSplitting)
      EXPECT_LT(ns, 1e-14) << p.name << ", order " << order;
      EXPECT_LT(sy, 1e-14) << p.name << ", order " << order;
      EXPECT_LT(ex, 1e-14) << p.name << ", order " << order;
    }
  }
}

// ---------------------------------------------------------------- symplecticity

/// x = (q, p) ∈ R⁸ ↦ one step from x (the loads held at x), as a function for central_difference.
template <class I>
struct OneStepMap {
  I integrator;
  RigidBodyProblem p;
  typename I::State start;  // frame and inverse moments
  double h;
  Vec<double, 8> operator()(const Vec<double, 8>& x) const {
    typename I::State s = start;
    s.q = x.head<4>();
    s.p = x.tail<4>();
    integrator.hold_loads(p.model, s, 0.0);
    EXPECT_EQ(integrator.step(p.model, s, 0.0, h).status, Status::ok);
    Vec<double, 8> y;
    y << s.q, s.p;
    return y;
  }
};

/// max |Jᵀ Ω J − Ω| for the Jacobian J of one step at x (Ω the canonical symplectic form of R⁸).
template <class I>
double symplecticity_defect(const I& integrator, const RigidBodyProblem& p, double h,
                            const Vec<double, 8>* at = nullptr) {
  OneStepMap<I> map{integrator, p, {}, h};
  EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, map.start), Status::ok);
  Vec<double, 8> x;
  x << map.start.q, map.start.p;
  if (at) x = *at;
  const Eigen::MatrixXd j = testing::central_difference(map, x, 1e-5);
  Eigen::MatrixXd omega = Eigen::MatrixXd::Zero(8, 8);
  omega.topRightCorner(4, 4).setIdentity();
  omega.bottomLeftCorner(4, 4) = -Eigen::MatrixXd::Identity(4, 4);
  return (j.transpose() * omega * j - omega).cwiseAbs().maxCoeff();
}

// The off-axis top under gravity (a potential): the step is symplectic on all of R⁸, also at a
// point off the unit sphere with pᵀq ≠ 0. A constant body torque has no potential: the same check
// finds its defect, so the check can fail.
TEST(SplittingStructure, SymplecticOneStepMapOfR8) {
  const RigidBodyProblem gravity = slow(testing::off_axis_top());
  Vec<double, 8> off_sphere;
  off_sphere << 1.1 * gravity.initial.quaternion, Vec4<double>(3.0, -20.0, 7.0, 12.0);
  RigidBodyProblem torqued = gravity;
  torqued.model.loads.body_torque.constant = Vec3<double>(30, -20, 10);
  for (int order : {2, 4, 6}) {
    const auto ns = with_order<NoSquish<Top>>(order);
    const auto sy = with_order<SymmetricSplitting<Top>>(order);
    const auto ex = with_order<ExactFreeSplitting<Top>>(order);
    const double d[9] = {symplecticity_defect(ns, gravity, 0.02),
                         symplecticity_defect(sy, gravity, 0.02),
                         symplecticity_defect(ex, gravity, 0.02),
                         symplecticity_defect(ns, gravity, 0.02, &off_sphere),
                         symplecticity_defect(sy, gravity, 0.02, &off_sphere),
                         symplecticity_defect(ex, gravity, 0.02, &off_sphere),
                         symplecticity_defect(ns, torqued, 0.02),
                         symplecticity_defect(sy, torqued, 0.02),
                         symplecticity_defect(ex, torqued, 0.02)};
    std::printf("order %d: |JᵀΩJ − Ω| NoSquish, SymmetricSplitting, ExactFreeSplitting %.1e, %.1e, %.1e; off the "
                "sphere %.1e, %.1e, %.1e; constant body torque %.1e, %.1e, %.1e\n",
                order, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]);
    // measured: ≤ 3.6e-9 with gravity (the central differences' error), 2.0 with the body torque
    for (int k = 0; k < 6; ++k) EXPECT_LT(d[k], 1e-7) << "order " << order << ", case " << k;
    for (int k = 6; k < 9; ++k) EXPECT_GT(d[k], 0.1) << "order " << order << ", case " << k;
  }
}

// ---------------------------------------------------------------- invariants

template <class I>
double momentum_drift(const I& integrator, const RigidBodyProblem& p, double h, long steps) {
  typename I::State s;
  EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
  const Vec3<double> l0 = p.model.observables(integrator.kinematics(p.model, s)).angular_momentum;
  double worst = 0;
  for (long k = 0; k < steps; ++k) {
    EXPECT_EQ(integrator.step(p.model, s, k * h, h).status, Status::ok);
    const Vec3<double> l = p.model.observables(integrator.kinematics(p.model, s)).angular_momentum;
    worst = std::max(worst, (l - l0).norm() / l0.norm());
  }
  return worst;
}

TEST(SplittingStructure, TorqueFreeSpatialAngularMomentumToRoundOff) {
  const auto p = testing::free_asymmetric_body();  // |Ω| h = 0.3 rad per step
  for (int order : {2, 4, 6}) {
    const double ns = momentum_drift(with_order<NoSquish<Top>>(order), p, 0.01, 10000);
    const double sy = momentum_drift(with_order<SymmetricSplitting<Top>>(order), p, 0.01, 10000);
    const double ex = momentum_drift(with_order<ExactFreeSplitting<Top>>(order), p, 0.01, 10000);
    std::printf("order %d, 10⁴ steps: max relative drift of the spatial momentum NoSquish %.2g, "
                "SymmetricSplitting %.2g, ExactFreeSplitting %.2g\n", order, ns, sy, ex);
    // measured: ≤ 5.8e-14 (NoSquish, SymmetricSplitting), ≤ 2.7e-14 (ExactFreeSplitting)
    EXPECT_LT(ns, 1e-12) << "order " << order;
    EXPECT_LT(sy, 1e-12) << "order " << order;
    EXPECT_LT(ex, 1e-12) << "order " << order;
  }
}

// composition = "near_integrable" (composition.hpp): symmetric weights, so reversible; exact
// symplectic sub-flows, so symplectic under gravity; spatial momentum kept without torque.
TEST(SplittingStructure, NearIntegrableCompositionIsReversibleSymplecticAndKeepsMomentum) {
  ExactFreeSplittingSettings<double> settings;
  settings.composition = Composition::near_integrable;
  const ExactFreeSplitting<Top> ex(settings);
  double reversibility = 0;
  for (const auto& p : {testing::sherif_top(), testing::off_axis_top(), testing::torqued_asymmetric_body()})
    reversibility = std::max(reversibility, reversibility_defect(ex, p, 0.002));
  const RigidBodyProblem gravity = slow(testing::off_axis_top());
  RigidBodyProblem torqued = gravity;
  torqued.model.loads.body_torque.constant = Vec3<double>(30, -20, 10);
  const double symplectic = symplecticity_defect(ex, gravity, 0.02), torque = symplecticity_defect(ex, torqued, 0.02);
  const double momentum = momentum_drift(ex, testing::free_asymmetric_body(), 0.01, 10000);
  std::printf("near_integrable: |Φ_{-h} Φ_h x − x| %.2g; |JᵀΩJ − Ω| %.1e with gravity, %.1e with a body "
              "torque; 10⁴ torque-free steps: spatial momentum drift %.2g\n",
              reversibility, symplectic, torque, momentum);
  EXPECT_LT(reversibility, 1e-14);  // measured: 1.2e-15
  EXPECT_LT(symplectic, 1e-7);      // measured: 2.0e-9 (the central differences' error)
  EXPECT_GT(torque, 0.1);           // measured: 2.0 (no potential: the check can fail)
  EXPECT_LT(momentum, 1e-12);       // measured: 5.3e-14
}

/// max |E/E₀ − 1| over the first and the last tenth of `steps` steps.
template <class I>
std::pair<double, double> energy_error_windows(const I& integrator, const RigidBodyProblem& p, double h, long steps) {
  typename I::State s;
  EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
  const double e0 = p.model.observables(integrator.kinematics(p.model, s)).energy;
  double first = 0, last = 0;
  for (long k = 0; k < steps; ++k) {
    EXPECT_EQ(integrator.step(p.model, s, k * h, h).status, Status::ok);
    const double err = std::abs(p.model.observables(integrator.kinematics(p.model, s)).energy / e0 - 1);
    if (k < steps / 10) first = std::max(first, err);
    if (k >= steps - steps / 10) last = std::max(last, err);
  }
  return {first, last};
}

// 10⁶ steps: the energy error oscillates, it does not grow (backward error analysis: a modified
// Hamiltonian is conserved); RK4's grows linearly (bench/symplectic.md).
TEST(SplittingStructure, EnergyErrorBoundedOverAMillionSteps) {
  const long steps = 1000000;
  const auto top = testing::sherif_top();  // t = 1000 s at h = 1e-3
  const auto body = testing::free_asymmetric_body();
  const std::pair<double, double> e[4] = {
      energy_error_windows(with_order<NoSquish<Top>>(2), top, 1e-3, steps),
      energy_error_windows(with_order<SymmetricSplitting<Top>>(2), top, 1e-3, steps),
      energy_error_windows(with_order<NoSquish<Top>>(2), body, 0.01, steps),
      energy_error_windows(with_order<SymmetricSplitting<Top>>(2), body, 0.01, steps)};
  const char* names[4] = {"Sherif's top, NoSquish", "Sherif's top, SymmetricSplitting", "asymmetric body, NoSquish",
                          "asymmetric body, SymmetricSplitting"};
  for (int k = 0; k < 4; ++k) {
    std::printf("%-36s max |ΔE/E| first 10⁵ steps %.3e, last 10⁵ steps %.3e\n", names[k], e[k].first, e[k].second);
    // measured: 4.07e-7, 1.51e-7, 6.97e-4, 3.95e-4, the same to four digits in both windows
    EXPECT_GT(e[k].first, 0.0);
    EXPECT_LT(e[k].second / e[k].first, 1.5) << names[k];
    EXPECT_GT(e[k].second / e[k].first, 0.67) << names[k];
  }
}

/// The compositions of order 4 and 6 (composition.hpp) on the torque-free asymmetric body, 10⁶ steps
/// at the steps of bench/symplectic.md's long-run table (c), t = 10⁴ and 2·10⁴: the composed map is
/// symplectic too, so its energy error is bounded as well, at the level of its order.
template <class I>
void expect_bounded_energy(const char* name, int order, double h, double measured) {
  const long steps = 1000000;
  const std::pair<double, double> e =
      energy_error_windows(with_order<I>(order), testing::free_asymmetric_body(), h, steps);
  std::printf("asymmetric body, %-18s order %d, h = %g, 10⁶ steps: max |ΔE/E| first 10⁵ steps %.3e, last 10⁵ "
              "steps %.3e\n", name, order, h, e.first, e.second);
  // the first tenth holds the oscillation's full amplitude (table (c): the same to three digits from
  // t = 1 to 10³; measured here the same to four digits in both windows), so a drift shows as a
  // ratio > 1; 1.5 and 0.67 as for order 2 above
  EXPECT_LT(e.second / e.first, 1.5) << name << ", order " << order;
  EXPECT_GT(e.second / e.first, 0.67) << name << ", order " << order;
  // absolute: within 2× of the level measured (far above round-off, 1e-13, and below order 2's 4e-4)
  EXPECT_LT(e.second, 2 * measured) << name << ", order " << order;
  EXPECT_GT(e.first, 0.5 * measured) << name << ", order " << order;
}

// 10⁶ steps of order 4 take 0.5 s per scheme (3 stages), of order 6 1.45 s (9 stages), on this
// machine; one test per scheme at order 6.
TEST(SplittingStructure, EnergyErrorBoundedOverAMillionStepsOrder4) {
  expect_bounded_energy<NoSquish<Top>>("NoSquish", 4, 0.01, 1.052e-4);  // measured (bench/symplectic.md: 1.05e-4)
  expect_bounded_energy<SymmetricSplitting<Top>>("SymmetricSplitting", 4, 0.01, 3.887e-6);  // (3.89e-6)
}

TEST(SplittingStructure, EnergyErrorBoundedOverAMillionStepsOrder6NoSquish) {
  expect_bounded_energy<NoSquish<Top>>("NoSquish", 6, 0.02, 4.186e-7);  // measured (bench/symplectic.md: 4.19e-7)
}

TEST(SplittingStructure, EnergyErrorBoundedOverAMillionStepsOrder6SymmetricSplitting) {
  expect_bounded_energy<SymmetricSplitting<Top>>("SymmetricSplitting", 6, 0.02, 4.588e-8);  // (4.59e-8)
}

// ---------------------------------------------------------------- symmetric bodies

/// Orientation and relative ω error at t_end after steps of h, against the RK4 reference.
template <class I>
double error_against(const I& integrator, const RigidBodyProblem& p, const reference::HeavyTopReference& ref, double h,
                     double t_end) {
  typename I::State s;
  EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
  const long n = std::lround(t_end / h);
  for (long k = 0; k < n; ++k) EXPECT_EQ(integrator.step(p.model, s, k * h, h).status, Status::ok);
  const auto k = integrator.kinematics(p.model, s);
  const long j = ref.index_of(t_end);
  return std::max(geodesic_angle(ref.quaternion(j), k.quaternion),
                  (k.omega_body - ref.omega(j)).norm() / ref.omega(j).norm());
}

// The free symmetric top (Sherif's disc without gravity, tilted, spinning at 150 rad/s and
// tumbling): SymmetricSplitting is its exact flow, so one step of h = 1 (150 rad of spin) lands on
// the reference; NoSquish with 4 steps is off by O(1).
TEST(SplittingStructure, SymmetricSplittingIsExactOnAFreeSymmetricTop) {
  RigidBodyProblem p = testing::sherif_top();
  p.model.loads.mass = 0;
  p.initial.quaternion = quat_from_rotation_vector<double>(Vec3<double>(0.3, 0.1, -0.5));
  p.initial.omega_body = Vec3<double>(3, 150, -4.61538);
  const reference::HeavyTopReference ref(p.model, p.initial, 2.5e-6, 400000);
  for (int order : {2, 4, 6}) {
    const double one_step = error_against(with_order<SymmetricSplitting<Top>>(order), p, ref, 1.0, 1.0);
    const double no_squish = error_against(with_order<NoSquish<Top>>(order), p, ref, 0.25, 1.0);
    std::printf("order %d: SymmetricSplitting, one step of 1 s: error %.2g; NoSquish, h = 0.25: %.2g\n", order,
                one_step, no_squish);
    EXPECT_LT(one_step, 1e-11) << "order " << order;  // measured ≤ 1.2e-13
    EXPECT_GT(no_squish, 0.1) << "order " << order;    // measured ≥ 0.83
  }
}

/// max over 10⁶ steps (checked every 100) of ||q| − 1|, |E/E₀ − 1| and |L − L₀|/|L₀|.
template <class S>
Vec3<double> round_off_drift(const RigidBodyProblem& p, double h) {
  HeavyTop<S> top;
  top.inertia = p.model.inertia.template cast<S>();
  RigidBodyKinematics<S> k0;
  k0.quaternion = p.initial.quaternion.template cast<S>();
  k0.omega_body = p.initial.omega_body.template cast<S>();
  const SymmetricSplitting<HeavyTop<S>> integrator(with_order<SymmetricSplitting<HeavyTop<S>>>(2));
  typename SymmetricSplitting<HeavyTop<S>>::State s;
  EXPECT_EQ(integrator.initialize(top, k0, S(0), s), Status::ok);
  const auto o0 = top.observables(integrator.kinematics(top, s));
  Vec3<double> worst = Vec3<double>::Zero();
  for (long k = 0; k < 1000000; ++k) {
    EXPECT_EQ(integrator.step(top, s, S(k) * S(h), S(h)).status, Status::ok);
    if (k % 100 != 99) continue;
    const auto o = top.observables(integrator.kinematics(top, s));
    const double momentum = double((o.angular_momentum - o0.angular_momentum).norm() / o0.angular_momentum.norm());
    worst = worst.cwiseMax(
        Vec3<double>(std::abs(double(s.q.norm()) - 1), std::abs(double(o.energy / o0.energy) - 1), momentum));
  }
  return worst;
}

// On a free symmetric top SymmetricSplitting is exact, so whatever |q|, the energy and the spatial
// momentum do over 10⁶ steps is round-off: a random walk (≈ ε√N), no drift.
TEST(SplittingStructure, RoundOffOverAMillionStepsIsARandomWalk) {
  RigidBodyProblem p = testing::sherif_top();
  p.model.loads.mass = 0;
  p.initial.quaternion = quat_from_rotation_vector<double>(Vec3<double>(0.3, 0.1, -0.5));
  p.initial.omega_body = Vec3<double>(3, 150, -4.61538);
  const Vec3<double> d = round_off_drift<double>(p, 1e-3), f = round_off_drift<float>(p, 1e-3);
  std::printf("10⁶ steps: ||q| − 1|, |ΔE/E|, |ΔL|/|L|: double %.2g, %.2g, %.2g; float %.2g, %.2g, %.2g\n", d[0], d[1],
              d[2], f[0], f[1], f[2]);
  // measured: double 6.8e-14, 2.3e-13, 2.7e-13; float 1.6e-5, 1.4e-4, 8.1e-5 (ε√N: 2.2e-13, 1.2e-4)
  EXPECT_LT(d.maxCoeff(), 1e-12);
  EXPECT_LT(f.maxCoeff(), 1e-3);
}

// Sherif's top is a Lagrange top: gravity has no moment about the symmetry axis, so the spin ω_y
// is constant. SymmetricSplitting keeps it to round-off (its kicks are ⊥ e_y, its drift rotates
// about L and e_y, the remainder is zero); NoSquish's rotations about the other axes exchange it
// with them at O(h²).
TEST(SplittingStructure, SymmetricSplittingKeepsTheSpinOfALagrangeTop) {
  const auto p = testing::sherif_top();
  auto max_spin_change = [&](const auto& integrator) {
    typename std::decay_t<decltype(integrator)>::State s;
    EXPECT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
    double worst = 0;
    for (long k = 0; k < 100000; ++k) {
      EXPECT_EQ(integrator.step(p.model, s, k * 1e-3, 1e-3).status, Status::ok);
      worst = std::max(worst, std::abs(integrator.kinematics(p.model, s).omega_body[1] / 150 - 1));
    }
    return worst;
  };
  const double sy = max_spin_change(SymmetricSplitting<Top>()), ns = max_spin_change(NoSquish<Top>());
  std::printf("10⁵ steps of 1e-3: max |ω_y/150 − 1| SymmetricSplitting %.2g, NoSquish %.2g\n", sy, ns);
  EXPECT_LT(sy, 1e-12);   // measured 7.2e-14 (round-off over 10⁵ stages)
  EXPECT_GT(ns, 1e-10);   // measured 1.0e-9
}

// ---------------------------------------------------------------- axis order

/// NoSquish with the axes in a fixed order (outermost first) instead of its rule.
template <int outer, int middle, int inner>
struct FixedAxisOrder : NoSquishFlow {
  template <class S>
  QS_HD static void order_axes(const Vec3<S>&, const Vec3<S>&, int order[3]) {
    order[0] = outer, order[1] = middle, order[2] = inner;
  }
};

// Sherif's top at h = 1e-3: the rule (spin axis y outermost, z middle) against the spin axis in the
// middle, the worst order (bench/symplectic.md has all six).
TEST(SplittingStructure, NoSquishAxisOrderRuleOnSherifsTop) {
  const auto p = testing::sherif_top();
  const reference::HeavyTopReference ref(p.model, p.initial, 5e-6, 200000);
  const double rule = error_against(NoSquish<Top>(), p, ref, 1e-3, 1.0);
  const double middle = error_against(RigidBodySplitting<Top, FixedAxisOrder<0, 1, 2>>(), p, ref, 1e-3, 1.0);
  std::printf("order 4, h = 1e-3: error with the rule %.2g, with the spin axis in the middle %.2g\n", rule, middle);
  EXPECT_GT(middle / rule, 100.0);  // measured 2.3e3 (2.5e-8 and 5.7e-5 rad)
}

/// Orientation error at t = 1 after 100 steps of order 2 with the axes in a fixed order, as
/// bench/symplectic_work_precision.cpp measures it (free_body_error).
template <int outer, int middle, int inner>
double fixed_order_error(const Top& body, const RigidBodyKinematics<double>& k0, const Vec4<double>& exact) {
  using I = RigidBodySplitting<Top, FixedAxisOrder<outer, middle, inner>>;
  const I integrator = with_order<I>(2);
  typename I::State s;
  EXPECT_EQ(integrator.initialize(body, k0, 0.0, s), Status::ok);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(integrator.step(body, s, k * 0.01, 0.01).status, Status::ok);
  return geodesic_angle(exact, integrator.kinematics(body, s).quaternion);
}

/// Index of (outer, middle, inner) among the six orders of fixed_order_error in lexicographic order
/// (012, 021, 102, 120, 201, 210): two per outer axis, the other two ascending, then descending.
int permutation_index(const int o[3]) { return 2 * o[0] + (o[1] > o[2] ? 1 : 0); }

/// NoSquish's rule against the "largest spin outermost" on one of bench/symplectic.md's
/// body sets ("Axis orders"): geometric means over the bodies of error/best (each rule) and of
/// rule/largest-spin (all bodies, and those where the two choose differently).
struct AxisOrderComparison {
  double rule_over_best, spin_over_best, rule_over_spin, rule_over_spin_where_they_differ;
  int differ, rule_not_worse;  ///< bodies where the rules choose differently; of them, where NoSquish's is ≤
};

/// The bodies of bench/symplectic_work_precision.cpp's BodySet: the peers' ensemble (seed 1) with
/// moments uniform in [inertia_min, 3], or near-symmetric moments (a, a(1 + d), a·f or a/f) put on
/// every pair of axes; torque-free, |Ω| ≤ 20, h = 0.01, t = 1. Reference: ExactFreeSplitting (the
/// exact free flow, 10 steps), not the bench's RK4 with 2¹⁶ steps (1.2 s a set): the two differ by
/// ≤ 4.1e-13 rad on these 800 bodies, and every geometric mean below is the same to four digits
/// with either (measured with the bench's reference in a scratch copy of this function).
AxisOrderComparison compare_axis_orders(double inertia_min, int near_symmetric) {
  const int bodies = 200;
  double log_rule = 0, log_spin = 0, log_rule_spin = 0, log_differ = 0;
  AxisOrderComparison c{};
  for (int i = 0; i < bodies; ++i) {
    peers::FreeRotationSpec spec;
    spec.inertia_min = inertia_min;
    peers::RotationParams<double> params;
    const peers::RotationState<double> x0 = peers::free_rotation_body(spec, i, params);
    Vec3<double> J = params.inertia;
    if (near_symmetric != 0) {
      peers::SplitMix64 rng(0x5EED + std::uint64_t(i));
      const double a = rng.uniform(1, 2), d = rng.uniform(0, 0.1), f = rng.uniform(1.2, 2);
      const double j[3] = {a, a * (1 + d), near_symmetric > 0 ? a * f : a / f};
      for (int k = 0; k < 3; ++k) J[k] = j[(k + i) % 3];
    }
    Top body;
    body.inertia = J.asDiagonal();
    RigidBodyKinematics<double> k0;
    k0.quaternion = x0.q;
    k0.omega_body = x0.w;
    const ExactFreeSplitting<Top> exact_flow = with_order<ExactFreeSplitting<Top>>(2);
    ExactFreeSplitting<Top>::State x;
    EXPECT_EQ(exact_flow.initialize(body, k0, 0.0, x), Status::ok);
    for (int k = 0; k < 10; ++k) EXPECT_EQ(exact_flow.step(body, x, k * 0.1, 0.1).status, Status::ok);
    const Vec4<double> exact = exact_flow.kinematics(body, x).quaternion;
    const double e[6] = {fixed_order_error<0, 1, 2>(body, k0, exact), fixed_order_error<0, 2, 1>(body, k0, exact),
                         fixed_order_error<1, 0, 2>(body, k0, exact), fixed_order_error<1, 2, 0>(body, k0, exact),
                         fixed_order_error<2, 0, 1>(body, k0, exact), fixed_order_error<2, 1, 0>(body, k0, exact)};
    const double best = *std::min_element(e, e + 6);
    // NoSquish's own choice (the principal frame of a diagonal inertia is the body frame, in order)
    int rule[3];
    NoSquishFlow::order_axes(J, Vec3<double>(J.cwiseProduct(x0.w)), rule);
    // the issue's: the axis of the largest |Ω_k| outermost, then the next
    int spin[3] = {0, 1, 2};
    std::sort(spin, spin + 3, [&](int a, int b) { return std::abs(x0.w[a]) > std::abs(x0.w[b]); });
    // the rule under test must be NoSquish's own: the integrator's error is the fixed order's, bit for bit
    const double own = [&] {
      const NoSquish<Top> ns = with_order<NoSquish<Top>>(2);
      NoSquish<Top>::State s;
      EXPECT_EQ(ns.initialize(body, k0, 0.0, s), Status::ok);
      for (int k = 0; k < 100; ++k) EXPECT_EQ(ns.step(body, s, k * 0.01, 0.01).status, Status::ok);
      return geodesic_angle(exact, ns.kinematics(body, s).quaternion);
    }();
    const double r = e[permutation_index(rule)], sp = e[permutation_index(spin)];
    EXPECT_EQ(own, r) << "body " << i;
    log_rule += std::log(r / best);
    log_spin += std::log(sp / best);
    log_rule_spin += std::log(r / sp);
    if (permutation_index(rule) != permutation_index(spin)) {
      ++c.differ;
      c.rule_not_worse += r <= sp;
      log_differ += std::log(r / sp);
    }
  }
  c.rule_over_best = std::exp(log_rule / bodies);
  c.spin_over_best = std::exp(log_spin / bodies);
  c.rule_over_spin = std::exp(log_rule_spin / bodies);
  c.rule_over_spin_where_they_differ = std::exp(log_differ / std::max(c.differ, 1));
  return c;
}

// The issue asked for "the axis with the largest spin outermost, chosen per body"; NoSquish puts the
// smallest moment outermost (no_squish.hpp). On bench/symplectic.md's bodies the two choose
// differently for 161–177 of each 200, and there the rule's error is on average (geometric mean)
// below the largest-spin rule's on every set: 0.52, 0.46, 0.90, 0.64 of it. Not on every body (the
// rule is not worse on 59–79 % of those; it is the best of the six orders for 23–62 % of all), so
// the averages are what is asserted, with the bench's error-over-best figures.
TEST(SplittingStructure, NoSquishAxisOrderRuleBeatsLargestSpinOutermost) {
  struct Set {
    const char* name;
    double inertia_min;
    int near_symmetric;
    double rule_over_best, spin_over_best;  // bench/symplectic.md's tables (geometric means)
    double rule_over_spin, where_they_differ;  // measured here
  };
  const Set sets[4] = {{"moments uniform in [1, 3]", 1.0, 0, 1.19, 2.11, 0.566, 0.524},
                       {"moments uniform in [0.1, 3]", 0.1, 0, 1.18, 2.37, 0.498, 0.455},
                       {"near-oblate", 1.0, 1, 1.35, 1.47, 0.915, 0.899},
                       {"near-prolate", 1.0, -1, 1.40, 2.01, 0.696, 0.637}};
  for (const Set& set : sets) {
    const AxisOrderComparison c = compare_axis_orders(set.inertia_min, set.near_symmetric);
    std::printf("%-28s error / best: rule %.3f, largest |Ω| outermost %.3f; rule / largest |Ω|: %.3f over all 200 "
                "bodies, %.3f over the %d where they differ (rule not worse on %d)\n",
                set.name, c.rule_over_best, c.spin_over_best, c.rule_over_spin, c.rule_over_spin_where_they_differ,
                c.differ, c.rule_not_worse);
    EXPECT_GE(c.differ, 150) << set.name;  // measured 176, 177, 167, 161: the sets do tell the rules apart
    // the bench's figures, printed to three digits (they are reproduced to four): ±1 %
    EXPECT_NEAR(c.rule_over_best, set.rule_over_best, 0.01 * set.rule_over_best) << set.name;
    EXPECT_NEAR(c.spin_over_best, set.spin_over_best, 0.01 * set.spin_over_best) << set.name;
    // the claim: the rule's error at most the largest-spin rule's, on average; 5 % over the measured
    // ratio (deterministic here; room for another compiler's rounding) keeps every bound below 1
    EXPECT_LT(c.rule_over_spin, 1.05 * set.rule_over_spin) << set.name;
    EXPECT_LT(c.rule_over_spin_where_they_differ, 1.05 * set.where_they_differ) << set.name;
    EXPECT_LT(c.rule_over_spin_where_they_differ, 1.0) << set.name;
  }
}

// ---------------------------------------------------------------- float, failures, ensemble

TEST(SplittingStructure, FloatTracksDoubleAndKeepsItsInvariants) {
  const auto pd = testing::sherif_top();
  HeavyTop<float> top;
  top.inertia = pd.model.inertia.cast<float>();
  top.loads.mass = float(pd.model.loads.mass);
  top.loads.lever = pd.model.loads.lever.cast<float>();
  top.loads.gravity = pd.model.loads.gravity.cast<float>();
  RigidBodyKinematics<float> k0;
  k0.omega_body = pd.initial.omega_body.cast<float>();
  const reference::HeavyTopReference ref(pd.model, pd.initial, 5e-6, 200000);
  auto run = [&](const auto& integrator, const char* name) {
    typename std::decay_t<decltype(integrator)>::State s;
    ASSERT_EQ(integrator.initialize(top, k0, 0.0f, s), Status::ok);
    const float e0 = top.observables(integrator.kinematics(top, s)).energy;
    double energy = 0, norm = 0, error_at_1 = 0;
    for (long k = 0; k < 100000; ++k) {
      ASSERT_EQ(integrator.step(top, s, float(k) * 1e-3f, 1e-3f).status, Status::ok);
      const auto kin = integrator.kinematics(top, s);
      if (k + 1 == 1000)
        error_at_1 = geodesic_angle(ref.quaternion(ref.index_of(1.0)), kin.quaternion.template cast<double>());
      energy = std::max(energy, double(std::abs(top.observables(kin).energy / e0 - 1)));
      norm = std::max(norm, double(std::abs(s.q.norm() - 1)));
    }
    std::printf("float %s, h = 1e-3: error at t = 1 %.2g rad; over 10⁵ steps max |ΔE/E| %.2g, max ||q| − 1| %.2g\n",
                name, error_at_1, energy, norm);
    // measured (NoSquish / SymmetricSplitting, order 4): error 2.0e-4 / 2.0e-5 rad (double: 2.5e-8 /
    // 2.4e-11; float round-off, ~1e-6 of the 150 rad turned, which moved between 5e-6 and 2.3e-4 with
    // the rounding of single operations in earlier versions of the code); |ΔE/E| 2.5e-5 / 2.3e-5;
    // ||q| − 1| 7.3e-6 / 4.2e-6 (with q and p rounded after every kick and rotation: 1.2e-4 / 1.9e-4,
    // 1.3e-4 / 1.2e-4, 5.0e-5 / 3.2e-5). Renormalising q (and p) each step was measured worse
    // (rigid_body_splitting.hpp).
    EXPECT_LT(error_at_1, 1e-3);
    EXPECT_LT(energy, 1e-3);
    EXPECT_LT(norm, 1e-3);
  };
  run(NoSquish<HeavyTop<float>>(), "NoSquish");
  run(SymmetricSplitting<HeavyTop<float>>(), "SymmetricSplitting");
}

/// Largest angle at t = 1 between float and double, order 2, over 32 bodies of the peer benchmarks'
/// ensemble (moments in [1, 3], |Ω| ≤ 20 rad/s; a constant body torque of up to `max_torque` per
/// component) in 2¹⁶ steps of 2⁻¹⁶ s: rotations of up to 3e-4 rad a step, added to q and p in float.
template <template <class> class Integrator>
double float_drift_of_small_steps(double max_torque) {
  const long steps = 1L << 16;
  peers::FreeRotationSpec spec;
  spec.max_torque = max_torque;
  double worst = 0;
  for (int i = 0; i < 32; ++i) {
    peers::RotationParams<double> params;
    const peers::RotationState<double> x0 = peers::free_rotation_body(spec, i, params);
    auto run = [&](auto zero) {
      using S = decltype(zero);
      using I = Integrator<HeavyTop<S>>;
      HeavyTop<S> body;
      body.inertia = params.inertia.cast<S>().asDiagonal();
      body.loads.body_torque.constant = params.torque.cast<S>();
      RigidBodyKinematics<S> k0;
      k0.quaternion = x0.q.cast<S>();
      k0.omega_body = x0.w.cast<S>();
      const I integrator = with_order<I>(2);
      typename I::State s;
      EXPECT_EQ(integrator.initialize(body, k0, S(0), s), Status::ok);
      const S h = S(1) / S(steps);
      for (long k = 0; k < steps; ++k) EXPECT_EQ(integrator.step(body, s, S(k) * h, h).status, Status::ok);
      return Vec4<double>(integrator.kinematics(body, s).quaternion.template cast<double>());
    };
    const Vec4<double> f = run(0.0f);
    worst = std::max(worst, geodesic_angle(run(0.0), Vec4<double>(f / f.norm())));
  }
  return worst;
}

// Small steps in float: rounded into q and p after each kick and each axis rotation, the rounding
// errors of a slowly turning state repeat from step to step and add up; summed apart and added once
// a step (RigidBodySplitting's Stages, then_rotate) they do far less.
TEST(SplittingStructure, FloatKeepsToDoubleOverManySmallSteps) {
  const double free_ns = float_drift_of_small_steps<NoSquish>(0), torque_ns = float_drift_of_small_steps<NoSquish>(20),
               free_sy = float_drift_of_small_steps<SymmetricSplitting>(0),
               torque_sy = float_drift_of_small_steps<SymmetricSplitting>(20),
               free_ex = float_drift_of_small_steps<ExactFreeSplitting>(0),
               torque_ex = float_drift_of_small_steps<ExactFreeSplitting>(20);
  std::printf("2^16 steps of 2^-16 s, 32 bodies: worst float − double angle, torque-free / body torque ≤ 20: "
              "NoSquish %.2g / %.2g, SymmetricSplitting %.2g / %.2g, ExactFreeSplitting %.2g / %.2g rad\n",
              free_ns, torque_ns, free_sy, torque_sy, free_ex, torque_ex);
  // measured 1.0e-4 / 9.1e-5, 7.5e-5 / 6.4e-5; rounded after every kick and rotation 9.5e-4 / 3.8e-3,
  // 6.1e-3 / 8.2e-3
  EXPECT_LT(free_ns, 3e-4);
  EXPECT_LT(torque_ns, 3e-4);
  EXPECT_LT(free_sy, 3e-4);
  EXPECT_LT(torque_sy, 3e-4);
  // ExactFreeSplitting: measured 1.0e-4 / 8.9e-5; 1.4e-3 / 2.2e-3 before its L(t) and r − 1 were
  // computed as increments (exact_free_flow.hpp)
  EXPECT_LT(free_ex, 3e-4);
  EXPECT_LT(torque_ex, 3e-4);
}

TEST(SplittingStructure, NonFiniteStepLeavesTheStateAndBadInertiaIsRejected) {
  const auto p = testing::off_axis_top();
  const NoSquish<Top> integrator;
  NoSquish<Top>::State s;
  ASSERT_EQ(integrator.initialize(p.model, p.initial, 0.0, s), Status::ok);
  const NoSquish<Top>::State before = s;
  EXPECT_EQ(integrator.step(p.model, s, 0.0, NAN).status, Status::non_finite);
  for (int c = 0; c < NoSquish<Top>::State::size; ++c) EXPECT_EQ(s[c], before[c]) << "component " << c;
  Top bad = p.model;
  bad.inertia(2, 2) = -1.0;  // not positive definite
  EXPECT_EQ(integrator.initialize(bad, p.initial, 0.0, s), Status::invalid_input);
  bad.inertia(2, 2) = NAN;
  SymmetricSplitting<Top>::State t;
  EXPECT_EQ(SymmetricSplitting<Top>().initialize(bad, p.initial, 0.0, t), Status::invalid_input);
}

// State::operator[] is how the ensembles store the state (struct of arrays): CpuEnsemble gives the
// bits of a direct loop, for free bodies with time-dependent force and torque.
template <class I>
void expect_ensemble_matches_direct_loop(const I& integrator) {
  const int n = 4, steps = 200, stride = 50;
  const double h = 0.01;
  std::vector<FreeRigidBody<double>> models;
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < n; ++i) {
    models.push_back(testing::shaken_body(i));
    initial.push_back(testing::shaken_body_start(i));
  }
  CpuEnsemble<I> ens(integrator, models, 0.0, h);
  constexpr int scalars = sample_scalars<I>();
  std::vector<double> buf((steps / stride + 1) * scalars * n);
  const SampleView<double> out{buf.data(), n, 0, steps / stride + 1, stride, scalars};
  ens.initialize(initial, out);
  ens.advance(steps, out);
  for (int i = 0; i < n; ++i) {
    typename I::State s;
    ASSERT_EQ(integrator.initialize(models[i], initial[i], 0.0, s), Status::ok);
    for (int k = 0; k < steps; ++k) ASSERT_EQ(integrator.step(models[i], s, k * h, h).status, Status::ok);
    EXPECT_EQ(ens.status()[i], Status::ok);
    const auto e = ens.state(i);
    for (int c = 0; c < I::State::size; ++c) EXPECT_EQ(e[c], s[c]) << "body " << i << " component " << c;
    EXPECT_EQ(out(steps / stride, sample_offset<I>("quaternion"), i), integrator.kinematics(models[i], s).quaternion[0]);
  }
}

TEST(SplittingStructure, CpuEnsembleGivesTheBitsOfADirectLoop) {
  expect_ensemble_matches_direct_loop(with_order<NoSquish<FreeRigidBody<double>>>(4));
  expect_ensemble_matches_direct_loop(with_order<SymmetricSplitting<FreeRigidBody<double>>>(6));
}

}  // namespace
}  // namespace quatstep
