// The shared LU and Newton driver, and the integrators' use of it at the edge where the old state
// gives no scale (a body at rest whose load switches on).
#include <gtest/gtest.h>

#include <cmath>

#include "quatstep/quatstep.hpp"

namespace {

using namespace quatstep;

TEST(Lu, SolvesWithPivotingAndFlagsSingularMatrices) {
  Eigen::Matrix<double, 4, 4> a;
  a << 0, 2, 1, 0,  //
      1, 0, 0, 3,   //
      0, 0, 4, 1,   //
      2, 1, 0, 0;   // zero (0,0) pivot: needs a row exchange
  const Vec<double, 4> x(1, -2, 3, 0.5);
  const Lu<double, 4> lu(a);
  ASSERT_FALSE(lu.singular);
  EXPECT_LE((lu.solve(a * x) - x).lpNorm<Eigen::Infinity>(), 8 * DBL_EPSILON);  // measured 2.2e-16

  Eigen::Matrix<double, 4, 4> s = a;
  s.row(3) = s.row(0) + s.row(1);  // rank 3: exactly singular in floating point
  s.row(3) -= s.row(0) + s.row(1);
  EXPECT_TRUE((Lu<double, 4>(s).singular));
  a(2, 2) = NAN;
  EXPECT_TRUE((Lu<double, 4>(a).singular));
}

// I = 1 about every axis, body torque sin(t) about x from rest: τ(0) = 0, ω(0) = 0, ω̇(0) = 0, so the
// old state carries no velocity scale. Exact: ω_x = 1 − cos t.
template <class Integrator>
void spin_up_from_rest(const Integrator& integrator) {
  HeavyTop<double> body;
  body.loads.body_torque.amplitude = {1, 0, 0};
  body.loads.body_torque.frequency = 1;
  RigidBodyKinematics<double> k;
  typename Integrator::State s;
  ASSERT_EQ(integrator.initialize(body, k, 0.0, s), Status::ok);
  const double h = 1e-2;
  for (int i = 0; i < 100; ++i) {
    const auto out = integrator.step(body, s, i * h, h);
    ASSERT_EQ(out.status, Status::ok) << "step " << i;
    ASSERT_LE(out.iterations, 4) << "step " << i;
  }
  const double w = integrator.kinematics(body, s).omega_body[0];
  EXPECT_NEAR(w, 1 - std::cos(1.0), 1e-4) << "second-order method at h = 1e-2";
}

TEST(NewtonFromRest, ModifiedHhtConverges) { spin_up_from_rest(ModifiedHht<HeavyTop<double>>()); }
TEST(NewtonFromRest, ModifiedHhtShiftConverges) {
  HhtSettings<double> st;
  st.inertia_shift = true;
  spin_up_from_rest(ModifiedHht<HeavyTop<double>>(st));
}
TEST(NewtonFromRest, HhtConverges) { spin_up_from_rest(Hht<HeavyTop<double>>()); }
TEST(NewtonFromRest, SimoVuQuocConverges) { spin_up_from_rest(SimoVuQuoc<HeavyTop<double>>()); }

}  // namespace

namespace {
TEST(NewtonFromRest, Zupan3Converges) { spin_up_from_rest(quatstep::Zupan3<quatstep::HeavyTop<double>>()); }
TEST(NewtonFromRest, ExplicitNewmarkLieConverges) {
  spin_up_from_rest(quatstep::ExplicitNewmarkLie<quatstep::HeavyTop<double>>());
}
TEST(NewtonFromRest, MidpointLieConverges) { spin_up_from_rest(quatstep::MidpointLie<quatstep::HeavyTop<double>>()); }
}  // namespace
