// SIMD across mechanisms in the CPU backend (host/cpu_mechanism_lanes.hpp): with the lanes on, every
// mechanism's samples, state, status, Newton iterations and failed step are those of its scalar
// step, bit for bit, with fixed steps of the HHT family — classical HHT without the velocity
// projection, whose mechanisms fail by drift at different steps of one block; modified HHT with the
// inertia shift and the projection; Jacobian reuse off — and of the Livens schemes (EML with the
// equivariant joint gradient, MPL with the midpoint one) on a slider-crank with a driven crank (a
// sinusoid on a ramp), a spring–damper, a force acting in a window and a sinusoidal body torque,
// populations of four full blocks and three mechanisms past them, stepped by `quatstep run` and by
// a mechanism ensemble in calls of any length, and on V8 crank drives (LargeCapacity); and with the
// HHT family's adaptive steps, whose step records agree too (against the command run with
// QUATSTEP_SIMD=off), on slider-cranks and on V8s. A block holds mechanisms of one
// kind only. The lanes are the widest the CPU has; ctest runs the suite again with
// QUATSTEP_SIMD=avx2 (avx2.*).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <iterator>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_lanes.hpp"  // host/
#include "hdf5_read.hpp"
#include "mechanism_ensemble.hpp"
#include "mechanism_run.hpp"

namespace quatstep {
namespace {

using testing::read_dataset;
using testing::same_bits;
using testing::ScratchDirectory;

/// Mechanisms per block here.
index_t width() { return lanes::width<double>(lanes::best_isa()); }

/// The text of examples/`name`.
std::string example(const std::string& name) {
  std::ifstream file(std::string(QUATSTEP_EXAMPLES) + "/" + name);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

/// `text` with `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("no '" + from + "' in the scenario");
  return text.replace(at, from.size(), to);
}

/// examples/slider_crank_sweep.toml's slider-crank (its [mechanism] tables) with its crank driven
/// (θ = 10 t + 0.3 sin(ωt)), a force on the slider for 0.02 ≤ t < 0.05 and a sinusoidal torque on
/// the connecting rod; 0.3 s at h = 1e-3, a sample every 10 steps.
const std::string driven = "[mechanism.joint.driver]\nramp = 10.0\namplitude = 0.3\nfrequency = 20.0\n";
const std::string windowed = "begin = 0.02\nend = 0.05\n";
const std::string fixed_time = "[time]\ndt = 0.001\nt_end = 0.3\n";
std::string slider_crank() {
  const std::string file = example("slider_crank_sweep.toml");
  const std::string mechanism = file.substr(0, file.find("[integrator]"));
  return replaced(mechanism, "axis = [0.0, 0.0, 1.0]\n", "axis = [0.0, 0.0, 1.0]\n" + driven) +
         "[[mechanism.load]]\nbody = \"slider\"\nkind = \"force\"\nvalue = [-20.0, 0.0, 0.0]\n" + windowed +
         "[[mechanism.load]]\nbody = \"conrod\"\nkind = \"body_torque\"\nprofile.amplitude = [0.0, 0.0, 0.2]\n"
         "profile.frequency = 50.0\n" + fixed_time + "[output]\nstride = 10\n";
}

/// The slider-crank with [integrator] `integrator`, `n` mechanisms whose driver frequency sweeps
/// 5 … 60 rad/s (with classical HHT and no projection, the faster ones fail by drift, each at its
/// own step), on the CPU.
MechanismScenario scenario(const std::string& integrator, index_t n) {
  MechanismScenario sc = parse_mechanism_scenario(slider_crank() + "[integrator]\n" + integrator +
                                                      "\n[ensemble]\nsize = " + std::to_string(n) +
                                                      "\n[[ensemble.sweep]]\nkey = \"joint.main bearing.driver."
                                                      "frequency\"\nfrom = 5.0\nto = 60.0\n",
                                                  "lanes.toml");
  sc.backend = Backend::cpu;
  return sc;
}

/// Whether the lanes run here, else the reason.
std::string no_lanes() {
  if (!lanes::built) return "built without SIMD lanes (QUATSTEP_CPU_LANES=OFF or no AVX2 compiler)";
  if (!lanes::available()) return "no AVX2 on this CPU, or QUATSTEP_SIMD=off";
  return "";
}

/// Every sample of `e` and `scalar` so far alike, bit for bit, and their records.
void expect_same(const MechanismEnsemble& e, const MechanismEnsemble& scalar) {
  const index_t n = e.mechanisms();
  const int scalars = channel_scalars(e.channels());
  std::vector<double> a(std::size_t(scalars * n)), b(a.size());
  e.observe(SampleView<double>{a.data(), n, 0, 1, 1, scalars});
  scalar.observe(SampleView<double>{b.data(), n, 0, 1, 1, scalars});
  for (std::size_t k = 0; k < a.size(); ++k)
    ASSERT_TRUE(same_bits(a[k], b[k])) << "scalar " << k / std::size_t(n) << " of mechanism " << k % std::size_t(n);
  for (index_t i = 0; i < n; ++i) {
    EXPECT_EQ(e.status()[i], scalar.status()[i]) << "mechanism " << i;
    EXPECT_EQ(e.newton_iterations()[i], scalar.newton_iterations()[i]) << "mechanism " << i;
    EXPECT_EQ(e.failed_step()[i], scalar.failed_step()[i]) << "mechanism " << i;
  }
}

/// An [integrator] table, and its name in the tests' names.
struct Method {
  const char* name;
  const char* settings;
};
const Method methods[] = {
    {"ClassicalWithoutProjection", "method = \"hht\"\nalpha = -0.05\nproject_velocities = false"},
    {"ModifiedShifted", "method = \"modified_hht\"\nalpha = -0.1\ninertia_shift = true"},
    {"ModifiedWithoutJacobianReuse", "method = \"modified_hht\"\nalpha = -0.3\nnewton_jacobian_reuse_below = 0.0"},
    {"LivensEm", "method = \"livens_em\""},
    {"LivensMidpointWithMidpointGradient", "method = \"livens_midpoint\"\nconstraint_gradient = \"midpoint\""},
};
void PrintTo(const Method& m, std::ostream* os) { *os << m.name; }

class MechanismLanes : public ::testing::TestWithParam<Method> {};

TEST_P(MechanismLanes, EnsembleAdvancesAreTheScalarStepsBitForBit) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  const index_t w = width(), n = 4 * w + 3;
  const MechanismScenario sc = scenario(GetParam().settings, n);
  const auto lanes = make_mechanism_ensemble(sc, {}), scalar = make_mechanism_ensemble(sc, {});
  scalar->use_lanes(false);
  ASSERT_EQ(lanes->mechanisms_in_lanes(), 4 * w);
  ASSERT_EQ(scalar->mechanisms_in_lanes(), 0);

