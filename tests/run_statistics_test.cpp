// What `quatstep run` writes for a Monte-Carlo study: every drawn value (/parameters, /redraws), the
// chosen bodies re-run alone bit for bit (--bodies), per-sample ensemble statistics equal to those
// recomputed here from the full trajectories and bitwise identical for any thread count and chunking,
// and the trajectory choices of [output].
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "hdf5_read.hpp"
#include "heavy_top_study.hpp"
#include "quatstep/quaternion.hpp"
#include "run.hpp"
#include "scenario.hpp"

using namespace quatstep;
using quatstep::testing::Dataset;
using quatstep::testing::has_dataset;
using quatstep::testing::read_dataset;
using quatstep::testing::read_string_attribute;
using quatstep::testing::same_bits;
using quatstep::testing::ScratchDirectory;

namespace {

const std::string study = quatstep::testing::heavy_top_study();
using quatstep::testing::statistics_table;

Scenario scenario(const std::string& text, std::vector<index_t> bodies = {}) {
  ScenarioOverrides o;
  o.backend = Backend::cpu;
  o.bodies = std::move(bodies);
  return parse_scenario(text, "study.toml", o);
}

RunResult run(const Scenario& sc, const std::string& file, int threads = 2, index_t max_chunk_steps = 0) {
  RunOptions options;
  options.threads = threads;
  options.output = file;
  options.progress = ProgressMode::never;
  options.max_chunk_steps = max_chunk_steps;
  return run_scenario(sc, options);
}

/// A 1-D float64 attribute of `object`.
std::vector<double> array_attribute(const std::string& file, const std::string& object, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  std::vector<double> v;
  if (a >= 0) {
    const hid_t s = H5Aget_space(a);
    v.resize(std::size_t(H5Sget_simple_extent_npoints(s)));
    if (!v.empty()) H5Aread(a, H5T_NATIVE_DOUBLE, v.data());
    H5Sclose(s);
    H5Aclose(a);
  }
  H5Fclose(f);
  EXPECT_GE(a, 0) << file << ": no attribute " << name << " on " << object;
  return v;
}

/// Every dataset of `names` equal bit for bit in both files.
void expect_identical(const std::string& a, const std::string& b, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const Dataset x = read_dataset(a, name), y = read_dataset(b, name);
    ASSERT_EQ(x.dims, y.dims) << name;
    int differing = 0;
    for (std::size_t k = 0; k < x.values.size(); ++k) differing += !same_bits(x.values[k], y.values[k]);
    EXPECT_EQ(differing, 0) << name << ": values differing, of " << x.values.size();
  }
}

const char* const statistics_fields[] = {"count", "nonfinite", "mean", "std", "min", "max", "quantiles"};

std::vector<std::string> statistics_datasets(const std::vector<std::string>& observables) {
  std::vector<std::string> names;
  for (const std::string& o : observables)
    for (const char* field : statistics_fields) names.push_back("statistics/" + o + "/" + field);
  return names;
}

}  // namespace

