// Every analytic derivative of the core against central finite differences (test_support.hpp):
// quaternion-level derivatives, the Euler-parameter block (Sherif eq. 9), the models' DAE
// derivatives (Sherif eq. 65 ingredients), the Lie-group torque derivative and right Jacobian,
// and each integrator's whole Newton Jacobian.
//
// Tolerance 1e-7, row-relative: the central differences carry ~1e-10 relative error (step 1e-6:
// truncation ~1e-12, rounding ε/1e-6 ≈ 2e-10), so 1e-7 is a ~100× margin, while a missing or
// wrong term (e.g. the inertia-shift correction of docs/second_order_hht.md, visible at 1e-3) is far
// above it. Each test prints the largest mismatch it measured.
#include <gtest/gtest.h>

#include <cstdio>

#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "test_support.hpp"

namespace quatstep {
namespace {

using testing::central_difference;
using testing::Random;
using testing::row_relative_error;

constexpr double kTolerance = 1e-7;
constexpr int kSamples = 20;

void report(const char* what, double value) { std::printf("  measured %-44s %.2e\n", what, value); }

/// Row-relative mismatch of an analytic derivative against central differences of f at x.
template <class F, class X>
double mismatch(const Eigen::MatrixXd& analytic, const F& f, const X& x) {
  return row_relative_error(analytic, central_difference(f, x));
}

/// The matrix whose column j is derivative(e_j): a directional derivative seen as a Jacobian.
template <int N, class D>
Eigen::MatrixXd matrix_of(const D& derivative) {
  Eigen::MatrixXd m;
  for (int j = 0; j < N; ++j) {
    const Eigen::VectorXd column = derivative(Vec<double, N>::Unit(j).eval());
    if (j == 0) m.resize(column.size(), N);
    m.col(j) = column;
  }
  return m;
}

// ---------------------------------------------------------------- quaternion-level derivatives
// e is taken off the unit sphere: these are polynomial identities the DAE methods use everywhere.
TEST(QuaternionDerivatives, GTransposeTimesAndToBody) {
  Random rnd(101);
  double gt = 0, body = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> e = rnd.vector<4>();
    const Vec3<double> a = rnd.vector<3>(3.0), f = rnd.vector<3>(3.0);
    const auto gt_of = [&](const Vec4<double>& x) { return Vec4<double>(G(x).transpose() * a); };
    const auto body_of = [&](const Vec4<double>& x) { return to_body(x, f); };
    gt = std::max(gt, mismatch(d_Gt_times(a), gt_of, e));
    const auto body_derivative = [&](const Vec4<double>& d) { return to_body_derivative(e, f, d); };
    body = std::max(body, mismatch(matrix_of<4>(body_derivative), body_of, e));
  }
  report("d_Gt_times", gt);            // measured 1.4e-10
  report("to_body_derivative", body);  // measured 1.3e-10
  EXPECT_LE(gt, kTolerance);
  EXPECT_LE(body, kTolerance);
}

// ---------------------------------------------------------------- Euler-parameter block (Sherif eq. 9)
TEST(EulerParameterBlock, GyroscopicForceDerivatives) {
  Random rnd(102);
  double de = 0, dedot = 0;
  const Vec4<double> zero = Vec4<double>::Zero();
  for (int k = 0; k < kSamples; ++k) {
    const Mat3<double> J = rnd.inertia();
    const Vec4<double> e = rnd.unit_quaternion() + 0.1 * rnd.vector<4>();  // off the sphere too
    const Vec4<double> ed = rnd.vector<4>(5.0);                            // off the tangent space too
    const euler_parameters::GyroscopicForce<double> gyro(J, e, ed);
    const auto force_of_e = [&](const Vec4<double>& x) { return euler_parameters::gyroscopic_force(J, x, ed); };
    const auto force_of_ed = [&](const Vec4<double>& x) { return euler_parameters::gyroscopic_force(J, e, x); };
    de = std::max(de, mismatch(matrix_of<4>([&](const Vec4<double>& d) { return gyro.derivative(d, zero); }),
                               force_of_e, e));
    dedot = std::max(dedot, mismatch(matrix_of<4>([&](const Vec4<double>& d) { return gyro.derivative(zero, d); }),
                                     force_of_ed, ed));
  }
  report("GyroscopicForce::derivative along e", de);        // measured 4.8e-10
  report("GyroscopicForce::derivative along edot", dedot);  // measured 4.4e-9
  EXPECT_LE(de, kTolerance);
  EXPECT_LE(dedot, kTolerance);
}

TEST(EulerParameterBlock, MassTimesVectorDerivatives) {
  Random rnd(103);
  double left = 0, right = 0, vector = 0, product = 0;
  const Vec4<double> zero = Vec4<double>::Zero();
  for (int k = 0; k < kSamples; ++k) {
    const Mat3<double> J = rnd.inertia();
    const Vec4<double> el = rnd.vector<4>(), er = rnd.vector<4>(), a = rnd.vector<4>(10.0);
    const auto of_left = [&](const Vec4<double>& x) { return Vec4<double>(euler_parameters::mass(J, x, er) * a); };
    const auto of_right = [&](const Vec4<double>& x) { return Vec4<double>(euler_parameters::mass(J, el, x) * a); };
    const auto of_a = [&](const Vec4<double>& x) { return Vec4<double>(euler_parameters::mass(J, el, er) * x); };
    const auto along = [&](int which) {
      return matrix_of<4>([&, which](const Vec4<double>& d) {
        return euler_parameters::mass_times_derivative(J, el, er, a, which == 0 ? d : zero, which == 1 ? d : zero,
                                                       which == 2 ? d : zero);
      });
    };
    left = std::max(left, mismatch(along(0), of_left, el));
    right = std::max(right, mismatch(along(1), of_right, er));
    vector = std::max(vector, mismatch(along(2), of_a, a));
    product = std::max(product, row_relative_error(euler_parameters::mass_times(J, el, er, a), of_a(a)));
  }
  report("mass_times_derivative along e_l", left);   // measured 2.2e-10
  report("mass_times_derivative along e_r", right);  // measured 1.8e-10
  report("mass_times_derivative along a", vector);   // measured 9.8e-10
  report("mass_times against mass() * a", product);  // measured 3.8e-15
  EXPECT_LE(left, kTolerance);
  EXPECT_LE(right, kTolerance);
  EXPECT_LE(vector, kTolerance);
  EXPECT_LE(product, 1e-13);  // two orders of the same products
}

/// Gravity at a lever, a body-frame and a spatial torque profile (constant + ramp + sine).
RigidBodyLoads<double> all_loads(Random& rnd, bool with_gravity) {
  RigidBodyLoads<double> l;
  if (with_gravity) {
    l.mass = 2.0;
    l.gravity = Vec3<double>(0.3, -0.4, -9.81);
    l.lever = rnd.vector<3>(0.5);
  }
  for (TimeProfile<double>* p : {&l.body_torque, &l.spatial_torque}) {
    p->constant = rnd.vector<3>(2.0);
    p->ramp = rnd.vector<3>(0.5);
    p->amplitude = rnd.vector<3>(1.0);
    p->frequency = 3.0;
    p->phase = 0.4;
  }
  return l;
}

TEST(EulerParameterBlock, TorqueAndTorqueForceDerivatives) {
  Random rnd(104);
  const double t = 0.37;
  double tau = 0, force = 0;
  for (int k = 0; k < kSamples; ++k) {
    const RigidBodyLoads<double> loads = all_loads(rnd, true);
    const Vec4<double> e = rnd.unit_quaternion() + 0.1 * rnd.vector<4>();
    const auto torque_of = [&](const Vec4<double>& x) { return loads.torque(x, t); };
    const auto force_of = [&](const Vec4<double>& x) { return euler_parameters::torque_force(x, loads.torque(x, t)); };
    const auto torque_derivative = [&](const Vec4<double>& d) { return loads.torque_derivative(e, t, d); };
    const auto force_derivative = [&](const Vec4<double>& d) {
      return euler_parameters::torque_force_derivative(e, d, loads.torque(e, t), loads.torque_derivative(e, t, d));
    };
    tau = std::max(tau, mismatch(matrix_of<4>(torque_derivative), torque_of, e));
    force = std::max(force, mismatch(matrix_of<4>(force_derivative), force_of, e));
  }
  report("RigidBodyLoads::torque_derivative", tau);  // measured 1.5e-10
  report("torque_force_derivative", force);  // measured 1.1e-10
  EXPECT_LE(tau, kTolerance);
  EXPECT_LE(force, kTolerance);
}

// ---------------------------------------------------------------- models
template <class Model>
Model make_model(Random& rnd);

template <>
HeavyTop<double> make_model(Random& rnd) {
  HeavyTop<double> m;
  m.inertia = rnd.inertia();
  m.loads = all_loads(rnd, true);
  return m;
}

template <>
FreeRigidBody<double> make_model(Random& rnd) {
  FreeRigidBody<double> m;
  m.inertia = rnd.inertia();
  m.mass = 1.7;
  m.gravity = Vec3<double>(0.0, 0.0, -9.81);
  m.force_profile.constant = rnd.vector<3>(2.0);
  m.force_profile.amplitude = rnd.vector<3>(1.0);
  m.force_profile.frequency = 2.0;
  m.loads = all_loads(rnd, false);  // torques only: FreeRigidBody's loads have no lever
  return m;
}

template <class Model>
class ModelDerivatives : public ::testing::Test {};
using Models = ::testing::Types<HeavyTop<double>, FreeRigidBody<double>>;
TYPED_TEST_SUITE(ModelDerivatives, Models);

/// Q_q δq + Q_q̇ δq̇ of a model's linearised force: the sum of its terms.
template <class Force, class V>
V force_derivative(const Force& f, const V& dq, const V& dv) {
  static_assert(Force::terms == 2);
  return f.template derivative_term<0>(dq, dv) + f.template derivative_term<1>(dq, dv);
}

TYPED_TEST(ModelDerivatives, ForceConstraintAndMassDerivatives) {
  using Model = TypeParam;
  constexpr int n = Model::n;
  using VecN = Vec<double, n>;
  Random rnd(105);
  const double t = 0.61;
  const VecN zero = VecN::Zero();
  double dq = 0, dv = 0, cq = 0, cfq = 0, rhs = 0, ml = 0, mr = 0, ma = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Model model = make_model<Model>(rnd);
    VecN q = rnd.vector<n>(), v = rnd.vector<n>(5.0), a = rnd.vector<n>(10.0);
    q.template segment<4>(Model::quaternion_offset(0)) = rnd.unit_quaternion() + 0.1 * rnd.vector<4>();
    const Vec<double, Model::m> lambda = rnd.vector<Model::m>(3.0);

    const auto Q = model.linearized_force(q, v, t);
    const auto force_of_q = [&](const VecN& x) { return model.force(x, v, t); };
    const auto force_of_v = [&](const VecN& x) { return model.force(q, x, t); };
    const auto constraint_force = [&](const VecN& x) {
      return VecN(model.constraint_jacobian(x).transpose() * lambda);
    };
    const auto constraint_rate = [&](const VecN& x) { return Vec<double, Model::m>(model.constraint_jacobian(x) * v); };
    const VecN qr = q + 0.1 * rnd.vector<n>();
    const auto mass_left = [&](const VecN& x) { return VecN(model.bilinear_mass_matrix(x, qr) * a); };
    const auto mass_right = [&](const VecN& x) { return VecN(model.bilinear_mass_matrix(q, x) * a); };
    const auto mass_a = [&](const VecN& x) { return VecN(model.bilinear_mass_matrix(q, qr) * x); };
    const auto mass_along = [&](int which) {
      return matrix_of<n>([&, which](const VecN& d) {
        return model.mass_times_derivative(q, qr, a, which == 0 ? d : zero, which == 1 ? d : zero,
                                           which == 2 ? d : zero);
      });
    };
    dq = std::max(dq, mismatch(matrix_of<n>([&](const VecN& d) { return force_derivative(Q, d, zero); }), force_of_q, q));
    dv = std::max(dv, mismatch(matrix_of<n>([&](const VecN& d) { return force_derivative(Q, zero, d); }), force_of_v, v));
    cq = std::max(cq, mismatch(
                          model.constraint_jacobian(q), [&](const VecN& x) { return model.constraint(x); }, q));
    cfq = std::max(cfq, mismatch(matrix_of<n>([&](const VecN& d) { return model.constraint_force_derivative(q, lambda, d); }),
                                 constraint_force, q));  // (C_qᵀλ)_q δq
    // −(C_q q̇)_q q̇
    rhs = std::max(
        rhs, row_relative_error(model.constraint_acceleration_rhs(q, v), -central_difference(constraint_rate, q) * v));
    ml = std::max(ml, mismatch(mass_along(0), mass_left, q));
    mr = std::max(mr, mismatch(mass_along(1), mass_right, qr));
    ma = std::max(ma, mismatch(mass_along(2), mass_a, a));
  }
  report("linearized_force along q", dq);      // measured HeavyTop 9.0e-10, FreeRigidBody 5.2e-10
  report("linearized_force along v", dv);      // measured 2.1e-9 / 3.5e-9
  report("constraint_jacobian", cq);           // measured 8.9e-11 / 8.6e-11
  report("constraint_force_derivative", cfq);  // measured 4.8e-11 / 7.0e-11
  report("constraint_acceleration_rhs", rhs);  // measured 6.5e-11 / 5.9e-11
  report("mass_times_derivative along ql", ml);  // measured 2.3e-10 / 2.7e-10
  report("mass_times_derivative along qr", mr);  // measured 1.6e-10 / 1.7e-10
  report("mass_times_derivative along a", ma);    // measured 1.3e-9 / 7.2e-10
  EXPECT_LE(dq, kTolerance);
  EXPECT_LE(dv, kTolerance);
  EXPECT_LE(cq, kTolerance);
  EXPECT_LE(cfq, kTolerance);
  EXPECT_LE(rhs, kTolerance);
  EXPECT_LE(ml, kTolerance);
  EXPECT_LE(mr, kTolerance);
  EXPECT_LE(ma, kTolerance);
}

