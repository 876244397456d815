// The simplest motion there is, for every registered method × model × precision on the CPU: a body
// spinning steadily about a principal axis (a torque-free body about each of its axes, slow and
// fast; a sleeping top) turns at its constant rate, q(t) = (cos ωt/2, sin ωt/2 · axis), and no body
// fails. The implicit schemes start Newton from a constant-rate predictor that is then the solution
// itself, so their corrections are rounding from the first iteration on; HamiltonianEm and HamiltonianMidpoint failed here (newton_not_converged
// within 25–460 steps) until their system stated its round-off level (hamiltonian_quaternion.hpp,
// round_off_norm), and classical HHT in float failed the 0.5 rad/s bodies with constraint_drift
// within ten steps until its drift test had a round-off floor (hht::quaternion_drifted).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "gpu/random_ensemble.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {
namespace {

struct Spin {
  int axis;      ///< body axis, also the spatial one (the bodies start at the identity)
  double omega;  ///< rad/s
};

constexpr double dt = 1e-3;
constexpr int steps = 2000;

/// Torque-free bodies, inertia (1, 2, 3) spinning about each axis at 0.5 and 5 rad/s, and a sphere
/// at 0.5 rad/s; for the heavy top, sleeping tops (centre of mass on the spin axis, above the fixed
/// point) at 20 and 50 rad/s, above the sleeping top's stability limit (4 rad/s).
std::vector<Spin> spins(const std::string& model) {
  if (model == "heavy_top") return {{2, 20.0}, {2, 50.0}};
  return {{0, 0.5}, {1, 0.5}, {2, 0.5}, {0, 5.0}, {1, 5.0}, {2, 5.0}, {0, 0.5}};
}

std::string scenario(const testing::IntegratorCase& integrator, const std::string& model, const char* precision) {
  const std::vector<Spin> s = spins(model);
  std::ostringstream t;
  t << "[model]\ntype = \"" << model << "\"\n";
  if (model == "heavy_top")
    t << "inertia = [1.0, 1.0, 0.5]\nmass = 1.0\ncenter_of_mass = [0.0, 0.0, 0.1]\ngravity = [0.0, 0.0, -9.81]\n";
  else
    t << "inertia = [1.0, 2.0, 3.0]\nmass = 1.0\n";
  t << "[integrator]\nmethod = \"" << method_views()[integrator.method].info.name << "\"\n" << integrator.keys
    << "[run]\nprecision = \"" << precision << "\"\n[time]\ndt = " << dt << "\nt_end = " << steps * dt << "\n"
    << "[ensemble]\nsize = " << s.size() << "\n";
  for (std::size_t i = 0; i < s.size(); ++i) {
    double w[3] = {0, 0, 0};
    w[s[i].axis] = s[i].omega;
    t << "[[ensemble.override]]\nbody = " << i << "\ninitial.omega_body = [" << w[0] << ", " << w[1] << ", " << w[2]
      << "]\n";
  }
  if (model != "heavy_top") t << "[[ensemble.override]]\nbody = " << s.size() - 1 << "\nmodel.inertia = [2.0, 2.0, 2.0]\n";
  return t.str();
}

class SteadySpin : public ::testing::TestWithParam<testing::EveryCase> {};

TEST_P(SteadySpin, TurnsAtItsConstantRateAndNoBodyFails) {
  const auto [integrator, model, precision] = GetParam();
  if (!testing::runs_on(integrator, model)) GTEST_SKIP() << integrator.name << " does not run on " << testing::model_name(model);
  const std::string name = testing::model_name(model);
  const Scenario sc = parse_scenario(scenario(integrator, name, precision), "steady_spin.toml");
  const index_t n = sc.ensemble_size;
  const std::unique_ptr<Ensemble> e = make_ensemble(sc, choose_backend(Backend::cpu));
  const int scalars = channel_scalars(sample_channels(sc));
  e->initialize(SampleView<double>{nullptr, n, 0, 0, 1, scalars});
  e->advance(steps, SampleView<double>{nullptr, n, 0, 0, 1, scalars});
  std::vector<double> q(4 * n), w(3 * n);
  e->kinematics(q.data(), w.data(), nullptr, nullptr);
  // A steady spin's error is the method's phase error: O((hω)²·ωt) for the second-order schemes, 0
  // for those that integrate the free flow exactly, O(hω·ωt) for classical HHT at α ≠ 0 (first
  // order; 2.5 rad for the sleeping top at 50 rad/s). The bound hω·ωt (one step's angle per radian
  // turned) holds for all of them and still catches a body that stops: one that froze after 150 of
  // the 2000 steps at 0.5 rad/s is 0.9 rad off, against a bound of 5e-4. Float adds its rounding
  // (the null-space Livens scheme: 3.4e-3 rad at 0.5 rad/s).
  const bool single = std::string(precision) == "float";
  const std::vector<Spin> s = spins(name);
  for (index_t i = 0; i < n; ++i) {
    ASSERT_EQ(e->status()[i], Status::ok) << "body " << i << " (axis " << s[i].axis << ", " << s[i].omega << " rad/s)";
    const double turned = s[i].omega * steps * dt, phase_bound = (single ? 5e-3 : 1e-9) + s[i].omega * dt * turned;
    Vec4<double> exact(std::cos(0.5 * turned), 0, 0, 0);
    exact[1 + s[i].axis] = std::sin(0.5 * turned);
    const Vec4<double> got(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
    EXPECT_LE(geodesic_angle(exact, got), phase_bound) << "body " << i << " (axis " << s[i].axis << ", " << s[i].omega << " rad/s)";
    // The rate as the state represents it (2G(e)ė for the HHT family, the midpoint velocity for
    // Livens' midpoint scheme): within the same bound, relative (classical HHT: 2.5e-3 at 5 rad/s);
    // in float, the Livens schemes' difference quotients over h resolve it to ≈ ε_f/h ≈ 1e-4 rad/s
    // per quaternion ulp and more (REML 1.9e-3, its null-space form 4.5e-3 rad/s off at 0.5 rad/s):
    // 1e-2 rad/s more.
    EXPECT_NEAR(w[3 * i + s[i].axis], s[i].omega, phase_bound * s[i].omega + (single ? 1e-2 : 0.0)) << "body " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryIntegrator, SteadySpin, testing::every_case(), testing::every_case_name);

}  // namespace
}  // namespace quatstep
