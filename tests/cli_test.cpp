// The built `quatstep` executable: each example runs (shortened with --t-end) and writes a file with
// every dataset; errors give a non-zero exit status and a message on stderr.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_lanes.hpp"  // host/
#include "ensemble_factory.hpp"
#include "hdf5_read.hpp"

namespace lanes = quatstep::lanes;
using quatstep::testing::read_dataset;
using quatstep::testing::read_string_attribute;
using quatstep::testing::ScratchDirectory;

namespace {

using Outcome = quatstep::testing::CommandOutcome;
/// Run `quatstep ARGS` through the shell, capturing stdout and stderr.
Outcome run_cli(const std::string& args, const ScratchDirectory& dir) {
  const std::string cmd = std::string("'") + QUATSTEP_EXE + "' " + args + " >'" + dir.file("stdout") + "' 2>'" +
                          dir.file("stderr") + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, quatstep::testing::read_text_file(dir.file("stdout")), quatstep::testing::read_text_file(dir.file("stderr"))};
}

std::string example(const std::string& name) { return std::string("'") + QUATSTEP_EXAMPLES + "/" + name + "'"; }

/// Shapes of the datasets of a run with `nt` samples and `n` bodies.
void expect_layout(const std::string& file, unsigned long long nt, unsigned long long n) {
  using Dims = std::vector<unsigned long long>;
  EXPECT_EQ(read_dataset(file, "time").dims, (Dims{nt}));
  EXPECT_EQ(read_string_attribute(file, "description", "/time"),
            "model time of each sample [s]; NaN where a run stopped before it");
  EXPECT_EQ(read_dataset(file, "quaternion").dims, (Dims{nt, n, 4}));
  EXPECT_EQ(read_dataset(file, "omega_body").dims, (Dims{nt, n, 3}));
  EXPECT_EQ(read_dataset(file, "energy").dims, (Dims{nt, n}));
  EXPECT_EQ(read_dataset(file, "angular_momentum").dims, (Dims{nt, n, 3}));
  EXPECT_EQ(read_dataset(file, "constraint_violation").dims, (Dims{nt, n}));
  EXPECT_EQ(read_dataset(file, "status").dims, (Dims{n}));
  EXPECT_EQ(read_dataset(file, "newton_iterations").dims, (Dims{n}));
  EXPECT_EQ(read_dataset(file, "failed_step").dims, (Dims{n}));
  for (double s : read_dataset(file, "status").values) EXPECT_EQ(s, 0.0) << "every body ok";
  EXPECT_FALSE(read_string_attribute(file, "scenario").empty());
  EXPECT_FALSE(read_string_attribute(file, "quatstep_version").empty());
}

}  // namespace