// ∂τ/∂φ for the body-frame perturbation e ∘ exp((0, φ/2)) (Sherif eq. 29's A_{n+1} = A_n exp(θ̃)).
TYPED_TEST(ModelDerivatives, BodyTorqueRotationDerivative) {
  using Model = TypeParam;
  Random rnd(106);
  const double t = 0.23;
  double err = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Model model = make_model<Model>(rnd);
    const Vec4<double> e = rnd.unit_quaternion();
    const auto torque_of = [&](const Vec3<double>& phi) {
      return model.body_torque(quat_mul(e, quat_from_rotation_vector(phi)), t);
    };
    err = std::max(err, mismatch(model.body_torque_dphi(e, t), torque_of, Vec3<double>::Zero().eval()));
  }
  report("body_torque_dphi", err);  // measured HeavyTop 5.6e-10, FreeRigidBody 1.6e-9
  EXPECT_LE(err, kTolerance);
}

// q ∘ exp(θ + δθ) = q ∘ exp(θ) ∘ exp(J_r(θ) δθ): J_r = ∂/∂δθ of log(exp(θ)⁻¹ ∘ exp(θ + δθ)) at 0.
// Angles on both sides of the series threshold |θ| = 0.1 of (x − sin x)/x³ and up to 3.
TEST(LieGroup, RightJacobianOfSo3) {
  Random rnd(107);
  for (double angle : {1e-6, 0.05, 0.0999, 0.1001, 0.5, 1.5, 3.0}) {
    double err = 0;
    for (int k = 0; k < kSamples; ++k) {
      const Vec3<double> theta = angle * rnd.unit_vector();
      const Vec4<double> base_inverse = quat_conj(quat_from_rotation_vector(theta));
      const auto increment = [&](const Vec3<double>& d) {
        return rotation_vector(quat_mul(base_inverse, quat_from_rotation_vector<double>(theta + d)));
      };
      err = std::max(err, mismatch(so3_right_jacobian(theta), increment, Vec3<double>::Zero().eval()));
    }
    std::printf("  |theta| = %-7g", angle);
    report("so3_right_jacobian", err);  // measured 3e-16 (1e-6) … 4.2e-10 (3.0)
    EXPECT_LE(err, kTolerance) << "|theta| = " << angle;
  }
}

