// Every analytic derivative of the mechanism code against central finite differences
// (test_support.hpp), as tests/jacobian_test.cpp does for the single-body models:
//   - W(e, a) = ∂(R(e)a)/∂e and the constant second derivative H(μ, a);
//   - per joint type (and the revolute driver), with a body or the ground on either side: the
//     constraint gradient, the blocks of Σλ ∂²C/∂q² (both bodies' own blocks and the coupling block),
//     the velocity-level C_q q̇ + C_t and the acceleration-level curvature, at random states off the
//     constraints (the polynomials are differentiated there too);
//   - the spring–damper: force = −∇(potential) without damping, the force derivative along
//     coordinates and velocities;
//   - the whole HHT Newton matrix of each variant on three mechanisms: Step::jacobian_product
//     against differences of the residual, and the structured solver's blocks against it.
// Tolerance 1e-7 row-relative, as in jacobian_test.cpp (central differences ~1e-10 relative).
#include <gtest/gtest.h>

#include <cstdio>

#include "quatstep/mechanism/hht.hpp"
#include "mechanisms.hpp"
#include "test_support.hpp"

namespace quatstep::mechanism {
namespace {

using testing::central_difference;
using testing::Random;
using testing::row_relative_error;
using Vec7 = Vec<double, 7>;
using Mat7 = Mat<double, 7, 7>;

constexpr double kTolerance = 1e-7;
constexpr int kSamples = 10;

void report(const char* what, double value) { std::printf("  measured %-52s %.2e\n", what, value); }

template <class F, class X>
double mismatch(const Eigen::MatrixXd& analytic, const F& f, const X& x) {
  return row_relative_error(analytic, central_difference(f, x));
}

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

TEST(BodyVector, RotationJacobianAndHessian) {
  Random rnd(201);
  double w = 0, h = 0, half = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> e = rnd.vector<4>();  // off the unit sphere: R(e) is the polynomial there
    const Vec3<double> a = rnd.vector<3>(2.0), mu = rnd.vector<3>(2.0);
    w = std::max(w, mismatch(rotation_jacobian(e, a), [&](const Vec4<double>& x) { return rotate(x, a); }, e));
    h = std::max(h, mismatch(rotation_hessian(mu, a),
                             [&](const Vec4<double>& x) { return Vec4<double>(rotation_jacobian(x, a).transpose() * mu); },
                             e));
    half = std::max(half, (Vec3<double>(0.5 * rotation_jacobian(e, a) * e) - rotate(e, a)).norm() / rotate(e, a).norm());
  }
  report("rotation_jacobian", w);
  report("rotation_hessian", h);
  report("R(e)a = W(e,a)e/2", half);
  EXPECT_LE(w, kTolerance);
  EXPECT_LE(h, kTolerance);
  EXPECT_LE(half, 1e-14);
}

// ---------------------------------------------------------------- joints
struct JointCase {
  const char* name;
  JointType type;
  bool driven;
  int body_i, body_j;  // 0, 1 or ground
};

const JointCase kJointCases[] = {
    {"spherical", JointType::spherical, false, 0, 1},     {"spherical to ground", JointType::spherical, false, ground, 1},
    {"revolute", JointType::revolute, false, 0, 1},       {"revolute on ground", JointType::revolute, false, 0, ground},
    {"revolute driven", JointType::revolute, true, 0, 1}, {"revolute driven ground", JointType::revolute, true, ground, 1},
    {"universal", JointType::universal, false, 0, 1},     {"prismatic", JointType::prismatic, false, 0, 1},
    {"prismatic ground", JointType::prismatic, false, ground, 1}, {"cylindrical", JointType::cylindrical, false, 0, 1},
    {"cylindrical ground", JointType::cylindrical, false, 1, ground}, {"fixed", JointType::fixed, false, 0, 1},
};

JointFrame<double> random_frame(Random& rnd) {
  JointFrame<double> f;
  f.origin = rnd.vector<3>(0.8);
  f.axes = rotation_matrix(rnd.unit_quaternion());
  return f;
}

Joint<double> random_joint(Random& rnd, const JointCase& c) {
  Joint<double> j;
  j.type = c.type;
  j.body[0] = c.body_i;
  j.body[1] = c.body_j;
  j.frame[0] = random_frame(rnd);
  j.frame[1] = random_frame(rnd);
  j.driven = c.driven;
  j.angle.constant[0] = 0.4;
  j.angle.ramp[0] = 2.0;
  j.angle.amplitude[0] = 0.7;
  j.angle.frequency = 3.0;
  j.angle.phase = 0.2;
  j.rows = joint_rows(c.type, c.driven);
  return j;
}

/// Two bodies' coordinates and velocities, q = (r₀, e₀, r₁, e₁), e off the unit sphere.
struct TwoBodies {
  Vec<double, 14> q, v;
};
TwoBodies random_state(Random& rnd) {
  TwoBodies s;
  for (int b = 0; b < 2; ++b) {
    s.q.segment<3>(7 * b) = rnd.vector<3>();
    s.q.segment<4>(7 * b + 3) = rnd.unit_quaternion() + 0.1 * rnd.vector<4>();
    s.v.segment<7>(7 * b) = rnd.vector<7>(3.0);
  }
  return s;
}

JointState<double> joint_state(const Joint<double>& j, const Vec<double, 14>& q, const Vec<double, 14>& v, double t) {
  return JointState<double>(j, side_at(j.body[0], q, v), side_at(j.body[1], q, v), t);
}

class JointDerivatives : public ::testing::TestWithParam<JointCase> {};

TEST_P(JointDerivatives, MatchFiniteDifferences) {
  const JointCase& c = GetParam();
  Random rnd(300 + static_cast<int>(c.type) * 7 + c.driven + (c.body_i == ground) * 3 + (c.body_j == ground) * 5);
  double grad = 0, hess = 0, rate = 0, curv = 0, sym = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Joint<double> j = random_joint(rnd, c);
    const TwoBodies s = random_state(rnd);
    const double t = 0.37;
    const JointState<double> js = joint_state(j, s.q, s.v, t);
    const int rows = js.rows();
    Eigen::VectorXd lambda(rows);
    for (int r = 0; r < rows; ++r) lambda[r] = rnd.uniform(-2, 2);
    // Gradient: row r of C_q over both bodies' 14 coordinates (ground sides are zero).
    Eigen::MatrixXd Cq = Eigen::MatrixXd::Zero(rows, 14);
    for (int r = 0; r < rows; ++r)
      for (int side = 0; side < 2; ++side)
        if (j.body[side] != ground) Cq.block(r, 7 * j.body[side], 1, 7) = js.gradient(r, side).transpose();
    const auto values = [&](const Vec<double, 14>& x) {
      const JointState<double> y = joint_state(j, x, s.v, t);
      Eigen::VectorXd c(rows);
      for (int r = 0; r < rows; ++r) c[r] = y.value(r);
      return c;
    };
    grad = std::max(grad, mismatch(Cq, values, s.q));
    // Σλ ∂²C/∂q²: the 14×14 matrix from the blocks, against differences of C_qᵀλ.
    Mat7 diag[2], cross;
    js.hessian(lambda.data(), diag, cross);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(14, 14);
    for (int side = 0; side < 2; ++side)
      if (j.body[side] != ground) H.block(7 * j.body[side], 7 * j.body[side], 7, 7) = diag[side];
    if (j.body[0] != ground && j.body[1] != ground) {
      H.block(7 * j.body[0], 7 * j.body[1], 7, 7) = cross;
      H.block(7 * j.body[1], 7 * j.body[0], 7, 7) = cross.transpose();
    }
    const auto force = [&](const Vec<double, 14>& x) {
      const JointState<double> y = joint_state(j, x, s.v, t);
      Vec<double, 14> f = Vec<double, 14>::Zero();
      for (int side = 0; side < 2; ++side)
        if (j.body[side] != ground) f.segment<7>(7 * j.body[side]) = y.constraint_force(lambda.data(), side);
      return f;
    };
    hess = std::max(hess, mismatch(H, force, s.q));
    sym = std::max(sym, (H - H.transpose()).cwiseAbs().maxCoeff() / std::max(1.0, H.cwiseAbs().maxCoeff()));
    // dc/dτ and d²c/dτ² along q(τ) = q + τ q̇, t + τ (no q̈): rate and curvature.
    const auto along = [&](const Vec<double, 1>& tau, bool rates) {
      const JointState<double> y = joint_state(j, Vec<double, 14>(s.q + tau[0] * s.v), s.v, t + tau[0]);
      Eigen::VectorXd c(rows);
      for (int r = 0; r < rows; ++r) c[r] = rates ? y.rate(r) : y.value(r);
      return c;
    };
    Eigen::VectorXd rates(rows), curvatures(rows);
    for (int r = 0; r < rows; ++r) rates[r] = js.rate(r), curvatures[r] = js.curvature(r);
    // Judged against the largest row: a single row can nearly cancel (a rate of 1e-3 from terms of 1).
    const Vec<double, 1> zero(0.0);
    const auto vector_error = [](const Eigen::VectorXd& a, const Eigen::MatrixXd& fd) {
      return (a - fd.col(0)).cwiseAbs().maxCoeff() / a.cwiseAbs().maxCoeff();
    };
    rate = std::max(rate, vector_error(rates, central_difference([&](const Vec<double, 1>& x) { return along(x, false); }, zero)));
    curv = std::max(curv, vector_error(curvatures, central_difference([&](const Vec<double, 1>& x) { return along(x, true); }, zero)));
  }
  std::printf("  %s\n", c.name);
  report("gradient C_q", grad);
  report("hessian blocks of C_q^T lambda", hess);
  report("hessian asymmetry", sym);
  report("rate C_q qdot + C_t", rate);
  report("curvature d2C/dt2 - C_q qddot", curv);
  EXPECT_LE(grad, kTolerance);
  EXPECT_LE(hess, kTolerance);
  EXPECT_LE(sym, 1e-14);
  EXPECT_LE(rate, kTolerance);
  EXPECT_LE(curv, kTolerance);
}

