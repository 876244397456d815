// Kinon & Betsch 2024 §5.1–5.2: the generic form (eqs. 72a–d, App. A) on models with a singular
// (mass-spring with a redundant coordinate) and a configuration-dependent (spring pendulum in
// spherical coordinates) mass matrix.
#include <gtest/gtest.h>

#include <cmath>

#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/models/mass_spring_redundant.hpp"
#include "quatstep/models/spring_pendulum_spherical.hpp"

using namespace quatstep;

namespace {

struct Trace {
  Status status = Status::ok;
  double energy0 = 0, max_energy_increment = 0, max_constraint = 0, total_energy_spread = 0;
  double max_gap = 0;  ///< max |E − E_tot| (generalized vs total energy, eqs. 74 and 80)
  Vec<double, 3> q;
};

template <class I>
Trace run(const typename I::ModelType& model, const Vec<double, 3>& q0, const Vec<double, 3>& v0, double h,
          double t_end, double tolerance = 1e-12) {
  LivensSettings<double> s;
  s.newton.tolerance = tolerance;
  const I in(s);
  typename I::State st;
  Trace tr;
  tr.status = in.initialize(model, q0, v0, st);
  const auto total = [&](const typename I::State& x) { return 0.5 * x.v.dot(model.mass_matrix(x.q) * x.v) + model.potential(x.q); };
  tr.energy0 = in.generalized_energy(model, st);
  double previous = tr.energy0, tmin = total(st), tmax = tmin;
  for (long i = 0; i < std::lround(t_end / h) && tr.status == Status::ok; ++i) {
    tr.status = in.step(model, st, i * h, h).status;
    const double e = in.generalized_energy(model, st), et = total(st);
    tr.max_energy_increment = std::max(tr.max_energy_increment, std::abs(e - previous));
    previous = e;
    tmin = std::min(tmin, et);
    tmax = std::max(tmax, et);
    tr.max_gap = std::max(tr.max_gap, std::abs(e - et));
    if constexpr (I::m > 0) tr.max_constraint = std::max(tr.max_constraint, std::abs(model.constraint(st.q)[0]));
  }
  tr.total_energy_spread = (tmax - tmin) / std::abs(tr.energy0);
  tr.q = st.q;
  return tr;
}

using Spring = MassSpringRedundant<double>;
using Pendulum = SpringPendulumSpherical<double>;
const Vec<double, 3> spring_q0(0, 1.1, 0), spring_v0(1, 1, -1);      // §5.1
const Vec<double, 3> pendulum_q0(1.05, M_PI / 2, 0), pendulum_v0(0, 1, 1);  // §5.2

// §5.1, Table 2 (h = 0.1, t ∈ [0, 10]). Measured: generalized energy increments 3.6e-15 relative,
// |g| ≤ 2.2e-16; E equals the total energy (80) exactly here since M is constant (Prop. 4.6);
// reduced and full agree to 1.9e-14. MPL's energy varies by 3.7e-3 relative.
TEST(LivensGeneric, MassSpringWithRedundantCoordinate) {
  const Spring model;
  const auto eml = run<LivensEm<Spring>>(model, spring_q0, spring_v0, 0.1, 10.0);
  ASSERT_EQ(eml.status, Status::ok);
  EXPECT_LE(eml.max_energy_increment / eml.energy0, 1e-13);
  EXPECT_LE(eml.max_constraint, 1e-13);
  EXPECT_LE(eml.max_gap / eml.energy0, 1e-13);
  const auto full = run<LivensEm<Spring, LivensVariant::full>>(model, spring_q0, spring_v0, 0.1, 10.0);
  EXPECT_LE((full.q - eml.q).cwiseAbs().maxCoeff(), 1e-10);
  const auto mpl = run<LivensMidpoint<Spring>>(model, spring_q0, spring_v0, 0.1, 10.0);
  EXPECT_GE(mpl.total_energy_spread, 1e-5);
  std::printf("EML: dE %.2e, |g| %.2e, |E − E_tot| %.2e, |full − reduced| %.2e; MPL energy spread %.2e\n",
              eml.max_energy_increment / eml.energy0, eml.max_constraint, eml.max_gap / eml.energy0,
              (full.q - eml.q).cwiseAbs().maxCoeff(), mpl.total_energy_spread);
}

// §5.2, Table 3 (h = 0.01, t ∈ [0, 1]). The stiff spring (EA = 300) turns a Newton error into an
// energy error: increments 1.3e-12 / 1.3e-13 / 3.2e-14 relative at tolerance 1e-10 / 1e-12 / 1e-13
// (2.0 / 2.8 / 3.0 iterations per step), 3.2e-14 also at 1e-14 (the round-off floor), so 1e-13 here.
// The total energy (80) varies by 1.9e-4 relative (paper Fig. 4: "order of 1e-4"); the null-space
// form is refused at compile time (no quaternion: LivensIntegrator's static_assert).
TEST(LivensGeneric, SpringPendulumInSphericalCoordinates) {
  const Pendulum model;
  const auto eml = run<LivensEm<Pendulum>>(model, pendulum_q0, pendulum_v0, 0.01, 1.0, 1e-13);
  ASSERT_EQ(eml.status, Status::ok);
  EXPECT_LE(eml.max_energy_increment / eml.energy0, 1e-13);
  EXPECT_GE(eml.total_energy_spread, 1e-6);
  const auto full = run<LivensEm<Pendulum, LivensVariant::full>>(model, pendulum_q0, pendulum_v0, 0.01, 1.0, 1e-13);
  EXPECT_LE((full.q - eml.q).cwiseAbs().maxCoeff(), 1e-10);
  static_assert(!livens_variant_applies<Pendulum, LivensVariant::nullspace>, "LivensEm<Pendulum, nullspace> compiles");
  std::printf("EML: dE %.2e, total energy spread %.2e, |full − reduced| %.2e\n", eml.max_energy_increment / eml.energy0,
              eml.total_energy_spread, (full.q - eml.q).cwiseAbs().maxCoeff());
}

/// max |J − J_fd| / max |J| (central differences).
template <int K, class System>
double jacobian_error(const System& sys, const Vec<double, K>& x) {
  Vec<double, K> r, rp, rm;
  Eigen::Matrix<double, K, K> jac, fd, unused;
  sys.evaluate(x, r, jac);
  for (int j = 0; j < K; ++j) {
    const double d = 1e-6 * std::max(1.0, std::abs(x[j]));
    Vec<double, K> xp = x, xm = x;
    xp[j] += d;
    xm[j] -= d;
    sys.evaluate(xp, rp, unused);
    sys.evaluate(xm, rm, unused);
    fd.col(j) = (rp - rm) / (2 * d);
  }
  return (jac - fd).cwiseAbs().maxCoeff() / jac.cwiseAbs().maxCoeff();
}

template <class I>
void check_jacobians(const typename I::ModelType& model, const Vec<double, 3>& q0, const Vec<double, 3>& v0) {
  const I in;
  typename I::State s;
  in.initialize(model, q0, v0, s);
  const auto d = in.discretization(model, s, 0.0, 0.05);
  const Vec<double, 3> q1 = q0 + 0.05 * v0 + Vec<double, 3>(0.01, -0.02, 0.015);
  const Vec<double, I::m> lambda = Vec<double, I::m>::Constant(0.3);
  const typename I::ReducedStep reduced(d);
  const typename I::FullStep full(d);
  auto xf = full.predictor(q1, lambda);
  xf.template segment<3>(3) += Vec<double, 3>(0.1, -0.2, 0.05);
  xf.template segment<3>(6) += Vec<double, 3>(0.02, 0.01, -0.03);
  const double er = jacobian_error<I::ReducedStep::K>(reduced, reduced.predictor(q1, lambda));
  const double ef = jacobian_error<I::FullStep::K>(full, xf);
  EXPECT_LE(er, 1e-7);
  EXPECT_LE(ef, 1e-7);
  std::printf("reduced %.1e, full %.1e\n", er, ef);
}

// Measured 1.4e-11 … 6.5e-11 (finite-difference truncation and round-off), Gonzalez corrections included.
TEST(LivensGeneric, Jacobians) {
  check_jacobians<LivensEm<Spring>>(Spring(), spring_q0, spring_v0);
  check_jacobians<LivensMidpoint<Spring>>(Spring(), spring_q0, spring_v0);
  check_jacobians<LivensEm<Pendulum>>(Pendulum(), pendulum_q0, pendulum_v0);
  check_jacobians<LivensMidpoint<Pendulum>>(Pendulum(), pendulum_q0, pendulum_v0);
}

}  // namespace
