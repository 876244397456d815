// The prescribed-rotation body of Zupan §IV.A checked against its analytic kinematics: the
// jet-derived Ω against Ω = J_r(ϑ) ϑ̇ with ϑ̇ differentiated by hand, and the derived torque
// against the motion it must produce (RK4 of Euler's equations, independent of the jets' Ω̇).
#include <gtest/gtest.h>

#include "zupan_rotation_field.hpp"

using namespace quatstep;
using quatstep::testing::ZupanPrescribedBody;

namespace {

Vec3<double> theta(int load_case, double t) {
  return load_case == 1 ? Vec3<double>(t * t, 0, t / 5) : Vec3<double>(t + std::sin(t), 0, std::cos(t));
}
Vec3<double> theta_dot(int load_case, double t) {
  return load_case == 1 ? Vec3<double>(2 * t, 0, 0.2) : Vec3<double>(1 + std::cos(t), 0, -std::sin(t));
}

TEST(ZupanField, JetKinematicsMatchAnalyticRotationVector) {
  double worst_q = 0, worst_w = 0;
  for (int c : {1, 2}) {
    const ZupanPrescribedBody body(c);
    for (double t : {0.0, 0.05, 0.7, 3.1, 9.4, 15.0}) {
      const auto m = body.exact(t);
      const Vec3<double> w = so3_right_jacobian<double>(theta(c, t)) * theta_dot(c, t);
      worst_q = std::max(worst_q, (m.q - quat_from_rotation_vector<double>(theta(c, t))).norm());
      worst_w = std::max(worst_w, (m.omega - w).norm() / (1 + w.norm()));
    }
  }
  // measured: 1e-16 (q), 4e-15 (Ω, relative)
  EXPECT_LT(worst_q, 1e-14) << "q(t) = exp(ϑ/2), max deviation " << worst_q;
  EXPECT_LT(worst_w, 1e-13) << "Ω = J_r(ϑ)ϑ̇, max relative deviation " << worst_w;
}

/// Classical RK4 on q̇ = ½ q∘Ω, J Ω̇ = R(q)ᵀM(t) − Ω × JΩ; returns the max geodesic error on [0, T].
double rk4_error(const ZupanPrescribedBody& body, double h, double T) {
  using V = Eigen::Matrix<double, 7, 1>;
  const Mat3<double> J = body.inertia, Ji = J.inverse();
  auto f = [&](double t, const V& y) {
    const Vec4<double> q = y.head<4>();
    const Vec3<double> w = y.tail<3>();
    V d;
    d.head<4>() = 0.5 * quat_mul<double>(q, pure(w));
    d.tail<3>() = Ji * (to_body(q, body.spatial_torque(t)) - w.cross(J * w));
    return d;
  };
  const auto k0 = body.exact_kinematics(0);
  V y;
  y << k0.quaternion, k0.omega_body;
  double worst = 0;
  const long n = std::lround(T / h);
  for (long i = 0; i < n; ++i) {
    const double t = i * h;
    const V a = f(t, y), b = f(t + h / 2, y + h / 2 * a), c = f(t + h / 2, y + h / 2 * b), d = f(t + h, y + h * c);
    y += h / 6 * (a + 2 * b + 2 * c + d);
    worst = std::max(worst, quatstep::geodesic_angle(body.exact(t + h).q, Vec4<double>(y.head<4>())));
  }
  return worst;
}

TEST(ZupanField, DerivedTorqueProducesThePrescribedMotion) {
  // A wrong torque would leave an error that does not shrink; RK4 must converge at order 4.
  const double a1 = rk4_error(ZupanPrescribedBody(1), 5e-4, 5 * M_PI);
  const double b1 = rk4_error(ZupanPrescribedBody(1), 2.5e-4, 5 * M_PI);
  const double e2 = rk4_error(ZupanPrescribedBody(2), 1e-3, 5 * M_PI);
  // measured: case (i) 4.76e-7 → 2.95e-8 (ratio 16.2), case (ii) 3.2e-12
  EXPECT_GT(a1 / b1, 14.0) << "case (i): RK4 errors " << a1 << " → " << b1 << " when h halves";
  EXPECT_LT(b1, 1e-7) << "case (i): RK4 with the derived torque, max geodesic error " << b1;
  EXPECT_LT(e2, 1e-10) << "case (ii): RK4 with the derived torque, max geodesic error " << e2;
}

}  // namespace