TEST(Cli, HeavyTopExample) {
  ScratchDirectory dir;
  const Outcome o = run_cli("run " + example("heavy_top.toml") + " --t-end 0.01 --output " + dir.file("a.h5"), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  expect_layout(dir.file("a.h5"), 11, 1);  // 100 steps, stride 10
  EXPECT_EQ(read_string_attribute(dir.file("a.h5"), "method"), "modified_hht");
  // The summary names bodies, steps, wall time, throughput, Newton iterations, failures and the file.
  for (const char* word : {"bodies", "steps", "wall time", "body-steps per second", "Newton iterations/step", "failures",
                           "output"})
    EXPECT_NE(o.out.find(word), std::string::npos) << word << " missing from\n" << o.out;
  EXPECT_NE(o.out.find(dir.file("a.h5")), std::string::npos) << o.out;
  EXPECT_EQ(o.err, "") << "no progress bar when stderr is not a terminal";
}

TEST(Cli, SpinUpExample) {
  ScratchDirectory dir;
  const Outcome o = run_cli("run " + example("spin_up.toml") + " --t-end 1 --quiet --output " + dir.file("b.h5"), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "") << "--quiet prints no summary";
  expect_layout(dir.file("b.h5"), 11, 1);
  // Spin-up from rest under a unit torque on unit inertia: ω_x(1) = 1 (modified HHT, α = 0, docs/errata.md S5).
  const auto w = read_dataset(dir.file("b.h5"), "omega_body").values;
  EXPECT_NEAR(w[10 * 3 + 0], 1.0, 1e-12) << "measured omega_x(1) = " << w[30];
}

TEST(Cli, SpinningEnsembleExampleWithThreadsAndForcedProgress) {
  ScratchDirectory dir;
  const Outcome o = run_cli(
      "run " + example("spinning_ensemble.toml") + " --t-end 0.5 --backend cpu --threads 2 --progress --output " +
          dir.file("c.h5"),
      dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  expect_layout(dir.file("c.h5"), 6, 1000);  // 50 steps, stride 10
  EXPECT_NE(o.err.find("100%"), std::string::npos) << "--progress draws the bar on stderr: " << o.err;
  EXPECT_NE(o.out.find("threads                 2"), std::string::npos) << o.out;
}

TEST(Cli, SummarySaysWhichBodiesRanInSimdLanesAndTheyChangeNoBit) {
  // REML on 100 heavy tops: 25 blocks of four in lanes where the CPU has AVX2, 12 blocks of eight
  // where it has AVX-512; QUATSTEP_SIMD=avx2 keeps to AVX2, QUATSTEP_SIMD=off turns them off, and the
  // file's every sample stays the same; any other value is an error.
  ScratchDirectory dir;
  const std::string args = "run " + example("free_rotation_livens.toml") + " --t-end 1 --backend cpu --output ";
  const auto run_with = [&](const char* simd, const std::string& file) {
    if (simd) setenv("QUATSTEP_SIMD", simd, 1);
    const Outcome o = run_cli(args + dir.file(file), dir);
    unsetenv("QUATSTEP_SIMD");
    return o;
  };
  const Outcome on = run_with(nullptr, "on.h5"), avx2 = run_with("avx2", "avx2.h5"), off = run_with("off", "off.h5");
  for (const Outcome* o : {&on, &avx2, &off}) ASSERT_EQ(o->exit_code, 0) << o->err;
  const std::string not_built = "SIMD lanes              none (built without them: QUATSTEP_CPU_LANES=OFF";
  const std::string in_avx2 = "SIMD lanes              AVX2, 100 of 100 bodies, 4 per block";
  if (lanes::available()) {
    const bool avx512 = lanes::best_isa() == lanes::Isa::avx512;
    EXPECT_NE(on.out.find(avx512 ? "SIMD lanes              AVX-512, 96 of 100 bodies, 8 per block" : in_avx2),
              std::string::npos)
        << on.out;
    EXPECT_NE(avx2.out.find(in_avx2), std::string::npos) << avx2.out;
  } else {
    EXPECT_NE(on.out.find(lanes::built ? "SIMD lanes              none (no AVX2" : not_built), std::string::npos) << on.out;
  }
  EXPECT_NE(off.out.find(lanes::built ? "SIMD lanes              none (no AVX2 on this CPU, or QUATSTEP_SIMD=off)" : not_built),
            std::string::npos)
      << off.out;
  // A value it does not know is refused before anything runs (a misspelt "Off" left the lanes on).
  const Outcome misspelt = run_with("Off", "misspelt.h5");
  EXPECT_NE(misspelt.exit_code, 0);
  EXPECT_NE(misspelt.err.find("QUATSTEP_SIMD=Off in the environment: auto, avx2 or off"), std::string::npos)
      << misspelt.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("misspelt.h5")));
  for (const char* name : {"quaternion", "omega_body", "generalized_energy", "status"})
    for (const char* file : {"avx2.h5", "off.h5"})
      EXPECT_EQ(read_dataset(dir.file("on.h5"), name).values, read_dataset(dir.file(file), name).values)
          << name << " in " << file;
}

