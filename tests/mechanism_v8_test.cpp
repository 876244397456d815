// The V8 crank drive of Sherif §10.2 (geometry and masses stated in problems/v_engine.hpp):
// 17 bodies, 119 coordinates, 118 constraints; a constant torque of 50 N m on the crank about e_x
// from 100 rad/s, α = −0.3, h = 1e-4 (the paper's), 0.5 s.
//   - The paper's observation (Fig. 8): the classical HHT does not accelerate the crank as it
//     should — its numerical damping grows with the spin (Sherif eq. 28) — while the modified one
//     "accelerates the crank shaft nearly correct". Checked against RK4 on the index-1 form and
//     against the exact energy balance E(t) − E(0) = T·Δθ_crank (gravity in E, no other work).
//   - The constraints hold to the Newton tolerance, Newton takes 2 iterations per step.
//   - Fig. 9 and Fig. 10 measured: the integrated crank-speed error e_ω = ∫|ω − ω_ref| dt (Sherif's
//     measure, here over t ∈ [0, 0.2]) against RK4 at 1e-4, its observed order in h at α = −0.3
//     (h = 4e-4, 2e-4, 1e-4) and its dependence on α at h = 1e-4 (α = −0.05 … −0.3); figures below.
//   - Both RK4 references checked for their own error, by RK4 at half their step on the same
//     observable: ≤ 1/20 of the smallest HHT error compared with them (measured ≤ 1.1e-3 of it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "quatstep/mechanism/assembly.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/observables.hpp"
#include "mechanism_reference.hpp"
#include "v_engine.hpp"