  // Samples 1 … 30 (stride 10) kept by calls of 7, 58, 35 and 200 steps, which end between samples.
  const int scalars = channel_scalars(lanes->channels());
  std::vector<double> a(std::size_t(30 * scalars * n)), b(a.size());
  const SampleView<double> in_lanes{a.data(), n, 1, 30, 10, scalars}, alone{b.data(), n, 1, 30, 10, scalars};
  for (index_t steps : {7, 58, 35, 200}) {
    lanes->advance(steps, in_lanes);
    scalar->advance(steps, alone);
    expect_same(*lanes, *scalar);
  }
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_TRUE(same_bits(a[k], b[k])) << "window scalar " << k;
  // and without samples, one step at a time
  for (int k = 0; k < 3; ++k) {
    lanes->advance(1, SampleView<double>{nullptr, n, 0, 0, 1, 0});
    scalar->advance(1, SampleView<double>{nullptr, n, 0, 0, 1, 0});
  }
  expect_same(*lanes, *scalar);

  if (GetParam().name == methods[0].name) {  // mechanisms of one block failed at different steps
    std::size_t most = 0;
    for (index_t b = 0; b < 4; ++b)
      most = std::max(most, std::set<index_t>(lanes->failed_step().begin() + b * w,
                                              lanes->failed_step().begin() + (b + 1) * w).size());
    EXPECT_GE(most, 3u);
  }
}

TEST_P(MechanismLanes, RunsAreTheScalarStepsBitForBit) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  ScratchDirectory dir;
  const index_t w = width(), n = 4 * w + 3;
  const MechanismScenario sc = scenario(GetParam().settings, n);
  RunOptions options;
  options.output = dir.file("run.h5");
  const MechanismRunResult r = run_mechanism_scenario(sc, options);
  EXPECT_EQ(r.mechanisms_in_lanes, 4 * w);

