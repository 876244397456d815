// The GPU statistics reduction (kernels/device_statistics.hpp) against the CPU's (host/statistics/)
// on the same sample buffers: every field of every summary, and the drifts' x₀, bit for bit — on
// values with NaN, ±inf, ±0, subnormals, squares that overflow, ties, bodies failed before or after
// a sample, in double and float samples, reduced in one call or sample by sample; and the
// per-step Newton iterations from running totals against their recomputation here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gpu_test_support.hpp"
#include "host/statistics.hpp"
#include "kernels/device_array.cuh"
#include "kernels/device_statistics.hpp"

namespace quatstep {
namespace {

using namespace statistics;

constexpr index_t bodies = 10007, samples = 3, steps_per_sample = 10;

StatisticsSpec spec() {
  StatisticsSpec s;
  for (const Observable& o : rigid_body_observables()) s.observables.push_back({o, std::nullopt});
  s.observables.push_back({Observable::nutation("tilt", {0, 1, 0}, {0, 0, 1}), Bins(0.0, 3.2, 40)});
  s.observables.push_back({Observable::component("energy_binned", "energy"), Bins(-2.0, 2.0, 7)});
  s.quantile_levels = {0.0, 0.01, 0.25, 0.5, 0.75, 0.999, 1.0};
  return s;
}

/// Rigid-body samples ([sample][scalar][body]) with the awkward values sprinkled in.
std::vector<double> sample_buffer(int scalars) {
  std::mt19937_64 rng(20261127);
  std::normal_distribution<double> normal;
  std::vector<double> x(std::size_t(samples * scalars * bodies));
  for (double& v : x) v = normal(rng);
  const double awkward[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), 0.0, -0.0, 4.9e-324, -2.2e-310, 1e200, -3e170,
                            1.0, 1.0, 1.0};
  std::uniform_int_distribution<std::size_t> at(0, x.size() - 1);
  for (int k = 0; k < 600; ++k) x[at(rng)] = awkward[k % std::size(awkward)];
  return x;
}

struct Records {
  std::vector<Status> status = std::vector<Status>(bodies, Status::ok);
  std::vector<index_t> failed_step = std::vector<index_t>(bodies, -1);
  std::vector<std::vector<index_t>> totals;  ///< per sample: running Newton iteration totals
  Records() {
    for (index_t i = 0; i < bodies; i += 97) status[i] = Status::newton_not_converged, failed_step[i] = 3 + (i % 25);
    status[5] = Status::invalid_input, failed_step[5] = 0;
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<index_t> per_sample(0, 5 * steps_per_sample);
    std::vector<index_t> t(bodies, 0);
    for (index_t j = 0; j < samples; ++j) {
      if (j > 0)
        for (index_t& x : t) x += per_sample(rng);
      totals.push_back(t);
    }
  }
};

StatisticsSpec newton_spec() {
  StatisticsSpec s;
  s.observables.push_back({Observable::component("newton_iterations", "newton_iterations"), Bins(0.0, 6.0, 12)});
  s.quantile_levels = {0.1, 0.5, 0.9};
  return s;
}
const ChannelLayout newton_layout({{"newton_iterations", 0, 1}});

::testing::AssertionResult same(double a, double b, const char* what) {
  if (std::memcmp(&a, &b, sizeof a) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << a << " vs " << b;
}

void expect_same(const Summary& cpu, const Summary& gpu, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(cpu.count, gpu.count);
  EXPECT_EQ(cpu.nonfinite, gpu.nonfinite);
  EXPECT_TRUE(same(cpu.mean, gpu.mean, "mean"));
  EXPECT_TRUE(same(cpu.std, gpu.std, "std"));
  EXPECT_TRUE(same(cpu.min, gpu.min, "min"));
  EXPECT_TRUE(same(cpu.max, gpu.max, "max"));
  EXPECT_TRUE(testing::same_bits(cpu.quantiles, gpu.quantiles, "quantiles"));
  EXPECT_EQ(cpu.histogram, gpu.histogram);
  EXPECT_EQ(cpu.below, gpu.below);
  EXPECT_EQ(cpu.above, gpu.above);
}

/// The CPU's summaries of every sample (the sampled observables', then the per-step iterations'),
/// and its x₀.
template <class S>
std::pair<std::vector<ReducedSample>, EnsembleStatistics> on_cpu(const std::vector<S>& x, const Records& r) {
  const ChannelLayout layout = ChannelLayout::rigid_body();
  EnsembleStatistics cpu(spec(), layout, samples, steps_per_sample, 0, bodies);
  EnsembleStatistics newton(newton_spec(), newton_layout, samples, steps_per_sample, 0, bodies);
  std::vector<double> wide(x.begin(), x.end());
  std::vector<ReducedSample> rows;
  for (index_t j = 0; j < samples; ++j) {
    cpu.add(j, {wide.data() + j * layout.scalars() * bodies, bodies, 0, bodies, r.status.data(), r.failed_step.data()});
    std::vector<double> per_step(bodies);  // iterations per step since the previous sample; none before the first step
    for (index_t i = 0; i < bodies; ++i)
      per_step[i] = j == 0 ? NAN : double(r.totals[j][i] - r.totals[j - 1][i]) / double(steps_per_sample);
    newton.add(j, {per_step.data(), bodies, 0, bodies, r.status.data(), r.failed_step.data()});
    rows.push_back({cpu.summarize(j), newton.summarize(j)});
  }
  return {rows, std::move(cpu)};
}

/// Samples reduced in one call or one by one, with `max_pending` slots (0: the default), taken
/// after every call or (take_each false) once at the end.
template <class S>
void check_precision(bool sample_by_sample, int max_pending = 0, bool take_each = true) {
  const ChannelLayout layout = ChannelLayout::rigid_body();
  const int scalars = layout.scalars();
  const std::vector<double> x64 = sample_buffer(scalars);
  const std::vector<S> x(x64.begin(), x64.end());
  const Records r;
  const auto [expected, cpu] = on_cpu(x, r);

  const cuda::DeviceArray<S> d_x(x);
  const cuda::DeviceArray<Status> d_status(r.status);
  const cuda::DeviceArray<index_t> d_failed(r.failed_step);
  // Newton iterations need one sample per reduce (the totals are the sample's): only then are they reduced.
  cuda::DeviceStatistics gpu(spec(), layout, sample_by_sample ? newton_spec() : StatisticsSpec{}, bodies, steps_per_sample,
                             max_pending);
  std::vector<ReducedSample> rows;
  std::vector<cuda::DeviceArray<index_t>> d_totals;  // alive until their reductions are taken
  const auto take = [&](index_t from) {
    index_t first = -1;
    for (auto& row : gpu.take(first)) rows.push_back(std::move(row));
    EXPECT_EQ(first, from);
  };
  for (index_t j = 0; j < samples; j += sample_by_sample ? 1 : samples) {
    const index_t count = sample_by_sample ? 1 : samples;
    d_totals.emplace_back(r.totals[j]);
    gpu.reduce(d_x.data() + j * scalars * bodies, j, count, scalars, {d_status.data(), d_failed.data(), d_totals.back().data()});
    if (take_each) take(j);
  }
  if (!take_each) take(0);
  ASSERT_EQ(rows.size(), expected.size());
  const StatisticsSpec s = spec();
  for (std::size_t j = 0; j < rows.size(); ++j) {
    for (std::size_t k = 0; k < s.observables.size(); ++k)
      expect_same(expected[j].sampled[k], rows[j].sampled[k], "sample " + std::to_string(j) + ", " + s.observables[k].observable.name());
    if (sample_by_sample) {
      ASSERT_EQ(rows[j].newton.size(), 1u);
      expect_same(expected[j].newton[0], rows[j].newton[0], "sample " + std::to_string(j) + ", newton_iterations");
    } else {
      EXPECT_TRUE(rows[j].newton.empty());
    }
  }
  for (std::size_t k = 0; k < s.observables.size(); ++k)
    EXPECT_TRUE(testing::same_bits(cpu.initial_values(k), gpu.initial_values(k), "initial values"));
  EXPECT_GT(gpu.gpu_seconds(), 0.0);  // the events around each sample's reduction
}

TEST(DeviceStatistics, EqualsTheCpuBitwiseOnDoubleSamples) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  check_precision<double>(false);
}

TEST(DeviceStatistics, EqualsTheCpuBitwiseOnFloatSamplesReducedOneByOne) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  check_precision<float>(true);
}

