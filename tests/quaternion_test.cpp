// Quaternion / Euler-parameter algebra: the identities of Sherif eq. (7) and Kinon & Betsch
// App. C (eqs. 134–137), products, rotation matrices, exp/log and their small-angle branches.
// Tolerances are k·ε (ε = DBL_EPSILON); each test prints the figure it measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "quatstep/quaternion.hpp"
#include "test_support.hpp"

namespace quatstep {
namespace {

using testing::kEps;
using testing::Random;

constexpr int kSamples = 200;

double max_abs(const Eigen::MatrixXd& a) { return a.cwiseAbs().maxCoeff(); }

void report(const char* what, double value) { std::printf("  measured %-52s %.3g eps\n", what, value / kEps); }

/// A generic (non-unit) quaternion, |a| ∈ [0.5, 2].
Vec4<double> scaled_quaternion(Random& rnd) { return rnd.uniform(0.5, 2.0) * rnd.unit_quaternion(); }

/// Kinon eq. (137): x̄ = [0 −xᵀ; x −x̂].
Mat4<double> bar(const Vec3<double>& x) {
  Mat4<double> m;
  m(0, 0) = 0.0;
  m.block<1, 3>(0, 1) = -x.transpose();
  m.block<3, 1>(1, 0) = x;
  m.block<3, 3>(1, 1) = -skew(x);
  return m;
}

TEST(QuaternionProduct, AssociativeAndGivenByLeftAndRightMatrices) {
  Random rnd(1);
  double assoc = 0, left = 0, right = 0, blocks = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> a = scaled_quaternion(rnd), b = scaled_quaternion(rnd), c = scaled_quaternion(rnd);
    assoc = std::max(assoc, max_abs(quat_mul(quat_mul(a, b), c) - quat_mul(a, quat_mul(b, c))));
    // Kinon eq. (32): a ∘ b = Q_l(a) b = Q_r(b) a
    left = std::max(left, max_abs(quat_left(a) * b - quat_mul(a, b)));
    right = std::max(right, max_abs(quat_right(b) * a - quat_mul(a, b)));
    // Kinon eqs. (33a–b): Q_l(a) = [a  G(a)ᵀ], Q_r(b) = [b  E(b)ᵀ] (exact: same entries)
    Mat4<double> ql, qr;
    ql << a, G(a).transpose();
    qr << b, E(b).transpose();
    blocks = std::max({blocks, max_abs(quat_left(a) - ql), max_abs(quat_right(b) - qr)});
  }
  report("|(ab)c - a(bc)|, |a|<=2", assoc);  // measured 8 eps
  report("|Q_l(a)b - ab|", left);            // measured 2 eps
  report("|Q_r(b)a - ab|", right);           // measured 2 eps
  EXPECT_LE(assoc, 32 * kEps);
  EXPECT_LE(left, 8 * kEps);
  EXPECT_LE(right, 8 * kEps);
  EXPECT_EQ(blocks, 0.0);
}

TEST(QuaternionProduct, ConjugateReversesProductsAndGivesTheNorm) {
  Random rnd(2);
  double reverse = 0, norm = 0, multiplicative = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> a = scaled_quaternion(rnd), b = scaled_quaternion(rnd);
    reverse = std::max(reverse, max_abs(quat_conj(quat_mul(a, b)) - quat_mul(quat_conj(b), quat_conj(a))));
    norm =
        std::max(norm, max_abs(quat_mul(a, quat_conj(a)) - Vec4<double>(a.squaredNorm(), 0, 0, 0)) / a.squaredNorm());
    multiplicative = std::max(multiplicative, std::abs(quat_mul(a, b).norm() / (a.norm() * b.norm()) - 1.0));
  }
  report("|conj(ab) - conj(b)conj(a)|", reverse);   // measured 2 eps
  report("|a conj(a) - |a|^2| / |a|^2", norm);      // measured 1 eps
  report("| |ab|/(|a||b|) - 1 |", multiplicative);  // measured 2 eps
  EXPECT_LE(reverse, 16 * kEps);
  EXPECT_LE(norm, 8 * kEps);
  EXPECT_LE(multiplicative, 8 * kEps);
}