INSTANTIATE_TEST_SUITE_P(EveryJoint, JointDerivatives, ::testing::ValuesIn(kJointCases),
                         [](const ::testing::TestParamInfo<JointCase>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (ch == ' ') ch = '_';
                           return n;
                         });

// ---------------------------------------------------------------- springs
TEST(SpringDamper, ForceAndDerivativesMatchFiniteDifferences) {
  Random rnd(401);
  double grad = 0, dq = 0, dv = 0;
  for (int k = 0; k < kSamples; ++k)
    for (int ground_side : {-1, 0, 1}) {
      SpringDamper<double> sp;
      for (int s = 0; s < 2; ++s) {
        sp.body[s] = s == ground_side ? ground : s;
        sp.point[s] = rnd.vector<3>(0.5);
      }
      sp.stiffness = 150.0;
      sp.rest_length = 0.7;
      const TwoBodies st = random_state(rnd);
      // Without damping the force is −∇V.
      const auto potential = [&](const Vec<double, 14>& x) {
        return Vec<double, 1>(SpringState<double>(sp, side_at(sp.body[0], x, st.v), side_at(sp.body[1], x, st.v)).potential());
      };
      const SpringState<double> s0(sp, side_at(sp.body[0], st.q, st.v), side_at(sp.body[1], st.q, st.v));
      Eigen::MatrixXd F = Eigen::MatrixXd::Zero(1, 14);
      for (int s = 0; s < 2; ++s)
        if (sp.body[s] != ground) F.block(0, 7 * s, 1, 7) = -s0.force(s).transpose();
      grad = std::max(grad, mismatch(F, potential, st.q));
      // With damping: the derivative along coordinates and along velocities.
      SpringDamper<double> damped = sp;
      damped.damping = 3.0;
      const auto force = [&](const Vec<double, 14>& q, const Vec<double, 14>& v) {
        const SpringState<double> y(damped, side_at(damped.body[0], q, v), side_at(damped.body[1], q, v));
        Vec<double, 14> f = Vec<double, 14>::Zero();
        for (int s = 0; s < 2; ++s)
          if (damped.body[s] != ground) f.segment<7>(7 * s) = y.force(s);
        return f;
      };
      const SpringState<double> y(damped, side_at(damped.body[0], st.q, st.v), side_at(damped.body[1], st.q, st.v));
      const auto derivative = [&](const Vec<double, 14>& d, bool velocity) {
        Vec7 dqs[2], dvs[2], out[2];
        for (int s = 0; s < 2; ++s) {
          dqs[s] = velocity ? Vec7::Zero() : Vec7(d.segment<7>(7 * s));
          dvs[s] = velocity ? Vec7(d.segment<7>(7 * s)) : Vec7::Zero();
        }
        y.force_derivative(dqs, dvs, out);
        Vec<double, 14> f = Vec<double, 14>::Zero();
        for (int s = 0; s < 2; ++s)
          if (damped.body[s] != ground) f.segment<7>(7 * s) = out[s];
        return f;
      };
      dq = std::max(dq, mismatch(matrix_of<14>([&](const Vec<double, 14>& d) { return derivative(d, false); }),
                                 [&](const Vec<double, 14>& x) { return force(x, st.v); }, st.q));
      // The force is affine in q̇: differences with a large step have no truncation error.
      dv = std::max(dv, row_relative_error(matrix_of<14>([&](const Vec<double, 14>& d) { return derivative(d, true); }),
                                           central_difference([&](const Vec<double, 14>& x) { return force(st.q, x); },
                                                              st.v, 1e-3)));
    }
  report("spring force = -grad V", grad);
  report("spring force derivative along q", dq);
  report("spring force derivative along qdot", dv);
  EXPECT_LE(grad, kTolerance);
  EXPECT_LE(dq, kTolerance);
  EXPECT_LE(dv, kTolerance);
}