TEST(Cli, FreeRotationLivensExampleConservesTheGeneralizedEnergy) {
  // Kinon §5.3 at h = 0.05 over the whole t ∈ [0, 100]; 100 bodies × 2000 steps take ~0.2 s.
  // Measured: max over bodies and samples of |E(t) − E(0)|/E(0) = 1.2e-13 (round-off increments of
  // ~1e-15 per step accumulated over 2000 steps).
  ScratchDirectory dir;
  const Outcome o = run_cli("run " + example("free_rotation_livens.toml") + " --quiet --output " + dir.file("d.h5"), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string file = dir.file("d.h5");
  expect_layout(file, 201, 100);
  EXPECT_EQ(read_string_attribute(file, "method"), "livens_em");
  const auto energy = read_dataset(file, "generalized_energy");
  ASSERT_EQ(energy.dims, (std::vector<unsigned long long>{201, 100}));
  EXPECT_FALSE(quatstep::testing::has_dataset(file, "/local_error"));
  double drift = 0;
  for (std::size_t j = 0; j < 201; ++j)
    for (std::size_t i = 0; i < 100; ++i)
      drift = std::max(drift, std::abs(energy.values[j * 100 + i] - energy.values[i]) / energy.values[i]);
  std::printf("generalized energy: max relative drift %.2e over 100 bodies, t in [0, 100]\n", drift);
  EXPECT_LE(drift, 1e-12);
  // Body 0 starts at Ω0 = (10, 20, 20): E(0) = ½ Ω·J0Ω = ½(6·100 + 8·400 + 3·400) = 2500.
  EXPECT_NEAR(energy.values[0], 2500.0, 2500.0 * 1e-14) << energy.values[0];
  // The momentum map E(q)p/2 holds to round-off; the model's /angular_momentum, from the end-point
  // velocities, does not (measured 2026-12-04: 6.7e-14 against 0.17 at this step).
  const auto map = read_dataset(file, "momentum_map"), model_l = read_dataset(file, "angular_momentum");
  ASSERT_EQ(map.dims, (std::vector<unsigned long long>{201, 100, 3}));
  double map_drift = 0, model_drift = 0;
  for (std::size_t j = 0; j < 201; ++j)
    for (std::size_t i = 0; i < 100; ++i) {
      const auto change = [&](const std::vector<double>& v) {
        const double* now = &v[(j * 100 + i) * 3];
        const double* first = &v[i * 3];
        return std::hypot(now[0] - first[0], now[1] - first[1], now[2] - first[2]) /
               std::hypot(first[0], first[1], first[2]);
      };
      map_drift = std::max(map_drift, change(map.values)), model_drift = std::max(model_drift, change(model_l.values));
    }
  std::printf("momentum map: max relative change %.2e; the model's angular momentum %.2e\n", map_drift, model_drift);
  EXPECT_LE(map_drift, 1e-12);
  EXPECT_GE(model_drift, 1e-2) << "the end-point velocities' oscillation, Kinon Remark 4.8";
  // At t = 0 the two agree: v⁰ is consistent with p⁰ (L = J0Ω0 = (60, 160, 60) for body 0).
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(map.values[std::size_t(c)], model_l.values[std::size_t(c)], 1e-12 * 180);
}

TEST(Cli, Zupan3SlowTopExampleWritesTheLocalError) {
  // Measured: 2.3e-6 .. 2.6e-5 rad per step after sample 0 (|Ω| h ≈ 0.05 rad per step).
  ScratchDirectory dir;
  const Outcome o = run_cli("run " + example("zupan3_slow_top.toml") + " --quiet --output " + dir.file("e.h5"), dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string file = dir.file("e.h5");
  expect_layout(file, 101, 1);  // 1000 steps, stride 10
  EXPECT_EQ(read_string_attribute(file, "method"), "zupan3");
  const auto local_error = read_dataset(file, "local_error");
  ASSERT_EQ(local_error.dims, (std::vector<unsigned long long>{101, 1}));
  EXPECT_FALSE(quatstep::testing::has_dataset(file, "/generalized_energy"));
  double smallest = INFINITY, largest = 0;
  for (std::size_t j = 1; j < 101; ++j)
    smallest = std::min(smallest, local_error.values[j]), largest = std::max(largest, local_error.values[j]);
  std::printf("local error: %.3g .. %.3g rad per step\n", smallest, largest);
  EXPECT_EQ(local_error.values[0], 0.0);
  EXPECT_GT(smallest, 0.0);
  EXPECT_LT(largest, 1e-4);
}

TEST(Cli, BackendAndPrecisionOptionsReachTheRunAndTheFile) {
  ScratchDirectory dir;
  const std::string args = "run " + example("heavy_top.toml") + " --t-end 0.01 --backend cpu --output ";
  const Outcome d = run_cli(args + dir.file("d.h5"), dir);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("backend                 cpu, double"), std::string::npos) << d.out;
  EXPECT_EQ(read_string_attribute(dir.file("d.h5"), "backend"), "cpu");
  EXPECT_EQ(read_string_attribute(dir.file("d.h5"), "precision"), "double");
  const Outcome f = run_cli(args + dir.file("f.h5") + " --precision float", dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(f.out.find("backend                 cpu, float"), std::string::npos) << f.out;
  EXPECT_EQ(read_string_attribute(dir.file("f.h5"), "precision"), "float");
  for (double s : read_dataset(dir.file("f.h5"), "status").values) EXPECT_EQ(s, 0.0) << "float run ok";
  // The float run follows the double one to float accuracy over 100 steps of the fast top (|ω| = 150).
  const auto wd = read_dataset(dir.file("d.h5"), "omega_body").values, wf = read_dataset(dir.file("f.h5"), "omega_body").values;
  double worst = 0;
  for (std::size_t k = 0; k < wd.size(); ++k) worst = std::max(worst, std::abs(wf[k] - wd[k]) / 150.0);
  EXPECT_LT(worst, 1e-5) << "measured worst |Δω|/|ω| " << worst;
  const Outcome bad = run_cli(args + dir.file("g.h5") + " --backend gpu", dir);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--backend"), std::string::npos) << bad.err;
  // The short forms: -o FILE, -j N, -q (no summary).
  const Outcome s = run_cli("run " + example("heavy_top.toml") + " --t-end 0.01 --backend cpu -j 1 -q -o " + dir.file("s.h5"), dir);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out, "") << "-q";
  EXPECT_TRUE(read_dataset(dir.file("s.h5"), "omega_body").values == wd) << "-o wrote the run";
}

TEST(Cli, BodiesOptionRerunsChosenBodiesBitForBit) {
  // Bodies 17 and 404 of the spinning ensemble (a sweep and random draws) re-run alone: their rows of
  // the full run, bit for bit.
  ScratchDirectory dir;
  const std::string args = "run " + example("spinning_ensemble.toml") + " --t-end 0.3 --backend cpu --quiet --output ";
  ASSERT_EQ(run_cli(args + dir.file("full.h5"), dir).exit_code, 0);
  const Outcome o = run_cli(args + dir.file("some.h5") + " --bodies 404,17", dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(read_dataset(dir.file("some.h5"), "bodies").values, (std::vector<double>{404, 17}));
  for (const char* name : {"quaternion", "omega_body", "energy", "parameters/initial.omega_body", "parameters/model.inertia"}) {
    const auto full = read_dataset(dir.file("full.h5"), name), some = read_dataset(dir.file("some.h5"), name);
    const bool sampled = full.dims.size() >= 2 && full.dims[0] != 1000;
    const std::size_t rows = sampled ? full.dims[0] : 1, n = sampled ? full.dims[1] : full.dims[0];
    const std::size_t width = full.values.size() / (rows * n);
    for (std::size_t j = 0; j < rows; ++j)
      for (std::size_t c = 0; c < width; ++c) {
        ASSERT_EQ(std::memcmp(&some.values[(j * 2 + 0) * width + c], &full.values[(j * n + 404) * width + c], 8), 0) << name;
        ASSERT_EQ(std::memcmp(&some.values[(j * 2 + 1) * width + c], &full.values[(j * n + 17) * width + c], 8), 0) << name;
      }
  }
  const Outcome bad = run_cli(args + dir.file("bad.h5") + " --bodies 17,1000", dir);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("body 1000 (--bodies) is not a body index in [0, 1000)"), std::string::npos) << bad.err;
}

TEST(Cli, MonteCarloExamplesRunStatisticsOnly) {
  // One step of each 10^5-body study (--stride 1: the files' strides do not divide one step):
  // statistics of every body at samples 0 and 1, no trajectories, every drawn value in /parameters.
  ScratchDirectory dir;
  const Outcome top = run_cli("run " + example("monte_carlo_heavy_top.toml") + " --t-end 1e-4 --stride 1 --quiet --output " +
                                  dir.file("top.h5"),
                              dir);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const std::string t = dir.file("top.h5");
  EXPECT_FALSE(quatstep::testing::has_dataset(t, "/quaternion")) << "statistics only";
  EXPECT_EQ(read_dataset(t, "statistics/axis_tilt/count").values, (std::vector<double>{100000, 100000}));
  EXPECT_EQ(read_dataset(t, "statistics/axis_tilt/histogram").dims, (std::vector<unsigned long long>{2, 60}));
  // About half of the thin discs drawn are no body and were drawn again (5σ of a binomial: 800).
  EXPECT_NEAR(std::stod(read_string_attribute(t, "redrawn_bodies")), 50000, 800);
  const auto omega = read_dataset(t, "parameters/initial.omega_body");
  ASSERT_EQ(omega.dims, (std::vector<unsigned long long>{100000, 3}));
  double mean = 0;
  for (std::size_t i = 0; i < 100000; ++i) mean += std::sqrt(omega.values[3 * i] * omega.values[3 * i] +
                                                             omega.values[3 * i + 1] * omega.values[3 * i + 1] +
                                                             omega.values[3 * i + 2] * omega.values[3 * i + 2]);
  EXPECT_NEAR(mean / 100000, 150.071, 5 * 5.0 / std::sqrt(1e5)) << "the spin's magnitude law: N(150.071, 5^2)";

  const Outcome granular = run_cli("run " + example("granular_tumbling.toml") + " --t-end 1e-5 --stride 1 --quiet --output " +
                                       dir.file("granular.h5"),
                                   dir);
  ASSERT_EQ(granular.exit_code, 0) << granular.err;
  const std::string g = dir.file("granular.h5");
  EXPECT_EQ(read_dataset(g, "statistics/omega_norm/count").values, (std::vector<double>{100000, 100000}));
  const auto mass = read_dataset(g, "parameters/model.mass").values;
  const auto [lightest, heaviest] = std::minmax_element(mass.begin(), mass.end());
  EXPECT_GE(*lightest, 2500 * 1e-9) << "boxes of 1 mm edges at least";
  EXPECT_LE(*heaviest, 2500 * 27e-9) << "boxes of 3 mm edges at most";
  // What the body_shape drew besides the moments, recomputed: the box's moments and mass from its edges.
  const auto edges = read_dataset(g, "parameters/model.inertia.shape_dimensions");
  const auto inertia = read_dataset(g, "parameters/model.inertia").values;
  const auto shape_mass = read_dataset(g, "parameters/model.inertia.shape_mass").values;
  const auto density = read_dataset(g, "parameters/model.inertia.shape_density").values;
  ASSERT_EQ(edges.dims, (std::vector<unsigned long long>{100000, 3}));
  double worst = 0;
  for (std::size_t i = 0; i < 100000; ++i) {
    const double a = edges.values[3 * i], b = edges.values[3 * i + 1], c = edges.values[3 * i + 2];
    ASSERT_TRUE(a >= 1e-3 && a <= 3e-3 && b >= 1e-3 && b <= 3e-3 && c >= 1e-3 && c <= 3e-3) << "body " << i;
    ASSERT_EQ(density[i], 2500.0) << "body " << i;
    ASSERT_EQ(shape_mass[i], mass[i]) << "body " << i << ": the mass_key's value";
    const double m = 2500.0 * a * b * c;
    const double moments[3] = {m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12};
    worst = std::max(worst, std::abs(mass[i] - m) / m);
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(inertia[3 * i + k] - moments[k]) / moments[k]);
  }
  EXPECT_LT(worst, 1e-14) << "moments and mass against those of the written edges";
  for (double s : read_dataset(g, "status").values) ASSERT_EQ(s, 0.0);
}