namespace quatstep::mechanism {
namespace {

using Cap = LargeCapacity;
using Mech = Mechanism<double, Cap>;

constexpr double kTorque = 50.0, kEnd = 0.5, kStep = 1e-4;

struct CrankRun {
  double omega = 0;            ///< crank speed at the end
  double balance = 0;          ///< (ΔE − T Δθ)/(T Δθ)
  double iterations = 0;
  double residual = 0;
};

template <class Integrator>
CrankRun run(const Integrator& integrator, const testing::TestMechanism<Cap>& tm) {
  CrankRun r;
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const double e0 = observe(tm.mech, s.q, s.v, 0.0).energy;
  const auto angle = [&] { return 2 * std::atan2(s.q[4], s.q[3]); };  // the crank turns about e_x
  double previous = angle(), turned = 0;
  const long n = std::lround(kEnd / kStep);
  long iterations = 0;
  for (long i = 0; i < n; ++i) {
    const NewtonOutcome o = integrator.step(tm.mech, s, i * kStep, kStep);
    iterations += o.iterations;
    if (o.status != Status::ok) {
      ADD_FAILURE() << to_string(o.status) << " at step " << i;
      return r;
    }
    const double a = angle();
    turned += std::remainder(a - previous, 2 * M_PI);
    previous = a;
  }
  const auto o = observe(tm.mech, s.q, s.v, kEnd);
  r.omega = kinematics_from_dae(tm.mech, s.q, s.v).body[0].omega_body[0];
  r.balance = (o.energy - e0 - kTorque * turned) / (kTorque * turned);
  r.iterations = double(iterations) / n;
  r.residual = o.position_residual;
  return r;
}

TEST(V8CrankDrive, ModifiedHhtAcceleratesTheCrankAndClassicalDoesNot) {
  const testing::TestMechanism<Cap> tm = testing::engine<Cap>(testing::v8_geometry(), 0.3, 100.0, kTorque);
  EXPECT_EQ(tm.mech.n_bodies, 17);
  EXPECT_EQ(7 * tm.mech.n_bodies, 119);
  EXPECT_EQ(tm.mech.n_bodies + tm.mech.n_rows, 118);  // Sherif §10.2
  auto k = tm.initial;
  const AssemblyReport<double> a = assemble(tm.mech, k, 0.0);
  EXPECT_EQ(a.status, Status::ok);
  EXPECT_LE(a.position_violation, 1e-15);   // the geometry is exact: measured 1.5e-16
  EXPECT_LE(a.velocity_correction, 1e-13);  // measured 1.1e-14

  // RK4 at 2h (ω h ≤ 0.1 rad per step), checked for its own error against RK4 at h below.
  const long n_ref = std::lround(kEnd / (2 * kStep));
  const testing::Rk4Reference<Mech> ref(tm.mech, tm.initial, 2 * kStep, n_ref, n_ref);
  ASSERT_EQ(ref.status, Status::ok);
  const double omega_ref = kinematics_from_dae(tm.mech, ref.samples.back().q, ref.samples.back().v).body[0].omega_body[0];
  const testing::Rk4Reference<Mech> fine(tm.mech, tm.initial, kStep, 2 * n_ref, 2 * n_ref);
  ASSERT_EQ(fine.status, Status::ok);
  const double omega_fine =
      kinematics_from_dae(tm.mech, fine.samples.back().q, fine.samples.back().v).body[0].omega_body[0];

  MechanismHhtSettings<double> settings;
  settings.alpha = -0.3;
  const CrankRun classical = run(MechanismHht<Mech>(settings), tm);
  const CrankRun modified = run(MechanismModifiedHht<Mech>(settings), tm);
  settings.inertia_shift = true;
  const CrankRun shifted = run(MechanismModifiedHht<Mech>(settings), tm);
  std::printf("crank speed at t = 0.5 s: RK4 %.3f rad/s\n", omega_ref);
  const std::pair<const char*, const CrankRun*> runs[] = {
      {"Hht", &classical}, {"ModifiedHht", &modified}, {"ModifiedHht+shift", &shifted}};
  for (const auto& [name, r] : runs)
    std::printf("  %-18s %.3f rad/s (%+.3f %%), energy balance %+.2e, Newton/step %.2f, max|C| %.1e\n", name, r->omega,
                100 * (r->omega / omega_ref - 1), r->balance, r->iterations, r->residual);
  // Measured (RK4 507.04 rad/s): classical −17.5 %, balance −0.27; modified −0.020 %, balance
  // −4.1e-4; shifted −0.019 %, −3.9e-4 (α = −0.3 damps the reciprocating parts a little; every body
  // turns about a fixed axis, where the modified form has no Euler-parameter bias, so the shift
  // changes little here).
  EXPECT_LT(classical.omega, 0.9 * omega_ref);
  EXPECT_LT(classical.balance, -0.2);
  for (const CrankRun* r : {&modified, &shifted}) {
    EXPECT_NEAR(r->omega / omega_ref, 1.0, 1e-3);
    EXPECT_NEAR(r->balance, 0.0, 5e-3);
  }
  for (const auto& [name, r] : runs) {
    EXPECT_LE(r->iterations, 2.5) << name;  // measured 2.00
    EXPECT_LE(r->residual, 1e-13) << name;  // measured ≤ 3.3e-16
  }
  // The reference's own error (issue 15): RK4 at 2h against RK4 at h, the crank speed at t = 0.5
  // (fourth order: 15/16 of the error at 2h). Measured 9.8e-5 rad/s (1.9e-7 relative); asserted ≤ 1/20
  // of the smallest HHT error it is compared with (modified + shift, 0.095 rad/s), so that it moves no
  // HHT error above by more than 5 %.
  const double reference_error = std::abs(omega_ref - omega_fine);
  double smallest = INFINITY;
  for (const auto& [name, r] : runs) smallest = std::min(smallest, std::abs(r->omega - omega_ref));
  std::printf("RK4 reference: crank speed at 2h - at h = %.2e rad/s, %.2e of the smallest HHT error (%.3e rad/s)\n",
              reference_error, reference_error / smallest, smallest);
  EXPECT_LE(reference_error, smallest / 20);
}

/// The crank's speed ω_x (body axes; the crank turns about e_x) after each step of h from 0 to t_end.
template <class Integrator>
std::vector<double> crank_speeds(const Integrator& integrator, const testing::TestMechanism<Cap>& tm, double h,
                                 double t_end) {
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const long n = std::lround(t_end / h);
  std::vector<double> omega;
  for (long i = 0; i < n; ++i) {
    const NewtonOutcome o = integrator.step(tm.mech, s, i * h, h);
    if (o.status != Status::ok) {
      ADD_FAILURE() << to_string(o.status) << " at step " << i;
      break;
    }
    omega.push_back(kinematics_from_dae(tm.mech, s.q, s.v).body[0].omega_body[0]);
  }
  return omega;
}

/// Sherif's e_ω = ∫|ω − ω_ref| dt by the rectangle rule at the steps of h, ω_ref at every h_ref.
double integrated_error(const std::vector<double>& omega, double h, const std::vector<double>& ref, double h_ref) {
  const long stride = std::lround(h / h_ref);
  double e = 0;
  for (std::size_t i = 0; i < omega.size(); ++i) e += std::abs(omega[i] - ref[(i + 1) * stride - 1]) * h;
  return e;
}

TEST(V8CrankDrive, Figures9And10GlobalErrorInStepAndAlpha) {
  constexpr double t_end = 0.2, h_ref = 1e-4;
  const testing::TestMechanism<Cap> tm = testing::engine<Cap>(testing::v8_geometry(), 0.3, 100.0, kTorque);
  const long n_ref = std::lround(t_end / h_ref);
  const testing::Rk4Reference<Mech> rk4(tm.mech, tm.initial, h_ref, n_ref, 1);
  ASSERT_EQ(rk4.status, Status::ok);
  std::vector<double> ref;
  for (std::size_t i = 1; i < rk4.samples.size(); ++i)
    ref.push_back(kinematics_from_dae(tm.mech, rk4.samples[i].q, rk4.samples[i].v).body[0].omega_body[0]);
  // The reference's own error (issue 15: "a tight-tolerance reference solution checked for its own
  // accuracy"): the same observable and measure, e_ω of RK4 at h_ref against RK4 at h_ref/2 over the
  // same [0, 0.2]; asserted at the end against the smallest e_ω this test compares with it.
  const testing::Rk4Reference<Mech> rk4_half(tm.mech, tm.initial, h_ref / 2, 2 * n_ref, 1);
  ASSERT_EQ(rk4_half.status, Status::ok);
  std::vector<double> ref_half;
  for (std::size_t i = 1; i < rk4_half.samples.size(); ++i)
    ref_half.push_back(kinematics_from_dae(tm.mech, rk4_half.samples[i].q, rk4_half.samples[i].v).body[0].omega_body[0]);
  const double e_ref = integrated_error(ref, h_ref, ref_half, h_ref / 2);
  double smallest = INFINITY;  // the smallest e_ω against ref below

  const auto settings = [](double alpha, bool shift) {
    MechanismHhtSettings<double> s;
    s.alpha = alpha;
    s.inertia_shift = shift;
    return s;
  };
  // Fig. 9: e_ω against h at α = −0.3.
  const double steps[] = {4e-4, 2e-4, 1e-4};
  const std::pair<const char*, MechanismHhtSettings<double>> variants[] = {{"ModifiedHht", settings(-0.3, false)},
                                                                           {"ModifiedHht+shift", settings(-0.3, true)}};
  for (const auto& [name, s] : variants) {
    std::vector<double> e;
    for (double h : steps) e.push_back(integrated_error(crank_speeds(MechanismModifiedHht<Mech>(s), tm, h, t_end), h, ref, h_ref));
    for (double x : e) smallest = std::min(smallest, x);
    for (int i = 0; i < 2; ++i) {
      const double order = std::log(e[i] / e[i + 1]) / std::log(2.0);
      std::printf("Fig. 9 %-18s h = %.0e -> %.0e: e_w = %.3e -> %.3e rad, order %.3f\n", name, steps[i], steps[i + 1],
                  e[i], e[i + 1], order);
      // Measured 2.12, 2.07 (both): second order, although α ≠ 0 — every body of the V8 turns about
      // the crank's direction, where the modified update has no Euler-parameter bias (docs/errata.md S3).
      EXPECT_NEAR(order, 2.0, 0.2) << name;
    }
  }
  // Fig. 10: e_ω against α at h = 1e-4, and the part of the solution α causes, ∫|ω_α − ω_{α=0}| dt.
  const double alphas[] = {-0.05, -0.1, -0.2, -0.3};
  const std::vector<double> at_zero = crank_speeds(MechanismModifiedHht<Mech>(settings(0.0, false)), tm, 1e-4, t_end);
  std::vector<double> e, d;
  for (double a : alphas) {
    const std::vector<double> w = crank_speeds(MechanismModifiedHht<Mech>(settings(a, false)), tm, 1e-4, t_end);
    e.push_back(integrated_error(w, 1e-4, ref, h_ref));
    d.push_back(integrated_error(w, 1e-4, at_zero, 1e-4));
  }
  const double e_zero = integrated_error(at_zero, 1e-4, ref, h_ref);
  std::printf("Fig. 10 ModifiedHht h = 1e-4: alpha 0: e_w = %.3e rad\n", e_zero);
  smallest = std::min(smallest, e_zero);
  for (double x : e) smallest = std::min(smallest, x);
  for (int i = 0; i < 3; ++i)
    std::printf("Fig. 10 ModifiedHht h = 1e-4: alpha %.2f -> %.2f: e_w = %.3e -> %.3e rad (exponent %.3f); "
                "|w_a - w_0| = %.3e -> %.3e (exponent %.3f)\n",
                alphas[i], alphas[i + 1], e[i], e[i + 1], std::log(e[i + 1] / e[i]) / std::log(alphas[i + 1] / alphas[i]),
                d[i], d[i + 1], std::log(d[i + 1] / d[i]) / std::log(alphas[i + 1] / alphas[i]));
  // Measured: e_ω = 6.16e-4 (α = 0), 7.58e-4, 8.72e-4, 1.02e-3, 1.05e-3 rad; the part α causes grows
  // like |α|^0.85 … |α|^0.2. The error grows with |α|, but far from "∝ α²" (Fig. 10): from α = −0.05
  // to −0.3 it grows 1.4 times, not 36 (docs/errata.md S11).
  for (int i = 0; i < 3; ++i) EXPECT_GT(e[i + 1], e[i]);
  EXPECT_LT(e[3] / e[0], 2.0);
  EXPECT_GT(d[3] / d[0], 1.5);
  EXPECT_LT(d[3] / d[0], 6.0);  // not even linear in α

  std::printf("RK4 reference: e_w(h_ref = %.0e against %.0e) = %.3e rad, %.2e of the smallest HHT e_w (%.3e rad)\n",
              h_ref, h_ref / 2, e_ref, e_ref / smallest, smallest);
  // The reference's error must not show in the figures: ≤ 1/20 of the smallest e_ω compared with it
  // (|e_ω against ref − e_ω against the exact ω| ≤ e_ref, so no e_ω moves by more than 5 % and no order
  // by more than 0.15; RK4 is fourth order, so e_ref, against h_ref/2, is 15/16 of ref's own error).
  // Measured 1.10e-8 rad, 1.8e-5 of the smallest (6.16e-4 rad, α = 0).
  EXPECT_LE(e_ref, smallest / 20);
}

}  // namespace
}  // namespace quatstep::mechanism