  const auto scalar = make_mechanism_ensemble(sc, {});
  scalar->use_lanes(false);
  const int scalars = channel_scalars(scalar->channels());
  const index_t samples = r.samples;
  std::vector<double> window(std::size_t(samples * scalars * n));
  const SampleView<double> view{window.data(), n, 0, samples, 10, scalars};
  scalar->observe(SampleView<double>{window.data(), n, 0, 1, 1, scalars});  // sample 0
  scalar->advance(sc.time.steps, view);
  int offset = 0;
  for (const Channel& c : scalar->channels()) {
    const auto d = read_dataset(options.output, c.name);
    for (index_t j = 0; j < samples; ++j)
      for (index_t i = 0; i < n; ++i)
        for (int k = 0; k < c.size; ++k)
          ASSERT_TRUE(same_bits(view(j, offset + k, i), d.values[std::size_t((j * n + i) * c.size + k)]))
              << c.name << " sample " << j << " mechanism " << i;
    offset += c.size;
  }
  for (index_t i = 0; i < n; ++i) {
    EXPECT_EQ(r.status[i], scalar->status()[i]) << "mechanism " << i;
    EXPECT_EQ(r.iterations[i], scalar->newton_iterations()[i]) << "mechanism " << i;
    EXPECT_EQ(r.failed_step[i], scalar->failed_step()[i]) << "mechanism " << i;
  }
}

// Coupled steps (MechanismEnsemble::step) with loads that change every step: the blocks are made
// anew with the loads held, since their zero pattern is part of a kind — here the body torques vanish
// on whole blocks at some steps and on one mechanism of block 0 at others, which then steps alone.
TEST_P(MechanismLanes, CoupledStepsAreTheScalarStepsBitForBit) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  const index_t w = width(), n = 4 * w + 3;
  const MechanismScenario sc = scenario(GetParam().settings, n);
  const auto lanes = make_mechanism_ensemble(sc, {}), scalar = make_mechanism_ensemble(sc, {});
  scalar->use_lanes(false);
  const std::size_t size = std::size_t(n) * std::size_t(lanes->bodies()) * 3;
  std::vector<double> force(size), torque(size);
  std::set<index_t> in_lanes;
  for (int k = 0; k < 40; ++k) {
    for (std::size_t j = 0; j < size; ++j) {
      const index_t i = index_t(j / (size / std::size_t(n)));
      force[j] = 0.3 * std::sin(0.7 * double(j) + 0.2 * k);
      const bool none = (i / w + k) % 3 == 0 || (k % 4 == 1 && i == 1);
      torque[j] = none ? 0.0 : 0.02 * std::cos(0.3 * double(j) - 0.1 * k);
    }
    const MechanismLoads loads{force.data(), torque.data(), nullptr};
    lanes->step(loads);
    scalar->step(loads);
    in_lanes.insert(lanes->mechanisms_in_lanes());
    EXPECT_EQ(scalar->mechanisms_in_lanes(), 0);
  }
  expect_same(*lanes, *scalar);
  EXPECT_EQ(*in_lanes.rbegin(), 4 * w);
  EXPECT_GE(in_lanes.size(), 2u);  // block 0 alone at some steps
}

/// examples/v8_crank_drive.toml (17 bodies: LargeCapacity) with [integrator] `integrator` and `time`,
/// `n` engines whose crank shaft's mass sweeps 18 … 22 kg, on the CPU.
std::string engines(const std::string& integrator, const std::string& time, index_t n) {
  const std::string file = example("v8_crank_drive.toml");
  return file.substr(0, file.find("[integrator]")) + "[integrator]\n" + integrator + "\n" + time +
         "[output]\nstride = 10\n[run]\nbackend = \"cpu\"\n[ensemble]\nsize = " + std::to_string(n) +
         "\n[[ensemble.sweep]]\nkey = \"body.crank shaft.mass\"\nfrom = 18.0\nto = 22.0\n";
}

