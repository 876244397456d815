// Parameter sampling (host/sampling/): the counter-based generator and its conversions, every law
// against its distribution (mean and variance of 10⁵ draws within 5σ, Kolmogorov–Smirnov statistic
// below its 10⁻³ critical value), independence of evaluation order and thread count, physically
// valid inertias (the thin disc of the issue), body shapes against an independent integration,
// Latin-hypercube strata and Sobol nets, and errors that name the parameter.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "quatstep/models/validation.hpp"
#include "quatstep/quaternion.hpp"
#include "sampling.hpp"

using namespace quatstep;
using namespace quatstep::sampling;

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr int draws = 100000;
const double ks_critical = 1.94947 / std::sqrt(double(draws));  // √(−ln(10⁻³/2)/2)/√n: α = 10⁻³

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

/// Kolmogorov–Smirnov statistic sup |F_n − F| of `x` against the CDF F.
double ks_statistic(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = double(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return d;
}

/// Component c of the first `n` bodies' draws.
std::vector<double> component(const Distribution& law, int c, int n = draws, std::uint64_t seed = 7,
                              const std::string& key = "model.x") {
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = law.draw(seed, i, key)[c];
  return x;
}

double mean(const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size()); }
double variance(const std::vector<double>& x) {
  const double m = mean(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / double(x.size() - 1);
}

/// Mean within 5σ/√n of mu; sample variance within 5 standard errors of var (μ4 the fourth central moment).
void expect_moments(const std::vector<double>& x, double mu, double var, double mu4) {
  const double n = double(x.size());
  EXPECT_NEAR(mean(x), mu, 5 * std::sqrt(var / n));
  EXPECT_NEAR(variance(x), var, 5 * std::sqrt((mu4 - var * var) / n));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SamplingError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(statement, text)                                  \
  do {                                                                 \
    const std::string message = error_of([&] { statement; });          \
    EXPECT_NE(message.find(text), std::string::npos) << "message: '" << message << "'"; \
  } while (0)

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

// ---------------------------------------------------------------- generator and conversions
TEST(CounterRng, PhiloxKnownAnswers) {
  // Random123's known-answer vectors for Philox4x32-10 (kat_vectors): the library as installed.
  const auto word0 = [](std::uint64_t seed, std::uint64_t body, std::uint32_t stream, std::uint32_t block) {
    return counter_word(seed, body, stream, block);
  };
  EXPECT_EQ(word0(0, 0, 0, 0), 0x6627e8d5u);
  EXPECT_EQ(word0(~0ull, ~0ull, ~0u, ~0u), 0x408f276du);
  EXPECT_EQ(word0(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3u, 0x243f6a88u), 0xd16cfe09u);
  // The stream's layout: key = seed, counter = (block, stream, body) — block 0 of the all-zero key.
  RandomStream zero(0, 0, 0);
  EXPECT_EQ(zero.word(), 0x6627e8d5u);
  EXPECT_EQ(zero.word(), 0xe169c58du);
  EXPECT_EQ(zero.word(), 0xbc57ac4cu);
  EXPECT_EQ(zero.word(), 0x9b00dbd8u);
  EXPECT_EQ(zero.word(), counter_word(0, 0, 0, 1));  // then block 1
}

TEST(CounterRng, ConversionsAreExactAndCoverTheirIntervals) {
  EXPECT_EQ(open_unit(0, 0), 0x1p-53);
  EXPECT_EQ(open_unit(~0u, ~0u), 1 - 0x1p-53);
  EXPECT_EQ(closed_open_unit(0, 0), 0.0);
  EXPECT_EQ(closed_open_unit(~0u, ~0u), 1 - 0x1p-53);
  EXPECT_EQ(open_closed_unit(0, 0), 0x1p-53);
  EXPECT_EQ(open_closed_unit(~0u, ~0u), 1.0);
  // open_unit is symmetric: 1 − u is exactly the value of the complemented words.
  RandomStream s(3, 4, 5);
  for (int i = 0; i < 1000; ++i) {
    const std::uint32_t hi = s.word(), lo = s.word();
    EXPECT_EQ(1 - open_unit(hi, lo), open_unit(~hi, ~lo));
  }
}

TEST(CounterRng, UniformsPassMomentAndKolmogorovSmirnovTests) {
  // One stream read in sequence, and the first value of many bodies' streams (what draws use).
  RandomStream stream(42, 0, stream_id("model.x"));
  std::vector<double> sequence(draws), across(draws), closed(draws);
  for (int i = 0; i < draws; ++i) {
    sequence[i] = stream.open_unit();
    closed[i] = stream.closed_open_unit();
    across[i] = RandomStream(42, std::uint64_t(i), stream_id("model.x")).open_unit();
  }
  for (const auto* x : {&sequence, &across, &closed}) {
    expect_moments(*x, 0.5, 1.0 / 12, 1.0 / 80);
    EXPECT_LT(ks_statistic(*x, [](double v) { return v; }), ks_critical);
  }
}

TEST(CounterRng, StreamsDifferInEveryInput) {
  const auto first = [](std::uint64_t seed, std::uint64_t body, std::uint32_t stream) {
    return RandomStream(seed, body, stream).open_unit();
  };
  const double base = first(1, 2, 3);
  EXPECT_NE(base, first(2, 2, 3));
  EXPECT_NE(base, first(1, 3, 3));
  EXPECT_NE(base, first(1, 2, 4));
  EXPECT_NE(base, first(1ull << 32, 2, 3));  // both seed words count
  EXPECT_NE(base, first(1, 2 + (1ull << 32), 3));
  EXPECT_NE(stream_id("model.inertia"), stream_id("initial.omega_body"));
}

// ---------------------------------------------------------------- reproducibility
TEST(Sampling, ValuesIndependentOfEvaluationOrderAndThreadCount) {
  SamplingPlan plan;
  plan.add("model.inertia", Distribution::principal_inertia(Distribution::normal({0.234375, 0.46875, 0.234375}, {0.01}),
                                                            InvalidPolicy::redraw), 11);
  plan.add("initial.quaternion", Distribution::uniform_rotation(), 12);
  plan.add("initial.omega_body", Distribution::axis_magnitude(Direction::uniform(), Marginal::normal(150, 5)), 13);
  plan.add(JointDesign::sobol("design 0", {{"model.mass", Distribution::log_uniform({1}, {20})}}), 14);
  plan.validate();
  const int n = 2000;
  const auto flatten = [](const BodyDraw& d) {
    std::vector<double> v;
    for (const auto& a : d.values) v.insert(v.end(), a.value.begin(), a.value.end());
    v.push_back(d.redraws);
    return v;
  };
  std::vector<std::vector<double>> forward(n), backward(n);
  for (int i = 0; i < n; ++i) forward[i] = flatten(plan.draw(i));
  for (int i = n - 1; i >= 0; --i) backward[i] = flatten(plan.draw(i));
  for (int threads : {1, 2, 4}) {
    std::vector<std::vector<double>> parallel(n);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 7)
    for (int i = 0; i < n; ++i) parallel[i] = flatten(plan.draw(i));
    for (int i = 0; i < n; ++i) ASSERT_TRUE(same_bits(parallel[i], forward[i])) << "body " << i << ", " << threads << " threads";
  }
  for (int i = 0; i < n; ++i) ASSERT_TRUE(same_bits(backward[i], forward[i])) << "body " << i;
  // Another key, seed or body gives other values.
  const Distribution u = Distribution::uniform({0}, {1});
  EXPECT_NE(u.draw(1, 5, "a")[0], u.draw(1, 5, "b")[0]);
  EXPECT_NE(u.draw(1, 5, "a")[0], u.draw(2, 5, "a")[0]);
  EXPECT_NE(u.draw(1, 5, "a")[0], u.draw(1, 6, "a")[0]);
}

TEST(Sampling, VectorComponentsAreIndependentStreamsOfOneKey) {
  const Distribution law = Distribution::normal({0}, {1}).for_dimension(3);
  const std::vector<double> x = component(law, 0), y = component(law, 1);
  double c = 0;
  for (int i = 0; i < draws; ++i) c += x[i] * y[i];
  EXPECT_NEAR(c / draws, 0, 5 / std::sqrt(double(draws)));  // correlation of N(0,1)s: σ = 1/√n
}

// ---------------------------------------------------------------- scalar laws
TEST(Laws, Uniform) {
  const std::vector<double> x = component(Distribution::uniform({-1}, {3}), 0);
  expect_moments(x, 1, 16.0 / 12, 256.0 / 80);  // μ4 = (b − a)⁴/80
  EXPECT_LT(ks_statistic(x, [](double v) { return (v + 1) / 4; }), ks_critical);
  EXPECT_GE(*std::min_element(x.begin(), x.end()), -1);
  EXPECT_LE(*std::max_element(x.begin(), x.end()), 3);
}

TEST(Laws, Normal) {
  const std::vector<double> x = component(Distribution::normal({150}, {5}), 0);
  expect_moments(x, 150, 25, 3 * 625);
  EXPECT_LT(ks_statistic(x, [](double v) { return normal_cdf((v - 150) / 5); }), ks_critical);
  // Tails are symmetric to the last draw: the smallest and largest uniforms give ±8.2σ.
  EXPECT_EQ(standard_normal_quantile(0x1p-53), -standard_normal_quantile(1 - 0x1p-53));
  EXPECT_NEAR(standard_normal_quantile(0x1p-53), -8.2095, 1e-3);
}

TEST(Laws, TruncatedNormalIsExact) {
  // Straddling the mean: the standardised bounds −1 and 2.
  const double a = -1, b = 2, mass = normal_cdf(b) - normal_cdf(a);
  const std::vector<double> x = component(Distribution::truncated_normal({10}, {2}, {8}, {14}), 0);
  for (double v : x) ASSERT_TRUE(v >= 8 && v <= 14) << v;
  EXPECT_LT(ks_statistic(x, [&](double v) { return (normal_cdf((v - 10) / 2) - normal_cdf(a)) / mass; }), ks_critical);
  const double phi_a = std::exp(-a * a / 2) / std::sqrt(2 * pi), phi_b = std::exp(-b * b / 2) / std::sqrt(2 * pi);
  const double mu = (phi_a - phi_b) / mass;  // standardised mean and variance of the truncated law
  const double var = 1 + (a * phi_a - b * phi_b) / mass - mu * mu;
  EXPECT_NEAR(mean(x), 10 + 2 * mu, 5 * 2 * std::sqrt(var / draws));
  // Far in the upper tail (10σ to 12σ above the mean), where Φ(α) rounds to 1: upper-tail probabilities.
  const std::vector<double> t = component(Distribution::truncated_normal({0}, {1}, {10}, {12}), 0);
  for (double v : t) ASSERT_TRUE(v >= 10 && v <= 12) << v;
  const double q10 = normal_upper(10), q12 = normal_upper(12);
  EXPECT_LT(ks_statistic(t, [&](double v) { return (q10 - normal_upper(v)) / (q10 - q12); }), ks_critical);
  EXPECT_NEAR(mean(t), 10.0981, 2e-3);  // E[Z | Z > 10] = φ(10)/Q(10) ≈ 10.0981 (the upper bound barely matters)
  // One-sided: only the lower bound.
  const std::vector<double> h = component(Distribution::truncated_normal({1}, {0.5}, {0}, {INFINITY}), 0);
  for (double v : h) ASSERT_GE(v, 0);
  const double cut = normal_cdf(-2);
  EXPECT_LT(ks_statistic(h, [&](double v) { return (normal_cdf((v - 1) / 0.5) - cut) / (1 - cut); }), ks_critical);
}

TEST(Laws, LogNormalAndLogUniform) {
  const std::vector<double> x = component(Distribution::log_normal({0.5}, {0.3}), 0);
  EXPECT_LT(ks_statistic(x, [](double v) { return normal_cdf((std::log(v) - 0.5) / 0.3); }), ks_critical);
  const double m = std::exp(0.5 + 0.045), var = (std::exp(0.09) - 1) * m * m;
  EXPECT_NEAR(mean(x), m, 5 * std::sqrt(var / draws));
  const std::vector<double> y = component(Distribution::log_uniform({1e-3}, {1e2}), 0);
  for (double v : y) ASSERT_TRUE(v >= 1e-3 && v <= 1e2);
  EXPECT_LT(ks_statistic(y, [](double v) { return std::log(v / 1e-3) / std::log(1e5); }), ks_critical);
}

TEST(Laws, FixedAndChoice) {
  EXPECT_EQ(Distribution::fixed({1, 2, 3}).draw(0, 9, "k"), (std::vector<double>{1, 2, 3}));
  const Distribution list = Distribution::choice({{0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {9, 9, 9}}, {1, 2, 1, 0});
  std::map<std::vector<double>, int> seen;
  for (int i = 0; i < draws; ++i) ++seen[list.draw(5, i, "initial.omega_body")];
  EXPECT_EQ(seen.count({9, 9, 9}), 0u);  // weight 0: never
  for (const auto& [value, p] : std::vector<std::pair<std::vector<double>, double>>{
           {{0, 0, 1}, 0.25}, {{0, 1, 0}, 0.5}, {{1, 0, 0}, 0.25}})
    EXPECT_NEAR(seen[value], p * draws, 5 * std::sqrt(draws * p * (1 - p)));
}

// ---------------------------------------------------------------- orientations and angular velocities
TEST(Laws, UniformRotationIsUniformOnSO3) {
  const Distribution law = Distribution::uniform_rotation();
  std::vector<double> angle(draws), z(draws);
  for (int i = 0; i < draws; ++i) {
    const std::vector<double> q = law.draw(3, i, "initial.quaternion");
    const Vec4<double> e(q[0], q[1], q[2], q[3]);
    ASSERT_NEAR(e.norm(), 1, 4e-16);
    angle[i] = rotation_vector(e).norm();
    z[i] = (rotation_matrix(e) * Vec3<double>(1, 0, 0))[2];
  }
  // Haar measure: the rotation angle has the CDF (θ − sin θ)/π; a carried vector is uniform on S².
  EXPECT_LT(ks_statistic(angle, [](double t) { return (t - std::sin(t)) / pi; }), ks_critical);
  EXPECT_LT(ks_statistic(z, [](double v) { return (v + 1) / 2; }), ks_critical);
}

TEST(Laws, RotationConeFillsTheCapUniformly) {
  const double theta = 0.2;
  const Vec4<double> q0 = quat_from_rotation_vector(Vec3<double>(0.3, -0.2, 0.5));
  const Vec3<double> b = Vec3<double>(1, 2, 2) / 3;
  const Vec3<double> a0 = rotation_matrix(q0) * b;
  for (bool spin : {false, true}) {
    const Distribution law = Distribution::rotation_cone({q0[0], q0[1], q0[2], q0[3]}, {1, 2, 2}, theta, spin);
    std::vector<double> cosines(draws), spin_angle;
    for (int i = 0; i < draws; ++i) {
      const std::vector<double> v = law.draw(4, i, "initial.quaternion");
      const Vec4<double> q(v[0], v[1], v[2], v[3]);
      ASSERT_NEAR(q.norm(), 1, 1e-15);
      cosines[i] = (rotation_matrix(q) * b).dot(a0);
      ASSERT_GE(cosines[i], std::cos(theta) - 1e-15);
      // Without spin q = r ∘ q0 with r about an axis ⟂ a0: r's vector part has no a0 component.
      const Vec4<double> r = quat_mul(q, quat_conj(q0));
      if (!spin) {
        ASSERT_NEAR(Vec3<double>(r[1], r[2], r[3]).dot(a0), 0, 1e-15);
      }
    }
    // Uniform on the cap: cos of the angle to a0 uniform on [cos θ, 1].
    EXPECT_LT(ks_statistic(cosines, [&](double c) { return (c - std::cos(theta)) / (1 - std::cos(theta)); }), ks_critical);
  }
  // Half-angle 0 with spin: q = q0 ∘ rotation about b by an angle uniform in [0, 2π).
  const Distribution spin_only = Distribution::rotation_cone({q0[0], q0[1], q0[2], q0[3]}, {1, 2, 2}, 0, true);
  std::vector<double> chi(draws);
  for (int i = 0; i < draws; ++i) {
    const std::vector<double> v = spin_only.draw(5, i, "k");
    const Vec4<double> s = quat_mul(quat_conj(q0), Vec4<double>(v[0], v[1], v[2], v[3]));
    ASSERT_NEAR(Vec3<double>(s[1], s[2], s[3]).cross(b).norm(), 0, 1e-15);  // about b
    chi[i] = 2 * std::atan2(Vec3<double>(s[1], s[2], s[3]).dot(b), s[0]);
    if (chi[i] < 0) chi[i] += 2 * pi;
  }
  EXPECT_LT(ks_statistic(chi, [](double c) { return c / (2 * pi); }), ks_critical);
}

TEST(Laws, AxisTimesMagnitude) {
  const Distribution sphere = Distribution::axis_magnitude(Direction::uniform(), Marginal::uniform(1, 2));
  std::vector<double> norm(draws), z(draws);
  for (int i = 0; i < draws; ++i) {
    const std::vector<double> w = sphere.draw(6, i, "initial.omega_body");
    norm[i] = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    z[i] = w[2] / norm[i];
  }
  EXPECT_LT(ks_statistic(norm, [](double v) { return v - 1; }), ks_critical);
  EXPECT_LT(ks_statistic(z, [](double v) { return (v + 1) / 2; }), ks_critical);
  // A fixed axis (half-angle 0): the axis itself, scaled.
  const Distribution fixed_axis = Distribution::axis_magnitude({{0, 3, 4}, 0}, Marginal::fixed(10));
  const std::vector<double> w = fixed_axis.draw(6, 0, "k");
  EXPECT_NEAR(w[0], 0, 1e-15);
  EXPECT_NEAR(w[1], 6, 1e-14);
  EXPECT_NEAR(w[2], 8, 1e-14);
}

// ---------------------------------------------------------------- physical inertias
TEST(Inertia, ThinDiscWithNormalSpreadRedrawsToValidBodies) {
  // The issue: a normal draw about Sherif's thin disc (docs/errata.md S1: J_xx + J_zz = J_yy) violates the
  // triangle inequality for half of the bodies. With redraw every body is valid; the number of
  // redraws per body is geometric with p = 1/2 (only J_x + J_z >= J_y binds): mean 1, variance 2.
  const Distribution law = Distribution::principal_inertia(Distribution::normal({0.234375, 0.46875, 0.234375}, {0.01}),
                                                           InvalidPolicy::redraw);
  law.check(1, "model.inertia");
  const int n = 20000;
  long redraws = 0;
  for (int i = 0; i < n; ++i) {
    const Drawn d = law.sample(1, i, "model.inertia");
    ASSERT_TRUE(d.problem.empty());
    ASSERT_EQ(validation::principal_moments_problem(d.value), "");
    redraws += d.redraws;
  }
  EXPECT_NEAR(double(redraws) / n, 1.0, 5 * std::sqrt(2.0 / n));
  // invalid = fail: the first invalid body is an error naming the key and the body.
  const Distribution strict = Distribution::principal_inertia(Distribution::normal({0.234375, 0.46875, 0.234375}, {0.01}),
                                                              InvalidPolicy::fail);
  std::string message;
  for (int i = 0; i < 100 && message.empty(); ++i) message = error_of([&] { strict.draw(1, i, "model.inertia"); });
  EXPECT_NE(message.find("model.inertia: body "), std::string::npos) << message;
  EXPECT_NE(message.find("violate I1 + I2 >= I3"), std::string::npos) << message;
}

TEST(Inertia, LawsThatCanNeverGiveABodyAreRejectedBeforeDrawing) {
  const auto inertia = [](const Distribution& moments) {
    return Distribution::principal_inertia(moments, InvalidPolicy::redraw);
  };
  EXPECT_ERROR(inertia(Distribution::fixed({1, 1, 3})).check(0, "model.inertia"), "I1 + I2 >= I3 never holds");
  EXPECT_ERROR(inertia(Distribution::uniform({1, 1, 3}, {1.1, 1.1, 3.5})).check(0, "model.inertia"),
               "model.inertia: moments 0 + 1 can never reach moment 2");
  EXPECT_ERROR(inertia(Distribution::uniform({-2, 1, 1}, {-1, 2, 2})).check(0, "model.inertia"),
               "model.inertia: moment 0 can never be > 0");
  // Unbounded laws pass the analytic test; the probe finds no valid body.
  EXPECT_ERROR(inertia(Distribution::normal({1, 1, 30}, {0.01})).check(0, "model.inertia"),
               "model.inertia: only 0 of 10000 trial draws are valid bodies");
  EXPECT_ERROR(inertia(Distribution::choice({{1, 1, 3}, {1, 2, 4}})).check(0, "model.inertia"),
               "model.inertia: no listed value is a valid body");
  EXPECT_NO_THROW(inertia(Distribution::choice({{1, 1, 3}, {1, 2, 2}})).check(0, "model.inertia"));
  const auto cylinder = [](const Marginal& radius) {
    return Distribution::body_shape(Shape::cylinder, {radius, Marginal::fixed(1)}, ShapeAmount::mass, Marginal::fixed(1),
                                    InvalidPolicy::redraw);
  };
  EXPECT_ERROR(cylinder(Marginal::uniform(-2, -1)).check(0, "model.inertia"), "model.inertia: radius can never be > 0");
  EXPECT_ERROR(cylinder(Marginal::normal(-1, 0.1)).check(0, "model.inertia"),
               "model.inertia: only 0 of 10000 trial draws are valid bodies (e.g. radius: -");
}

namespace {
/// Principal moments of a solid of revolution about z (radius ρ(z) on [0, h]) and of an ellipsoid,
/// by slicing into discs: a disc of radius ρ, thickness dz at height z has I_z = π ρ⁴/2 dz and, about
/// a transverse axis through the centre of mass z_c, π ρ⁴/4 dz + π ρ² (z − z_c)² dz (unit density).
/// Gauss–Legendre quadrature, exact for these polynomials.
struct Moments {
  double mass, transverse, axial;
};
Moments slices(const std::function<double(double)>& radius, double z0, double z1) {
  static const double x[5] = {-0.9061798459386640, -0.5384693101056831, 0, 0.5384693101056831, 0.9061798459386640};
  static const double w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                              0.2369268850561891};
  const auto integrate = [&](const std::function<double(double)>& f) {
    double s = 0;
    for (int i = 0; i < 5; ++i) s += w[i] * f(0.5 * (z0 + z1) + 0.5 * (z1 - z0) * x[i]);
    return 0.5 * (z1 - z0) * s;
  };
  const double mass = integrate([&](double z) { return pi * std::pow(radius(z), 2); });
  const double zc = integrate([&](double z) { return pi * std::pow(radius(z), 2) * z; }) / mass;
  return {mass, integrate([&](double z) { return pi * std::pow(radius(z), 4) / 4 + pi * std::pow(radius(z), 2) * (z - zc) * (z - zc); }),
          integrate([&](double z) { return pi * std::pow(radius(z), 4) / 2; })};
}
}  // namespace

TEST(Inertia, BodyShapesMatchAnIntegrationOverSlices) {
  const double r = 0.3, h = 1.7;
  const Moments cyl = slices([&](double) { return r; }, 0, h);
  const Moments cone = slices([&](double z) { return r * (1 - z / h); }, 0, h);
  const Moments sphere = slices([&](double z) { return std::sqrt(r * r - z * z); }, -r, r);
  for (const auto& [shape, m] : {std::pair{Shape::cylinder, cyl}, std::pair{Shape::cone, cone}}) {
    EXPECT_NEAR(volume(shape, {r, h, 0}), m.mass, 1e-14 * m.mass) << to_string(shape);
    const auto I = principal_inertia(shape, {r, h, 0}, m.mass);
    EXPECT_NEAR(I[0], m.transverse, 1e-13 * m.transverse) << to_string(shape);
    EXPECT_NEAR(I[1], m.transverse, 1e-13 * m.transverse) << to_string(shape);
    EXPECT_NEAR(I[2], m.axial, 1e-13 * m.axial) << to_string(shape);
  }
  // An ellipsoid with semi-axes (a, b, c) is the unit sphere stretched: I_x = m(b² + c²)/5 with the
  // sphere's 2/5 m r² from the slices.
  EXPECT_NEAR(volume(Shape::ellipsoid, {r, r, r}), sphere.mass, 1e-13 * sphere.mass);
  EXPECT_NEAR(principal_inertia(Shape::ellipsoid, {r, r, r}, sphere.mass)[2], sphere.axial, 1e-13 * sphere.axial);
  EXPECT_NEAR(principal_inertia(Shape::ellipsoid, {r, r, r}, sphere.mass)[0], sphere.transverse, 1e-13 * sphere.transverse);
  // A box by the same parallel-axis sum over slices of a rectangle: I_x = m (b² + c²)/12.
  const auto box = principal_inertia(Shape::box, {1, 2, 3}, 6);
  EXPECT_DOUBLE_EQ(box[0], 6.5);
  EXPECT_DOUBLE_EQ(box[1], 5.0);
  EXPECT_DOUBLE_EQ(box[2], 2.5);
  EXPECT_DOUBLE_EQ(volume(Shape::box, {1, 2, 3}), 6);
}

TEST(Inertia, DrawnShapesAreValidBodiesAndCarryTheirMass) {
  const Distribution disc = Distribution::body_shape(
      Shape::cylinder, {Marginal::normal(0.25, 0.01), Marginal::log_uniform(1e-4, 1e-2)}, ShapeAmount::density,
      Marginal::uniform(7000, 8000), InvalidPolicy::redraw);
  disc.check(2, "model.inertia");
  for (int i = 0; i < 2000; ++i) {
    const Drawn d = disc.sample(2, i, "model.inertia");
    ASSERT_EQ(validation::principal_moments_problem(d.value), "");
    // Back from the moments to the cylinder: r² = 2 I_z/m, h² = 12 I_x/m − 3r², density m/(π r² h) —
    // inside the laws' ranges.
    ASSERT_EQ(d.value[0], d.value[1]);
    const double r2 = 2 * d.value[2] / d.mass, height = std::sqrt(12 * d.value[0] / d.mass - 3 * r2);
    const double density = d.mass / (pi * r2 * height);
    ASSERT_TRUE(height > 1e-4 * (1 - 1e-6) && height < 1e-2 * (1 + 1e-6)) << height;
    ASSERT_TRUE(density > 7000 * (1 - 1e-6) && density < 8000 * (1 + 1e-6)) << density;
  }
  // The plan writes the mass to its own key.
  SamplingPlan plan;
  plan.add("model.inertia", disc, 2, "model.mass");
  plan.validate();
  const BodyDraw b = plan.draw(3);
  ASSERT_EQ(b.values.size(), 2u);
  EXPECT_EQ(b.values[1].key, "model.mass");
  EXPECT_EQ(b.values[1].value[0], disc.sample(2, 3, "model.inertia").mass);
}

// ---------------------------------------------------------------- joint designs
TEST(Designs, LatinHypercubeHasOneBodyPerStratumInEveryCoordinate) {
  for (index_t n : {1, 2, 3, 7, 64, 1000, 4097}) {
    const JointDesign design = JointDesign::latin_hypercube(
        "lhs", {{"a", Distribution::uniform({0}, {1}).for_dimension(2)}, {"b", Distribution::normal({0}, {1})}}, n);
    ASSERT_EQ(design.dimension(), 3);
    std::vector<std::vector<int>> hits(3, std::vector<int>(n, 0));
    for (index_t k = 0; k < n; ++k) {
      const std::vector<double> u = design.point(9, k);
      for (int j = 0; j < 3; ++j) {
        ASSERT_TRUE(u[j] > 0 && u[j] < 1);
        index_t s = std::min<index_t>(index_t(u[j] * double(n)), n - 1);  // the stratum by its bounds s/N
        while (u[j] < double(s) / double(n)) --s;
        while (u[j] >= double(s + 1) / double(n)) ++s;
        ++hits[j][std::size_t(s)];
      }
      // The laws see their slices of the point.
      const std::vector<Drawn> d = design.sample(9, k);
      ASSERT_EQ(d[0].value[1], u[1]);
      ASSERT_EQ(d[1].value[0], standard_normal_quantile(u[2]));
    }
    for (int j = 0; j < 3; ++j)
      for (index_t s = 0; s < n; ++s) ASSERT_EQ(hits[j][s], 1) << "N " << n << ", coordinate " << j << ", stratum " << s;
  }
  // The permutations are random: coordinates are uncorrelated across bodies.
  const index_t n = 4096;
  const JointDesign design = JointDesign::latin_hypercube("lhs", {{"a", Distribution::uniform({0}, {1}).for_dimension(2)}}, n);
  double c = 0;
  for (index_t k = 0; k < n; ++k) {
    const std::vector<double> u = design.point(10, k);
    c += (u[0] - 0.5) * (u[1] - 0.5) * 12;  // unit variance each
  }
  EXPECT_NEAR(c / double(n), 0, 5 / std::sqrt(double(n)));
  EXPECT_ERROR(design.point(10, n), "body 4096 outside the ensemble of 4096");
}

TEST(Designs, SobolPointsFormADigitalNet) {
  // Sobol's first two coordinates form a (0, m, 2)-net in base 2, and a digital shift keeps that: every
  // elementary box [i/2^a, (i+1)/2^a) × [j/2^(m−a), (j+1)/2^(m−a)) holds exactly one of the first 2^m points.
  const int m = 10;
  const index_t n = index_t(1) << m;
  const JointDesign design = JointDesign::sobol("qmc", {{"initial.omega_body", Distribution::uniform({0}, {1}).for_dimension(3)}});
  std::vector<std::vector<double>> points(n);
  for (index_t k = 0; k < n; ++k) points[k] = design.point(21, k);
  for (int a = 0; a <= m; ++a) {
    std::vector<int> box(n, 0);
    for (const auto& u : points) ++box[std::size_t(u[0] * double(1 << a)) * (1u << (m - a)) + std::size_t(u[1] * double(1 << (m - a)))];
    for (index_t b = 0; b < n; ++b) ASSERT_EQ(box[b], 1) << "a = " << a << ", box " << b;
  }
  // Every coordinate alone: one point per stratum of width 2^-m; and the shift depends on the seed.
  std::vector<int> strata(n, 0);
  for (const auto& u : points) ++strata[std::size_t(u[2] * double(n))];
  EXPECT_EQ(std::count(strata.begin(), strata.end(), 1), n);
  EXPECT_NE(design.point(21, 0), design.point(22, 0));
}

TEST(Designs, RedrawingEntriesAreRejected) {
  const Distribution inertia = Distribution::principal_inertia(Distribution::normal({1, 1, 1}, {0.1}), InvalidPolicy::redraw);
  EXPECT_ERROR(JointDesign::sobol("d", {{"model.inertia", inertia}}),
               "model.inertia: invalid = \"redraw\" would undo the sobol design's stratification");
  EXPECT_ERROR(JointDesign::latin_hypercube("d", {{"k", Distribution::fixed({1})}, {"k", Distribution::fixed({1})}}, 4),
               "key 'k' appears twice");
}

// ---------------------------------------------------------------- errors name the parameter
TEST(Errors, BadParametersAreNamed) {
  EXPECT_ERROR(Distribution::normal({0}, {-1}), "stddev: -1, must be >= 0");
  EXPECT_ERROR(Distribution::normal({0, 0, 0}, {1, -1, 1}), "stddev[1]: -1, must be >= 0");
  EXPECT_ERROR(Distribution::normal({0, 0, 0}, {1, 1}), "stddev: 2 components, mean has 3");
  EXPECT_ERROR(Distribution::normal({}, {1}), "mean: no value");
  EXPECT_ERROR(Distribution::uniform({2}, {1}), "low: 2, must be <= high (1)");
  EXPECT_ERROR(Distribution::uniform({0}, {NAN}), "high: nan, must be finite");
  EXPECT_ERROR(Distribution::log_uniform({0}, {1}), "low: 0, must be > 0");
  EXPECT_ERROR(Distribution::log_normal({0}, {-0.1}), "sigma: -0.1, must be >= 0");
  EXPECT_ERROR(Distribution::truncated_normal({0}, {1}, {1}, {1}), "low: 1, must be < high (1)");
  EXPECT_ERROR(Distribution::truncated_normal({0}, {1}, {40}, {INFINITY}), "[40, inf] holds probability 0");
  EXPECT_ERROR(Distribution::truncated_normal({0}, {1}, {INFINITY}, {INFINITY}), "low: inf, must be finite or -inf");
  EXPECT_ERROR(Distribution::choice({{1, 2}, {1}}), "values[1]: 1 components, values[0] has 2");
  EXPECT_ERROR(Distribution::choice({{1}, {2}}, {1, -1}), "weights[1]: -1, must be finite and >= 0");
  EXPECT_ERROR(Distribution::choice({{1}, {2}}, {0, 0}), "weights: sum 0, must be finite and > 0");
  EXPECT_ERROR(Distribution::rotation_cone({1, 1, 0, 0}, {0, 0, 1}, 0.1, false), "mean: quaternion of norm 1.414");
  EXPECT_ERROR(Distribution::rotation_cone({1, 0, 0, 0}, {0, 0, 0}, 0.1, false), "body_axis: [0, 0, 0], must be a finite nonzero vector");
  EXPECT_ERROR(Distribution::rotation_cone({1, 0, 0, 0}, {0, 0, 1}, 4, false), "half_angle: 4, must be in [0, pi]");
  EXPECT_ERROR(Distribution::axis_magnitude({{0, 0, 1}, -0.1}, Marginal::fixed(1)), "half_angle: -0.1");
  EXPECT_ERROR(Distribution::body_shape(Shape::box, {Marginal::fixed(1)}, ShapeAmount::mass, Marginal::fixed(1),
                                        InvalidPolicy::fail),
               "box: 1 dimensions given, needs length_x, length_y, length_z");
  EXPECT_ERROR(Distribution::uniform_rotation().for_dimension(3), "the law gives 4 components, the key has 3");
  EXPECT_ERROR(Distribution::principal_inertia(Distribution::uniform_rotation(), InvalidPolicy::fail),
               "moments: must be a component-wise law or a choice of values");
}

TEST(Plan, ValidateRejectsDuplicateKeysAndSharedStreams) {
  SamplingPlan twice;
  twice.add("model.mass", Distribution::fixed({1}), 0);
  twice.add("model.mass", Distribution::fixed({2}), 1);
  EXPECT_ERROR(twice.validate(), "model.mass: drawn twice");
  // Two different names whose 32-bit hashes collide (the first such pair among "key0", "key1", ...),
  // with equal seeds, would share a stream.
  const std::string a = "key583084", b = "key1092000";
  ASSERT_EQ(stream_id(a), stream_id(b));
  SamplingPlan shared;
  shared.add(a, Distribution::uniform({0}, {1}), 5);
  shared.add(b, Distribution::uniform({0}, {1}), 5);
  EXPECT_ERROR(shared.validate(), "shares its random stream with '" + a + "'");
  SamplingPlan apart;
  apart.add(a, Distribution::uniform({0}, {1}), 5);
  apart.add(b, Distribution::uniform({0}, {1}), 6);
  EXPECT_NO_THROW(apart.validate());
  EXPECT_ERROR(SamplingPlan().add("k", Distribution::fixed({1}), 0, "model.mass"), "k: mass_key 'model.mass' needs a body_shape law");
}
