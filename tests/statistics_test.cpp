// Ensemble statistics (host/statistics/): exact sums and correctly rounded means and variances
// against exact rational arithmetic, type-7 quantiles and histograms against a full sort and a linear
// scan, observables against independent formulas, every statistic of a small ensemble recomputed
// from its full data, and the same bits for any body order, chunking, shard count, merge order and
// thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "quatstep/quaternion.hpp"
#include "statistics.hpp"
#include "statistics/limb_window.hpp"

using namespace quatstep;
using namespace quatstep::statistics;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

namespace {
/// Offsets of the heavy top's sample (ChannelLayout::rigid_body()) and its scalars per body.
namespace channel {
const ChannelLayout layout = ChannelLayout::rigid_body();
const int quaternion = layout.find("quaternion").offset, omega_body = layout.find("omega_body").offset,
          energy = layout.find("energy").offset, angular_momentum = layout.find("angular_momentum").offset,
          count = layout.scalars();
}  // namespace channel

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// x as an exact rational: m·2^e with an integer m.
cpp_rational exact(double x) {
  int e;
  const double m = std::frexp(x, &e);  // x = m·2^e, |m| in [0.5, 1)
  const cpp_int mantissa = cpp_int(static_cast<std::int64_t>(std::ldexp(m, 60)));
  return e >= 60 ? cpp_rational(mantissa << (e - 60)) : cpp_rational(mantissa, cpp_int(1) << (60 - e));
}

bool even_mantissa(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 1) == 0;
}

/// q rounded to the nearest double, ties to even: the double nearest to q among a start value and
/// its neighbours, repeated until it stays (an independent check of the library's rounding).
double correctly_rounded(const cpp_rational& q) {
  double d = static_cast<double>(q);
  for (;;) {
    double best = d;
    for (double c : {std::nextafter(d, -INFINITY), std::nextafter(d, INFINITY)}) {
      const cpp_rational dc = abs(exact(c) - q), db = abs(exact(best) - q);
      if (dc < db || (dc == db && even_mantissa(c))) best = c;
    }
    if (best == d) return d;
    d = best;
  }
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_same(const Summary& a, const Summary& b, const std::string& where) {
  EXPECT_EQ(a.count, b.count) << where;
  EXPECT_EQ(a.nonfinite, b.nonfinite) << where;
  EXPECT_TRUE(same_bits(a.mean, b.mean)) << where << ": " << a.mean << " vs " << b.mean;
  EXPECT_TRUE(same_bits(a.std, b.std)) << where << ": " << a.std << " vs " << b.std;
  EXPECT_TRUE(same_bits(a.min, b.min)) << where;
  EXPECT_TRUE(same_bits(a.max, b.max)) << where;
  EXPECT_TRUE(same_bits(a.quantiles, b.quantiles)) << where;
  EXPECT_EQ(a.histogram, b.histogram) << where;
  EXPECT_EQ(a.below, b.below) << where;
  EXPECT_EQ(a.above, b.above) << where;
}

/// Values over a wide range of magnitudes with heavy cancellation, and some subnormals.
std::vector<double> wild_values(int n, std::uint64_t seed, bool subnormals) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> m(-1, 1);
  std::uniform_int_distribution<int> e(-300, 300);
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = std::ldexp(m(gen), e(gen));
  for (int i = 0; i + 1 < n; i += 7) x[i + 1] = -x[i] * (1 + 0x1p-40);  // near cancellation
  if (subnormals)
    for (int i = 3; i < n; i += 11) x[i] = std::ldexp(m(gen), -1074 + 40);
  return x;
}

}  // namespace