// LargeCapacity blocks (a V8 crank drive's 17 bodies and 118 constraints): an ensemble's advances
// in calls that end between samples, one block and two engines alone.
TEST_P(MechanismLanes, EnginesAreTheScalarStepsBitForBit) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  const index_t w = width(), n = w + 2;
  const MechanismScenario sc =
      parse_mechanism_scenario(engines(GetParam().settings, "[time]\ndt = 1e-4\nt_end = 0.003\n", n), "v8.toml");
  const auto lanes = make_mechanism_ensemble(sc, {}), scalar = make_mechanism_ensemble(sc, {});
  scalar->use_lanes(false);
  ASSERT_EQ(lanes->mechanisms_in_lanes(), w);
  const int scalars = channel_scalars(lanes->channels());
  std::vector<double> a(std::size_t(3 * scalars * n)), b(a.size());
  for (index_t steps : {7, 13, 10}) {
    lanes->advance(steps, SampleView<double>{a.data(), n, 1, 3, 10, scalars});
    scalar->advance(steps, SampleView<double>{b.data(), n, 1, 3, 10, scalars});
    expect_same(*lanes, *scalar);
  }
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_TRUE(same_bits(a[k], b[k])) << "window scalar " << k;
  EXPECT_GT(lanes->newton_iterations()[0], 30);
}

INSTANTIATE_TEST_SUITE_P(FixedSteps, MechanismLanes, ::testing::ValuesIn(methods),
                         [](const ::testing::TestParamInfo<Method>& info) { return std::string(info.param.name); });

/// The slider-crank with adaptive steps as a scenario file's text: its crank free (driven, the
/// mechanism has no degree of freedom left and the error estimate none to see), the force acting at
/// all times (mechanisms with their own times share a block only without load windows), an output
/// every 0.01 s; `n` mechanisms whose spring stiffness is drawn from 50 … 5000 N/m (their step sizes
/// differ up to 20×, so the lane blocks sort them: their members are not consecutive).
std::string adaptive_slider_cranks(const std::string& integrator, index_t n) {
  std::string text = replaced(replaced(slider_crank(), windowed, ""), driven, "");
  text = replaced(text, fixed_time,
                  "[time]\ndt = 0.01\nt_end = 0.3\nadaptive = true\nrotation_atol = 1e-6\ntranslation_atol = 1e-6\n"
                  "h_initial = 1e-4\n");
  return replaced(text, "stride = 10", "stride = 1") + "[integrator]\n" + integrator + "\n[run]\nbackend = \"cpu\"\n" +
         "[ensemble]\nsize = " + std::to_string(n) +
         "\n[[ensemble.random]]\nkey = \"spring.return spring.stiffness\"\ndistribution = \"uniform\"\n"
         "low = 50.0\nhigh = 5000.0\nseed = 3\n";
}

TEST(MechanismLanes, AdaptiveStepsAreTheScalarStepsBitForBit) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  ScratchDirectory dir;
  const index_t w = width(), n = 4 * w + 3;
  for (const char* integrator : {"method = \"modified_hht\"\nalpha = -0.1\ninertia_shift = true",
                                 "method = \"hht\"\nalpha = -0.2"}) {
    const std::string text = adaptive_slider_cranks(integrator, n), file = dir.file("adaptive.toml");
    std::ofstream(file) << text;
    // The scalar steps: the command with the lanes off.
    const std::string scalar = dir.file("scalar.h5");
    const std::string cmd = std::string("QUATSTEP_SIMD=off '") + QUATSTEP_EXE + "' run '" + file + "' --quiet --output '" +
                            scalar + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    RunOptions options;
    options.output = dir.file("lanes.h5");
    const MechanismRunResult r = run_mechanism_scenario(parse_mechanism_scenario(text, file), options);
    EXPECT_EQ(r.mechanisms_in_lanes, 4 * w) << integrator;
    EXPECT_GT(r.step_records.totals().accepted, 100.0 * double(n)) << integrator;
    for (const char* name : {"quaternion", "position", "omega_body", "velocity", "energy", "velocity_residual",
                             "sample_newton_iterations", "status", "newton_iterations", "failed_step", "accepted_steps",
                             "rejected_steps", "smallest_step", "largest_step"}) {
      const auto a = read_dataset(options.output, name), b = read_dataset(scalar, name);
      ASSERT_EQ(a.values.size(), b.values.size()) << name;
      for (std::size_t k = 0; k < a.values.size(); ++k)
        ASSERT_TRUE(same_bits(a.values[k], b.values[k])) << integrator << ": " << name << " value " << k;
    }
  }
}

