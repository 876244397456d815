// Adaptive steps from a scenario file ([time] adaptive = true): `quatstep run` on
// examples/adaptive_heavy_tops.toml writes per body the step records and the samples of the
// library's own adaptive run of the same bodies (AdaptiveHht over ModifiedHht walked by
// initialize_body_adaptive / advance_body_adaptive, tests/support/adaptive_run.hpp, cut into other
// launches), bit for bit; an interrupted adaptive run resumes to the same bits; bad step-control
// keys and a method without adaptive steps are refused with the file and the key.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ensemble_builder.hpp"
#include "hdf5_read.hpp"
#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "run.hpp"
#include "scenario.hpp"
#include "support/adaptive_run.hpp"

namespace quatstep {
namespace {

using testing::read_dataset;
using testing::same_bits;
using testing::ScratchDirectory;

const std::string example = std::string(QUATSTEP_EXAMPLES) + "/adaptive_heavy_tops.toml";
constexpr double t_end = 0.05;  // 50 output intervals of the example's dt = 1e-3, 6 samples at stride 10

struct Outcome {
  int exit_code;
  std::string err;
};

Outcome run_cli(const std::string& args, const ScratchDirectory& dir) {
  const std::string cmd = std::string("'") + QUATSTEP_EXE + "' " + args + " >'" + dir.file("stdout") + "' 2>'" +
                          dir.file("stderr") + "'";
  const int status = std::system(cmd.c_str());
  std::ifstream in(dir.file("stderr"));
  std::ostringstream err;
  err << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err.str()};
}

/// The example's bodies run by the library alone: the scenario's per-body parameters (its sweep)
/// through the model entry (as the strict GPU test takes them), the method's and the step control's settings as the file sets them.
std::vector<testing::AdaptiveBodyResult> library_run(const Scenario& sc) {
  using Integrator = ModifiedHht<HeavyTop<double>>;
  HhtSettings<double> hht;
  hht.alpha = -0.2;
  hht.inertia_shift = true;
  AdaptiveSettings<double> control;
  control.control = ErrorControl::per_unit_step;
  control.rotation_atol = 1e-6;
  control.h_initial = 1e-5;
  control.h_max = 1e-2;
  const AdaptiveHht<Integrator> stepper(Integrator(hht), control);
  std::vector<HeavyTop<double>> models;
  std::vector<RigidBodyKinematics<double>> initial;
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    const HeavyTopModel::Parameters p = build::parameters<HeavyTopModel>(body_parameters(sc, i), 0);
    models.push_back(HeavyTopModel::build<double>(p));
    initial.push_back(HeavyTopModel::initial<double>(p));
  }
  return testing::run_adaptive(stepper, models, initial, sc.time.dt, sc.time.steps, 7, sc.time.t_start);
}

