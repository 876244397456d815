// The portable sin/cos of include/quatstep/math/trig.hpp and atan2 of math/angle.hpp against long
// double sinl/cosl/atan2l (x87, 64-bit significand: its own error is ~2^-63 relative, < 0.001 ulp of
// a double). Errors in ulps of the exact result in the tested precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "quatstep/math/angle.hpp"
#include "quatstep/math/trig.hpp"
#include "quatstep/quaternion.hpp"
#if QUATSTEP_CPU_LANES
#include "quatstep/simd/lanes.hpp"
#endif

namespace quatstep {
namespace {

using L = long double;
const L kPiOver2 = std::acos(L(0));

/// Spacing of S at y (subnormal spacing below the normal range).
template <class S>
L ulp_of(L y) {
  int e;
  std::frexp(y, &e);  // |y| = m·2^e, m ∈ [0.5, 1)
  const int lowest = std::numeric_limits<S>::min_exponent;
  return std::ldexp(L(1), (e < lowest ? lowest : e) - std::numeric_limits<S>::digits);
}

/// Largest errors of math::sin and math::cos over a set of arguments, in ulps of the exact value.
template <class S>
struct UlpError {
  double sin = 0, cos = 0;
  S worst_sin = 0, worst_cos = 0;
  void add(S x) {
    const L s = std::sin(L(x)), c = std::cos(L(x));
    const double es = double(std::abs(L(math::sin(x)) - s) / ulp_of<S>(s));
    const double ec = double(std::abs(L(math::cos(x)) - c) / ulp_of<S>(c));
    if (es > sin) sin = es, worst_sin = x;
    if (ec > cos) cos = ec, worst_cos = x;
  }
  void print(const char* precision, const char* what) const {
    std::printf("%-6s %-44s max error: sin %.3f ulp (x = %.9g), cos %.3f ulp (x = %.9g)\n", precision, what, sin,
                double(worst_sin), cos, double(worst_cos));
  }
};

template <class S>
const char* name() {
  return std::is_same_v<S, float> ? "float" : "double";
}

/// Bounds asserted on (a)–(d), in ulps.
struct Bounds {
  double uniform, small, medium, near_multiples;
};

// (a) 10^6 uniform points in [−π, π].
template <class S>
UlpError<S> uniform_on_pi() {
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> u(-M_PI, M_PI);
  UlpError<S> err;
  for (int i = 0; i < 1000000; ++i) err.add(S(u(gen)));
  return err;
}

// (b) Small arguments: a geometric grid from the smallest subnormal to 1, both signs.
template <class S>
UlpError<S> small_arguments() {
  UlpError<S> err;
  for (S x = std::numeric_limits<S>::denorm_min(); x < S(1); x = x * S(1.0009765625) + std::numeric_limits<S>::denorm_min()) {
    err.add(x);
    err.add(-x);
  }
  return err;
}

// (c) Medium arguments: 10^6 log-uniform points in [π, accurate_below], both signs.
template <class S>
UlpError<S> medium_arguments() {
  std::mt19937_64 gen(2);
  std::uniform_real_distribution<double> u(std::log(M_PI), std::log(double(math::detail::TrigConstants<S>::accurate_below)));
  UlpError<S> err;
  for (int i = 0; i < 500000; ++i) {
    const S x = S(std::exp(u(gen)));
    err.add(x);
    err.add(-x);
  }
  return err;
}

// (d) The representable numbers nearest to k·π/2 and their two neighbours on each side, for every k
// up to the accuracy bound: there the reduced argument nearly cancels.
template <class S>
UlpError<S> near_multiples_of_pi_over_2() {
  UlpError<S> err;
  const long kmax = long(math::detail::TrigConstants<S>::accurate_below / M_PI * 2);
  for (long k = 1; k <= kmax; ++k) {
    S x = S(L(k) * kPiOver2);
    for (int i = 0; i < 2; ++i) x = std::nextafter(x, S(0));
    for (int i = 0; i < 5; ++i, x = std::nextafter(x, S(INFINITY))) {
      err.add(x);
      err.add(-x);
    }
  }
  return err;
}

template <class S>
void check_accuracy(const Bounds& bound) {
  const UlpError<S> a = uniform_on_pi<S>(), b = small_arguments<S>(), c = medium_arguments<S>(),
                    d = near_multiples_of_pi_over_2<S>();
  a.print(name<S>(), "(a) 10^6 uniform in [-pi, pi]");
  b.print(name<S>(), "(b) small, denorm_min .. 1");
  c.print(name<S>(), "(c) medium, pi .. accurate_below");
  d.print(name<S>(), "(d) nearest to k pi/2, k up to the bound");
  EXPECT_LE(std::max(a.sin, a.cos), bound.uniform);
  EXPECT_LE(std::max(b.sin, b.cos), bound.small);
  EXPECT_LE(std::max(c.sin, c.cos), bound.medium);
  EXPECT_LE(std::max(d.sin, d.cos), bound.near_multiples);
}

// Measured max(sin, cos) in ulps: (a) 0.776, (b) 0.729, (c) 0.771, (d) 0.500.
TEST(PortableTrig, DoubleWithinOneUlp) { check_accuracy<double>({0.8, 0.8, 0.8, 0.8}); }

// Measured: (a) 0.784, (b) 0.678, (c) 0.771, (d) 0.500.
TEST(PortableTrig, FloatWithinOneUlp) { check_accuracy<float>({0.8, 0.8, 0.8, 0.8}); }

// Beyond accurate_below the error is dominated by ulp(x), the uncertainty of the argument itself.
template <class S>
double worst_absolute_error_in_ulps_of_x() {
  std::mt19937_64 gen(3);
  using C = math::detail::TrigConstants<S>;
  std::uniform_real_distribution<double> u(std::log(double(C::accurate_below)), std::log(double(C::max_argument)));
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const S x = S(std::exp(u(gen)));
    const L ux = ulp_of<S>(x);
    worst = std::max(worst, double(std::abs(L(math::sin(x)) - std::sin(L(x))) / ux));
    worst = std::max(worst, double(std::abs(L(math::cos(x)) - std::cos(L(x))) / ux));
  }
  return worst;
}

TEST(PortableTrig, BeyondTheBoundTheErrorIsAFractionOfUlpOfX) {
  const double d = worst_absolute_error_in_ulps_of_x<double>(), f = worst_absolute_error_in_ulps_of_x<float>();
  std::printf("accurate_below < |x| <= max_argument: max |error| / ulp(x): double %.3f, float %.3f\n", d, f);
  EXPECT_LE(d, 1.0);  // measured 0.500
  EXPECT_LE(f, 1.0);  // measured 0.650
}

template <class S>
void check_special_values() {
  using C = math::detail::TrigConstants<S>;
  const S inf = std::numeric_limits<S>::infinity(), nan = std::numeric_limits<S>::quiet_NaN();
  for (S x : {inf, -inf, nan, std::nextafter(C::max_argument, inf), -std::nextafter(C::max_argument, inf)}) {
    EXPECT_TRUE(std::isnan(math::sin(x))) << x;
    EXPECT_TRUE(std::isnan(math::cos(x))) << x;
  }
  EXPECT_FALSE(std::isnan(math::sin(C::max_argument)));
  EXPECT_TRUE(std::signbit(math::sin(S(-0.0))));
  EXPECT_FALSE(std::signbit(math::sin(S(0.0))));
  EXPECT_EQ(math::cos(S(-0.0)), S(1));
}

TEST(PortableTrig, NanInfAndHugeGiveNanZeroKeepsItsSign) {
  check_special_values<double>();
  check_special_values<float>();
}

template <class S>
void check_sincos_bits() {
  std::mt19937_64 gen(4);
  std::uniform_real_distribution<double> u(-100, 100);
  int mismatches = 0;
  for (int i = 0; i < 100000; ++i) {
    const S x = S(u(gen));
    S s, c;
    math::sincos(x, s, c);
    mismatches += (s != math::sin(x)) + (c != math::cos(x));
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(PortableTrig, SincosGivesTheSameBitsAsSinAndCos) {
  check_sincos_bits<double>();
  check_sincos_bits<float>();
}

#if QUATSTEP_CPU_LANES
/// Lane sincos (simd/lane_trig.hpp) gives each lane the scalar bits, with lanes that take different
/// scalar paths side by side: the branch points (tiny, π/4, max_argument) and their neighbours, ±0,
/// subnormals, NaN, ±∞, multiples of π/2, and random arguments from 1e-30 to 4·max_argument
/// (2^52 in double, 2^23 in float). Four double lanes, eight float lanes. Returns the mismatches.
template <class T>
int lane_sincos_mismatches(std::size_t& arguments) {
  using C = math::detail::TrigConstants<T>;
  constexpr int W = 32 / int(sizeof(T));
  using Lanes = simd::Lanes<T, W>;
  std::vector<T> x = {T(0), -T(0), std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::min() / T(3),
                      C::tiny, C::pi_4, C::max_argument, T(1), T(2), T(1e6), T(3e7), T(INFINITY), T(-INFINITY),
                      std::numeric_limits<T>::quiet_NaN()};
  for (const T edge : {C::tiny, C::pi_4, C::max_argument, C::accurate_below})
    for (const T y : {std::nextafter(edge, T(0)), std::nextafter(edge, T(INFINITY))}) x.push_back(y);
  for (int k = 1; k < 2000; ++k) x.push_back(T(double(k) * 1.5707963267948966));
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> decade(-30, std::log10(4.0 * double(C::max_argument)));
  for (int i = 0; i < 200000; ++i) x.push_back(T(std::pow(10.0, decade(gen))));
  for (std::size_t i = 0, n = x.size(); i < n; ++i) x.push_back(-x[i]);
  std::shuffle(x.begin(), x.end(), gen);
  int mismatches = 0;
  for (std::size_t i = 0; i + W <= x.size(); i += W) {
    Lanes in, s, c;
    for (int j = 0; j < W; ++j) in[j] = x[i + j];
    simd::sincos(in, s, c);
    const Lanes s_only = simd::sin(in), c_only = simd::cos(in);
    for (int j = 0; j < W; ++j) {
      const T want_s = math::sin(x[i + j]), want_c = math::cos(x[i + j]);
      for (const T got : {T(s[j]), s_only[j]}) mismatches += std::memcmp(&got, &want_s, sizeof got) != 0;
      for (const T got : {T(c[j]), c_only[j]}) mismatches += std::memcmp(&got, &want_c, sizeof got) != 0;
    }
  }
  arguments = x.size();
  return mismatches;
}

TEST(PortableTrig, LaneSincosGivesEachLaneTheScalarBits) {
  std::size_t arguments = 0;
  EXPECT_EQ(lane_sincos_mismatches<double>(arguments), 0) << "of " << arguments << " arguments";
  EXPECT_EQ(lane_sincos_mismatches<float>(arguments), 0) << "of " << arguments << " float arguments";
}

/// The lane forms of the per-body branches (math/choose.hpp, lane_trig.hpp) give each lane the
/// scalar bits of math::angle, quat_log and rotation_vector, with lanes on different sides side by
/// side: r = 0, c < 0 and c ≥ 0 in angle; the series (|u| < 1e-4, q₀ > 0) and a/s in the log; the
/// hemisphere flip (q₀ < 0) in rotation_vector; NaN.
TEST(PortableTrig, LaneAngleAndLogGiveEachLaneTheScalarBits) {
  using Lanes = simd::Lanes<double, 4>;
  std::mt19937_64 gen(12);
  std::uniform_real_distribution<double> u(-1, 1), decade(-12, 0);
  std::vector<Vec4<double>> q;
  for (int i = 0; i < 20000; ++i) {
    const double size = std::pow(10.0, decade(gen));
    Vec4<double> v(u(gen), size * u(gen), size * u(gen), size * u(gen));
    q.push_back(v / v.norm());
  }
  q.push_back(Vec4<double>(1, 0, 0, 0));
  q.push_back(Vec4<double>(-1, 0, 0, 0));
  q.push_back(Vec4<double>(0, 0, 0, 0));
  q.push_back(Vec4<double>(0, 1, 0, 0));
  q.push_back(Vec4<double>(std::numeric_limits<double>::quiet_NaN(), 0, 0, 0));
  std::shuffle(q.begin(), q.end(), gen);
  const auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  int mismatches = 0;
  for (std::size_t i = 0; i + 4 <= q.size(); i += 4) {
    Vec4<Lanes> lanes;
    Lanes s, c;
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 4; ++k) lanes[k][j] = q[i + j][k];
      s[j] = std::abs(q[i + j][1]), c[j] = q[i + j][0];
    }
    const Lanes angle = math::angle(s, c);
    const Vec3<Lanes> log = quat_log<Lanes>(lanes), rv = rotation_vector<Lanes>(lanes);
    for (int j = 0; j < 4; ++j) {
      mismatches += !same(angle[j], math::angle(std::abs(q[i + j][1]), q[i + j][0]));
      const Vec3<double> want_log = quat_log<double>(q[i + j]), want_rv = rotation_vector<double>(q[i + j]);
      for (int k = 0; k < 3; ++k) mismatches += !same(log[k][j], want_log[k]) + !same(rv[k][j], want_rv[k]);
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << q.size() << " quaternions";
}
#else
constexpr const char* no_lanes =
    "a build without SIMD lanes (QUATSTEP_CPU_LANES off: no -mavx2, no <experimental/simd>, or not x86-64)";
TEST(PortableTrig, LaneSincosGivesEachLaneTheScalarBits) { GTEST_SKIP() << no_lanes; }
TEST(PortableTrig, LaneAngleAndLogGiveEachLaneTheScalarBits) { GTEST_SKIP() << no_lanes; }
#endif

/// Largest error of math::angle(s, c) in ulps of atan2l: s ∈ [0, 1], c ∈ [−1, 1] (quaternion
/// components) and small angles s ∈ [1e-20, 1] near c = ±1.
template <class S>
double worst_angle_error_in_ulps() {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1, 1), decade(-20, 0);
  double worst = 0;
  for (int i = 0; i < 1000000; ++i) {
    const S c = S(u(gen)), s = S(std::abs(u(gen))), tiny = S(std::pow(10.0, decade(gen)));
    for (const auto& [y, x] : {std::pair{s, c}, std::pair{tiny, S(1)}, std::pair{tiny, S(-1)}}) {
      const L exact = std::atan2(L(y), L(x));
      worst = std::max(worst, double(std::abs(L(math::angle(y, x)) - exact) / ulp_of<S>(exact)));
    }
  }
  return worst;
}

// Measured: double 5.89 ulp, float 5.42 ulp (2026-11-24).
TEST(PortableAngle, Atan2WithinSixUlpInDoubleAndFloat) {
  const double d = worst_angle_error_in_ulps<double>(), f = worst_angle_error_in_ulps<float>();
  std::printf("math::angle against atan2l: max error double %.2f ulp, float %.2f ulp\n", d, f);
  EXPECT_LE(d, 6.5);
  EXPECT_LE(f, 6.5);
}

TEST(PortableAngle, EndPointsAndNan) {
  EXPECT_EQ(math::angle(0.0, 1.0), 0.0);
  EXPECT_EQ(math::angle(0.0, 0.0), 0.0);
  EXPECT_EQ(math::angle(0.0, -1.0), 3.14159265358979323846);  // π rounded to double
  EXPECT_NEAR(math::angle(1.0, 0.0), 1.57079632679489661923, 4.5e-16);
  EXPECT_EQ(math::angle(0.0f, -1.0f), 3.14159265358979323846f);
  EXPECT_TRUE(std::isnan(math::angle(std::nan(""), 1.0)));
  EXPECT_TRUE(std::isnan(math::angle(1.0, std::nan(""))));
}

}  // namespace
}  // namespace quatstep
