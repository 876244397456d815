// The shared LU and Newton driver, and the integrators' use of it at the edge where the old state
// gives no scale (a body at rest whose load switches on).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <Eigen/LU>

#include "quatstep/quatstep.hpp"
#include "quatstep/simd/lane_lu.hpp"

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
  Eigen::Matrix<double, 4, 4> z = a;
  z.col(0).setZero();  // singular at the first step: the factorisation runs on through 1/0 and NaN
  EXPECT_TRUE((Lu<double, 4>(z).singular));
  a(2, 2) = NAN;
  EXPECT_TRUE((Lu<double, 4>(a).singular));
}

/// A random N×N matrix whose rows are scaled so that partial pivoting exchanges rows at most steps,
/// with an exact zero on the diagonal now and then.
template <int N>
Eigen::Matrix<double, N, N> pivoting_matrix(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> entry(-1, 1), scale_exponent(-3, 3);
  Eigen::Matrix<double, N, N> a;
  for (int i = 0; i < N; ++i) {
    const double scale = std::exp2(scale_exponent(rng));
    for (int j = 0; j < N; ++j) a(i, j) = scale * entry(rng);
  }
  if (rng() % 4 == 0) a(rng() % N, rng() % N) = 0;
  return a;
}

/// The factorisation picks Eigen's rows (PartialPivLU: the first largest |a_ik|) and solves as
/// accurately.
template <int N>
void expect_eigens_pivots_and_accuracy() {
  std::mt19937_64 rng(20261205 + N);
  int exchanges = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Matrix<double, N, N> a = pivoting_matrix<N>(rng);
    const Lu<double, N> lu(a);
    const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> eigen(a);
    ASSERT_FALSE(lu.singular) << "trial " << trial;
    Eigen::Matrix<double, N, N> p = Eigen::Matrix<double, N, N>::Identity();  // P A = L U
    for (int k = 0; k < N; ++k) {
      p.row(k).swap(p.row(lu.pivot[k]));
      exchanges += lu.pivot[k] != k;
    }
    const Eigen::Matrix<double, N, N> eigen_p = eigen.permutationP();
    ASSERT_TRUE(p == eigen_p) << "trial " << trial;
    Vec<double, N> b;
    for (int i = 0; i < N; ++i) b[i] = std::uniform_real_distribution<double>(-1, 1)(rng);
    const Vec<double, N> x = lu.solve(b), reference = eigen.solve(b);
    // Backward error |b − A x| / (|A| |x| + |b|), of the same size as Eigen's (both ≈ N ε).
    const double size = a.cwiseAbs().rowwise().sum().maxCoeff() * x.template lpNorm<Eigen::Infinity>() +
                        b.template lpNorm<Eigen::Infinity>();
    EXPECT_LE((b - a * x).template lpNorm<Eigen::Infinity>(), 4 * N * DBL_EPSILON * size) << "trial " << trial;
    EXPECT_LE((b - a * reference).template lpNorm<Eigen::Infinity>(), 4 * N * DBL_EPSILON * size);
  }
  EXPECT_GT(exchanges, 2000 * (N - 1) / 2);  // the rows were exchanged at most steps
}

TEST(Lu, PivotsAsEigenAndSolvesAsAccurately) {
  expect_eigens_pivots_and_accuracy<3>();
  expect_eigens_pivots_and_accuracy<4>();
  expect_eigens_pivots_and_accuracy<5>();
  expect_eigens_pivots_and_accuracy<8>();
}

