// A crank drive of the kind of Sherif §10.2 (which gives no geometry): a crank shaft turning about
// e_x on one revolute joint (5 rows), and per cylinder a connecting rod and a piston held by the
// non-redundant joint set spherical (crank pin, 3 rows) + universal (piston pin, 4) + prismatic
// (cylinder, 5): 12 rows for the rod's and the piston's 12 degrees of freedom. The V8 has
// 17 bodies, 119 coordinates and 17 + 101 = 118 constraints, the count of §10.2; the inline four
// has 9 bodies (the 9-body case of the solver measurements).
//
// Dimensions (a 5-litre class V8; stated because the paper has none):
//   crank throw r = 45 mm (stroke 90 mm), rod centre distance l = 150 mm, bore spacing 110 mm along
//   e_x, the two rods of a pin 22 mm apart; banks at ±45° from e_z (a 90° V); cross-plane crank,
//   throws at 0°, 90°, 270°, 180°;
//   crank shaft 20 kg, principal inertia (0.05, 0.6, 0.6) kg m² about its centre of mass on the
//   axis (balanced by its counterweights);
//   connecting rod 0.6 kg, centre of mass 55 mm from the big end, inertia (1.1e-3, 1.2e-3, 1.5e-4)
//   kg m² in rod axes (x along the pin, z along the rod);
//   piston (with pin and rings) 0.5 kg, inertia (6e-4, 6e-4, 5e-4) kg m², pin at its centre of mass;
//   gravity −9.81 e_z. The inline four has the V8's first bank only, vertical (0°), throws at
//   0°, 180°, 180°, 0°.
// Loads: a torque on the crank about e_x (Sherif Fig. 7 is not given either: a constant drive).
#pragma once

#include <cmath>

#include "mechanisms.hpp"