// Adaptive steps on engines (LargeCapacity): the command's run against the command with the lanes off.
TEST(MechanismLanes, AdaptiveEnginesAreTheScalarStepsBitForBit) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  ScratchDirectory dir;
  const index_t w = width(), n = w + 1;
  const std::string text = engines("method = \"modified_hht\"\nalpha = -0.3\ninertia_shift = true",
                                   "[time]\ndt = 1e-4\nt_end = 0.003\nadaptive = true\nrotation_atol = 1e-6\n"
                                   "translation_atol = 1e-7\nh_initial = 1e-4\n",
                                   n);
  const std::string file = dir.file("adaptive_v8.toml"), scalar = dir.file("scalar.h5");
  std::ofstream(file) << text;
  const std::string cmd =
      std::string("QUATSTEP_SIMD=off '") + QUATSTEP_EXE + "' run '" + file + "' --quiet --output '" + scalar + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  RunOptions options;
  options.output = dir.file("lanes.h5");
  const MechanismRunResult r = run_mechanism_scenario(parse_mechanism_scenario(text, file), options);
  EXPECT_EQ(r.mechanisms_in_lanes, w);
  EXPECT_GT(r.step_records.totals().accepted, 5.0 * double(n));
  for (const char* name : {"quaternion", "position", "omega_body", "velocity", "energy", "velocity_residual", "status",
                           "newton_iterations", "accepted_steps", "rejected_steps", "smallest_step", "largest_step"}) {
    const auto x = read_dataset(options.output, name), y = read_dataset(scalar, name);
    ASSERT_EQ(x.values.size(), y.values.size()) << name;
    for (std::size_t k = 0; k < x.values.size(); ++k) ASSERT_TRUE(same_bits(x.values[k], y.values[k])) << name << " " << k;
  }
}

// A block's lane step keeps megabytes on the stack for engines (host/cpu_mechanism_lanes.hpp,
// lane_stack): run under a 1 MB stack, the command makes no block and steps every engine alone, with
// the lanes' bits.
TEST(MechanismLanes, EnginesOnASmallStackStepAloneWithTheSameBits) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  ScratchDirectory dir;
  const index_t n = width() + 1;
  const std::string text = engines("method = \"livens_em\"", "[time]\ndt = 1e-4\nt_end = 0.002\n", n);
  const std::string file = dir.file("v8.toml"), alone = dir.file("alone.h5"), log = dir.file("alone.log");
  std::ofstream(file) << text;
  const std::string cmd = "ulimit -s 1024 && '" + std::string(QUATSTEP_EXE) + "' run '" + file + "' --output '" + alone +
                          "' > '" + log + "'";
  ASSERT_EQ(std::system(("bash -c \"" + cmd + "\"").c_str()), 0) << cmd;
  std::ifstream summary(log);
  const std::string printed{std::istreambuf_iterator<char>(summary), std::istreambuf_iterator<char>()};
  EXPECT_NE(printed.find("SIMD lanes              none (no block of mechanisms of one kind, or less stack"),
            std::string::npos)
      << printed;
  RunOptions options;
  options.output = dir.file("lanes.h5");
  const MechanismRunResult r = run_mechanism_scenario(parse_mechanism_scenario(text, file), options);
  EXPECT_EQ(r.mechanisms_in_lanes, width());
  for (const char* name : {"quaternion", "position", "omega_body", "velocity", "energy", "newton_iterations"}) {
    const auto x = read_dataset(options.output, name), y = read_dataset(alone, name);
    ASSERT_EQ(x.values.size(), y.values.size()) << name;
    for (std::size_t k = 0; k < x.values.size(); ++k) ASSERT_TRUE(same_bits(x.values[k], y.values[k])) << name << " " << k;
  }
}

TEST(MechanismLaneBlocks, HoldMechanismsOfOneKind) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  const index_t w = width(), n = 4 * w + 3;
  MechanismScenario one = scenario(methods[1].settings, 1);
  MechanismEnsembleSpec spec;
  spec.mechanisms = n;
  std::vector<double> end(std::size_t(n), 0.05), amplitude(std::size_t(3 * n), 0.0), driver(std::size_t(n), 0.3);
  for (index_t i = 0; i < n; ++i) amplitude[std::size_t(3 * i + 2)] = 0.2 + 0.01 * double(i);  // in lanes
  end[std::size_t(w + 1)] = 0.06;                  // block 1: a load window of its own
  amplitude[std::size_t(3 * (2 * w + 2) + 2)] = 0;  // block 2: a torque without its sinusoid
  driver[std::size_t(3 * w)] = 0.0;                 // block 3: a driver without its sinusoid
  spec.arrays = {{"load.0.end", end}, {"load.1.profile.amplitude", amplitude}, {"joint.main bearing.driver.amplitude", driver}};
  const auto lanes = make_mechanism_ensemble(one, spec), scalar = make_mechanism_ensemble(one, spec);
  scalar->use_lanes(false);
  EXPECT_EQ(lanes->mechanisms_in_lanes(), w);  // block 0 alone
  lanes->advance(80, SampleView<double>{nullptr, n, 0, 0, 1, 0});
  scalar->advance(80, SampleView<double>{nullptr, n, 0, 0, 1, 0});
  expect_same(*lanes, *scalar);

  lanes->use_lanes(false);
  EXPECT_EQ(lanes->mechanisms_in_lanes(), 0);
  lanes->use_lanes(true);
  EXPECT_EQ(lanes->mechanisms_in_lanes(), w);
}