TEST(Cli, SummaryNamesHistogramRangesThatMissTheirValues) {
  // Spin-up of four bodies from omega_x = 0, 1, 2, 3 under a unit torque: omega_x = i + t, sampled
  // every 0.1 s. Bins over [0, 2.45] miss body 3 at every sample and body 2 from t = 0.5 on: the
  // summary names the sample with the largest share outside, the first of equals. Bins over [0, 5]
  // hold every value: no line.
  ScratchDirectory dir;
  const std::string scenario = R"([model]
type = "heavy_top"
inertia = [1.0, 1.0, 1.0]
body_torque = [1.0, 0.0, 0.0]
[integrator]
method = "modified_hht"
alpha = 0.0
[time]
dt = 0.01
t_end = 1.0
[ensemble]
size = 4
[[ensemble.sweep]]
key = "initial.omega_body"
from = [0.0, 0.0, 0.0]
to = [3.0, 0.0, 0.0]
[output]
stride = 10
[output.statistics]
observables = ["energy"]
[[output.statistics.observable]]
name = "spin"
kind = "component"
channel = "omega_body"
component = 0
bins = 7
low = 0.0
high = )";
  std::ofstream(dir.file("narrow.toml")) << scenario << "2.45\n";
  std::ofstream(dir.file("wide.toml")) << scenario << "5.0\n";
  const Outcome narrow = run_cli("run " + dir.file("narrow.toml") + " --output " + dir.file("narrow.h5"), dir);
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_NE(narrow.out.find("histogram ranges        spin 50 % of 4 values outside [0, 2.45] at t = 0.5 (0 below, 2 "
                            "above) ([output.statistics] low, high)\n"),
            std::string::npos)
      << narrow.out;
  const auto above = read_dataset(dir.file("narrow.h5"), "statistics/spin/above").values;
  EXPECT_EQ(above, (std::vector<double>{1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2})) << "the file's counts, which the line reports";
  const Outcome wide = run_cli("run " + dir.file("wide.toml") + " --output " + dir.file("wide.h5"), dir);
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_EQ(wide.out.find("histogram ranges"), std::string::npos) << wide.out;

  // The mechanisms' summary too: the slider-crank sweep's crank turns back in six of its eight
  // mechanisms, four of them at once at t = 0.8 s (its histogram over [-25, 25] holds every value).
  std::string cranks = quatstep::testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml");
  const std::string low = "low = -25.0";
  ASSERT_NE(cranks.find(low), std::string::npos);
  std::ofstream(dir.file("cranks.toml")) << cranks.replace(cranks.find(low), low.size(), "low = 0.0");
  const Outcome turning = run_cli("run " + dir.file("cranks.toml") + " --output " + dir.file("cranks.h5"), dir);
  ASSERT_EQ(turning.exit_code, 0) << turning.err;
  EXPECT_NE(turning.out.find("histogram ranges        crank_speed 50 % of 8 values outside [0, 25] at t = 0.8 (4 "
                             "below, 0 above)"),
            std::string::npos)
      << turning.out;
}