// Kinon eq. (134) prints Q_l(a)⁻¹ = Q_l(a)ᵀ/|a|; the inverse is Q_l(a)ᵀ/|a|² (the two agree for
// unit a only, which is all the paper uses). Checked here in the form Q_lᵀ Q_l = |a|² I.
TEST(KinonAppendixC, Eq134MultiplicationMatricesAreScaledOrthogonal) {
  Random rnd(3);
  double orth = 0, conj = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> a = scaled_quaternion(rnd);
    const Mat4<double> i4 = a.squaredNorm() * Mat4<double>::Identity();
    orth = std::max({orth, max_abs(quat_left(a).transpose() * quat_left(a) - i4) / a.squaredNorm(),
                     max_abs(quat_right(a).transpose() * quat_right(a) - i4) / a.squaredNorm()});
    conj = std::max({conj, max_abs(quat_left(a).transpose() - quat_left(quat_conj(a))),
                     max_abs(quat_right(a).transpose() - quat_right(quat_conj(a)))});
  }
  report("|Q^T Q - |a|^2 I| / |a|^2", orth);  // measured 0 eps
  EXPECT_LE(orth, 8 * kEps);
  EXPECT_EQ(conj, 0.0);  // Q(ā) = Q(a)ᵀ entry by entry
}

// Sherif eq. (7) for a unit e and a tangent ė (eᵀė = 0), for both G (Sherif's L) and E.
TEST(SherifEq7, IdentitiesOfGAndEOnTheUnitSphere) {
  Random rnd(4);
  double null = 0, rate_null = 0, ggt = 0, gtg = 0, omega_tilde = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> e = rnd.unit_quaternion();
    const Vec3<double> w = rnd.vector<3>(10.0);
    const Vec4<double> ed = 0.5 * G(e).transpose() * w;  // tangent rate (Kinon eq. 44)
    const Mat4<double> p = Mat4<double>::Identity() - e * e.transpose();
    for (const Mat34<double>& m : {G(e), E(e)}) {
      null = std::max(null, max_abs(m * e));                                       // L e = 0
      ggt = std::max(ggt, max_abs(m * m.transpose() - Mat3<double>::Identity()));  // L Lᵀ = I₃
      gtg = std::max(gtg, max_abs(m.transpose() * m - p));                         // Lᵀ L = I₄ − e eᵀ
    }
    // L̇ ė = 0 with L̇ = G(ė), E-analogue likewise; relative to |ė|²
    rate_null = std::max({rate_null, max_abs(G(ed) * ed) / ed.squaredNorm(), max_abs(E(ed) * ed) / ed.squaredNorm()});
    // Sherif §2: ω̃ = 2 L L̇ᵀ for ω = 2Lė
    omega_tilde = std::max(omega_tilde, max_abs(2.0 * G(e) * G(ed).transpose() - skew(w)) / w.norm());
  }
  report("|L e|", null);                                // measured 0 eps
  report("|Ldot edot| / |edot|^2", rate_null);          // measured 0 eps
  report("|L L^T - I3|", ggt);                          // measured 2 eps
  report("|L^T L - (I4 - e e^T)|", gtg);                // measured 1.5 eps
  report("|2 L Ldot^T - skew(w)| / |w|", omega_tilde);  // measured 1.5 eps
  EXPECT_LE(null, 4 * kEps);
  EXPECT_LE(rate_null, 4 * kEps);
  EXPECT_LE(ggt, 4 * kEps);
  EXPECT_LE(gtg, 4 * kEps);
  EXPECT_LE(omega_tilde, 8 * kEps);
}

// Kinon eqs. (135)–(136) for arbitrary (non-unit) quaternions.
TEST(KinonAppendixC, Eqs135And136ForArbitraryQuaternions) {
  Random rnd(5);
  double e135 = 0, e136 = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> a = scaled_quaternion(rnd), b = scaled_quaternion(rnd);
    const double n2 = a.squaredNorm();
    for (const Mat34<double>& m : {G(a), E(a)}) {
      e135 = std::max({e135, max_abs(m * a) / n2, max_abs(m * m.transpose() - n2 * Mat3<double>::Identity()) / n2,
                       max_abs(m.transpose() * m - (n2 * Mat4<double>::Identity() - a * a.transpose())) / n2});
    }
    const double ab = a.norm() * b.norm();
    e136 = std::max({e136, max_abs(E(a) * b + E(b) * a) / ab, max_abs(G(a) * b + G(b) * a) / ab,
                     max_abs(E(a) * G(b).transpose() - E(b) * G(a).transpose()) / ab});
  }
  report("eq. (135), relative to |a|^2", e135);   // measured 1.2 eps
  report("eq. (136), relative to |a||b|", e136);  // measured 0 eps
  EXPECT_LE(e135, 8 * kEps);
  EXPECT_LE(e136, 8 * kEps);
}