// ---------------------------------------------------------------- whole Newton matrices
using Small = SmallCapacity;
using Mech = Mechanism<double, Small>;

template <class Integrator>
struct NewtonCheck {
  double exact;       ///< Step::jacobian_product against differences of the residual
  double structured;  ///< the structured blocks against jacobian_product (own-body columns, joint rows)
  double coupling;    ///< the largest left-out coupling entry relative to its row
};

/// At the solved unknowns of step 4 perturbed by 10% of their size (a typical predictor error).
template <class Integrator>
NewtonCheck<Integrator> newton_check(const Integrator& integrator, const testing::TestMechanism<Small>& tm, double h) {
  using State = typename Integrator::State;
  using VecK = typename Integrator::VecK;
  constexpr int K = Integrator::K;
  const Mech& m = tm.mech;
  Random rnd(501);
  State s;
  EXPECT_EQ(integrator.initialize(m, tm.initial, 0.0, s), Status::ok);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(integrator.step(m, s, i * h, h).status, Status::ok);
  const double t = 3 * h;
  State solved = s;
  EXPECT_EQ(integrator.step(m, solved, t, h).status, Status::ok);
  VecK x = Integrator::unknowns(solved);
  // Perturb only the live unknowns (the capacity's padding stays zero).
  const typename Integrator::Step sys(m, integrator, s, t, h);
  const auto live = [&](int i) {
    if (i >= Integrator::Kkt::joint_index()) return i - Integrator::Kkt::joint_index() < m.n_rows;
    return i / 8 < m.n_bodies;
  };
  for (int i = 0; i < K; ++i)
    if (live(i)) x[i] += 0.1 * std::max(1.0, std::abs(x[i])) * rnd.uniform(-1, 1);
  std::vector<int> index;
  for (int i = 0; i < K; ++i)
    if (live(i)) index.push_back(i);
  const int n = static_cast<int>(index.size());
  Eigen::MatrixXd J(n, n);
  for (int c = 0; c < n; ++c) {
    VecK d = VecK::Zero();
    d[index[c]] = 1;
    const VecK col = sys.jacobian_product(x, d);
    for (int r = 0; r < n; ++r) J(r, c) = col[index[r]];
  }
  const auto residual = [&](const Eigen::VectorXd& y) {
    VecK xx = x;
    for (int i = 0; i < n; ++i) xx[index[i]] = y[i];
    VecK r;
    sys.residual(xx, r);
    Eigen::VectorXd out(n);
    for (int i = 0; i < n; ++i) out[i] = r[index[i]];
    return out;
  };
  Eigen::VectorXd x0(n);
  for (int i = 0; i < n; ++i) x0[i] = x[index[i]];
  Eigen::MatrixXd fd = central_difference(residual, x0);
  // The constraint rows C(q_{n+1})/(βh²) are polynomial in x with large rounding at small steps:
  // differences with a larger step there (jacobian_test.cpp explains).
  const Eigen::MatrixXd fd_large = central_difference(residual, x0, 1e-2);
  for (int r = 0; r < n; ++r) {
    const int i = index[r];
    const bool constraint_row = i >= Integrator::Kkt::joint_index() || i % 8 == 7;
    if (constraint_row) fd.row(r) = fd_large.row(r);
  }
  NewtonCheck<Integrator> out{row_relative_error(J, fd), 0.0, 0.0};
  // The structured solver's blocks: each body's 8×8 block and the joint rows D must equal the exact
  // matrix in those entries; what remains between two bodies is the left-out coupling.
  VecK rr;
  typename Integrator::Kkt kkt;
  sys.assemble(x, rr, &kkt);
  Eigen::MatrixXd structured = Eigen::MatrixXd::Zero(n, n);
  std::vector<int> where(K, -1);
  for (int i = 0; i < n; ++i) where[index[i]] = i;
  for (int b = 0; b < m.n_bodies; ++b)
    for (int r = 0; r < 8; ++r)
      for (int c2 = 0; c2 < 8; ++c2) structured(where[8 * b + r], where[8 * b + c2]) = kkt.body[b].lu(r, c2);
  for (int k = 0; k < m.n_joints; ++k)
    for (int side = 0; side < 2; ++side) {
      const int b = m.joints[k].body[side];
      if (b == ground) continue;
      for (int r = 0; r < m.joints[k].rows; ++r)
        for (int c2 = 0; c2 < 7; ++c2) {
          const int row = where[Integrator::Kkt::joint_index() + m.joints[k].offset + r], col = where[8 * b + c2];
          structured(row, col) = kkt.jac[k][side](r, c2);
          structured(col, row) = kkt.jac[k][side](r, c2);
        }
    }
  const Eigen::MatrixXd left_out = J - structured;
  for (int r = 0; r < n; ++r) {
    const double scale = J.row(r).cwiseAbs().maxCoeff();
    for (int c2 = 0; c2 < n; ++c2) {
      const bool same_body = index[r] < Integrator::Kkt::joint_index() && index[c2] < Integrator::Kkt::joint_index() &&
                             index[r] / 8 == index[c2] / 8;
      const bool joint_entry = index[r] >= Integrator::Kkt::joint_index() || index[c2] >= Integrator::Kkt::joint_index();
      const double e = std::abs(left_out(r, c2)) / scale;
      if (same_body || joint_entry) out.structured = std::max(out.structured, e);
      else out.coupling = std::max(out.coupling, e);
    }
  }
  return out;
}