TEST(Cli, VerifyRerunsThePapersStudiesAndAgrees) {
  // The fast subset: every published figure against its measurement (exit status 0: all agree).
  ScratchDirectory dir;
  const Outcome o = run_cli("verify --fast --out " + dir.file("v"), dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string table = quatstep::testing::read_text_file(dir.file("v/verify.md"));
  for (const char* row : {"spin-up (Sherif §7)", "heavy top (Sherif §10.1)", "EML (Kinon & Betsch §5.3)", "case (ii) (Zupan §IV.A)",
                          "four-bar loop (Kinon & Betsch §5.5", "four-bar loop, EML (Kinon & Betsch §5.5, Fig. 16)"})
    EXPECT_NE(table.find(row), std::string::npos) << row << " missing from\n" << table;
  EXPECT_EQ(table.find("**no**"), std::string::npos) << table;
  for (const char* csv :
       {"verify.csv", "spin_up.csv", "heavy_top.csv", "eml.csv", "zupan.csv", "four_bar.csv", "four_bar_eml.csv"})
    EXPECT_TRUE(std::ifstream(dir.file(std::string("v/") + csv)).good()) << csv;
  if (std::system("python3 -c 'import matplotlib, h5py' 2>/dev/null") == 0)
    for (const char* png : {"verify_spin_up.png", "verify_heavy_top.png", "verify_eml.png", "verify_zupan.png",
                            "verify_four_bar.png", "verify_four_bar_eml.png"})
      EXPECT_TRUE(std::ifstream(dir.file(std::string("v/") + png)).good()) << png << "\n" << o.err;
}

TEST(Cli, VerifyWithoutItsProgramSaysHowToBuildIt) {
  // `quatstep verify` runs quatstep-verify from its own folder: a copy of quatstep alone there fails
  // with the command that builds it, and without running anything else.
  ScratchDirectory dir;
  const std::string lone = dir.file("quatstep");
  std::filesystem::copy_file(QUATSTEP_EXE, lone);
  const std::string cmd = "'" + lone + "' verify --fast --out '" + dir.file("v") + "' 2>'" + dir.file("err") + "'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = quatstep::testing::read_text_file(dir.file("err"));
  const std::string companion = (std::filesystem::canonical(lone).parent_path() / "quatstep-verify").string();
  EXPECT_NE(err.find(companion + " is not built"), std::string::npos) << err;
  EXPECT_NE(err.find("--target quatstep-verify"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("v"))) << "no study ran";
}

TEST(Cli, PlotWithoutPythonSaysSo) {
  ScratchDirectory dir;
  const std::string cmd = std::string("env PATH=/nonexistent '") + QUATSTEP_EXE + "' plot x.h5 2>'" + dir.file("err") + "'";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(quatstep::testing::read_text_file(dir.file("err")).find("there is no python3 on the PATH"), std::string::npos) << quatstep::testing::read_text_file(dir.file("err"));
}

TEST(Cli, VersionFlag) {
  ScratchDirectory dir;
  const Outcome o = run_cli("--version", dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("quatstep 0."), std::string::npos) << o.out;
}

TEST(Cli, ErrorsExitNonZeroWithAMessageOnStderr) {
  ScratchDirectory dir;
  {
    std::ofstream(dir.file("bad.toml")) << "[model]\ntype = 'heavy_top'\ninertia = [1, 1, 3]\n"
                                           "[integrator]\nmethod = 'hht'\n[time]\ndt = 0.1\nt_end = 1\n";
    const Outcome o = run_cli("run '" + dir.file("bad.toml") + "' --output " + dir.file("x.h5"), dir);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("bad.toml: key 'model.inertia': moments (1, 1, 3) violate the triangle inequality"),
              std::string::npos)
        << o.err;
    EXPECT_FALSE(std::ifstream(dir.file("x.h5")).good()) << "no output file for an invalid scenario";
  }
  {
    const Outcome o = run_cli("run '" + dir.file("missing.toml") + "'", dir);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("missing.toml: cannot open"), std::string::npos) << o.err;
  }
  for (const char* count : {"--threads 0", "--stride 0", "--stride 2.5"}) {  // usage errors: status 1, as any other
    const Outcome o = run_cli("run " + example("heavy_top.toml") + " " + count, dir);
    EXPECT_EQ(o.exit_code, 1) << count;
    EXPECT_NE(o.err.find("must be a whole number >= 1"), std::string::npos) << o.err;
  }
  {
    const Outcome o = run_cli("", dir);
    EXPECT_EQ(o.exit_code, 1) << "a subcommand is required";
  }
  {
    const Outcome o = run_cli("frob", dir);
    EXPECT_EQ(o.exit_code, 1);
    EXPECT_NE(o.err.find("unknown command 'frob' (the commands: run, "), std::string::npos) << o.err;
  }
  {
    const Outcome o = run_cli("run " + example("heavy_top.toml") + " --t-end 0.01 --output /nonexistent/x.h5", dir);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("/nonexistent/x.h5: cannot create the output file: its directory /nonexistent does not exist"),
              std::string::npos)
        << o.err;
  }
  {  // --backend cuda: runs where a GPU is usable; elsewhere the file and the key named
    const Outcome o =
        run_cli("run " + example("heavy_top.toml") + " --t-end 0.01 --backend cuda --output " + dir.file("c.h5"), dir);
    if (quatstep::choose_backend(quatstep::Backend::automatic).backend == quatstep::Backend::cuda) {
      EXPECT_EQ(o.exit_code, 0) << o.err;
    } else {
      EXPECT_EQ(o.exit_code, 1) << o.err;
      EXPECT_NE(o.err.find("heavy_top.toml: key 'run.backend' (or --backend): backend \"cuda\" requested, but "),
                std::string::npos)
          << o.err;
    }
  }
  {  // a result file to resume that is not there, or not HDF5: said which
    const Outcome missing = run_cli("run --resume '" + dir.file("gone.h5") + "'", dir);
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("gone.h5: cannot open: no such file"), std::string::npos) << missing.err;
    std::ofstream(dir.file("text.h5")) << "not HDF5\n";
    const Outcome text = run_cli("run --resume '" + dir.file("text.h5") + "'", dir);
    EXPECT_EQ(text.exit_code, 1);
    EXPECT_NE(text.err.find("text.h5: cannot open: not an HDF5 file, or a truncated one"), std::string::npos) << text.err;
  }
  {  // the scenario as its own output: refused, the TOML left as it was (HDF5 was written over it)
    const std::string text = "[model]\ntype = 'heavy_top'\ninertia = [1, 1, 0.5]\n"
                             "[integrator]\nmethod = 'hht'\n[time]\ndt = 0.1\nt_end = 1\n";
    std::ofstream(dir.file("self.toml")) << text;
    const Outcome o = run_cli("run '" + dir.file("self.toml") + "' --output " + dir.file("self.toml"), dir);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("self.toml: the run would write over it"), std::string::npos) << o.err;
    EXPECT_EQ(quatstep::testing::read_text_file(dir.file("self.toml")), text);
  }
  {  // a directory for the scenario (it read as an empty scenario: "key 'model.type': missing")
    std::filesystem::create_directory(dir.file("study"));
    const Outcome o = run_cli("run '" + dir.file("study") + "'", dir);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("a directory, not a scenario file"), std::string::npos) << o.err;
  }
  {  // --bodies "" (it ran body 0 alone)
    const Outcome o = run_cli("run " + example("heavy_top.toml") + " --t-end 0.01 --bodies '' --output " + dir.file("e.h5"), dir);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find("an empty body index"), std::string::npos) << o.err;
  }
}