TEST(KinonAppendixC, Eq137GTransposeIsLinearInTheQuaternion) {
  Random rnd(6);
  double err = 0, dgt = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> a = scaled_quaternion(rnd);
    const Vec3<double> x = rnd.vector<3>(5.0);
    err = std::max(err, max_abs(G(a).transpose() * x - bar(x) * a) / (a.norm() * x.norm()));
    dgt = std::max(dgt, max_abs(d_Gt_times(x) - bar(x)));  // ∂(G(a)ᵀx)/∂a = x̄
  }
  report("|G(a)^T x - xbar a| / (|a||x|)", err);  // measured 0 eps
  EXPECT_LE(err, 4 * kEps);
  EXPECT_EQ(dgt, 0.0);
}

TEST(RotationMatrix, IsEGTransposeOrthogonalWithUnitDeterminantAndAHomomorphism) {
  Random rnd(7);
  double eg = 0, orth = 0, det = 0, hom = 0, sandwich = 0, body = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> p = rnd.unit_quaternion(), q = rnd.unit_quaternion();
    const Vec4<double> a = scaled_quaternion(rnd);
    const Mat3<double> r = rotation_matrix(p);
    // Kinon eq. (50): R = E Gᵀ; both sides are the same quadratic polynomial, so also off the sphere
    eg = std::max(eg, max_abs(rotation_matrix(a) - E(a) * G(a).transpose()) / a.squaredNorm());
    orth = std::max(orth, max_abs(r.transpose() * r - Mat3<double>::Identity()));
    det = std::max(det, std::abs(r.determinant() - 1.0));
    hom = std::max(hom, max_abs(rotation_matrix(quat_mul(p, q)) - r * rotation_matrix(q)));
    // Kinon eq. (49): (0, R ξ) = q ∘ (0, ξ) ∘ q̄
    const Vec3<double> xi = rnd.vector<3>();
    sandwich =
        std::max(sandwich, max_abs(quat_mul(quat_mul(p, pure(xi)), quat_conj(p)) - pure<double>(r * xi)) / xi.norm());
    body = std::max(body, max_abs(to_body(p, xi) - r.transpose() * xi) / xi.norm());
  }
  report("|R(a) - E(a)G(a)^T| / |a|^2", eg);                  // measured 0.9 eps
  report("|R^T R - I|", orth);                                // measured 4 eps
  report("|det R - 1|", det);                                 // measured 6 eps
  report("|R(pq) - R(p)R(q)|", hom);                          // measured 2.5 eps
  report("|q (0,xi) conj(q) - (0, R xi)| / |xi|", sandwich);  // measured 1.7 eps
  EXPECT_LE(eg, 8 * kEps);
  EXPECT_LE(orth, 8 * kEps);
  EXPECT_LE(det, 8 * kEps);
  EXPECT_LE(hom, 8 * kEps);
  EXPECT_LE(sandwich, 16 * kEps);
  EXPECT_LE(body, 8 * kEps);
}

const double kAngles[] = {1e-12, 1e-8, 1e-4, 1.0, 3.1, M_PI - 1e-9};

/// Rodrigues' formula in long double: I + sinθ/θ θ̃ + (1 − cos θ)/θ² θ̃².
Mat3<double> rodrigues(const Vec3<double>& theta) {
  using L = long double;
  const Eigen::Matrix<L, 3, 1> t = theta.cast<L>();
  const L a = std::sqrt(t.squaredNorm()), s = std::sin(a / 2);
  const Eigen::Matrix<L, 3, 3> k = skew<L>(t);
  return (Eigen::Matrix<L, 3, 3>::Identity() + std::sin(a) / a * k + 2 * s * s / (a * a) * k * k).cast<double>();
}

TEST(RotationVector, RotationMatrixMatchesRodrigues) {
  Random rnd(8);
  double err = 0;
  for (double angle : kAngles)
    for (int k = 0; k < 20; ++k) {
      const Vec3<double> theta = angle * rnd.unit_vector();
      err = std::max(err, max_abs(rotation_matrix(quat_from_rotation_vector(theta)) - rodrigues(theta)));
    }
  report("|R(exp(theta)) - Rodrigues(theta)|", err);  // measured 2 eps
  EXPECT_LE(err, 8 * kEps);
}