// ---------------------------------------------------------------- parameters out, bodies re-run
TEST(RunParameters, EveryDrawnValueAndRedrawIsInTheFile) {
  ScratchDirectory dir;
  const Scenario sc = scenario(study + "[output]\nstride = 10\n");
  const RunResult r = run(sc, dir.file("p.h5"));
  const std::string file = dir.file("p.h5");
  for (const char* key : {"model.inertia", "model.mass", "model.body_torque", "initial.quaternion", "initial.omega_body"}) {
    const Dataset d = read_dataset(file, std::string("parameters/") + key);
    const std::size_t size = body_value(sc, 0, key).size();
    const std::vector<unsigned long long> dims = size == 1 ? std::vector<unsigned long long>{40} : std::vector<unsigned long long>{40, size};
    ASSERT_EQ(d.dims, dims) << key;
    for (index_t i = 0; i < 40; ++i)
      for (std::size_t c = 0; c < size; ++c)
        ASSERT_TRUE(same_bits(d.values[i * size + c], body_value(sc, i, key)[c])) << key << " body " << i;
  }
  EXPECT_FALSE(has_dataset(file, "/parameters/model.gravity")) << "only the keys that vary";
  // The thin disc: about half of the bodies needed a redraw (5σ of a binomial(40, 1/2): 16 bodies).
  const Dataset redraws = read_dataset(file, "redraws");
  index_t redrawn = 0, total = 0;
  for (index_t i = 0; i < 40; ++i) {
    int expected = -1;
    body_parameters(sc, i, &expected);
    ASSERT_EQ(redraws.values[i], expected) << "body " << i;
    redrawn += expected > 0, total += expected;
  }
  EXPECT_EQ(r.redrawn_bodies, redrawn);
  EXPECT_EQ(r.redraws, total);
  EXPECT_NEAR(double(redrawn), 20.0, 16.0);
  EXPECT_EQ(read_string_attribute(file, "redrawn_bodies"), std::to_string(redrawn));
  EXPECT_EQ(read_string_attribute(file, "redraws"), std::to_string(total));
}

TEST(RunParameters, ChosenBodiesRerunAloneAreTheirRowsOfTheFullRun) {
  ScratchDirectory dir;
  const std::string text = study + "[output]\nstride = 5\n";
  run(scenario(text), dir.file("full.h5"));
  const std::vector<index_t> chosen = {17, 5, 33};
  const RunResult some = run(scenario(text, chosen), dir.file("some.h5"), 1);
  EXPECT_EQ(some.bodies, 3);
  const std::string full = dir.file("full.h5"), part = dir.file("some.h5");
  EXPECT_EQ(read_dataset(part, "bodies").values, (std::vector<double>{17, 5, 33}));
  EXPECT_NE(some.status[1], Status::ok) << "body 5 fails in both";
  int compared = 0;
  for (const char* name : {"quaternion", "omega_body", "energy", "angular_momentum", "constraint_violation", "status",
                           "newton_iterations", "failed_step", "redraws", "parameters/model.inertia",
                           "parameters/initial.omega_body", "parameters/initial.quaternion", "parameters/model.mass"}) {
    const Dataset a = read_dataset(full, name), b = read_dataset(part, name);
    const bool sampled = a.dims.size() >= 2 && a.dims[0] != 40;  // nt × N (× k) or N (× k)
    const std::size_t rows = sampled ? a.dims[0] : 1, n = sampled ? a.dims[1] : a.dims[0];
    const std::size_t width = a.values.size() / (rows * n);
    for (std::size_t j = 0; j < rows; ++j)
      for (std::size_t s = 0; s < chosen.size(); ++s)
        for (std::size_t c = 0; c < width; ++c, ++compared)
          ASSERT_TRUE(same_bits(b.values[(j * chosen.size() + s) * width + c], a.values[(j * n + chosen[s]) * width + c]))
              << name << " sample " << j << " body " << chosen[s] << " component " << c;
  }
  std::printf("%d values of bodies 17, 5, 33 compared with the full run\n", compared);

  // A statistics-only study's chosen bodies keep their trajectories: trajectories = 'none' is the
  // whole ensemble's choice, and the bodies are chosen to be looked at.
  const RunResult looked_at = run(scenario(study + "[output]\nstride = 5\ntrajectories = 'none'\n", chosen), dir.file("none.h5"), 1);
  EXPECT_EQ(looked_at.trajectories.rfind("all 3 bodies (", 0), 0u) << looked_at.trajectories;
  EXPECT_NE(looked_at.trajectories.find("(--bodies keeps every chosen body's trajectory)"), std::string::npos)
      << looked_at.trajectories;
  const Dataset a = read_dataset(full, "quaternion"), b = read_dataset(dir.file("none.h5"), "quaternion");
  ASSERT_EQ(b.dims, (std::vector<unsigned long long>{a.dims[0], 3, 4}));
  for (std::size_t j = 0; j < a.dims[0]; ++j)
    for (std::size_t s = 0; s < chosen.size(); ++s)
      for (std::size_t c = 0; c < 4; ++c)
        ASSERT_TRUE(same_bits(b.values[(j * 3 + s) * 4 + c], a.values[(j * 40 + chosen[s]) * 4 + c])) << j << " " << s;
}

