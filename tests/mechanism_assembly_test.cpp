// Building and assembling mechanisms from data (builder.hpp, assembly.hpp):
//   - an initial state on the constraints is left as it is;
//   - a slightly inconsistent one (a body 1 mm off, a quaternion 0.1 % off unit length, a wrong
//     slider speed) is projected onto the position and velocity constraints, the correction
//     reported at the size of the error;
//   - a grossly wrong one is refused, and the message names the joint that is violated;
//   - bad descriptions are refused before anything runs, each with a message naming the element
//     and the field;
//   - a driven revolute joint makes the crank follow its angle profile.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "quatstep/mechanism/assembly.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/observables.hpp"
#include "mechanisms.hpp"

namespace quatstep::mechanism {
namespace {

using Cap = SmallCapacity;
using Mech = Mechanism<double, Cap>;
using testing::TestMechanism;

MechanismObservables<double> observe_kinematics(const Mech& m, const MechanismKinematics<double, Cap::bodies>& k,
                                                double t) {
  Dae<Mech>::VecN q, v;
  dae_from_kinematics(m, k, q, v);
  return observe(m, q, v, t);
}

TEST(MechanismAssembly, ConsistentStateIsLeftAlone) {
  const TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  auto k = tm.initial;
  const AssemblyReport<double> r = assemble(tm.mech, k, 0.0);
  std::printf("consistent input: violation %.1e, correction %.1e / %.1e, %d iterations\n", r.position_violation,
              r.position_correction, r.velocity_correction, r.iterations);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_LE(r.position_violation, 1e-15);   // measured 2.8e-16
  EXPECT_LE(r.position_correction, 1e-15);  // none needed
  EXPECT_LE(r.velocity_correction, 1e-14);  // measured 1.7e-15
  EXPECT_EQ(r.iterations, 0);
}

TEST(MechanismAssembly, SmallViolationsAreProjectedAndReported) {
  const TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  auto k = tm.initial;
  k.body[1].position += Vec3<double>(1e-3, -5e-4, 2e-4);  // the rod 1.1 mm off
  k.body[0].quaternion *= 1.001;                           // not unit
  k.body[2].velocity[0] += 0.05;                           // the slider 5 cm/s too fast
  const auto before = observe_kinematics(tm.mech, k, 0.0);
  const AssemblyReport<double> r = assemble(tm.mech, k, 0.0);
  const auto after = observe_kinematics(tm.mech, k, 0.0);
  std::printf("perturbed input: violation %.2e (row %d), velocity violation %.2e; corrections %.2e / %.2e; %d iterations; "
              "residuals after %.1e / %.1e\n",
              r.position_violation, r.worst_row, r.velocity_violation, r.position_correction, r.velocity_correction,
              r.iterations, after.position_residual, after.velocity_residual);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_GT(before.position_residual, 1e-3);
  EXPECT_GT(r.position_violation, 1e-3);
  EXPECT_LE(after.position_residual, 1e-12);
  EXPECT_LE(after.velocity_residual, 1e-12);
  // The corrections are of the size of the errors put in (1.1 mm over a length scale of 0.2 m, a
  // 0.1 % scaling of e, 5 cm/s), not larger.
  EXPECT_GT(r.position_correction, 1e-3);
  EXPECT_LT(r.position_correction, 2e-2);
  EXPECT_GT(r.velocity_correction, 1e-2);
  EXPECT_LT(r.velocity_correction, 1.0);
  EXPECT_LE(r.iterations, 5);  // Gauss–Newton: measured 3
}

TEST(MechanismAssembly, GrossViolationIsRefusedNamingTheJoint) {
  const TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  auto k = tm.initial;
  // The rod turned by 40° about its big end: the crank pin still holds, the piston pin is 0.27 m off.
  const Vec4<double> turn = testing::about(Vec3<double>::UnitZ(), 0.7);
  const Vec3<double> pin = k.body[1].position + rotation_matrix(k.body[1].quaternion) * Vec3<double>(-0.2, 0, 0);
  k.body[1].quaternion = quat_mul(turn, k.body[1].quaternion);
  k.body[1].position = pin + rotation_matrix(turn) * (k.body[1].position - pin);
  const auto given = k;
  const AssemblySettings<double> settings;
  const AssemblyReport<double> r = assemble(tm.mech, k, 0.0, settings);
  const std::string message = tm.builder.assembly_problem(tm.mech, r, settings);
  std::printf("%s\n", message.c_str());
  EXPECT_EQ(r.status, Status::invalid_input);
  EXPECT_NE(message.find("'piston pin' (universal)"), std::string::npos) << message;
  EXPECT_NE(message.find("max_correction"), std::string::npos) << message;
  EXPECT_EQ(k.body[1].position, given.body[1].position);  // left as given
}

// Two coaxial revolute joints hold one body: 10 rows for 5 constraints. Assembly and the consistent
// initial accelerations report the singular constraint Jacobian.
TEST(MechanismAssembly, RedundantJointsAreReported) {
  TestMechanism<Cap> t;
  const int door = t.builder.add_body("door", 10.0, Vec3<double>(1, 1, 1.5));
  for (double z : {0.5, -0.5}) {
    const JointFrame<double> f = frame_with_axis<double>(Vec3<double>(0, 0, z), Vec3<double>::UnitZ());
    t.builder.add_joint(z > 0 ? "upper hinge" : "lower hinge", JointType::revolute, ground, f, door, f);
  }
  t.mech = t.builder.build<Cap>();
  t.initial.body[0] = testing::pose(Vec4<double>(1, 0, 0, 0), Vec3<double>::Zero(), Vec3<double>::UnitZ(),
                                    Vec3<double>::Zero());
  auto k = t.initial;
  const AssemblySettings<double> settings;
  const AssemblyReport<double> r = assemble(t.mech, k, 0.0, settings);
  const std::string message = t.builder.assembly_problem(t.mech, r, settings);
  std::printf("%s\n", message.c_str());
  EXPECT_EQ(r.status, Status::singular_jacobian);
  EXPECT_NE(message.find("redundant joints"), std::string::npos) << message;
  MechanismModifiedHht<Mech> integrator;
  MechanismModifiedHht<Mech>::State s;
  s.a.setConstant(7.0), s.lambda.setConstant(7.0);  // what the stack may hold
  EXPECT_EQ(integrator.initialize(t.mech, t.initial, 0.0, s), Status::singular_jacobian);
  EXPECT_TRUE(s.a.array().isNaN().all()) << "accelerations left unset: " << s.a.transpose();
  EXPECT_TRUE(s.lambda.array().isNaN().all()) << "multipliers left unset: " << s.lambda.transpose();
}

/// The message of building b, or "" when it builds.
std::string build_problem(const MechanismBuilder<double>& b) {
  try {
    b.build<Cap>();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(MechanismBuilder, RefusesBadDescriptionsNamingTheField) {
  const JointFrame<double> origin;
  const auto two_bodies = [] {
    MechanismBuilder<double> b;
    b.add_body("a", 1.0, Vec3<double>(1, 1, 1));
    b.add_body("b", 1.0, Vec3<double>(1, 1, 1));
    return b;
  };
  struct Case {
    const char* what;
    MechanismBuilder<double> builder;
    const char* expected;
  };
  std::vector<Case> cases;
  {
    MechanismBuilder<double> b;
    b.add_body("wheel", -1.0, Vec3<double>(1, 1, 1));
    cases.push_back({"negative mass", b, "bodies[0] 'wheel': mass must be finite and > 0"});
  }
  {
    MechanismBuilder<double> b;
    b.add_body("plate", 1.0, Vec3<double>(1, 1, 3));
    cases.push_back({"impossible inertia", b, "bodies[0] 'plate': inertia: moments (1, 1, 3) violate the triangle inequality"});
  }
  {
    MechanismBuilder<double> b;
    b.add_body("plate", 1.0, Vec3<double>(2, -1, 3));  // named by its own index, not the sorted moment's
    cases.push_back({"negative inertia", b, "bodies[0] 'plate': inertia: component 1 is -1, must be > 0"});
  }
  {
    MechanismBuilder<double> b;
    b.add_body("plate", 1.0, Vec3<double>(INFINITY, INFINITY, 1));  // passed every comparison
    cases.push_back({"infinite inertia", b, "bodies[0] 'plate': inertia: component 0 is inf, must be finite"});
  }
  {
    auto b = two_bodies();
    b.add_joint("hinge", JointType::revolute, 0, origin, 7, origin);
    cases.push_back({"unknown body", b, "joints[0] 'hinge' (revolute): body_j = 7 is not a body (2 bodies)"});
  }
  {
    auto b = two_bodies();
    b.add_joint("ball", JointType::spherical, 1, origin, 1, origin);
    cases.push_back({"body to itself", b, "joints[0] 'ball' (spherical): joins bodies[1] 'b' to itself"});
  }
  {
    auto b = two_bodies();
    const int j = b.add_joint("slide", JointType::prismatic, 0, origin, 1, origin);
    b.drive(j, TimeProfile<double>{});
    cases.push_back({"driven prismatic", b, "joints[0] 'slide' (prismatic): only a revolute joint can be driven"});
  }
  {
    auto b = two_bodies();
    JointFrame<double> skewed;
    skewed.axes(0, 1) = 0.3;
    b.add_joint("hinge", JointType::revolute, 0, skewed, 1, origin);
    cases.push_back({"non-orthonormal frame", b,
                     "joints[0] 'hinge' (revolute): frame_i axes are not a right-handed orthonormal triad"});
  }
  {
    auto b = two_bodies();
    b.add_spring("coil", 0, Vec3<double>::Zero(), 1, Vec3<double>::UnitX(), -5.0, 0.0, 1.0);
    cases.push_back({"negative stiffness", b, "springs[0] 'coil': stiffness, damping and rest_length must be"});
  }
  {
    MechanismBuilder<double> b;
    for (int i = 0; i < 5; ++i) b.add_body("link", 1.0, Vec3<double>(1, 1, 1));
    cases.push_back({"over capacity", b, "mechanism: 5 bodies exceed this capacity class (4)"});
  }
  for (const Case& c : cases) {
    const std::string message = build_problem(c.builder);
    std::printf("%-22s -> %s\n", c.what, message.c_str());
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.what << ": " << message;
  }
}

// The slider-crank with its main bearing driven at θ(t) = 0.3 + 10 t + 0.2 sin(5t): the crank's
// angle follows the profile to the Newton tolerance and the driver's multiplier is the torque.
TEST(MechanismDriver, CrankFollowsTheAngleProfile) {
  TestMechanism<Cap> tm = testing::slider_crank<Cap>();
  TimeProfile<double> angle;
  angle.constant[0] = 0.3;
  angle.ramp[0] = 10.0;
  angle.amplitude[0] = 0.2;
  angle.frequency = 5.0;
  tm.builder.drive(0, angle);
  tm.mech = tm.builder.build<Cap>();
  // θ̇(0) = 10 + 0.2·5 = 11: the initial state's crank speed is 10, so assembly fixes the velocities.
  auto k = tm.initial;
  const AssemblyReport<double> r = assemble(tm.mech, k, 0.0);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_NEAR(k.body[0].omega_body[2], 11.0, 1e-12);
  MechanismModifiedHht<Mech> integrator;
  MechanismModifiedHht<Mech>::State s;
  ASSERT_EQ(integrator.initialize(tm.mech, k, 0.0, s), Status::ok);
  const double h = 1e-3;
  double worst = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(integrator.step(tm.mech, s, i * h, h).status, Status::ok);
    const double t = (i + 1) * h;
    const Vec4<double> e = s.q.segment<4>(3);
    const double crank = 2.0 * std::atan2(e[3], e[0]);  // a rotation about e_z
    const double theta = 0.3 + 10.0 * t + 0.2 * std::sin(5.0 * t);
    worst = std::max(worst, std::abs(std::remainder(crank - theta, 2 * M_PI)));
  }
  std::printf("driven crank: max |angle - theta(t)| over 1 s = %.1e\n", worst);
  EXPECT_LE(worst, 1e-12);  // measured 2.0e-15
}

}  // namespace
}  // namespace quatstep::mechanism