// Fewer slots than samples: the host collects when they are full, in the middle of one call's
// samples or between calls, and the rows come out whole and in order.
TEST(DeviceStatistics, EqualsTheCpuBitwiseWhenTheSlotsFill) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  check_precision<double>(false, 2);
  check_precision<double>(true, 2, false);
}

TEST(DeviceStatistics, TheAwkwardValuesAreThere) {  // the test above is not vacuous
  const Records r;
  const auto [rows, cpu] = on_cpu(sample_buffer(ChannelLayout::rigid_body().scalars()), r);
  (void)cpu;
  std::int64_t nonfinite = 0, overflowing = 0;
  for (const auto& row : rows)
    for (const Summary& s : row.sampled) {
      nonfinite += s.nonfinite;
      overflowing += std::isinf(s.std);  // a square of 1e200 overflows
    }
  EXPECT_GT(nonfinite, 100);
  EXPECT_GT(overflowing, 0);
  // Bodies failed between samples 0 and 2 leave the later sample's statistics.
  const Summary &first = rows[0].sampled[0], &last = rows[2].sampled[0];
  EXPECT_LT(last.count + last.nonfinite, first.count + first.nonfinite);
  EXPECT_EQ(rows[0].newton[0].count, 0);  // no step before sample 0: NaN for every body
  EXPECT_GT(rows[2].newton[0].count, bodies / 2);
}

TEST(DeviceStatistics, SupportsTheStandardObservablesAndRefusesTooManyBins) {
  const ChannelLayout layout = ChannelLayout::rigid_body();
  EXPECT_TRUE(cuda::DeviceStatistics::supports(spec(), layout, bodies));
  StatisticsSpec wide = spec();
  wide.observables.push_back({Observable::component("fine", "energy"), Bins(0.0, 1.0, cuda::DeviceStatistics::max_bins + 1)});
  EXPECT_FALSE(cuda::DeviceStatistics::supports(wide, layout, bodies));
  EXPECT_FALSE(cuda::DeviceStatistics::supports(spec(), layout, index_t(1) << 30));
}

}  // namespace
}  // namespace quatstep