/// The textbook LU with partial pivoting, written here independently of lu.hpp: whole rows exchanged
/// (LAPACK's getrf), b permuted first, then forward and back substitution (getrs).
template <int N>
Vec<double, N> textbook_solve(Eigen::Matrix<double, N, N> a, Vec<double, N> x) {
  int pivot[N];
  for (int k = 0; k < N; ++k) {
    int p = k;
    for (int i = k + 1; i < N; ++i)
      if (std::abs(a(i, k)) > std::abs(a(p, k))) p = i;
    pivot[k] = p;
    a.row(k).swap(a.row(p));
    const double inv_pivot = 1 / a(k, k);
    for (int i = k + 1; i < N; ++i) {
      a(i, k) *= inv_pivot;
      for (int j = k + 1; j < N; ++j) a(i, j) -= a(i, k) * a(k, j);
    }
  }
  for (int k = 0; k < N; ++k) std::swap(x[k], x[pivot[k]]);
  for (int i = 1; i < N; ++i)
    for (int j = 0; j < i; ++j) x[i] -= a(i, j) * x[j];
  for (int i = N - 1; i >= 0; --i) {
    for (int j = i + 1; j < N; ++j) x[i] -= a(i, j) * x[j];
    x[i] /= a(i, i);
  }
  return x;
}

/// lu.hpp, its loops written for the GPU (selects, constant trip counts, no early exit), gives the
/// textbook solution bit for bit.
template <int N>
void expect_textbook_bits() {
  std::mt19937_64 rng(77 + N);
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Matrix<double, N, N> a = pivoting_matrix<N>(rng);
    Vec<double, N> b;
    for (int i = 0; i < N; ++i) b[i] = std::uniform_real_distribution<double>(-1, 1)(rng);
    const Vec<double, N> x = Lu<double, N>(a).solve(b), reference = textbook_solve<N>(a, b);
    for (int i = 0; i < N; ++i)
      ASSERT_EQ(std::memcmp(&x[i], &reference[i], sizeof(double)), 0) << "trial " << trial << " x" << i;
  }
}

TEST(Lu, IsTheTextbookFactorisationBitForBit) {
  expect_textbook_bits<3>();
  expect_textbook_bits<4>();
  expect_textbook_bits<5>();
  expect_textbook_bits<8>();
}

/// The CPU's lanes (LaneLu) hold each lane's scalar factorisation and solution bit for bit, whichever
/// rows the lanes exchange, and flag exactly the singular lanes.
template <int N>
void expect_lanes_bitwise_scalar() {
  using L = simd::Lanes<double, 4>;
  std::mt19937_64 rng(4242 + N);
  for (int trial = 0; trial < 500; ++trial) {
    Eigen::Matrix<double, N, N> a[4];
    Vec<double, N> b[4];
    Eigen::Matrix<L, N, N> lanes_a;
    Vec<L, N> lanes_b;
    for (int w = 0; w < 4; ++w) {
      a[w] = pivoting_matrix<N>(rng);
      if (trial % 7 == 0 && w == 2) a[w].row(N - 1) = 2 * a[w].row(0);  // exactly singular
      for (int i = 0; i < N; ++i) b[w][i] = std::uniform_real_distribution<double>(-1, 1)(rng);
      for (int i = 0; i < N; ++i) {
        lanes_b[i][w] = b[w][i];
        for (int j = 0; j < N; ++j) lanes_a(i, j)[w] = a[w](i, j);
      }
    }
    const Lu<L, N> lanes(lanes_a);
    const Vec<L, N> x = lanes.solve(lanes_b);
    for (int w = 0; w < 4; ++w) {
      const Lu<double, N> scalar(a[w]);
      ASSERT_EQ(bool(lanes.singular[w]), scalar.singular) << "trial " << trial << " lane " << w;
      if (scalar.singular) continue;
      const Vec<double, N> xs = scalar.solve(b[w]);
      for (int i = 0; i < N; ++i) {
        const double xl = x[i][w];
        ASSERT_EQ(std::memcmp(&xl, &xs[i], sizeof xl), 0) << "trial " << trial << " lane " << w << " x" << i;
      }
    }
  }
}

TEST(Lu, LanesAreBitwiseScalar) {
  expect_lanes_bitwise_scalar<4>();
  expect_lanes_bitwise_scalar<5>();
  expect_lanes_bitwise_scalar<8>();
}