// ---------------------------------------------------------------- whole Newton Jacobians
/// The Newton unknowns of a solved step, read back from the state it produced.
template <class Model, VelocityUpdate U>
auto unknowns_of(const HhtFamily<Model, U>&, const typename HhtFamily<Model, U>::State& s) {
  return HhtFamily<Model, U>::unknowns(s);
}
template <class Model>
Vec3<double> unknowns_of(const SimoVuQuoc<Model>&, const typename SimoVuQuoc<Model>::State& s) {
  return s.wd;
}

template <class Model, VelocityUpdate U>
constexpr int constraint_rows(const HhtFamily<Model, U>&) {
  return Model::m;
}
template <class Model>
constexpr int constraint_rows(const SimoVuQuoc<Model>&) {
  return 0;
}

/// Row-relative mismatch of Step::evaluate's J against finite differences of its R, at the solved
/// unknowns of step 4 perturbed by 10% of their size (a typical predictor error).
template <class Integrator>
double newton_jacobian_mismatch(const Integrator& integrator, double h) {
  using Model = typename Integrator::ModelType;
  Random rnd(108);
  const Model model = make_model<Model>(rnd);
  RigidBodyKinematics<double> k0;
  k0.quaternion = rnd.unit_quaternion();
  k0.omega_body = Vec3<double>(3.0, -5.0, 7.0);
  k0.position = rnd.vector<3>();
  k0.velocity = rnd.vector<3>();
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(model, k0, 0.0, s), Status::ok);
  const int steps = 3;
  for (int i = 0; i < steps; ++i) EXPECT_EQ(integrator.step(model, s, i * h, h).status, Status::ok);
  const double t = steps * h;
  typename Integrator::State solved = s;
  EXPECT_EQ(integrator.step(model, solved, t, h).status, Status::ok);
  auto x = unknowns_of(integrator, solved);
  using X = decltype(x);
  using Jac = Eigen::Matrix<double, X::RowsAtCompileTime, X::RowsAtCompileTime>;
  x += 0.1 * std::max(1.0, x.template lpNorm<Eigen::Infinity>()) * rnd.vector<X::RowsAtCompileTime>();

  const typename Integrator::Step sys(model, integrator, s, t, h);
  X r;
  Jac jac;
  sys.evaluate(x, r, jac);
  const auto residual = [&](const X& y) {
    X ry;
    Jac unused;
    sys.evaluate(y, ry, unused);
    return ry;
  };
  Eigen::MatrixXd fd = central_difference(residual, x);
  // The constraint rows C(q_{n+1})/(βh²) are exactly quadratic in x (q_{n+1} is affine in q̈), so
  // central differences have no truncation error there, only rounding ε·|eᵀe|/(βh²·step): with the
  // default step that is ~1e-5 at h = 1e-3 (measured), with step 1e-2 relative ~1e-9.
  const int m = constraint_rows(integrator);
  fd.bottomRows(m) = central_difference(residual, x, 1e-2).bottomRows(m);
  return row_relative_error(jac, fd);
}