TEST(MechanismLaneBlocks, MechanismsAtRestShareABlockWithMovingOnes) {
  if (const std::string why = no_lanes(); !why.empty()) GTEST_SKIP() << why;
  // Double pendulums, every third one without gravity and at rest: its steps have no motion, where
  // the equivariant joint gradient adds no correction and the HHT Newton iteration stops at its
  // round-off level, in the lanes of a block whose other pendulums swing.
  const index_t w = width(), n = 2 * w + 1;
  const std::string text = example("double_pendulum.toml");
  const std::string modified = "method = \"modified_hht\"\nalpha = -0.1\ninertia_shift = true\n";
  for (const std::string method : {"livens_em", "modified_hht"}) {
    const std::string with = replaced(text, modified, "method = \"" + method + "\"\n");
    ScenarioOverrides shorter;
    shorter.t_end = 0.2;
    MechanismScenario sc = parse_mechanism_scenario(with, "double_pendulum.toml", shorter);
    sc.backend = Backend::cpu;
    MechanismEnsembleSpec spec;
    spec.mechanisms = n;
    std::vector<double> gravity(std::size_t(3 * n)), upper_omega(std::size_t(3 * n)), lower_omega(std::size_t(3 * n)),
        upper_velocity(std::size_t(3 * n)), lower_velocity(std::size_t(3 * n));
    for (index_t i = 0; i < n; ++i) {
      if (i % 3 == 0) continue;  // at rest
      const double x = 1.0 + 0.1 * double(i);
      for (int c = 0; c < 3; ++c) gravity[std::size_t(3 * i + c)] = c == 2 ? -9.81 : 0.0;
      upper_omega[std::size_t(3 * i)] = 2.0 * x;
      upper_velocity[std::size_t(3 * i + 1)] = 1.0 * x;  // ω × r of the upper body's centre
      lower_omega[std::size_t(3 * i + 1)] = -x;
    }
    spec.arrays = {{"gravity", gravity},
                   {"body.upper.omega", upper_omega},
                   {"body.upper.velocity", upper_velocity},
                   {"body.lower.omega", lower_omega},
                   {"body.lower.velocity", lower_velocity}};
    const auto lanes = make_mechanism_ensemble(sc, spec), scalar = make_mechanism_ensemble(sc, spec);
    scalar->use_lanes(false);
    EXPECT_EQ(lanes->mechanisms_in_lanes(), 2 * w) << method;
    lanes->advance(200, SampleView<double>{nullptr, n, 0, 0, 1, 0});
    scalar->advance(200, SampleView<double>{nullptr, n, 0, 0, 1, 0});
    expect_same(*lanes, *scalar);
    const int scalars = channel_scalars(lanes->channels());
    std::vector<double> now(std::size_t(scalars * n));
    lanes->observe(SampleView<double>{now.data(), n, 0, 1, 1, scalars});
    const auto omega = [&](index_t i) {  // |ω| of the upper body (omega_body after quaternion and position)
      int offset = 0;
      for (const Channel& c : lanes->channels()) {
        if (c.name == "omega_body") break;
        offset += c.size;
      }
      const SampleView<double> v{now.data(), n, 0, 1, 1, scalars};
      return std::abs(v(0, offset, i)) + std::abs(v(0, offset + 1, i)) + std::abs(v(0, offset + 2, i));
    };
    EXPECT_EQ(omega(0), 0.0) << method;  // at rest
    EXPECT_GT(omega(1), 0.1) << method;  // swinging
    for (index_t i = 0; i < n; ++i) EXPECT_EQ(lanes->status()[i], Status::ok) << method << " mechanism " << i;
  }
}

}  // namespace
}  // namespace quatstep