// The summary's Newton iterations per step count the steps each body took: body 5 alone fails at
// step 12 of 100, and its ≈ 2 iterations per step were shown as 0.3 (divided by all 100 steps).
TEST(RunSummary, NewtonIterationsPerStepOfTheStepsTaken) {
  ScratchDirectory dir;
  const Scenario sc = scenario(study + "[output]\nstride = 5\n", {5});
  const RunResult r = run(sc, dir.file("five.h5"), 1);
  ASSERT_NE(r.status[0], Status::ok);
  ASSERT_LT(r.failed_step[0], r.steps_done / 2);
  std::ostringstream summary;
  print_summary(summary, sc, r);
  const std::string text = summary.str(), row = "Newton iterations/step";
  const std::size_t at = text.find(row);
  ASSERT_NE(at, std::string::npos) << text;
  const double shown = std::stod(text.substr(text.find_first_of("0123456789", at + row.size())));
  const double expected = double(r.newton_iterations) / double(r.failed_step[0] + 1);  // the one body's
  EXPECT_NEAR(shown, expected, 0.005) << text;
  EXPECT_GE(shown, 1.5) << text;
}

// ---------------------------------------------------------------- statistics where the data are
TEST(RunStatistics, EqualTheStatisticsOfTheFullTrajectories) {
  ScratchDirectory dir;
  const std::string file = dir.file("s.h5");
  const RunResult r = run(scenario(study + "[output]\nstride = 4\ntrajectories = 'all'\n" + statistics_table), file);
  ASSERT_EQ(r.failures(), 1);
  const index_t n = 40, nt = r.samples;
  const Dataset q = read_dataset(file, "quaternion"), w = read_dataset(file, "omega_body"), e = read_dataset(file, "energy"),
                L = read_dataset(file, "angular_momentum"), status = read_dataset(file, "status"),
                failed = read_dataset(file, "failed_step"), iterations = read_dataset(file, "newton_iterations");
  const std::vector<double> levels = array_attribute(file, "/statistics", "levels");
  EXPECT_EQ(levels, (std::vector<double>{0.0, 0.1, 0.5, 0.9, 1.0}));

  // Each observable from its own formula on the trajectories.
  const auto nutation = [&](index_t j, index_t i, Vec3<double> b) {
    const Vec4<double> e4(q.values[(j * n + i) * 4], q.values[(j * n + i) * 4 + 1], q.values[(j * n + i) * 4 + 2],
                          q.values[(j * n + i) * 4 + 3]);
    const Vec3<double> d = rotation_matrix(e4) * b;
    return std::atan2(d.cross(Vec3<double>::UnitZ()).norm(), d[2]);
  };
  struct Check {
    std::string name;
    std::function<double(index_t, index_t)> value;
    bool exact;  ///< the same floating-point values as the library's (channel components)
  };
  const std::vector<Check> checks = {
      {"energy", [&](index_t j, index_t i) { return e.values[j * n + i]; }, true},
      {"wz", [&](index_t j, index_t i) { return w.values[(j * n + i) * 3 + 2]; }, true},
      {"omega_body_y", [&](index_t j, index_t i) { return w.values[(j * n + i) * 3 + 1]; }, true},
      {"energy_drift", [&](index_t j, index_t i) { return (e.values[j * n + i] - e.values[i]) / std::abs(e.values[i]); }, false},
      {"omega_norm", [&](index_t j, index_t i) { return std::hypot(w.values[(j * n + i) * 3], w.values[(j * n + i) * 3 + 1], w.values[(j * n + i) * 3 + 2]); }, false},
      {"nutation", [&](index_t j, index_t i) { return nutation(j, i, Vec3<double>::UnitZ()); }, false},
      {"tilt_of_x", [&](index_t j, index_t i) { return nutation(j, i, Vec3<double>::UnitX()); }, false},
      {"angular_momentum_norm", [&](index_t j, index_t i) { return std::hypot(L.values[(j * n + i) * 3], L.values[(j * n + i) * 3 + 1], L.values[(j * n + i) * 3 + 2]); }, false},
  };
  double worst_mean = 0, worst_std = 0, worst_quantile = 0;
  for (const Check& c : checks) {
    const std::string g = "statistics/" + c.name + "/";
    const Dataset count = read_dataset(file, g + "count"), mean = read_dataset(file, g + "mean"),
                  sd = read_dataset(file, g + "std"), lo = read_dataset(file, g + "min"), hi = read_dataset(file, g + "max"),
                  qs = read_dataset(file, g + "quantiles");
    ASSERT_EQ(count.dims, (std::vector<unsigned long long>{std::size_t(nt)})) << c.name;
    ASSERT_EQ(qs.dims, (std::vector<unsigned long long>{std::size_t(nt), 5})) << c.name;
    const bool histogram = c.name == "energy" || c.name == "nutation";
    const Dataset h = histogram ? read_dataset(file, g + "histogram") : Dataset{};
    const std::vector<double> edges = histogram ? array_attribute(file, "/" + g + "histogram", "edges") : std::vector<double>{};
    for (index_t j = 0; j < nt; ++j) {
      std::vector<double> x;
      for (index_t i = 0; i < n; ++i) {
        const bool healthy = status.values[i] == 0 || failed.values[i] >= double(j * 4);
        if (healthy && std::isfinite(c.value(j, i))) x.push_back(c.value(j, i));
      }
      ASSERT_EQ(count.values[j], double(x.size())) << c.name << " sample " << j;
      std::sort(x.begin(), x.end());
      long double s = 0;
      for (double v : x) s += v;
      const double m = double(s / x.size());
      long double s2 = 0;
      for (double v : x) s2 += (v - m) * (v - m);
      const double sdev = std::sqrt(double(s2 / (x.size() - 1)));
      const double scale = std::max(std::abs(x.front()), std::abs(x.back()));
      worst_mean = std::max(worst_mean, std::abs(mean.values[j] - m) / scale);
      if (sdev > 0) worst_std = std::max(worst_std, std::abs(sd.values[j] - sdev) / sdev);
      if (c.exact) {
        ASSERT_EQ(lo.values[j], x.front()) << c.name << " sample " << j;
        ASSERT_EQ(hi.values[j], x.back()) << c.name << " sample " << j;
      }
      for (std::size_t l = 0; l < 5; ++l) {  // type 7
        const double hpos = double(x.size() - 1) * levels[l];
        const std::size_t k = std::size_t(hpos);
        const double f = hpos - double(k);
        const double expected = f > 0 && k + 1 < x.size() ? x[k] + f * (x[k + 1] - x[k]) : x[k];
        if (c.exact) ASSERT_EQ(qs.values[j * 5 + l], expected) << c.name << " sample " << j << " level " << levels[l];
        else worst_quantile = std::max(worst_quantile, std::abs(qs.values[j * 5 + l] - expected) / scale);
      }
      if (histogram) {
        std::vector<double> bins(edges.size() - 1, 0.0);
        for (double v : x)
          for (std::size_t b = 0; b + 1 < edges.size(); ++b)
            if (v >= edges[b] && (v < edges[b + 1] || (b + 2 == edges.size() && v == edges[b + 1]))) ++bins[b];
        for (std::size_t b = 0; b < bins.size(); ++b)
          ASSERT_EQ(h.values[j * bins.size() + b], bins[b]) << c.name << " sample " << j << " bin " << b;
      }
    }
  }
  std::printf("largest relative differences from the trajectories: mean %.2e, std %.2e, quantiles %.2e\n", worst_mean,
              worst_std, worst_quantile);
  EXPECT_LT(worst_mean, 4e-16) << "the exact mean against a long-double sum";
  EXPECT_LT(worst_std, 1e-12);
  EXPECT_LT(worst_quantile, 1e-14) << "derived observables: the same formulas up to round-off";

  // Newton iterations per step since the previous sample: summed over the samples they add up to
  // the totals in /newton_iterations of the bodies healthy to the end, plus the failed body's
  // iterations of its 12 steps before sample 3 (at least one per step), less those of its failing step.
  const Dataset it_mean = read_dataset(file, "statistics/newton_iterations/mean"),
                it_count = read_dataset(file, "statistics/newton_iterations/count");
  EXPECT_EQ(it_count.values[0], 0.0) << "no step before sample 0";
  double from_statistics = 0, healthy = 0, all = 0;
  for (index_t j = 1; j < nt; ++j) from_statistics += it_mean.values[j] * it_count.values[j] * 4;
  for (index_t i = 0; i < n; ++i) all += iterations.values[i], healthy += status.values[i] == 0 ? iterations.values[i] : 0;
  ASSERT_EQ(failed.values[5], 12.0);
  EXPECT_GE(from_statistics, healthy + 12 - 1e-9 * all);
  EXPECT_LT(from_statistics, all - 1e-9 * all) << "the failing step's iterations are not in any sample";
  EXPECT_EQ(read_string_attribute(file, "definition", "/statistics/tilt_of_x"),
            "nutation(quaternion, body_axis [1, 0, 0], spatial_axis [0, 0, 1])");
}