constexpr double kAlpha = -0.2;
// h = 1e-3 as in the heavy-top study; 2e-2 makes the h-weighted blocks (Q_q J₀, Q_q̇ J₁) large.
constexpr double kSteps[] = {1e-3, 2e-2};

template <class Integrator>
class NewtonJacobian : public ::testing::Test {};
template <class Integrator>
class HhtNewtonJacobian : public ::testing::Test {};
using HhtIntegrators = ::testing::Types<Hht<HeavyTop<double>>, Hht<FreeRigidBody<double>>,
                                        ModifiedHht<HeavyTop<double>>, ModifiedHht<FreeRigidBody<double>>>;
using SimoVuQuocIntegrators = ::testing::Types<SimoVuQuoc<HeavyTop<double>>, SimoVuQuoc<FreeRigidBody<double>>>;
TYPED_TEST_SUITE(HhtNewtonJacobian, HhtIntegrators);
TYPED_TEST_SUITE(NewtonJacobian, SimoVuQuocIntegrators);

// Sherif eq. (65) with J₁ of eq. (60) or (69), and the inertia shift of docs/second_order_hht.md.
TYPED_TEST(HhtNewtonJacobian, MatchesFiniteDifferencesOfTheResidual) {
  for (bool shift : {false, true})
    for (double h : kSteps) {
      HhtSettings<double> settings;
      settings.alpha = kAlpha;
      settings.inertia_shift = shift;
      const double err = newton_jacobian_mismatch(TypeParam(settings), h);
      std::printf("  inertia_shift %d, h = %-6g", shift, h);
      report("Newton Jacobian", err);  // measured ≤ 7.8e-9 for every integrator, model, shift and h.
      // Sensitivity (checked once by editing the core): dropping the (1+α) factor of the shifted
      // ∂(Më)/∂e term gives 2.9e-6 (h = 1e-3) and 8.6e-4 (h = 2e-2).
      EXPECT_LE(err, kTolerance) << "inertia_shift " << shift << ", h " << h;
    }
}

// Sherif eqs. (29)–(31) with Euler's equations weighted as in eq. (62).
TYPED_TEST(NewtonJacobian, SimoVuQuocMatchesFiniteDifferencesOfTheResidual) {
  for (double h : kSteps) {
    SimoVuQuocSettings<double> settings;
    settings.alpha = kAlpha;
    const double err = newton_jacobian_mismatch(TypeParam(settings), h);
    std::printf("  h = %-6g", h);
    report("Newton Jacobian", err);  // measured ≤ 2.9e-9
    // Sensitivity (checked once by editing the core): dropping J_r(θ) gives 5e-5 at h = 2e-2 but
    // only 5e-9 at h = 1e-3 (θ ≈ 0.01 there), hence the second step size.
    EXPECT_LE(err, kTolerance) << "h " << h;
  }
}

}  // namespace
}  // namespace quatstep
