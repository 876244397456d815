// The analytic Jacobians of the Livens Newton systems (livens_system.hpp) against central finite
// differences, and the closed-form reduced residual of rigid bodies against the generic chain rule.
#include <gtest/gtest.h>

#include "livens_scenarios.hpp"
#include "quatstep/integrators/hamiltonian_quaternion.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"

using namespace quatstep;

namespace {

/// max |J − J_fd| / max |J| at x (central differences, step 1e-6 relative).
template <int K, class System>
double jacobian_error(const System& sys, const Vec<double, K>& x) {
  Vec<double, K> r;
  Eigen::Matrix<double, K, K> jac, fd;
  sys.evaluate(x, r, jac);
  for (int j = 0; j < K; ++j) {
    const double d = 1e-6 * std::max(1.0, std::abs(x[j]));
    Vec<double, K> xp = x, xm = x, rp, rm;
    xp[j] += d;
    xm[j] -= d;
    Eigen::Matrix<double, K, K> unused;
    sys.evaluate(xp, rp, unused);
    sys.evaluate(xm, rm, unused);
    fd.col(j) = (rp - rm) / (2 * d);
  }
  return (jac - fd).cwiseAbs().maxCoeff() / jac.cwiseAbs().maxCoeff();
}

/// The heavy top of §5.4 with a body and a spatial torque profile, a few steps into the motion.
HeavyTop<double> loaded_top() {
  HeavyTop<double> top = scenarios::HeavyTopPrecession().model();
  top.loads.body_torque.constant = {1e-3, -2e-3, 5e-4};
  top.loads.spatial_torque.amplitude = {2e-3, 1e-3, -1e-3};
  top.loads.spatial_torque.frequency = 3;
  return top;
}

/// The loaded top after five steps of h = 2e-3, the sixth step's discretization and a perturbed q¹
/// near its predictor: the common start of the Jacobian checks below.
template <LivensRule Rule>
struct SixthStep {
  using I = LivensIntegrator<HeavyTop<double>, Rule>;
  static constexpr double h = 2e-3;
  static typename I::State after_five_steps(const HeavyTop<double>& top, const I& in) {
    typename I::State s;
    in.initialize(top, scenarios::HeavyTopPrecession().initial(), 0.0, s);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(in.step(top, s, i * h, h).status, Status::ok);
    return s;
  }
  const HeavyTop<double> top = loaded_top();
  const I in;
  const typename I::State s = after_five_steps(top, in);
  const decltype(in.discretization(top, s, 5 * h, h)) d = in.discretization(top, s, 5 * h, h);
  const Vec4<double> q1 = d.predictor() + Vec4<double>(1e-4, -2e-4, 3e-4, 1e-4);
};

template <LivensRule Rule>
void check_rigid_body() {
  using I = typename SixthStep<Rule>::I;
  const SixthStep<Rule> f;
  const auto& [top, in, s, d, q1] = f;
  const Vec<double, 1> lambda(0.37);

  const typename I::ReducedStep reduced(d);
  const double e_reduced = jacobian_error<5>(reduced, reduced.predictor(q1, lambda));
  const typename I::FullStep full(d);
  Vec<double, 13> xf = full.predictor(q1, lambda);
  xf.segment<4>(4) += Vec4<double>(0.3, -0.1, 0.2, 0.05);  // v¹ off eq. (101)
  xf.segment<4>(8) += Vec4<double>(1e-3, 2e-3, -1e-3, 5e-4);
  const double e_full = jacobian_error<13>(full, xf);
  const typename I::NullSpaceStep nullspace(d);
  const double e_null = jacobian_error<3>(nullspace, nullspace.predictor(q1, lambda));
  // Measured: 3e-11 … 1.4e-10 for all three (finite-difference truncation and round-off).
  EXPECT_LE(e_reduced, 1e-7);
  EXPECT_LE(e_full, 1e-7);
  EXPECT_LE(e_null, 1e-7);
  std::printf("rule %d: reduced %.1e, full %.1e, nullspace %.1e\n", int(Rule), e_reduced, e_full, e_null);

  // The closed form of eq. (103) equals the chain rule through the discrete derivatives (87).
  Vec4<double> r1, r2;
  Mat4<double> j1, j2;
  d.reduced_balance(q1, r1, &j1);
  livens::reduced_balance_from_terms(d, q1, r2, &j2);
  EXPECT_LE((r1 - r2).cwiseAbs().maxCoeff(), 1e-12 * r2.cwiseAbs().maxCoeff());
  EXPECT_LE((j1 - j2).cwiseAbs().maxCoeff(), 1e-12 * j2.cwiseAbs().maxCoeff());
  EXPECT_LE((d.end_momentum(q1) - livens::end_momentum_from_terms(d, q1)).cwiseAbs().maxCoeff(),
            1e-12 * s.p.cwiseAbs().maxCoeff());
}

// V(q) = ½qᵀHq (rigid_body_potential.hpp) is the polynomial loads.potential off the unit sphere too.
TEST(LivensJacobian, GravityPotentialHessian) {
  const HeavyTop<double> top = loaded_top();
  const Mat4<double> hess = gravity_potential_hessian(top.loads);
  for (const Vec4<double>& q : {Vec4<double>(0.3, -1.2, 0.7, 0.4), Vec4<double>(1, 0, 0, 0), Vec4<double>(-0.2, 0.5, 0.1, 2.0)})
    EXPECT_NEAR(0.5 * q.dot(hess * q), top.loads.potential(q), 1e-15 * (1 + q.squaredNorm()));
  EXPECT_LE((hess - hess.transpose()).cwiseAbs().maxCoeff(), 0.0);
}

TEST(LivensJacobian, RigidBodyEml) { check_rigid_body<LivensRule::energy_momentum>(); }
TEST(LivensJacobian, RigidBodyMidpoint) { check_rigid_body<LivensRule::midpoint>(); }

/// The λ-eliminated system that REML runs for rigid bodies (livens_rigid_body.hpp): its Jacobian
/// against finite differences, its residual-only path against evaluate(), and its solution against
/// the 5-unknown form of eq. (103) from the same start (q¹ and λ).
template <LivensRule Rule>
void check_eliminated() {
  using I = typename SixthStep<Rule>::I;
  const SixthStep<Rule> f;
  const auto& [top, in, s, d, q1] = f;
  const typename I::EliminatedStep eliminated(d);
  const double e = jacobian_error<4>(eliminated, q1);
  Vec4<double> r1, r2;
  Mat4<double> unused;
  eliminated.evaluate(q1, r1, unused);
  eliminated.residual(q1, r2);
  EXPECT_EQ(r1, r2);

  Vec4<double> x4 = eliminated.predictor(d.predictor(), s.lambda);
  ASSERT_EQ((newton_solve<double, 4>(eliminated, x4, in.settings.newton).status), Status::ok);
  const typename I::ReducedStep reduced(d);
  Vec<double, 5> x5 = reduced.predictor(d.predictor(), s.lambda);
  ASSERT_EQ((newton_solve<double, 5>(reduced, x5, in.settings.newton).status), Status::ok);
  const double dq = (x4 - x5.head<4>()).cwiseAbs().maxCoeff();
  const double dl = std::abs(eliminated.end_point(x4).lambda[0] - x5[4]) / std::abs(x5[4]);
  // Measured (EML / MPL): Jacobian 3.6e-11 / 2.6e-11, |Δq¹| 1.1e-16 / 5.6e-17, |Δλ|/|λ| 1.7e-15 / 8.4e-16.
  EXPECT_LE(e, 1e-7);
  EXPECT_LE(dq, 1e-14);
  EXPECT_LE(dl, 1e-12);
  std::printf("rule %d: eliminated Jacobian %.1e, |dq| %.1e, |dlambda|/|lambda| %.1e\n", int(Rule), e, dq, dl);
}

TEST(LivensJacobian, EliminatedEml) { check_eliminated<LivensRule::energy_momentum>(); }
TEST(LivensJacobian, EliminatedMidpoint) { check_eliminated<LivensRule::midpoint>(); }

template <LivensRule Rule>
double hamiltonian_error() {
  const HeavyTop<double> top = loaded_top();
  HamiltonianQuaternion<HeavyTop<double>, Rule> in;
  typename HamiltonianQuaternion<HeavyTop<double>, Rule>::State s;
  in.initialize(top, scenarios::HeavyTopPrecession().initial(), 0.0, s);
  const hamiltonian::Step<double, Rule> sys(top, s.q, s.p, 0.0, 2e-3);
  Vec<double, 9> x;
  x << s.q + Vec4<double>(1e-2, -2e-2, 3e-2, 1e-2), s.p + Vec4<double>(1e-3, 2e-3, -1e-3, 5e-4), 0.37;
  return jacobian_error<9>(sys, x);
}

// Measured: EMH 2.8e-11, MPH 2.9e-11.
TEST(LivensJacobian, Hamiltonian) {
  const double emh = hamiltonian_error<LivensRule::energy_momentum>(), mph = hamiltonian_error<LivensRule::midpoint>();
  EXPECT_LE(emh, 1e-7);
  EXPECT_LE(mph, 1e-7);
  std::printf("EMH %.1e, MPH %.1e\n", emh, mph);
}

}  // namespace