// With adaptive steps a body's failed_step counts its accepted steps, which say nothing of the
// samples: the statistics took it for a step of the samples' grid and dropped bodies 1–3 from
// samples 1–5, where they were healthy (count 1 instead of 4; found 2026-12-04). Four slow tops, the
// last three hit by a torque of 1e7 from t = 0.055 that makes them fail there.
TEST(RunStatistics, AdaptiveRunsCountABodyUntilItsFailure) {
  ScratchDirectory dir;
  const std::string file = dir.file("adaptive.h5");
  const Scenario sc = scenario(R"(
[model]
type = "heavy_top"
inertia = [1.0, 2.0, 2.5]
body_torque_profile.frequency = 1e5
body_torque_profile.begin = 0.055
[initial]
omega_body = [0.3, 1.0, 0.2]
[integrator]
method = "modified_hht"
inertia_shift = true
[time]
dt = 1e-3
t_end = 0.1
adaptive = true
rotation_atol = 1e-6
h_initial = 1e-3
h_max = 1e-2
h_min = 1e-4
[ensemble]
size = 4
[[ensemble.sweep]]
key = "model.body_torque_profile.amplitude"
from = [0.0, 0.0, 0.0]
to = [1e7, 1e7, 0.0]
[[ensemble.sweep]]
key = "initial.omega_body"
from = [0.3, 1.0, 0.2]
to = [0.3, 4.0, 0.2]
[output]
stride = 10
[output.statistics]
observables = ["omega_norm"]
quantiles = []
)");
  const RunResult r = run(sc, file);
  ASSERT_EQ(r.failures(), 3) << "the three torqued tops fail";
  const Dataset w = read_dataset(file, "omega_body"), count = read_dataset(file, "statistics/omega_norm/count"),
                mean = read_dataset(file, "statistics/omega_norm/mean"),
                nonfinite = read_dataset(file, "statistics/omega_norm/nonfinite");
  const std::size_t samples = count.values.size(), n = 4;
  ASSERT_EQ(samples, 11u);
  for (std::size_t j = 0; j < samples; ++j) {
    double sum = 0;
    int finite = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double* v = &w.values[(j * n + i) * 3];
      const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (std::isfinite(norm)) sum += norm, ++finite;
    }
    EXPECT_EQ(count.values[j], finite) << "sample " << j;
    EXPECT_NEAR(mean.values[j], sum / finite, 1e-14 * sum) << "sample " << j;
    EXPECT_EQ(nonfinite.values[j], 0) << "sample " << j << ": a failed body is not a healthy one's bad value";
  }
  EXPECT_EQ(count.values[5], 4) << "t = 0.05, before the torque";
  EXPECT_EQ(count.values[6], 1) << "t = 0.06, after it";
}