// ---------------------------------------------------------------- exact sums
TEST(ExactSum, IsExactAndCorrectlyRounded) {
  ExactSum a;
  for (double v : {1e100, 1.0, -1e100}) a.add(v);
  EXPECT_EQ(a.value(), 1.0);
  ExactSum tenth;  // ten doubles 0.1 sum to 1 + 5.6e-17: exactly rounded that is 1 (a loop gives 0.9999999999999999)
  for (int i = 0; i < 10; ++i) tenth.add(0.1);
  EXPECT_EQ(tenth.value(), correctly_rounded(10 * exact(0.1)));
  EXPECT_EQ(tenth.value(), 1.0);

  const std::vector<double> x = wild_values(5000, 1, true);
  ExactSum s;
  cpp_rational reference = 0;
  for (double v : x) s.add(v), reference += exact(v);
  EXPECT_TRUE(same_bits(s.value(), correctly_rounded(reference)));
  EXPECT_TRUE(same_bits(exact_mean(s, std::int64_t(x.size())), correctly_rounded(reference / int(x.size()))));
}

TEST(ExactSum, MeanAndVarianceAreTheExactValuesRounded) {
  // Energies of ~10² spread by ~10⁻¹²: n·Σx² − (Σx)² cancels to ~10⁻²⁸ of its terms.
  std::mt19937_64 gen(2);
  std::normal_distribution<double> spread(0, 1e-12);
  for (const std::vector<double>& x :
       {wild_values(3000, 3, false), [&] {
          std::vector<double> v(3000);
          for (double& e : v) e = 100 + spread(gen);
          return v;
        }()}) {
    ExactSum s1, s2;
    cpp_rational r1 = 0, r2 = 0;
    for (double v : x) s1.add(v), s2.add_square(v), r1 += exact(v), r2 += exact(v) * exact(v);
    const int n = int(x.size());
    EXPECT_TRUE(same_bits(exact_mean(s1, n), correctly_rounded(r1 / n)));
    const double variance = exact_variance(s1, s2, n);
    EXPECT_TRUE(same_bits(variance, correctly_rounded((n * r2 - r1 * r1) / (cpp_rational(n) * (n - 1)))));
    EXPECT_GT(variance, 0);
  }
  // Degenerate counts and equal values.
  ExactSum one, one_sq;
  one.add(3.5), one_sq.add_square(3.5);
  EXPECT_TRUE(std::isnan(exact_variance(one, one_sq, 1)));
  EXPECT_TRUE(std::isnan(exact_mean(ExactSum(), 0)));
  ExactSum same, same_sq;
  for (int i = 0; i < 100; ++i) same.add(0.1), same_sq.add_square(0.1);
  EXPECT_EQ(exact_variance(same, same_sq, 100), 0.0);
  EXPECT_EQ(exact_mean(same, 100), 0.1);
}

TEST(ExactSum, OrderChunksAndMergesDoNotChangeABit) {
  std::vector<double> x = wild_values(4000, 4, true);
  ExactSum whole;
  for (double v : x) whole.add(v);
  std::mt19937_64 gen(5);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(x.begin(), x.end(), gen);
    std::vector<ExactSum> chunks(1 + trial * 3);
    for (std::size_t i = 0; i < x.size(); ++i) chunks[gen() % chunks.size()].add(x[i]);
    ExactSum merged;
    for (auto c = chunks.rbegin(); c != chunks.rend(); ++c) merged.merge(*c);
    EXPECT_TRUE(same_bits(merged.value(), whole.value()));
  }
}

TEST(ExactSum, CarriesPropagateBeforeLimbsOverflow) {
  // Merging a sum with itself 40 times: 2^40 copies of a full 53-bit mantissa, far beyond the 2^31
  // additions an int64 limb could take without carries.
  const double x = 0x1.fffffffffffffp+0;
  ExactSum s;
  s.add(x);
  for (int i = 0; i < 40; ++i) s.merge(ExactSum(s));
  EXPECT_EQ(s.value(), std::ldexp(x, 40));
  // And the largest doubles: no overflow inside the accumulator.
  ExactSum big;
  for (int i = 0; i < 1000; ++i) big.add(std::numeric_limits<double>::max());
  for (int i = 0; i < 999; ++i) big.add(-std::numeric_limits<double>::max());
  EXPECT_EQ(big.value(), std::numeric_limits<double>::max());
  big.add(std::numeric_limits<double>::max());
  EXPECT_EQ(big.value(), INFINITY);
}