TEST(AdaptiveCli, FileHoldsTheLibrarysStepRecordsAndDenseOutput) {
  ScratchDirectory dir;
  const std::string file = dir.file("a.h5");
  const Outcome o = run_cli("run '" + example + "' --t-end " + std::to_string(t_end) + " --quiet --output " + file, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;

  ScenarioOverrides shorter;
  shorter.t_end = t_end;
  const Scenario sc = load_scenario(example, shorter);
  ASSERT_TRUE(sc.time.adaptive);
  ASSERT_EQ(sc.time.steps, 50);
  const std::vector<testing::AdaptiveBodyResult> lib = library_run(sc);
  const index_t n = sc.ensemble_size;

  const auto accepted = read_dataset(file, "accepted_steps"), rejected = read_dataset(file, "rejected_steps");
  const auto smallest = read_dataset(file, "smallest_step"), largest = read_dataset(file, "largest_step");
  const auto status = read_dataset(file, "status");
  ASSERT_EQ(accepted.values.size(), std::size_t(n));
  for (index_t i = 0; i < n; ++i) {
    ASSERT_EQ(lib[i].status, Status::ok) << "body " << i;
    EXPECT_EQ(status.values[i], 0.0) << "body " << i;
    EXPECT_EQ(accepted.values[i], double(lib[i].accepted)) << "body " << i;
    EXPECT_EQ(rejected.values[i], double(lib[i].rejected)) << "body " << i;
    EXPECT_TRUE(same_bits(smallest.values[i], lib[i].smallest_step)) << "body " << i;
    EXPECT_TRUE(same_bits(largest.values[i], lib[i].largest_step)) << "body " << i;
  }
  // The bodies' own steps: the fastest top (150 rad/s) takes many more than the slowest (1.5 rad/s).
  std::cout << "accepted steps, slowest / fastest top: " << lib[0].accepted << " / " << lib[n - 1].accepted
            << "; h in [" << lib[n - 1].smallest_step << ", " << lib[0].largest_step << "]\n";
  EXPECT_GT(lib[n - 1].accepted, 10 * lib[0].accepted);

  // Samples at the output times t_j = j dt, every stride-th: the library's dense output.
  const auto time = read_dataset(file, "time"), q = read_dataset(file, "quaternion"), w = read_dataset(file, "omega_body");
  const index_t stride = sc.stride, samples = sc.samples();
  ASSERT_EQ(time.values.size(), std::size_t(samples));
  for (index_t k = 0; k < samples; ++k) {
    EXPECT_DOUBLE_EQ(time.values[k], sc.time.t_start + double(k * stride) * sc.time.dt);
    for (index_t i = 0; i < n; ++i) {
      for (int c = 0; c < 4; ++c)
        EXPECT_TRUE(same_bits(q.values[(k * n + i) * 4 + c], lib[i].quaternion[k * stride][c])) << k << " " << i;
      for (int c = 0; c < 3; ++c)
        EXPECT_TRUE(same_bits(w.values[(k * n + i) * 3 + c], lib[i].omega[k * stride][c])) << k << " " << i;
    }
  }
}

TEST(AdaptiveCli, AnInterruptedRunResumesToTheSameBits) {
  ScratchDirectory dir;
  ScenarioOverrides shorter;
  shorter.t_end = t_end;
  const Scenario sc = load_scenario(example, shorter);
  RunOptions whole;
  whole.output = dir.file("whole.h5");
  whole.progress = ProgressMode::never;
  run_scenario(sc, whole);

  const volatile std::sig_atomic_t stop = 1;  // stop after the first chunk
  RunOptions first = whole;
  first.output = dir.file("cut.h5");
  first.max_chunk_steps = 20;
  first.interrupt = &stop;
  const RunResult cut = run_scenario(sc, first);
  ASSERT_TRUE(cut.interrupted);
  ASSERT_LT(cut.steps_done, sc.time.steps);
  RunOptions rest = whole;
  rest.output = first.output;
  rest.resume = true;
  const RunResult resumed = run_scenario(load_interrupted_scenario(first.output), rest);
  ASSERT_FALSE(resumed.interrupted);
  for (const char* name : {"accepted_steps", "rejected_steps", "smallest_step", "largest_step", "newton_iterations",
                           "quaternion", "omega_body", "energy", "statistics/energy_drift/mean",
                           "statistics/newton_iterations/mean", "statistics/newton_iterations/max"}) {
    const auto a = read_dataset(whole.output, name), b = read_dataset(rest.output, name);
    ASSERT_EQ(a.values.size(), b.values.size()) << name;
    for (std::size_t k = 0; k < a.values.size(); ++k) EXPECT_TRUE(same_bits(a.values[k], b.values[k])) << name << " " << k;
  }
}

/// The example with `from` replaced by `to` (once).
std::string edited(const std::string& from, const std::string& to) {
  std::ifstream in(example);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("not in the example: " + from);
  return text.replace(at, from.size(), to);
}

TEST(AdaptiveCli, BadStepControlIsRefusedWithTheFileAndKey) {
  ScratchDirectory dir;
  const auto refused = [&](const std::string& text, const std::string& message) {
    std::ofstream(dir.file("bad.toml")) << text;
    const Outcome o = run_cli("run '" + dir.file("bad.toml") + "' --output '" + dir.file("x.h5") + "'", dir);
    EXPECT_NE(o.exit_code, 0) << message;
    EXPECT_NE(o.err.find("bad.toml: key '" + message), std::string::npos) << o.err;
  };
  refused(edited("h_max = 1e-2", "h_max = 1e-2\nh_tiny = 1"), "time.h_tiny': unknown key");
  refused(edited("rotation_atol = 1e-6", "rotation_atol = -1e-6"), "time.rotation_atol': -1e-06, must be > 0");
  refused(edited("h_max = 1e-2", "h_max = 1e-6"), "time.h_initial': 1e-05, must be in [h_min, h_max]");
  refused(edited("control = \"per_unit_step\"", "control = \"per_day\""), "time.control': 'per_day' is not one of");
  refused(edited("adaptive = true", "adaptive = false"), "time.control': read only with adaptive = true");
  refused(edited("method = \"modified_hht\"\nalpha = -0.2\ninertia_shift = true", "method = \"simo_vu_quoc\"\nalpha = -0.2\n#"),
          "time.adaptive': method 'simo_vu_quoc' takes fixed steps only; adaptive steps run with the HHT family: "
          "\"hht\", \"modified_hht\"");
}

// In float, a rotation tolerance per unit time below ε_float·|ω| of the fastest body cannot be met
// (bench/adaptive.md §3): the scenario says so, naming the file, the key, the floor and the body; the
// command prints it as a warning and runs. Double precision, or a tolerance above the floor, is silent.
TEST(AdaptiveCli, FloatToleranceBelowTheRoundOffFloorIsAWarning) {
  ScenarioOverrides in_float;
  in_float.precision = Precision::single_precision;
  const std::vector<std::string> w = scenario_warnings(load_scenario(example, in_float));
  ASSERT_EQ(w.size(), 1u);
  const double floor = double(std::numeric_limits<float>::epsilon()) * std::hypot(150.0, 4.61538);
  EXPECT_EQ(w[0].rfind(example + ": key 'time.rotation_atol': 1e-06 is below float's round-off floor " +
                           validation::format(floor) + " per unit time (float epsilon x the fastest initial spin, " +
                           validation::format(std::hypot(150.0, 4.61538)) + " rad/s of body 63)",
                       0),
            0u)
      << w[0];
  EXPECT_TRUE(scenario_warnings(load_scenario(example)).empty()) << "double precision";
  ScratchDirectory dir;
  std::ofstream(dir.file("loose.toml")) << edited("rotation_atol = 1e-6", "rotation_atol = 1e-4");
  EXPECT_TRUE(scenario_warnings(load_scenario(dir.file("loose.toml"), in_float)).empty()) << "above the floor";
  const Outcome o = run_cli("run '" + example + "' --precision float --t-end 0.002 --stride 1 --quiet --output '" + dir.file("f.h5") + "'", dir);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err.rfind("quatstep: warning: " + example + ": key 'time.rotation_atol': ", 0), 0u) << o.err;
}

}  // namespace
}  // namespace quatstep
