// The parts of the splitting integrators (NoSquish, SymmetricSplitting, ExactFreeSplitting): the
// principal axes by Jacobi sweeps, the quaternion of a rotation matrix, the exact sub-flows of
// free_rotation_flows.hpp, the composition weights, the orders of the near-integrable composition on
// a linear system with exact flows, the `order` and `composition` settings, and the axis-order rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <unsupported/Eigen/MatrixFunctions>

#include "quatstep/integrators/exact_free_flow.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/integrators/symmetric_splitting.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "test_support.hpp"

namespace quatstep {
namespace {

using testing::kEps;
using testing::Random;

TEST(PrincipalAxes, DecomposeARotatedInertiaToRoundOff) {
  Random rnd(7);
  double reconstruction = 0, orthogonality = 0, moments = 0;
  for (int k = 0; k < 200; ++k) {
    const Mat3<double> j = rnd.inertia();  // principal values 1.2, 2.3, 2.9
    const PrincipalAxes<double> p = principal_axes(j);
    const Mat3<double> back = p.axes * p.moments.asDiagonal() * p.axes.transpose();
    reconstruction = std::max(reconstruction, (back - j).norm() / j.norm());
    orthogonality = std::max(orthogonality, (p.axes.transpose() * p.axes - Mat3<double>::Identity()).norm());
    Vec3<double> sorted = p.moments;
    std::sort(sorted.data(), sorted.data() + 3);
    moments = std::max(moments, (sorted - Vec3<double>(1.2, 2.3, 2.9)).norm());
  }
  std::printf("measured: reconstruction %.2g, orthogonality %.2g, moments %.2g (in eps)\n", reconstruction / kEps,
              orthogonality / kEps, moments / kEps);
  // measured: reconstruction 8.2, orthogonality 7.5, moments 23 eps
  EXPECT_LT(reconstruction, 20 * kEps);
  EXPECT_LT(orthogonality, 20 * kEps);
  EXPECT_LT(moments, 50 * kEps);
}

TEST(PrincipalAxes, DiagonalInertiaIsReturnedAsItIs) {
  const Mat3<double> j = Vec3<double>(15.234375, 0.46875, 15.234375).asDiagonal();
  const PrincipalAxes<double> p = principal_axes(j);
  EXPECT_EQ(p.moments, Vec3<double>(15.234375, 0.46875, 15.234375));
  EXPECT_EQ(p.axes, Mat3<double>::Identity());
}

TEST(PrincipalAxes, FloatDecomposition) {
  Random rnd(8);
  const Mat3<float> j = rnd.inertia().cast<float>();
  const PrincipalAxes<float> p = principal_axes(j);
  const float error = (p.axes * p.moments.asDiagonal() * p.axes.transpose() - j).norm() / j.norm();
  std::printf("measured: float reconstruction %.2g eps_float\n", error / std::numeric_limits<float>::epsilon());
  EXPECT_LT(error, 20 * std::numeric_limits<float>::epsilon());  // measured 6.5 eps_float
}

TEST(PrincipalAxes, QuaternionOfARotationMatrixInEveryBranch) {
  Random rnd(9);
  double worst = 0;
  for (int k = 0; k < 400; ++k) {
    // near-π rotations about each axis reach the branches of c₁, c₂, c₃; generic ones that of c₀
    const Vec4<double> q = k % 4 == 0 ? rnd.unit_quaternion()
                                      : quat_from_rotation_vector<double>(3.1 * Vec3<double>::Unit(k % 4 - 1) +
                                                                          0.05 * rnd.vector<3>());
    const Vec4<double> c = quaternion_from_rotation_matrix(rotation_matrix(q));
    worst = std::max(worst, std::min((c - q).norm(), (c + q).norm()));  // q and −q are one rotation
  }
  std::printf("measured: |c − ±q| ≤ %.2g eps\n", worst / kEps);
  EXPECT_LT(worst, 10 * kEps);  // measured 1.6 eps
}

TEST(PrincipalAxes, FrameIsARotationInTheRequestedOrder) {
  Random rnd(10);
  const Mat3<double> j = rnd.inertia();
  const PrincipalAxes<double> p = principal_axes(j);
  const int order[3] = {2, 0, 1};
  const PrincipalFrame<double> f = principal_frame(p, order);
  const Mat3<double> c = rotation_matrix(f.frame);
  // Cᵀ J C = diag(I_order[0], I_order[1], I_order[2]), and 1/I in that order
  const Mat3<double> d = c.transpose() * j * c;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(d(k, k), p.moments[order[k]], 1e-14 * j.norm());
    EXPECT_NEAR(f.inverse_moments[k], 1 / p.moments[order[k]], 1e-15);
  }
  EXPECT_LT((d - Mat3<double>(d.diagonal().asDiagonal())).norm(), 1e-14 * j.norm());
}

/// The rotations of d applied: (q, p) ← (q ∘ (1 + d), p ∘ (1 + d)), as RigidBodySplitting's drift does.
void rotate(const Vec4<double>& d, Vec4<double>& q, Vec4<double>& p) {
  q += quat_mul(q, d);
  p += quat_mul(p, d);
}

/// Solution of Hamilton's equations q̇ = ½ q ∘ (0, Ω), ṗ = ½ p ∘ (0, Ω), Ω = ∇f(L), by RK4 at a tiny
/// step: the reference for the closed-form flows.
template <class Gradient>
void hamiltonian_rk4(const Gradient& grad, Vec4<double>& q, Vec4<double>& p, double t, int steps) {
  using Y = Vec<double, 8>;
  auto rate = [&](const Y& y) {
    const Vec4<double> a = y.head<4>(), b = y.tail<4>();
    const Vec3<double> omega = grad(body_momentum(a, b));
    Y d;
    d << 0.5 * quat_mul(a, pure(omega)), 0.5 * quat_mul(b, pure(omega));
    return d;
  };
  Y y;
  y << q, p;
  const double h = t / steps;
  for (int i = 0; i < steps; ++i) {
    const Y k1 = rate(y), k2 = rate(y + 0.5 * h * k1), k3 = rate(y + 0.5 * h * k2), k4 = rate(y + h * k3);
    y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  q = y.head<4>();
  p = y.tail<4>();
}

TEST(FreeRotationFlows, AxisAndSphericalFlowsSolveHamiltonsEquationsOffTheUnitSphere) {
  Random rnd(12);
  // a generic point of R⁸: |q| ≠ 1 and pᵀq ≠ 0, where the flows are still exact
  const Vec4<double> q0 = 1.3 * rnd.unit_quaternion(), p0 = rnd.vector<4>(3.0);
  const double c = 0.7, t = 1.9;
  Vec4<double> q = q0, p = p0, qr = q0, pr = p0, d = Vec4<double>::Zero();
  Vec3<double> l = body_momentum(q0, p0);
  axis_flow<1>(c, t, l, d);
  rotate(d, q, p);
  hamiltonian_rk4([&](const Vec3<double>& m) { return Vec3<double>(0, c * m[1], 0); }, qr, pr, t, 20000);
  const double axis = std::max((q - qr).norm(), (p - pr).norm());
  const double axis_momentum = (l - body_momentum(q, p)).norm();  // the L axis_flow turned
  q = q0, p = p0, qr = q0, pr = p0, d = Vec4<double>::Zero();
  l = body_momentum(q0, p0);
  spherical_flow(c, t, l, d);
  rotate(d, q, p);
  hamiltonian_rk4([&](const Vec3<double>& m) { return Vec3<double>(c * m); }, qr, pr, t, 20000);
  const double spherical = std::max((q - qr).norm(), (p - pr).norm());
  const double spherical_momentum = (l - body_momentum(q, p)).norm();
  std::printf("measured: axis flow %.2g, spherical flow %.2g from RK4 at h = t/20000; their L %.2g, %.2g from (q, p)\n",
              axis, spherical, axis_momentum, spherical_momentum);
  EXPECT_LT(axis, 1e-12);       // measured 1.3e-14 (the RK4 reference's own error)
  EXPECT_LT(spherical, 1e-12);  // measured 1.7e-14
  EXPECT_LT(axis_momentum, 1e-13 * l.norm());
  EXPECT_LT(spherical_momentum, 1e-13 * l.norm());
}

// A product of flows taken as one increment (then_rotate) is the flows applied one after the other.
TEST(FreeRotationFlows, AProductOfFlowsIsTheFlowsInTurn) {
  Random rnd(13);
  const Vec4<double> q0 = 1.3 * rnd.unit_quaternion(), p0 = rnd.vector<4>(3.0);
  const double c = 0.7, t = 1.9;
  Vec4<double> q = q0, p = p0, d = Vec4<double>::Zero();
  Vec3<double> l = body_momentum(q0, p0);
  axis_flow<0>(c, t, l, d);
  spherical_flow(0.3, t, l, d);
  axis_flow<2>(1.1, 0.5 * t, l, d);
  rotate(d, q, p);
  Vec4<double> qs = q0, ps = p0;
  auto one = [&](auto flow) {
    Vec4<double> e = Vec4<double>::Zero();
    Vec3<double> m = body_momentum(qs, ps);
    flow(m, e);
    rotate(e, qs, ps);
  };
  one([&](Vec3<double>& m, Vec4<double>& e) { axis_flow<0>(c, t, m, e); });
  one([&](Vec3<double>& m, Vec4<double>& e) { spherical_flow(0.3, t, m, e); });
  one([&](Vec3<double>& m, Vec4<double>& e) { axis_flow<2>(1.1, 0.5 * t, m, e); });
  EXPECT_LT(std::max((q - qs).norm(), (p - ps).norm()), 1e-13);
  EXPECT_LT((l - body_momentum(q, p)).norm(), 1e-13 * l.norm());
}

TEST(Composition, WeightsSumToOneAreSymmetricAndCancelTheOddErrorTerms) {
  for (int order : {2, 4, 6}) {
    const int s = composition_stages(order);
    double sum = 0, cubes = 0, fifths = 0;
    for (int i = 0; i < s; ++i) {
      const double g = composition_weight<double>(order, i);
      EXPECT_EQ(g, composition_weight<double>(order, s - 1 - i)) << "order " << order << " stage " << i;
      sum += g, cubes += g * g * g, fifths += g * g * g * g * g;
    }
    EXPECT_NEAR(sum, 1.0, 4 * kEps) << "order " << order;
    // a symmetric composition of symmetric methods has order 4 iff Σγ³ = 0; order 6 needs Σγ⁵ = 0
    // and one more condition, checked by the measured orders (symplectic_convergence_test.cpp)
    if (order >= 4) EXPECT_NEAR(cubes, 0.0, 1e-15) << "order " << order;
    if (order >= 6) EXPECT_NEAR(fifths, 0.0, 1e-15) << "order " << order;
  }
}

TEST(Composition, NearIntegrableWeightsSumToOneAndAreSymmetric) {
  double drifts = 0, kicks = 0;
  for (int i = 0; i <= near_integrable_kicks; ++i) {
    drifts += near_integrable_drift_weight<double>(i);
    EXPECT_EQ(near_integrable_drift_weight<double>(i), near_integrable_drift_weight<double>(near_integrable_kicks - i));
  }
  for (int i = 0; i < near_integrable_kicks; ++i) {
    kicks += near_integrable_kick_weight<double>(i);
    EXPECT_EQ(near_integrable_kick_weight<double>(i),
              near_integrable_kick_weight<double>(near_integrable_kicks - 1 - i));
  }
  EXPECT_NEAR(drifts, 1.0, 4 * kEps);
  EXPECT_NEAR(kicks, 1.0, 4 * kEps);
}

/// ẋ = (A + εB) x in R⁴ with both sub-flows exact in closed form, for the composers of
/// composition.hpp: A generates rotations in two planes (rates 6 and 3.7), B = u vᵀ with vᵀu = 0,
/// so B² = 0 and the kick x += dt·εBx is its exact flow. In long double, so that the differences
/// below stay above rounding.
struct LinearStages {
  using L = long double;
  using V = Eigen::Matrix<L, 4, 1>;
  using M = Eigen::Matrix<L, 4, 4>;
  static constexpr L w1 = 6, w2 = 3.7;
  M b;
  V x, force;
  void drift(L dt) {
    const V y = x;
    x << std::cos(w1 * dt) * y[0] - std::sin(w1 * dt) * y[1], std::sin(w1 * dt) * y[0] + std::cos(w1 * dt) * y[1],
        std::cos(w2 * dt) * y[2] - std::sin(w2 * dt) * y[3], std::sin(w2 * dt) * y[2] + std::cos(w2 * dt) * y[3];
  }
  void update_forces(L) { force = b * x; }
  void kick(L dt) { x += dt * force; }

  static M a() {
    M m = M::Zero();
    m(0, 1) = -w1, m(1, 0) = w1, m(2, 3) = -w2, m(3, 2) = w2;
    return m;
  }
  static M perturbation() {
    const V u(1, 0.3L, -0.5L, 0.8L);
    V v(0.4L, 1, 0.2L, 0);
    v[3] = -(v[0] * u[0] + v[1] * u[1] + v[2] * u[2]) / u[3];  // vᵀu = 0
    return u * v.transpose();
  }
  /// The global error at t = 1 after n steps of the near-integrable method (or of Yoshida's triple
  /// jump), against exp(A + εB) x₀.
  static V error(long double eps, int n, bool near_integrable) {
    const V x0(0.3L, -1, 0.5L, 0.2L);
    const V exact = M(a() + eps * perturbation()).exp() * x0;
    LinearStages s{eps * perturbation(), x0, V::Zero()};
    s.update_forces(0);
    const L h = L(1) / L(n);
    for (int k = 0; k < n; ++k)
      if (near_integrable)
        compose_drift_kick_drift<L>(L(k) * h, h, s);
      else
        compose_kick_drift_kick<L>(4, L(k) * h, h, s);
    return s.x - exact;
  }
};

// The error E(ε, h) = ε E₁(h) + ε² E₂(h) + …: ABA(10,6,4) has order 4 (ε = 1), E₁ = O(h¹⁰) and
// E₂ = O(h⁶), measured through central differences in ε. The triple jump, order 4 in every term,
// shows that the measurement can fail.
TEST(Composition, NearIntegrableMethodHasOrder4AndOrders10And6InTheSizeOfThePerturbation) {
  using L = long double;
  auto norm = [](const LinearStages::V& v) { return double(v.norm()); };
  auto first = [](int n, bool near) {  // |E₁(1/n)|
    const L d = 1e-4L;
    return double(((LinearStages::error(d, n, near) - LinearStages::error(-d, n, near)) / (2 * d)).norm());
  };
  auto second = [](int n) {  // |E₂(1/n)|
    const L d = 1e-3L;
    return double(((LinearStages::error(d, n, true) + LinearStages::error(-d, n, true)) / (2 * d * d)).norm());
  };
  const double generic = std::log2(norm(LinearStages::error(1, 16, true)) / norm(LinearStages::error(1, 32, true)));
  const double e1 = std::log2(first(4, true) / first(8, true));
  const double e1_triple = std::log2(first(8, false) / first(16, false));
  const double e2 = std::log2(second(4) / second(8));
  std::printf("observed orders: ε = 1 %.2f; E₁ %.2f (triple jump %.2f); E₂ %.2f\n", generic, e1, e1_triple, e2);
  EXPECT_NEAR(generic, 4, 0.3);    // measured: 4.13
  EXPECT_NEAR(e1, 10, 0.6);        // measured: 10.39
  EXPECT_NEAR(e1_triple, 4, 0.3);  // measured: 4.01
  EXPECT_NEAR(e2, 6, 0.4);         // measured: 5.88
}

/// A Keys visitor that records what describe() declares.
struct RecordKeys {
  std::string name, doc;
  keys::Range range{};
  int* member = nullptr;
  void operator()(const char* n, int& m, const char* d, const keys::Range& r) {
    name = n, doc = d, range = r, member = &m;
  }
};

TEST(SplittingSettings, OrderIsTheOneKeyAndOnly2_4_6Validate) {
  SplittingSettings<double> s;
  RecordKeys k;
  s.describe(k);
  EXPECT_EQ(k.name, "order");
  EXPECT_EQ(k.member, &s.order);
  EXPECT_EQ(s.order, 4);
  for (int order : {2, 4, 6}) {
    s.order = order;
    EXPECT_TRUE(k.range.contains(order));
    EXPECT_NO_THROW(keys::check(NoSquish<HeavyTop<double>>(s).settings));
  }
  for (int order : {1, 3, 5, 8}) {
    s.order = order;
    try {
      keys::check(SymmetricSplitting<HeavyTop<double>>(s).settings);
      ADD_FAILURE() << "order " << order << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("integrator.order"), std::string::npos) << e.what();
    }
  }
}

TEST(ExactFreeSplittingSettings, CompositionIsAKeyAndNearIntegrableTakesOrder4Only) {
  ExactFreeSplittingSettings<double> s;
  EXPECT_EQ(s.composition, Composition::symmetric);
  std::vector<std::string> names;
  auto record = [&](const char* n, auto&&...) { names.emplace_back(n); };
  s.describe(record);
  EXPECT_EQ(names, (std::vector<std::string>{"order", "composition"}));
  s.composition = Composition::near_integrable;
  EXPECT_NO_THROW(keys::check(ExactFreeSplitting<HeavyTop<double>>(s).settings));
  for (int order : {2, 6}) {
    s.order = order;
    try {
      keys::check(ExactFreeSplitting<HeavyTop<double>>(s).settings);
      ADD_FAILURE() << "order " << order << " accepted with composition = near_integrable";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("integrator.order: " + std::to_string(order) + ", must be 4 with"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(AxisOrder, NoSquishPutsTheSmallestMomentOutermostAndBreaksTiesByMomentum) {
  int order[3];
  NoSquishFlow::order_axes(Vec3<double>(6, 8, 3), Vec3<double>(60, 160, 60), order);
  EXPECT_EQ(order[0], 2);
  EXPECT_EQ(order[1], 0);
  EXPECT_EQ(order[2], 1);
  // Sherif's top: the spin axis (smallest moment) outside, then the tied axis with the larger |L|
  NoSquishFlow::order_axes(Vec3<double>(15.234375, 0.46875, 15.234375), Vec3<double>(0, 70.3, -70.3), order);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
  EXPECT_EQ(order[2], 0);
}

TEST(AxisOrder, SymmetricSplittingTakesTheLeastErrorEstimate) {
  int order[3];
  const Vec3<double> none = Vec3<double>::Zero();
  // symmetric bodies: the symmetry axis as s, so that B is the identity (prolate and oblate)
  SymmetricSplittingFlow::order_axes(Vec3<double>(15.234375, 0.46875, 15.234375), none, order);
  EXPECT_EQ(order[2], 1);
  SymmetricSplittingFlow::order_axes(Vec3<double>(1, 1, 2), none, order);
  EXPECT_EQ(order[2], 2);
  // J = (6, 8, 3): estimates (s, a) = (1, 0): 7.2e-5, the least; (0, 1): 1.1e-4; (2, 0): 1.1e-4
  SymmetricSplittingFlow::order_axes(Vec3<double>(6, 8, 3), none, order);
  EXPECT_EQ(order[0], 0);
  EXPECT_EQ(order[1], 2);
  EXPECT_EQ(order[2], 1);
  EXPECT_NEAR(SymmetricSplittingFlow::error_estimate(1.0 / 8, 1.0 / 6, 1.0 / 3), 7.234e-5, 1e-8);
  // J = (1, 2, 3): (s, a, b) = (2, 1, 0)
  SymmetricSplittingFlow::order_axes(Vec3<double>(1, 2, 3), none, order);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 0);
  EXPECT_EQ(order[2], 2);
}

}  // namespace
}  // namespace quatstep