TEST(ExactSum, NonFiniteValuesGiveTheIeeeResultInAnyOrder) {
  ExactSum s;
  s.add(1), s.add(INFINITY);
  EXPECT_EQ(s.value(), INFINITY);
  s.add(-INFINITY);
  EXPECT_TRUE(std::isnan(s.value()));
  ExactSum big, big_sq;  // x² overflows: the variance is inf
  big.add(1e200), big.add(-1e200), big_sq.add_square(1e200), big_sq.add_square(-1e200);
  EXPECT_EQ(exact_variance(big, big_sq, 2), INFINITY);
}

TEST(LimbWindow, HeldBackSumsGiveTheSameLimbs) {
  // The GPU reduction's per-thread windows (kernels/device_statistics.cu): values handed on in
  // windows, by threads that take every 7th, 13th … value, give the limbs of ExactSum itself —
  // for wild exponents (every value moves the window), clustered ones (few hand-ons), zeros and
  // subnormals.
  std::vector<double> clustered(3000);
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : clustered) x = std::ldexp(u(gen), 40 + int(gen() % 3));  // three binary orders
  for (std::size_t i = 0; i < clustered.size(); i += 17) clustered[i] = 0;
  std::vector<double> wild = wild_values(3000, 9, true);
  for (std::vector<double>* values : {&wild, &clustered}) {
    const std::vector<double>& x = *values;
    ExactSum direct;
    for (double v : x) direct.add(v);
    for (int threads : {1, 7, 13, 256}) {
      std::array<std::int64_t, ExactSum::limbs> limb{};
      int hand_ons = 0;
      const auto hand_on = [&](int l, std::int64_t s) { limb[std::size_t(l)] += s, ++hand_ons; };
      for (int t = 0; t < threads; ++t) {
        LimbWindow w;
        for (std::size_t i = std::size_t(t); i < x.size(); i += std::size_t(threads)) w.add(limb_pieces(x[i]), hand_on);
        w.drain(hand_on);
        EXPECT_EQ(w.base, -1);
      }
      propagate_carries(limb.data(), ExactSum::limbs);
      EXPECT_EQ(limb, direct.parts().limb) << threads << " threads";
      if (values != &clustered || threads > 13) continue;
      // Clustered values: far fewer hand-ons than the three pieces per value of direct atomics.
      EXPECT_LT(hand_ons, int(x.size()) / 10) << threads << " threads";
    }
  }
}

// ---------------------------------------------------------------- quantiles, bins, extremes
TEST(Accumulator, QuantilesAreType7OfTheSortedValues) {
  std::vector<double> v = {4, 1, 3, 2};
  EXPECT_EQ(quantiles(v, {0.5, 0, 1, 0.25}), (std::vector<double>{2.5, 1, 4, 1.75}));  // numpy's defaults
  std::mt19937_64 gen(6);
  for (int n : {1, 2, 3, 10, 1001}) {
    std::vector<double> x(n);
    for (double& e : x) e = double(gen() % 50) - 25;  // many ties
    std::vector<double> sorted = x;
    std::sort(sorted.begin(), sorted.end());
    const std::vector<double> levels = {0.99, 0.01, 0.5, 0.5, 0.25, 1, 0, 0.75, 0.333};
    std::vector<double> work = x;
    const std::vector<double> q = quantiles(work, levels);
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const double h = (n - 1) * levels[i];
      const std::size_t k = std::size_t(h);
      const double expected = k + 1 < std::size_t(n) ? sorted[k] + (h - double(k)) * (sorted[k + 1] - sorted[k]) : sorted[k];
      EXPECT_EQ(q[i], expected) << "n " << n << ", level " << levels[i];
    }
  }
  std::vector<double> none;
  EXPECT_TRUE(std::isnan(quantiles(none, {0.5})[0]));
}