TEST(RotationVector, LogInvertsExpFromTinyAnglesToNearlyPi) {
  Random rnd(9);
  for (double angle : kAngles) {
    double err = 0, unit = 0;
    for (int k = 0; k < 20; ++k) {
      const Vec3<double> theta = angle * rnd.unit_vector();
      const Vec4<double> q = quat_from_rotation_vector(theta);
      unit = std::max(unit, std::abs(q.norm() - 1.0));
      err = std::max(err, max_abs(rotation_vector(q) - theta) / angle);
    }
    std::printf("  angle %-10.3g", angle);
    report("|log(exp(theta)) - theta| / |theta|", err);  // measured 0-1 eps per angle
    EXPECT_LE(err, 8 * kEps) << "angle " << angle;
    EXPECT_LE(unit, 2 * kEps) << "angle " << angle;
  }
}

TEST(RotationVector, ExpInvertsLogUpToSign) {
  Random rnd(10);
  double err = 0;
  for (int k = 0; k < kSamples; ++k) {
    const Vec4<double> q = rnd.unit_quaternion();
    const Vec3<double> theta = rotation_vector(q);
    EXPECT_LE(theta.norm(), M_PI * (1 + kEps));
    const Vec4<double> back = quat_from_rotation_vector(theta);
    err = std::max(err, max_abs((q[0] < 0 ? Vec4<double>(-q) : q) - back));
  }
  report("|exp(log q) - (+-q)|", err);  // measured 1.5 eps
  EXPECT_LE(err, 8 * kEps);
}

// ---------------------------------------------------------------- small-angle branches
// References in long double: the closed forms where they have no cancellation, long Taylor series
// where they do.
long double series(long double x2, int first_factorial_index, int terms) {
  // Σ_k (−x²)^k / (2k + first)!
  long double sum = 0, term = 1;
  for (int i = 1; i <= first_factorial_index; ++i) term /= i;
  for (int k = 0; k < terms; ++k) {
    sum += term;
    const int j = 2 * k + first_factorial_index;
    term *= -x2 / ((j + 1.0L) * (j + 2.0L));
  }
  return sum;
}
long double sinc_ref(long double x) { return x < 0.5L ? series(x * x, 1, 30) : std::sin(x) / x; }
long double one_minus_cos_ref(long double x) { return series(x * x, 2, 30); }
long double x_minus_sin_ref(long double x) { return series(x * x, 3, 30); }

/// Largest relative error of f against ref on a geometric grid of [lo, hi).
template <class F, class R>
double relative_error_on(F f, R ref, double lo, double hi) {
  double err = 0;
  for (double x = lo; x < hi; x *= 1.07) err = std::max(err, std::abs(f(x) / double(ref(x)) - 1));
  return err;
}

// Series branches: sinc and (1−cos)/x² below x = 1e-2, (x − sin)/x³ below x = 1e-1.
TEST(SmallAngleBranches, SeriesAgreeWithLongDouble) {
  const double sinc = relative_error_on(detail::sinc<double>, sinc_ref, 1e-9, 1e-2);
  const double omc = relative_error_on(detail::one_minus_cos_over_x2<double>, one_minus_cos_ref, 1e-9, 1e-2);
  const double xms = relative_error_on(detail::x_minus_sin_over_x3<double>, x_minus_sin_ref, 1e-9, 1e-1);
  report("sin(x)/x series, x < 1e-2, relative", sinc);        // measured 0 eps
  report("(1 - cos x)/x^2 series, x < 1e-2, relative", omc);  // measured 0 eps
  report("(x - sin x)/x^3 series, x < 1e-1, relative", xms);  // measured 6 eps (dropped x^8 term at the edge)
  EXPECT_LE(sinc, 4 * kEps);
  EXPECT_LE(omc, 4 * kEps);
  EXPECT_LE(xms, 8 * kEps);
}

