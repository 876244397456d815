// The mechanisms of the mechanism tests, each with an initial state on its position and velocity
// constraints (built from the joint geometry, exact to round-off):
//   double_pendulum  two boxes on spherical joints, swinging and spinning in 3-D under gravity
//   slider_crank     crank (revolute to the ground), connecting rod (spherical at the crank pin,
//                    universal at the piston pin), slider (prismatic to the ground) on a spring,
//                    under gravity — the non-redundant joint set of one V8 cylinder (12 rows)
//   four_bar         Kinon & Betsch §5.5 with the data of docs/errata.md K5: four bars in a square
//                    loop on spherical joints, free in space, pushed by f = 8 f(t) e₁, τ = 6 f(t) e₁
//                    at bar 1's centre during t ∈ [0, 1] (the hat f(t), f_m = 100)
#pragma once

#include <cmath>

#include "quatstep/mechanism/builder.hpp"
#include "quatstep/mechanism/dynamics.hpp"

namespace quatstep::testing {

using mechanism::ground;
using mechanism::JointFrame;
using mechanism::JointType;
using mechanism::MechanismBuilder;

template <class Cap>
struct TestMechanism {
  using Mech = mechanism::Mechanism<double, Cap>;
  MechanismBuilder<double> builder;
  Mech mech;
  mechanism::MechanismKinematics<double, Cap::bodies> initial;
};

/// Principal moments of a homogeneous box with edges (a, b, c) along its body axes.
inline Vec3<double> box_inertia(double mass, double a, double b, double c) {
  return mass / 12.0 * Vec3<double>(b * b + c * c, a * a + c * c, a * a + b * b);
}

/// A body's kinematics from its orientation, centre of mass, spatial angular velocity and
/// centre-of-mass velocity.
inline RigidBodyKinematics<double> pose(const Vec4<double>& e, const Vec3<double>& r, const Vec3<double>& omega_spatial,
                                        const Vec3<double>& v) {
  return RigidBodyKinematics<double>::of(e, rotation_matrix(e).transpose() * omega_spatial, r, v);
}

inline Vec4<double> about(const Vec3<double>& axis, double angle) {
  return quat_from_rotation_vector<double>(angle * axis.normalized());
}

inline JointFrame<double> at(const Vec3<double>& origin) {
  JointFrame<double> f;
  f.origin = origin;
  return f;
}

/// Two 0.2 × 0.3 × 1 boxes of 1 kg hanging from the origin on spherical joints (body z along the
/// box), tilted out of plane and spinning about skew axes; gravity −9.81 e_z.
template <class Cap>
TestMechanism<Cap> double_pendulum() {
  TestMechanism<Cap> t;
  auto& b = t.builder;
  const Vec3<double> J = box_inertia(1.0, 0.2, 0.3, 1.0);
  const int upper = b.add_body("upper", 1.0, J), lower = b.add_body("lower", 1.0, J);
  const Vec3<double> top(0, 0, 0.5), bottom(0, 0, -0.5);
  b.add_joint("pivot", JointType::spherical, ground, at(Vec3<double>::Zero()), upper, at(top));
  b.add_joint("elbow", JointType::spherical, upper, at(bottom), lower, at(top));
  b.set_gravity(Vec3<double>(0, 0, -9.81));
  t.mech = b.template build<Cap>();

  const Vec4<double> e0 = about(Vec3<double>(1, 0.2, 0), 0.5), e1 = about(Vec3<double>(0.3, 1, 0.1), -0.8);
  const Vec3<double> w0(1.0, -2.0, 3.0), w1(-2.0, 1.5, -4.0);  // spatial
  const Mat3<double> R0 = rotation_matrix(e0), R1 = rotation_matrix(e1);
  const Vec3<double> r0 = -R0 * top, elbow = R0 * bottom + r0, r1 = elbow - R1 * top;
  const Vec3<double> v0 = w0.cross(r0), v_elbow = w0.cross(elbow), v1 = v_elbow + w1.cross(r1 - elbow);
  t.initial.body[upper] = pose(e0, r0, w0, v0);
  t.initial.body[lower] = pose(e1, r1, w1, v1);
  return t;
}

/// Crank 0.1 m (revolute about e_z at the origin), rod 0.4 m, slider on the x axis (prismatic along
/// e_x) tied by a spring (k = 200 N/m, rest length 0.5 m, damping `damping`) to the ground point
/// (0.9, 0, 0); gravity −9.81 e_y; crank at 0.3 rad turning at 10 rad/s.
template <class Cap>
TestMechanism<Cap> slider_crank(double damping = 0.0) {
  TestMechanism<Cap> t;
  auto& b = t.builder;
  const double crank_r = 0.1, rod = 0.4;
  const int crank = b.add_body("crank", 1.0, Vec3<double>(1e-3, 5e-3, 5e-3));
  const int conrod = b.add_body("conrod", 0.5, box_inertia(0.5, rod, 0.03, 0.03));
  const int slider = b.add_body("slider", 0.8, Vec3<double>(1e-3, 1e-3, 1e-3));
  b.add_joint("main bearing", JointType::revolute, ground, at(Vec3<double>::Zero()), crank, at(Vec3<double>::Zero()));
  b.add_joint("crank pin", JointType::spherical, crank, at(Vec3<double>(crank_r, 0, 0)), conrod,
              at(Vec3<double>(-rod / 2, 0, 0)));
  // Arms: the rod's body y on the rod, e_z on the slider; the rod cannot spin about its own axis.
  b.add_joint("piston pin", JointType::universal, conrod,
              mechanism::frame_with_axis<double>(Vec3<double>(rod / 2, 0, 0), Vec3<double>::UnitY()), slider,
              mechanism::frame_with_axis<double>(Vec3<double>::Zero(), Vec3<double>::UnitZ()));
  const JointFrame<double> slide = mechanism::frame_with_axis<double>(Vec3<double>::Zero(), Vec3<double>::UnitX(),
                                                                      Vec3<double>::UnitY());
  b.add_joint("cylinder", JointType::prismatic, ground, slide, slider, slide);
  b.add_spring("return spring", slider, Vec3<double>::Zero(), ground, Vec3<double>(0.9, 0, 0), 200.0, damping, 0.5);
  b.set_gravity(Vec3<double>(0, -9.81, 0));
  t.mech = b.template build<Cap>();

  const double theta = 0.3, omega = 10.0;
  const Vec3<double> z = Vec3<double>::UnitZ();
  const Vec3<double> pin(crank_r * std::cos(theta), crank_r * std::sin(theta), 0);
  const Vec3<double> pin_v = omega * z.cross(pin);
  const double dx = std::sqrt(rod * rod - pin[1] * pin[1]);
  const Vec3<double> piston(pin[0] + dx, 0, 0);
  const Vec3<double> piston_v(pin_v[0] - pin[1] * pin_v[1] / dx, 0, 0);
  const double phi = std::atan2(-pin[1], dx);  // rod angle about e_z
  const Vec3<double> d = piston - pin, dd = piston_v - pin_v;
  const double phi_dot = (d[0] * dd[1] - d[1] * dd[0]) / d.squaredNorm();
  t.initial.body[crank] = pose(about(z, theta), Vec3<double>::Zero(), omega * z, Vec3<double>::Zero());
  t.initial.body[conrod] = pose(about(z, phi), 0.5 * (pin + piston), phi_dot * z, 0.5 * (pin_v + piston_v));
  t.initial.body[slider] = pose(Vec4<double>(1, 0, 0, 0), piston, Vec3<double>::Zero(), piston_v);
  return t;
}

/// The hat f(t) of Kinon eq. (127): 2 f_m t on [0, 0.5], 2 f_m (1 − t) on (0.5, 1], then 0; as two
/// timed profiles of `scale`·f(t) along `direction`.
template <class Cap>
void add_hat_load(MechanismBuilder<double>& b, int body, mechanism::LoadKind kind, const Vec3<double>& direction,
                  double f_m) {
  TimeProfile<double> rise, fall;
  rise.ramp = 2 * f_m * direction;
  fall.constant = 2 * f_m * direction;
  fall.ramp = -2 * f_m * direction;
  b.add_load(body, kind, rise, 0.0, 0.5);
  b.add_load(body, kind, fall, 0.5, 1.0);
}

/// Kinon §5.5 / docs/errata.md K5: bars of length 10, unit square section, ρ = 1 (m = 10, inertia
/// 1.667 about the long axis, 84.17 about the others); centres (5,0,0), (0,5,0), (−5,0,0), (0,−5,0);
/// bars 1 and 3 along body e₂, 2 and 4 along body e₁; identity orientations; spherical joints at
/// the corners; f = 8 f(t) e₁ and τ = 6 f(t) e₁ (spatial) at bar 1's centre, f_m = 100. `spin`
/// adds a rigid rotation of the whole loop about e_z (docs/errata.md S10's variant).
template <class Cap>
TestMechanism<Cap> four_bar(double spin = 0.0, double f_m = 100.0) {
  TestMechanism<Cap> t;
  auto& b = t.builder;
  const double l = 10, m = 10;
  const double axial = m * 2.0 / 12.0, transverse = m * (l * l + 1.0) / 12.0;
  const Vec3<double> along_y(transverse, axial, transverse), along_x(axial, transverse, transverse);
  const int bar1 = b.add_body("bar 1", m, along_y), bar2 = b.add_body("bar 2", m, along_x);
  const int bar3 = b.add_body("bar 3", m, along_y), bar4 = b.add_body("bar 4", m, along_x);
  const double h = l / 2;
  b.add_joint("corner 12", JointType::spherical, bar1, at(Vec3<double>(0, h, 0)), bar2, at(Vec3<double>(h, 0, 0)));
  b.add_joint("corner 23", JointType::spherical, bar2, at(Vec3<double>(-h, 0, 0)), bar3, at(Vec3<double>(0, h, 0)));
  b.add_joint("corner 34", JointType::spherical, bar3, at(Vec3<double>(0, -h, 0)), bar4, at(Vec3<double>(-h, 0, 0)));
  b.add_joint("corner 41", JointType::spherical, bar4, at(Vec3<double>(h, 0, 0)), bar1, at(Vec3<double>(0, -h, 0)));
  if (f_m != 0.0) {
    add_hat_load<Cap>(b, bar1, mechanism::LoadKind::force, 8.0 * Vec3<double>::UnitX(), f_m);
    add_hat_load<Cap>(b, bar1, mechanism::LoadKind::spatial_torque, 6.0 * Vec3<double>::UnitX(), f_m);
  }
  t.mech = b.template build<Cap>();
  const Vec3<double> centres[4] = {{h, 0, 0}, {0, h, 0}, {-h, 0, 0}, {0, -h, 0}};
  const Vec3<double> w = spin * Vec3<double>::UnitZ();
  for (int k = 0; k < 4; ++k) t.initial.body[k] = pose(Vec4<double>(1, 0, 0, 0), centres[k], w, w.cross(centres[k]));
  return t;
}

}  // namespace quatstep::testing
