// The cheaper forms of proposals.hpp equal the core's terms to round-off, on and off the unit
// sphere (the HHT Newton iterates leave it), for a general symmetric inertia and nonzero loads.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "proposals.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace {

using namespace quatstep;
namespace prop = quatstep::bench::proposals;
using S = double;

/// max |a − b| / max(1, max |b|): relative to the size of the reference.
void report(const char* what, double worst) { std::printf("%s: worst relative difference %.2e\n", what, worst); }

template <class A, class B>
double rel_diff(const A& a, const B& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

struct Case {
  Mat3<S> J;
  Vec4<S> e, ed;
  RigidBodyLoads<S> loads;
};

/// Random cases: J = symmetric positive definite with off-diagonal terms, |e| ∈ [0.9, 1.1],
/// ė of the size of the heavy top's (|ė| ≈ ½|ω| ≈ 75), gravity lever and a spatial torque.
std::vector<Case> cases() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<S> u(-1, 1);
  std::vector<Case> out;
  for (int i = 0; i < 50; ++i) {
    Case c;
    Mat3<S> a;
    for (int k = 0; k < 9; ++k) a(k) = u(rng);
    c.J = a * a.transpose() + Mat3<S>::Identity();
    c.e = Vec4<S>(u(rng), u(rng), u(rng), u(rng)).normalized() * (1.0 + 0.1 * u(rng));
    c.ed = 75.0 * Vec4<S>(u(rng), u(rng), u(rng), u(rng));
    c.loads.mass = 15;
    c.loads.lever = Vec3<S>(u(rng), u(rng), u(rng));
    c.loads.gravity = Vec3<S>(0, 0, -9.81);
    if (i % 2) c.loads.spatial_torque.constant = Vec3<S>(u(rng), u(rng), u(rng));
    out.push_back(c);
  }
  return out;
}

TEST(Proposals, GyroscopicEqualsCore) {
  double worst = 0;
  for (const Case& c : cases()) {
    const auto core = euler_parameters::gyroscopic(c.J, c.e, c.ed);
    const auto fast = prop::gyroscopic(c.J, c.e, c.ed);
    worst = std::max({worst, rel_diff(fast.force, core.force), rel_diff(fast.d_e, core.d_e),
                      rel_diff(fast.d_edot, core.d_edot)});
  }
  report("gyroscopic", worst);
  EXPECT_LT(worst, 1e-13);  // measured 2.6e-15
}

TEST(Proposals, TorqueAndDerivativeEqualCore) {
  double worst = 0;
  for (const Case& c : cases()) {
    Vec3<S> tau;
    Mat34<S> d;
    prop::torque_and_derivative(c.loads, c.e, 0.3, tau, d);
    worst = std::max({worst, rel_diff(tau, c.loads.torque(c.e, 0.3)), rel_diff(d, c.loads.torque_de(c.e, 0.3))});
  }
  report("torque and derivative", worst);
  EXPECT_LT(worst, 1e-13);  // measured 4.4e-16
}

TEST(Proposals, BodyTorqueDphiEqualsCoreOnTheUnitSphere) {
  double worst = 0;
  for (Case c : cases()) {
    c.e.normalize();  // the Lie-group derivative is defined for unit quaternions (Simo–Vu-Quoc)
    HeavyTop<S> top;
    top.loads = c.loads;
    worst = std::max(worst, rel_diff(prop::body_torque_dphi(c.loads, c.e, 0.3), top.body_torque_dphi(c.e, 0.3)));
  }
  report("body_torque_dphi", worst);
  EXPECT_LT(worst, 1e-13);  // measured 3.8e-16
}

}  // namespace