// Closed forms above the thresholds, up to x = 2. (x − sin x)/x³ cancels there: x − sin x ≈ x³/6
// loses log10(6/x²) ≈ 2.8 digits at x = 0.1: measured 93 eps relative on this grid, 136 eps at
// x = 0.1007 on a finer one, 31 eps at 0.18, ≤ 4 eps above 0.35. The bound states that figure; it is
// the coefficient's relative error only, its contribution to J_r stays at round-off (next test).
TEST(SmallAngleBranches, ClosedFormsAboveTheThresholds) {
  const double sinc = relative_error_on(detail::sinc<double>, sinc_ref, 1e-2, 2.0);
  const double omc = relative_error_on(detail::one_minus_cos_over_x2<double>, one_minus_cos_ref, 1e-2, 2.0);
  const double xms = relative_error_on(detail::x_minus_sin_over_x3<double>, x_minus_sin_ref, 1e-1, 2.0);
  report("sin(x)/x closed form, x in [1e-2, 2], relative", sinc);       // measured 1 eps
  report("(1 - cos x)/x^2 closed form, relative", omc);                 // measured 1.5 eps
  report("(x - sin x)/x^3 closed form, x in [0.1, 2], relative", xms);  // measured 93 eps
  EXPECT_LE(sinc, 4 * kEps);
  EXPECT_LE(omc, 4 * kEps);
  EXPECT_LE(xms, 256 * kEps);
}

// Float: (x − sin x)/x³ switches to its series below x² = 1 (quaternion.hpp, XMinusSinSeries), where
// the series' truncation and the closed form's cancellation are both a few ε_float; with the double
// threshold x² = 1e-2 the closed form would lose ≈ 600 ε_float just above it.
template <class F, class R>
double float_relative_error_on(F f, R ref, double lo, double hi) {
  double err = 0;
  for (double x = lo; x < hi; x *= 1.01) err = std::max(err, std::abs(double(f(float(x))) / double(ref(float(x))) - 1));
  return err / std::numeric_limits<float>::epsilon();
}

TEST(SmallAngleBranches, FloatSeriesAndClosedFormsAgreeWithLongDouble) {
  const double sinc = float_relative_error_on(detail::sinc<float>, sinc_ref, 1e-6, 2.0);
  const double omc = float_relative_error_on(detail::one_minus_cos_over_x2<float>, one_minus_cos_ref, 1e-6, 2.0);
  const double xms = float_relative_error_on(detail::x_minus_sin_over_x3<float>, x_minus_sin_ref, 1e-6, 2.0);
  std::printf("  float, x in [1e-6, 2], relative: sinc %.2f, (1-cos)/x^2 %.2f, (x-sin)/x^3 %.2f eps_float\n", sinc, omc,
              xms);
  EXPECT_LE(sinc, 2.0);  // measured 0.62
  EXPECT_LE(omc, 4.0);   // measured 1.59
  EXPECT_LE(xms, 4.0);   // measured 1.45 (x² = 1e-2 as in double: ≈ 600 predicted)
}

TEST(SmallAngleBranches, RightJacobianAgreesWithLongDouble) {
  Random rnd(12);
  double err = 0;
  for (double angle = 1e-9; angle < 3.1; angle *= 1.07) {
    const Vec3<double> theta = angle * rnd.unit_vector();
    using L = long double;
    const Eigen::Matrix<L, 3, 3> t = skew<L>(theta.cast<L>());
    const L a = angle;
    const Mat3<double> ref =
        (Eigen::Matrix<L, 3, 3>::Identity() - one_minus_cos_ref(a) * t + x_minus_sin_ref(a) * t * t).cast<double>();
    err = std::max(err, max_abs(so3_right_jacobian(theta) - ref));
  }
  report("|J_r(theta) - long double J_r|, |theta| < 3.1", err);  // measured 0.56 eps
  EXPECT_LE(err, 4 * kEps);
}

TEST(SmallAngleBranches, QuatLogSeriesAgreesWithLongDouble) {
  // quat_log switches to the series of a/sin a below |vec q| = 1e-4.
  Random rnd(11);
  double err = 0;
  for (double angle = 1e-12; angle < 1.0; angle *= 1.3) {
    const Vec4<double> q = quat_exp<double>(angle * rnd.unit_vector());
    const long double s = std::sqrt((long double)q.tail<3>().squaredNorm());
    const long double k = std::atan2(s, (long double)q[0]) / s;
    const Vec3<double> ref = (k * q.tail<3>().cast<long double>()).cast<double>();
    err = std::max(err, max_abs(quat_log(q) - ref) / ref.norm());
  }
  report("quat_log relative, |v| in [1e-12, 1]", err);  // measured 1.2 eps
  EXPECT_LE(err, 4 * kEps);
}

}  // namespace
}  // namespace quatstep