// A residual whose Newton corrections two-cycle at ±δ around the root, like the HHT family's at one
// ulp of q_{n+1} (hht.hpp, round_off_norm): the rate is 1, never certified. With the system's
// round-off level at 2δ the driver stops at the second iteration, in float and double; a system
// without round_off_norm fails.
template <class S, bool knows_round_off>
struct TwoCycle {
  S root = S(1), delta = S(1.0 / 1024);  // dyadic: the cycle is exact in float and double
  void evaluate(const Vec<S, 1>& x, Vec<S, 1>& r, Mat<S, 1, 1>& j) const {
    r[0] = x[0] < root ? x[0] - root - delta : x[0] - root + delta;  // next iterate: root ± δ
    j(0, 0) = S(1);
  }
  S correction_norm(const Vec<S, 1>& dx, const Vec<S, 1>&) const { return std::abs(dx[0]); }
  template <bool k = knows_round_off, class = std::enable_if_t<k>>
  S round_off_norm(const Vec<S, 1>&) const {
    return S(2) * delta;
  }
};

template <class S, bool knows_round_off>
NewtonOutcome solve_two_cycle() {
  NewtonSettings<S> settings;
  settings.tolerance = S(1e-9);
  Vec<S, 1> x(S(1) + S(1.0 / 1024));  // on the cycle
  return newton_solve<S, 1>(TwoCycle<S, knows_round_off>{}, x, settings);
}

TEST(NewtonRoundOff, StopsAtTheSystemsRoundOffFloor) {
  for (const NewtonOutcome out : {solve_two_cycle<float, true>(), solve_two_cycle<double, true>()}) {
    EXPECT_EQ(out.status, Status::ok);
    EXPECT_EQ(out.iterations, 2);
  }
  EXPECT_EQ((solve_two_cycle<float, false>().status), Status::newton_not_converged);
  EXPECT_EQ((solve_two_cycle<double, false>().status), Status::newton_not_converged);
}

// Sherif's top (§10.1) spinning slowly, 1.5 rad/s, at small steps in double: the HHT correction
// floor, ε·γ/(βh|q̇|) relative, is above the 1e-12 tolerance there. Without the round-off stall
// every variant failed within its first steps at h = 2e-6 (newton_not_converged; at 4e-6 the
// tops up to 15 rad/s). The accepted iterates are converged: the run agrees with one at 20× the
// step to within that step's own error (second order with the shift; the plain forms at α ≠ 0 are
// first order, docs/errata.md S3: 1.4e-9 and 1.5e-9 measured).
template <class Integrator>
void slow_top_at_small_steps(const Integrator& integrator, double bound) {
  const auto top = HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0, {0.0, 1.0, 0.0},
                                                         {0.0, 0.0, -9.81});
  RigidBodyKinematics<double> k;
  k.omega_body = {0.0, 1.5, -0.0461538};
  const auto run = [&](double h, int steps, int& iterations) {
    typename Integrator::State s;
    EXPECT_EQ(integrator.initialize(top, k, 0.0, s), Status::ok);
    for (int i = 0; i < steps; ++i) {
      const auto out = integrator.step(top, s, i * h, h);
      EXPECT_EQ(out.status, Status::ok) << "h = " << h << ", step " << i;
      if (out.status != Status::ok) break;
      iterations += out.iterations;
    }
    return integrator.kinematics(top, s).quaternion;
  };
  int small = 0, large = 0;
  const Vec4<double> q = run(2e-6, 5000, small), reference = run(4e-5, 250, large);
  EXPECT_LE(small, 3 * 5000);
  EXPECT_LT((q - reference).lpNorm<Eigen::Infinity>(), bound);  // t = 0.01, |ω|h = 6e-5 at 4e-5
}

TEST(NewtonRoundOff, SlowTopAtSmallStepsModifiedHhtShift) {
  HhtSettings<double> st;
  st.inertia_shift = true;
  slow_top_at_small_steps(ModifiedHht<HeavyTop<double>>(st), 1e-10);
}
TEST(NewtonRoundOff, SlowTopAtSmallStepsHht) { slow_top_at_small_steps(Hht<HeavyTop<double>>(), 5e-9); }
TEST(NewtonRoundOff, SlowTopAtSmallStepsModifiedHht) {
  slow_top_at_small_steps(ModifiedHht<HeavyTop<double>>(), 5e-9);
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