TEST(RunStatistics, AdaptiveNewtonIterationsArePerStepAttempted) {
  // One output interval spans the run: each body's value at t_end is its total iterations over its
  // steps accepted and rejected (dividing by the stride, 100, would give about a tenth of it).
  ScratchDirectory dir;
  const std::string file = dir.file("adaptive.h5");
  const Scenario sc = scenario(R"(
[model]
type = "heavy_top"
inertia = [1.0, 2.0, 2.5]
[initial]
omega_body = [0.3, 1.0, 0.2]
[integrator]
method = "modified_hht"
[time]
dt = 1e-3
t_end = 0.1
adaptive = true
rotation_atol = 1e-7
h_initial = 1e-3
h_max = 1e-2
h_min = 1e-5
[ensemble]
size = 3
[[ensemble.sweep]]
key = "initial.omega_body"
from = [0.3, 1.0, 0.2]
to = [0.3, 30.0, 0.2]
[output]
stride = 100
[output.statistics]
observables = ["newton_iterations"]
quantiles = [0.0, 1.0]
)");
  const RunResult r = run(sc, file);
  ASSERT_EQ(r.failures(), 0);
  const Dataset total = read_dataset(file, "newton_iterations"), accepted = read_dataset(file, "accepted_steps"),
                rejected = read_dataset(file, "rejected_steps"), mean = read_dataset(file, "statistics/newton_iterations/mean"),
                count = read_dataset(file, "statistics/newton_iterations/count"),
                min = read_dataset(file, "statistics/newton_iterations/min"),
                max = read_dataset(file, "statistics/newton_iterations/max");
  ASSERT_EQ(count.values.size(), 2u);
  EXPECT_EQ(count.values[0], 0) << "no step before the first sample";
  ASSERT_EQ(count.values[1], 3);
  std::vector<double> per_step;
  for (std::size_t i = 0; i < 3; ++i) per_step.push_back(total.values[i] / (accepted.values[i] + rejected.values[i]));
  EXPECT_LT(accepted.values[0] + rejected.values[0], 50) << "the slow body takes long steps";
  EXPECT_NEAR(mean.values[1], (per_step[0] + per_step[1] + per_step[2]) / 3, 1e-14);
  EXPECT_EQ(min.values[1], *std::min_element(per_step.begin(), per_step.end()));
  EXPECT_EQ(max.values[1], *std::max_element(per_step.begin(), per_step.end()));
  EXPECT_GE(min.values[1], 1.0);
}

