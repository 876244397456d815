// The analytic Newton Jacobians of the Lie-group schemes against central finite differences of
// their residuals: Krysl's incremental-rotation system (with and without the LIEMID[I] midpoint
// torque) and both stages of Zupan3, on bodies whose torque depends on the orientation.
#include <gtest/gtest.h>

#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "zupan_rotation_field.hpp"

using namespace quatstep;
using quatstep::testing::ZupanPrescribedBody;

namespace {

/// max |J_analytic − J_fd| / max |J_analytic|, central differences with step 1e-6.
template <class System>
double jacobian_error(const System& sys, const Vec3<double>& x) {
  Vec3<double> r;
  Mat3<double> jac, fd;
  sys.evaluate(x, r, jac);
  const double d = 1e-6;
  for (int j = 0; j < 3; ++j) {
    Vec3<double> xp = x, xm = x, rp, rm;
    Mat3<double> unused;
    xp[j] += d;
    xm[j] -= d;
    sys.evaluate(xp, rp, unused);
    sys.evaluate(xm, rm, unused);
    fd.col(j) = (rp - rm) / (2 * d);
  }
  return (jac - fd).cwiseAbs().maxCoeff() / jac.cwiseAbs().maxCoeff();
}

HeavyTop<double> tilted_top() {
  auto top = HeavyTop<double>::from_center_of_mass({0.2, 0.5, 0.3}, 15.0, {0.1, 1.0, -0.2}, {0, 0, -9.81});
  top.loads.spatial_torque.amplitude = Vec3<double>(0.5, -1.0, 2.0);
  top.loads.spatial_torque.frequency = 3.0;
  return top;
}
const Vec4<double> e0 = quat_from_rotation_vector<double>(Vec3<double>(0.4, -0.3, 1.1));

TEST(LieJacobians, IncrementalRotationMatchesFiniteDifferences) {
  const auto top = tilted_top();
  const Vec3<double> b(1.5, -2.0, 0.7), psi(0.3, -0.5, 0.7);
  for (bool midpoint : {false, true}) {
    const IncrementalRotation<HeavyTop<double>> sys(top, e0, b, 0.1, midpoint, 0.4);
    const double err = jacobian_error(sys, psi);
    // measured: 5.3e-11 (Φ, Φ*), 4.9e-11 (LIEMID[I]); without the midpoint-torque term 1.7e-2
    EXPECT_LT(err, 1e-8) << (midpoint ? "LIEMID[I]" : "Φ/Φ*") << " relative Jacobian error " << err;
  }
}

template <class Model>
void check_zupan_stages(const Model& model, double t) {
  const Zupan3<Model> z;
  RigidBodyKinematics<double> k;
  k.quaternion = e0;
  k.omega_body = Vec3<double>(1.0, -2.5, 4.0);
  typename Zupan3<Model>::State s;
  ASSERT_EQ(z.initialize(model, k, t, s), Status::ok);
  const double h = 0.05;
  const auto first = Zupan3<Model>::Step::first(model, s, t, h);
  const auto second = Zupan3<Model>::Step::second(model, s, Vec3<double>(1.1, -2.4, 3.9), Vec3<double>(0.5, 0.2, -1.0), t, h);
  const Vec3<double> wbar(1.05, -2.45, 3.95);
  const double e1 = jacobian_error(first, wbar), e2 = jacobian_error(second, wbar);
  // measured: 1.5e-10 / 2.4e-10 (heavy top), 2.6e-10 / 2.4e-10 (Zupan body)
  EXPECT_LT(e1, 1e-8) << "Zupan3 stage 1 relative Jacobian error " << e1;
  EXPECT_LT(e2, 1e-8) << "Zupan3 stage 2 relative Jacobian error " << e2;
}

TEST(LieJacobians, Zupan3StagesMatchFiniteDifferences) {
  check_zupan_stages(tilted_top(), 0.4);
  check_zupan_stages(ZupanPrescribedBody(2), 2.3);
}

}  // namespace