TEST(Accumulator, SignedZerosAndNonFiniteValuesDoNotDependOnOrder) {
  for (const std::vector<double>& order : {std::vector<double>{0.0, -0.0, NAN}, std::vector<double>{NAN, -0.0, 0.0}}) {
    Accumulator a(true, nullptr);
    for (double v : order) a.add(v);
    const Summary s = a.summary({0, 1});
    EXPECT_EQ(s.count, 2);
    EXPECT_EQ(s.nonfinite, 1);
    EXPECT_TRUE(std::signbit(s.min));
    EXPECT_FALSE(std::signbit(s.max));
    EXPECT_TRUE(std::signbit(s.quantiles[0]));
    EXPECT_FALSE(std::signbit(s.quantiles[1]));
  }
  const Summary empty = Accumulator(true, nullptr).summary({0.5});
  EXPECT_EQ(empty.count, 0);
  EXPECT_TRUE(std::isnan(empty.mean) && std::isnan(empty.std) && std::isnan(empty.min) && std::isnan(empty.quantiles[0]));
}

TEST(Accumulator, FixedBins) {
  const Bins bins(-1, 1, 4);
  EXPECT_EQ(bins.edges(), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(bins.locate(-1), 0);
  EXPECT_EQ(bins.locate(-0.5), 1);
  EXPECT_EQ(bins.locate(std::nextafter(-0.5, -1.0)), 0);
  EXPECT_EQ(bins.locate(1), 3);  // the last bin is closed
  EXPECT_EQ(bins.locate(std::nextafter(-1.0, -2.0)), -1);
  EXPECT_EQ(bins.locate(std::nextafter(1.0, 2.0)), 4);
  // Every value lands between its bin's edges, for edges that are not exact in binary.
  const Bins tenths(0.1, 0.7, 6);
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(0.1, 0.7);
  for (int i = 0; i < 100000; ++i) {
    const double x = i < 7 ? tenths.edges()[i] : u(gen);
    const int b = tenths.locate(x);
    ASSERT_TRUE(b >= 0 && b < 6 && x >= tenths.edges()[b] && (x < tenths.edges()[b + 1] || b == 5)) << x;
  }
  EXPECT_THROW(Bins(1, 1, 3), StatisticsError);
  EXPECT_THROW(Bins(0, 1, 0), StatisticsError);
  EXPECT_THROW(Bins(0, INFINITY, 2), StatisticsError);
}

// ---------------------------------------------------------------- observables
TEST(Observables, AgreeWithIndependentFormulas) {
  const ChannelLayout layout = ChannelLayout::rigid_body();
  std::vector<double> body(channel::count), initial(channel::count);
  const auto set = [](std::vector<double>& b, int offset, std::vector<double> v) {
    std::copy(v.begin(), v.end(), b.begin() + offset);
  };
  set(body, channel::energy, {-2.5});
  set(initial, channel::energy, {-2.0});
  set(body, channel::angular_momentum, {1, 2, 2});
  set(initial, channel::angular_momentum, {0, 0, 1});
  set(body, channel::omega_body, {3, 4, 12});
  const auto value = [&](const Observable& o) {
    const Observable b = o.bind(layout);
    std::vector<double> x0(std::max(1, b.initial_width()));
    b.capture_initial(initial.data(), 1, x0.data());
    return b.evaluate(body.data(), 1, x0.data());
  };
  EXPECT_EQ(value(Observable::relative_drift("d", "energy")), -0.25);
  EXPECT_EQ(value(Observable::relative_drift("d", "angular_momentum")), std::sqrt(1.0 + 4 + 1));  // ‖(1,2,1)‖/1
  EXPECT_EQ(value(Observable::norm("n", "omega_body")), 13);
  EXPECT_EQ(value(Observable::component("c", "omega_body", 2)), 12);
  // Nutation: a rotation by β about x tilts body z from spatial z by β, accurately even at 1e-9 rad,
  // where acos(cos β) has no digits left.
  for (double beta : {1e-9, 0.3, 2.0, 3.14159}) {
    const Vec4<double> q = quat_from_rotation_vector(Vec3<double>(beta, 0, 0));
    set(body, channel::quaternion, {q[0], q[1], q[2], q[3]});
    EXPECT_NEAR(value(Observable::nutation("nu", {0, 0, 1}, {0, 0, 1})), beta, 2e-15 * std::max(1.0, beta) + 1e-6 * beta);
  }
  // Any axes: the angle between R(q) b and a.
  const Vec4<double> q = quat_from_rotation_vector(Vec3<double>(0.4, -1.1, 0.7));
  set(body, channel::quaternion, {q[0], q[1], q[2], q[3]});
  const Vec3<double> b = Vec3<double>(1, 2, 3).normalized(), a = Vec3<double>(-1, 0, 2).normalized();
  EXPECT_NEAR(value(Observable::nutation("nu", {1, 2, 3}, {-1, 0, 2})), std::acos((rotation_matrix(q) * b).dot(a)), 1e-14);
}

TEST(Observables, BadDefinitionsAreNamed) {
  const ChannelLayout layout = ChannelLayout::rigid_body();
  const auto message = [&](const std::function<void()>& f) {
    try {
      f();
    } catch (const StatisticsError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message([&] { Observable::component("iters", "newton_iterations").bind(layout); })
                .find("observable 'iters': channel 'newton_iterations' is not sampled (channels: quaternion, omega_body"),
            std::string::npos);
  EXPECT_NE(message([&] { Observable::component("e", "energy", 1).bind(layout); })
                .find("observable 'e': channel 'energy' has 1 component, needs 2"),
            std::string::npos);
  EXPECT_NE(message([&] { Observable::norm("a/b", "energy"); }).find("observable name 'a/b'"), std::string::npos);
  EXPECT_NE(message([&] { Observable::nutation("nu", {0, 0, 0}, {0, 0, 1}); }).find("body_axis"), std::string::npos);
  // A model that declares another channel: the generic component reads it.
  const ChannelLayout custom({{"energy", 0, 1}, {"newton_iterations", 1, 1}});
  const double data[2] = {1.5, 3};
  EXPECT_EQ(Observable::component("iters", "newton_iterations").bind(custom).evaluate(data, 1, nullptr), 3);
}

// ---------------------------------------------------------------- a small ensemble
namespace {

/// A synthetic run of N bodies × nt samples in the run loop's layout [sample][channel][body], with
/// failures as the integrators leave them (NaN from the failed step on).
struct Ensemble {
  index_t n, nt, stride = 10;
  std::vector<double> data;
  std::vector<Status> status;
  std::vector<index_t> failed_step;

  Ensemble(index_t bodies, index_t samples, std::uint64_t seed) : n(bodies), nt(samples) {
    data.assign(std::size_t(nt * channel::count * n), nan);
    status.assign(std::size_t(n), Status::ok);
    failed_step.assign(std::size_t(n), -1);
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    for (index_t i = 0; i < n; ++i) {
      if (i % 17 == 5) status[i] = Status::newton_not_converged, failed_step[i] = 10 * (i % 5) + 3;
      if (i == 7) status[i] = Status::invalid_input;  // rejected before the run: never counts
      const double e0 = i == 11 ? 0.0 : -50 - normal(gen);  // body 11: E₀ = 0, its drift is ±inf/NaN
      for (index_t j = 0; j < nt; ++j) {
        if (status[i] != Status::ok && failed_step[i] < j * stride) continue;  // NaN after the failure
        const Vec4<double> q = quat_from_rotation_vector(Vec3<double>(normal(gen), normal(gen), normal(gen)));
        // quaternion, omega_body, energy, angular_momentum, constraint_violation
        const std::vector<double> values = {q[0], q[1], q[2], q[3], normal(gen), normal(gen), 150 + normal(gen),
                                            e0 * (1 + 1e-12 * double(j) * normal(gen)), normal(gen), normal(gen),
                                            1 + normal(gen), 1e-15 * normal(gen)};
        EXPECT_EQ(int(values.size()), channel::count);
        for (int c = 0; c < channel::count; ++c) (*this)(j, c, i) = values[c];
      }
    }
  }
  double& operator()(index_t j, int c, index_t i) { return data[std::size_t((j * channel::count + c) * n + i)]; }
  SampleBlock block(index_t j, index_t first, index_t count) const {
    return {data.data() + j * channel::count * n + first, n, first, count, status.data() + first, failed_step.data() + first};
  }
};

StatisticsSpec spec() {
  StatisticsSpec s;
  for (const Observable& o : rigid_body_observables()) s.observables.push_back({o, std::nullopt});
  s.observables[0].bins = Bins(-53, -47, 12);         // energy
  s.observables[1].bins = Bins(-1e-11, 1e-11, 10);    // energy_drift
  s.observables[6].bins = Bins(0, 3.14159, 18);       // nutation
  return s;
}

std::vector<std::vector<Summary>> one_pass(const Ensemble& e) {
  EnsembleStatistics stats(spec(), ChannelLayout::rigid_body(), e.nt, e.stride, 0, e.n);
  std::vector<std::vector<Summary>> out;
  for (index_t j = 0; j < e.nt; ++j) {
    stats.add(j, e.block(j, 0, e.n));
    out.push_back(stats.summarize(j));
    stats.release(j);
  }
  return out;
}

void expect_same(const std::vector<std::vector<Summary>>& a, const std::vector<std::vector<Summary>>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t j = 0; j < a.size(); ++j)
    for (std::size_t k = 0; k < a[j].size(); ++k) expect_same(a[j][k], b[j][k], what + ", sample " + std::to_string(j) + ", observable " + std::to_string(k));
}

}  // namespace

TEST(EnsembleStatistics, EveryStatisticRecomputedFromTheFullData) {
  const Ensemble e(301, 6, 8);
  const StatisticsSpec s = spec();
  const std::vector<std::vector<Summary>> stats = one_pass(e);
  const ChannelLayout layout = ChannelLayout::rigid_body();
  for (std::size_t k = 0; k < s.observables.size(); ++k) {
    const Observable o = s.observables[k].observable.bind(layout);
    for (index_t j = 0; j < e.nt; ++j) {
      // The observable's values of the bodies healthy at sample j, straight from the data.
      std::vector<double> values;
      std::int64_t nonfinite = 0;
      for (index_t i = 0; i < e.n; ++i) {
        if (e.status[i] != Status::ok && e.failed_step[i] < j * e.stride) continue;
        std::vector<double> x0(std::max(1, o.initial_width()));
        o.capture_initial(e.data.data() + i, e.n, x0.data());
        const double v = o.evaluate(e.data.data() + j * channel::count * e.n + i, e.n, x0.data());
        if (std::isfinite(v)) values.push_back(v);
        else ++nonfinite;
      }
      const Summary& got = stats[std::size_t(j)][k];
      const std::string where = o.name() + ", sample " + std::to_string(j);
      const auto n = std::int64_t(values.size());
      ASSERT_EQ(got.count, n) << where;
      EXPECT_EQ(got.nonfinite, nonfinite) << where;
      cpp_rational s1 = 0, s2 = 0;
      for (double v : values) s1 += exact(v), s2 += exact(v) * exact(v);
      EXPECT_TRUE(same_bits(got.mean, correctly_rounded(s1 / int(n)))) << where;
      EXPECT_TRUE(same_bits(got.std, std::sqrt(correctly_rounded((n * s2 - s1 * s1) / (cpp_rational(n) * (n - 1)))))) << where;
      std::vector<double> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(got.min, sorted.front()) << where;
      EXPECT_EQ(got.max, sorted.back()) << where;
      for (std::size_t l = 0; l < s.quantile_levels.size(); ++l) {
        const double h = double(n - 1) * s.quantile_levels[l];
        const auto i = std::size_t(h);
        const double q = i + 1 < sorted.size() ? sorted[i] + (h - double(i)) * (sorted[i + 1] - sorted[i]) : sorted[i];
        EXPECT_EQ(got.quantiles[l], q) << where << ", level " << s.quantile_levels[l];
      }
      if (const auto& bins = s.observables[k].bins) {
        std::vector<std::int64_t> histogram(std::size_t(bins->count()), 0);
        std::int64_t below = 0, above = 0;
        const std::vector<double>& edges = bins->edges();
        for (double v : values) {  // a linear scan over the edges
          if (v < edges.front()) ++below;
          else if (v > edges.back()) ++above;
          else for (int b = bins->count() - 1; b >= 0; --b)
              if (v >= edges[b]) {
                ++histogram[b];
                break;
              }
        }
        EXPECT_EQ(got.histogram, histogram) << where;
        EXPECT_EQ(got.below, below) << where;
        EXPECT_EQ(got.above, above) << where;
        EXPECT_GT(std::accumulate(histogram.begin(), histogram.end(), std::int64_t(0)), n / 2) << where << ": bins cover the data";
      } else {
        EXPECT_TRUE(got.histogram.empty());
      }
    }
  }
  // The failures: body 7 never counts, bodies 5 + 17m drop out after their failed step.
  EXPECT_EQ(stats[0][0].count, 300);
  EXPECT_LT(stats[5][0].count, stats[0][0].count);
  EXPECT_EQ(stats[0][1].nonfinite, 1);  // body 11: E₀ = 0 → drift 0/0
}

TEST(EnsembleStatistics, BodyOrderAndChunkingDoNotChangeABit) {
  const Ensemble e(301, 6, 9);
  const auto reference = one_pass(e);
  std::mt19937_64 gen(10);
  for (int trial = 0; trial < 3; ++trial) {
    // Permute the bodies (their data, status and failed step together)...
    std::vector<index_t> perm(std::size_t(e.n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), gen);
    Ensemble p = e;
    for (index_t i = 0; i < e.n; ++i) {
      p.status[i] = e.status[perm[i]], p.failed_step[i] = e.failed_step[perm[i]];
      for (index_t j = 0; j < e.nt; ++j)
        for (int c = 0; c < channel::count; ++c) p(j, c, i) = e.data[std::size_t((j * channel::count + c) * e.n + perm[i])];
    }
    // ... cut them into chunks of random sizes, added in a random order.
    std::vector<std::pair<index_t, index_t>> chunks;
    for (index_t first = 0; first < e.n;) {
      const index_t count = std::min<index_t>(e.n - first, 1 + index_t(gen() % 60));
      chunks.push_back({first, count});
      first += count;
    }
    std::shuffle(chunks.begin(), chunks.end(), gen);
    EnsembleStatistics stats(spec(), ChannelLayout::rigid_body(), e.nt, e.stride, 0, e.n);
    for (const auto& [first, count] : chunks)
      for (index_t j = 0; j < e.nt; ++j) stats.add(j, p.block(j, first, count));
    std::vector<std::vector<Summary>> got;
    for (index_t j = 0; j < e.nt; ++j) got.push_back(stats.summarize(j));
    expect_same(got, reference, "trial " + std::to_string(trial));
  }
}

TEST(EnsembleStatistics, ShardsMergedInAnyOrderGiveTheSameBits) {
  const Ensemble e(301, 6, 11);
  const auto reference = one_pass(e);
  for (int shards : {1, 2, 3}) {
    std::vector<EnsembleStatistics> parts;
    for (int s = 0; s < shards; ++s) {
      const index_t first = e.n * s / shards, last = e.n * (s + 1) / shards;
      parts.emplace_back(spec(), ChannelLayout::rigid_body(), e.nt, e.stride, first, last - first);
      for (index_t j = 0; j < e.nt; ++j) parts.back().add(j, e.block(j, first, last - first));
    }
    for (bool reversed : {false, true}) {
      EnsembleStatistics merged(spec(), ChannelLayout::rigid_body(), e.nt, e.stride, 0, 0);
      for (int s = 0; s < shards; ++s) merged.merge(parts[std::size_t(reversed ? shards - 1 - s : s)]);
      std::vector<std::vector<Summary>> got;
      for (index_t j = 0; j < e.nt; ++j) got.push_back(merged.summarize(j));
      expect_same(got, reference, std::to_string(shards) + " shards" + (reversed ? ", reversed" : ""));
    }
  }
}

TEST(EnsembleStatistics, StoredStatesOfShardsMergeToTheSameBits) {
  // What a shard file keeps of each sample (states()) continues elsewhere (Accumulator::from_state)
  // and merges to the one pass's bits — sums, extremes, kept values, histograms.
  const Ensemble e(301, 6, 11);
  const auto reference = one_pass(e);
  std::vector<std::vector<Summary>> got(std::size_t(e.nt));
  for (index_t j = 0; j < e.nt; ++j) {
    std::vector<Accumulator> merged;
    for (int s = 2; s >= 0; --s) {
      const index_t first = e.n * s / 3, last = e.n * (s + 1) / 3;
      EnsembleStatistics part(spec(), ChannelLayout::rigid_body(), e.nt, e.stride, first, last - first);
      for (index_t i = 0; i <= j; ++i) part.add(i, e.block(i, first, last - first));  // sample 0: the drifts' x₀
      const std::vector<AccumulatorState> states = part.states(j);
      for (std::size_t k = 0; k < states.size(); ++k) {
        Accumulator a = Accumulator::from_state(states[k], part.keeps_values(), part.bins(k));
        if (merged.size() <= k) merged.emplace_back(part.keeps_values(), part.bins(k));
        merged[k].merge(a);
      }
    }
    for (const Accumulator& a : merged) got[std::size_t(j)].push_back(a.summary(spec().quantile_levels));
  }
  expect_same(got, reference, "3 stored shards, reversed");
  AccumulatorState wrong = Accumulator(true, nullptr).state();
  wrong.count = 2;  // two finite values, none kept
  EXPECT_THROW(Accumulator::from_state(wrong, true, nullptr), StatisticsError);
  EXPECT_THROW(Accumulator::from_state(Accumulator(false, nullptr).state(), false, std::make_shared<const Bins>(0.0, 1.0, 4)),
               StatisticsError);
}

TEST(EnsembleStatistics, ThreadCountDoesNotChangeABit) {
  const Ensemble e(6000, 3, 13);  // large enough for add() and summarize() to use threads
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto reference = one_pass(e);
  for (int t : {2, 3, 4}) {
    omp_set_num_threads(t);
    expect_same(one_pass(e), reference, std::to_string(t) + " threads");
  }
  omp_set_num_threads(threads);
}

TEST(EnsembleStatistics, MisuseIsAnError) {
  const Ensemble e(10, 2, 12);
  EnsembleStatistics stats(spec(), ChannelLayout::rigid_body(), e.nt, e.stride, 0, 5);
  EXPECT_THROW(stats.add(0, e.block(0, 3, 5)), StatisticsError);  // bodies 3 … 7 outside 0 … 4
  EXPECT_THROW(stats.add(2, e.block(0, 0, 5)), StatisticsError);  // no sample 2
  EnsembleStatistics other({}, ChannelLayout::rigid_body(), e.nt, e.stride, 0, 5);
  EXPECT_THROW(stats.merge(other), StatisticsError);
  StatisticsSpec twice = spec();
  twice.observables.push_back(twice.observables[0]);
  EXPECT_THROW(EnsembleStatistics(twice, ChannelLayout::rigid_body(), 2, 1, 0, 1), StatisticsError);
}