TEST(RunStatistics, BitwiseIdenticalForAnyThreadCountAndChunking) {
  ScratchDirectory dir;
  const Scenario sc = scenario(study + "[output]\nstride = 4\ntrajectories = 'none'\n" + statistics_table);
  run(sc, dir.file("a.h5"), 1);
  run(sc, dir.file("b.h5"), 2, 7);
  run(sc, dir.file("c.h5"), 2, 1);
  std::vector<std::string> names = statistics_datasets({"energy", "energy_drift", "omega_norm", "nutation", "tilt_of_x",
                                                        "angular_momentum_drift", "newton_iterations", "wz"});
  names.insert(names.end(), {"statistics/energy/histogram", "statistics/nutation/histogram", "time", "status"});
  expect_identical(dir.file("a.h5"), dir.file("b.h5"), names);
  expect_identical(dir.file("a.h5"), dir.file("c.h5"), names);
  EXPECT_FALSE(has_dataset(dir.file("a.h5"), "/quaternion")) << "trajectories = 'none'";
}

// ---------------------------------------------------------------- trajectory choices
TEST(RunTrajectories, ListEveryAndAutoWriteTheirBodies) {
  ScratchDirectory dir;
  const std::string text = study + "[output]\nstride = 10\n";
  run(scenario(text + "trajectories = 'all'\n"), dir.file("all.h5"));
  const auto rows_of = [&](const std::string& file, const std::vector<index_t>& bodies) {
    const Dataset all = read_dataset(dir.file("all.h5"), "omega_body"), some = read_dataset(file, "omega_body");
    ASSERT_EQ(some.dims, (std::vector<unsigned long long>{all.dims[0], bodies.size(), 3})) << file;
    std::vector<double> indices(bodies.begin(), bodies.end());
    EXPECT_EQ(read_dataset(file, "trajectory_bodies").values, indices) << file;
    for (std::size_t j = 0; j < all.dims[0]; ++j)
      for (std::size_t s = 0; s < bodies.size(); ++s)
        for (int c = 0; c < 3; ++c)
          ASSERT_TRUE(same_bits(some.values[(j * bodies.size() + s) * 3 + c], all.values[(j * 40 + bodies[s]) * 3 + c]));
  };
  run(scenario(text + "trajectories = 'list'\ntrajectory_bodies = [33, 4]\n"), dir.file("list.h5"));
  rows_of(dir.file("list.h5"), {4, 33});
  const RunResult every = run(scenario(text + "trajectories = 'every'\ntrajectory_every = 12\n"), dir.file("every.h5"));
  rows_of(dir.file("every.h5"), {0, 12, 24, 36});
  EXPECT_EQ(every.trajectories.rfind("every 12th body: 4 of 40", 0), 0u) << every.trajectories;
  // auto: 40 bodies × 11 samples × 12 scalars × 8 bytes = 42240 bytes; a limit of 10000 keeps every 5th.
  const RunResult automatic = run(scenario(text + "max_trajectory_bytes = 10000\n"), dir.file("auto.h5"));
  rows_of(dir.file("auto.h5"), {0, 5, 10, 15, 20, 25, 30, 35});
  EXPECT_NE(automatic.trajectories.find("every 5th body: 8 of 40"), std::string::npos) << automatic.trajectories;
  EXPECT_NE(automatic.trajectories.find("all would take 42.2 kB > max_trajectory_bytes 10 kB"), std::string::npos)
      << automatic.trajectories;
  EXPECT_EQ(read_string_attribute(dir.file("auto.h5"), "trajectories"), automatic.trajectories);
  // room for 3.9 bodies: every 14th, 3 rows (it took every 11th, 0 … 33, then dropped body 33 and
  // still said every 11th); room for less than one: none, and why
  const RunResult tight = run(scenario(text + "max_trajectory_bytes = 4118.4\n"), dir.file("tight.h5"));
  rows_of(dir.file("tight.h5"), {0, 14, 28});
  EXPECT_EQ(tight.trajectories.rfind("every 14th body: 3 of 40", 0), 0u) << tight.trajectories;
  const RunResult no_room = run(scenario(text + "max_trajectory_bytes = 1000\n"), dir.file("no_room.h5"));
  EXPECT_FALSE(has_dataset(dir.file("no_room.h5"), "/quaternion"));
  EXPECT_EQ(no_room.trajectories.rfind("none: one body's alone would take 1.06 kB > max_trajectory_bytes 1 kB", 0), 0u)
      << no_room.trajectories;
  const RunResult all = run(scenario(text), dir.file("default.h5"));
  EXPECT_EQ(all.trajectories, "all 40 bodies (42.2 kB)");
  EXPECT_FALSE(has_dataset(dir.file("default.h5"), "/trajectory_bodies"));
  // none and no statistics: the per-body records alone (the ensemble used to write its samples
  // through the null pointer of the buffer it was not given, and the run crashed).
  run(scenario(text + "trajectories = 'none'\n"), dir.file("none.h5"));
  EXPECT_FALSE(has_dataset(dir.file("none.h5"), "/quaternion"));
  expect_identical(dir.file("all.h5"), dir.file("none.h5"), {"status", "failed_step", "newton_iterations"});
}