namespace quatstep::testing {

struct EngineGeometry {
  int banks = 2;
  double bank_angle = M_PI / 4;  ///< each bank's tilt from e_z
  int throws = 4;
  double throw_phase[4] = {0.0, M_PI / 2, 3 * M_PI / 2, M_PI};
  double crank_radius = 0.045, rod_length = 0.15, rod_com = 0.055;  ///< rod_com: from the big end
  double bore_spacing = 0.11, rod_offset = 0.011;
  double crank_mass = 20.0, rod_mass = 0.6, piston_mass = 0.5;
  Vec3<double> crank_inertia{0.05, 0.6, 0.6}, rod_inertia{1.1e-3, 1.2e-3, 1.5e-4}, piston_inertia{6e-4, 6e-4, 5e-4};
};

inline EngineGeometry v8_geometry() { return EngineGeometry{}; }
inline EngineGeometry inline_four_geometry() {
  EngineGeometry g;
  g.banks = 1;
  g.bank_angle = 0.0;
  const double phase[4] = {0.0, M_PI, M_PI, 0.0};
  for (int k = 0; k < 4; ++k) g.throw_phase[k] = phase[k];
  return g;
}

/// The engine at crank angle theta turning at omega, driven by `torque` about e_x.
template <class Cap>
TestMechanism<Cap> engine(const EngineGeometry& g, double theta, double omega, double torque) {
  TestMechanism<Cap> t;
  auto& b = t.builder;
  const Vec3<double> X = Vec3<double>::UnitX();
  const int crank = b.add_body("crank shaft", g.crank_mass, g.crank_inertia);
  b.add_joint("main bearings", JointType::revolute, ground, mechanism::frame_with_axis<double>(Vec3<double>::Zero(), X),
              crank, mechanism::frame_with_axis<double>(Vec3<double>::Zero(), X));
  TimeProfile<double> drive;
  drive.constant = torque * X;
  b.add_load(crank, mechanism::LoadKind::body_torque, drive);
  b.set_gravity(Vec3<double>(0, 0, -9.81));

  struct Cylinder {
    int rod, piston;
    double x, phase;
    Vec3<double> axis;
  };
  Cylinder cyl[8];
  int n = 0;
  for (int k = 0; k < g.throws; ++k)
    for (int bank = 0; bank < g.banks; ++bank) {
      const double side = g.banks == 1 ? 0.0 : (bank == 0 ? -1.0 : 1.0);
      const double x = (k - 0.5 * (g.throws - 1)) * g.bore_spacing + side * g.rod_offset;
      const double tilt = side * g.bank_angle;
      const Vec3<double> d(0.0, std::sin(tilt), std::cos(tilt));  // the cylinder axis
      const std::string name = std::to_string(n + 1);
      const int rod = b.add_body("rod " + name, g.rod_mass, g.rod_inertia);
      const int piston = b.add_body("piston " + name, g.piston_mass, g.piston_inertia);
      const Vec3<double> pin(x, g.crank_radius * std::cos(g.throw_phase[k]), g.crank_radius * std::sin(g.throw_phase[k]));
      b.add_joint("crank pin " + name, JointType::spherical, crank, at(pin), rod,
                  at(Vec3<double>(0, 0, -g.rod_com)));
      // Arms: the rod's x (along the pin) and the piston's y (normal to pin and bore); the blocked
      // axis, their cross product, is the bore, so the rod cannot spin about itself.
      const Vec3<double> y = d.cross(X);
      JointFrame<double> piston_frame;
      piston_frame.axes << X, y, d;  // the piston's body axes are spatial (identity orientation)
      JointFrame<double> arm_on_piston = mechanism::frame_with_axis<double>(Vec3<double>::Zero(), y, d);
      b.add_joint("piston pin " + name, JointType::universal, rod,
                  mechanism::frame_with_axis<double>(Vec3<double>(0, 0, g.rod_length - g.rod_com), X,
                                                     Vec3<double>::UnitY()),
                  piston, arm_on_piston);
      JointFrame<double> bore = piston_frame;
      bore.origin = Vec3<double>(x, 0, 0);
      // frame_j on the piston: the same axes at its centre of mass (body coordinates)
      b.add_joint("cylinder " + name, JointType::prismatic, ground, bore, piston, piston_frame);
      cyl[n++] = {rod, piston, x, g.throw_phase[k], d};
    }
  t.mech = b.template build<Cap>();

  // The state at crank angle theta, speed omega (rods in the planes normal to e_x).
  t.initial.body[crank] = pose(about(X, theta), Vec3<double>::Zero(), omega * X, Vec3<double>::Zero());
  for (int c = 0; c < n; ++c) {
    const Cylinder& cy = cyl[c];
    const double psi = theta + cy.phase;
    const Vec3<double> a(0.0, g.crank_radius * std::cos(psi), g.crank_radius * std::sin(psi));  // pin from the axis
    const Vec3<double> a_dot = omega * X.cross(a);
    const double ad = a.dot(cy.axis);
    const double s = ad + std::sqrt(g.rod_length * g.rod_length - a.squaredNorm() + ad * ad);
    const Vec3<double> base(cy.x, 0, 0), A = base + a, B = base + s * cy.axis;
    const Vec3<double> u = (B - A) / g.rod_length;
    const double s_dot = (B - A).dot(a_dot) / (B - A).dot(cy.axis);
    const double phi_dot = X.cross(u).dot(s_dot * cy.axis - a_dot) / g.rod_length;
    Mat3<double> R;
    R << X, u.cross(X), u;
    const Eigen::Quaterniond rod(R);
    const Vec4<double> e(rod.w(), rod.x(), rod.y(), rod.z());
    t.initial.body[cy.rod] =
        pose(e, A + g.rod_com * u, phi_dot * X, a_dot + g.rod_com * phi_dot * X.cross(u));
    t.initial.body[cy.piston] = pose(Vec4<double>(1, 0, 0, 0), B, Vec3<double>::Zero(), s_dot * cy.axis);
  }
  return t;
}

}  // namespace quatstep::testing