template <class Integrator>
class MechanismNewtonMatrix : public ::testing::Test {};
using Variants = ::testing::Types<MechanismHht<Mech>, MechanismModifiedHht<Mech>>;
TYPED_TEST_SUITE(MechanismNewtonMatrix, Variants);

TYPED_TEST(MechanismNewtonMatrix, ExactProductMatchesDifferencesAndStructuredBlocksMatchIt) {
  const std::pair<const char*, testing::TestMechanism<Small>> cases[] = {
      {"double pendulum", testing::double_pendulum<Small>()},
      {"slider-crank, damped spring", testing::slider_crank<Small>(4.0)},
      {"four-bar with spin", testing::four_bar<Small>(0.5)},
  };
  for (const auto& [name, tm] : cases)
    for (bool shift : {false, true})
      for (double h : {1e-3, 2e-2}) {
        HhtSettings<double> settings;
        settings.alpha = -0.2;
        settings.inertia_shift = shift;
        settings.drift_tolerance = 1e-2;  // classical HHT at h = 2e-2 reaches |eᵀė| ≈ 1.2e-3 |ė| on the rod
        const auto c = newton_check(TypeParam(settings), tm, h);
        std::printf("  %-28s shift %d h = %-6g exact %.2e  structured %.2e  coupling left out %.2e\n", name, shift, h,
                    c.exact, c.structured, c.coupling);
        EXPECT_LE(c.exact, kTolerance) << name << " shift " << shift << " h " << h;
        EXPECT_LE(c.structured, 1e-13) << name << " shift " << shift << " h " << h;
      }
}

}  // namespace
}  // namespace quatstep::mechanism