// ---------------------------------------------------------------- bad [output] blocks
TEST(RunStatistics, BadOutputTablesNameTheKey) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_scenario(text, "bad.toml");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto expect = [&](const std::string& output, const std::string& key, const std::string& problem) {
    const std::string message = error_of(study + output);
    EXPECT_EQ(message.rfind("bad.toml: key '" + key + "': ", 0), 0u) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  };
  expect("[output.statistics]\nobservables = ['energy', 'spin']\n", "output.statistics.observables",
         "'spin' is not a standard observable");
  expect("[output.statistics]\nobservables = ['energy', 'energy']\n", "output.statistics.observables", "listed twice");
  expect("[output.statistics]\nquantiles = [0.5, 1.5]\n", "output.statistics.quantiles", "component 1 is 1.5, must be in [0, 1]");
  expect("[output.statistics]\nquantile = [0.5]\n", "output.statistics.quantile", "unknown key");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'x'\nkind = 'component'\n",
         "output.statistics.observable[0].channel", "missing (required by kind 'component')");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'le'\nkind = 'component'\nchannel = 'local_error'\n",
         "output.statistics.observable[0]", "channel 'local_error' is not sampled");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'e'\nkind = 'component'\nchannel = 'energy'\ncomponent = 1\n",
         "output.statistics.observable[0]", "channel 'energy' has 1 component, needs 2");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'energy'\nbins = 10\nlow = 1\nhigh = 1\n",
         "output.statistics.observable[0].high", "low: 1, must be < high (1)");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'energy'\nlow = 1\n",
         "output.statistics.observable[0].bins", "low and high are a histogram's edges");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'energy'\nbins = 10\n",
         "output.statistics.observable[0].low", "missing (required with bins: the histogram's edges)");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'energy'\nbins = 10\nlow = -1.0\n",
         "output.statistics.observable[0].high", "missing (required with bins: the histogram's edges)");
  // a misspelt standard name gets the nearest one, in either place it can be named
  expect("[output.statistics]\nobservables = ['omega_nrom']\n", "output.statistics.observables",
         "(did you mean 'omega_norm'?): define it in an [[output.statistics.observable]] table");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'enrgy'\n", "output.statistics.observable[0].name",
         "(did you mean 'energy'?): give its kind");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'spin'\n", "output.statistics.observable[0].name",
         "'spin' is not a standard observable");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'a/b'\nkind = 'norm'\nchannel = 'omega_body'\n",
         "output.statistics.observable[0]", "observable name 'a/b'");
  expect("[output.statistics]\n[[output.statistics.observable]]\nname = 'n'\nkind = 'norm'\nchannel = 'omega_body'\ncomponent = 1\n",
         "output.statistics.observable[0].component", "not read by kind 'norm'");
  expect("[output]\ntrajectories = 'list'\n", "output.trajectory_bodies", "missing (required by trajectories = \"list\")");
  expect("[output]\ntrajectories = 'list'\ntrajectory_bodies = [3, 40]\n", "output.trajectory_bodies",
         "40 is not a body index in [0, 40)");
  expect("[output]\ntrajectories = 'list'\ntrajectory_bodies = [1.5]\n", "output.trajectory_bodies", "1.5 is not a body index");
  expect("[output]\ntrajectory_every = 3\n", "output.trajectory_every", "only with trajectories = \"every\"");
  expect("[output]\ntrajectories = 'some'\n", "output.trajectories", "'some' is not one of");
}
