// Mechanisms from scenario files (host/mechanism_scenario.hpp, host/mechanism_run.hpp): the four-bar
// of examples/four_bar.toml runs bit for bit as the library's four_bar (problems/mechanisms.hpp);
// every mechanism example runs through the command line and writes the documented layout with
// healthy mechanisms on their constraints; a swept spring stiffness reaches the mechanisms and
// /parameters; a failing mechanism leaves the others' bits alone; bad input is rejected naming the
// file, the element and the key.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>

#include "hdf5_read.hpp"
#include "sampling.hpp"
#include "torqued_pendulums.hpp"
#include "mechanism_reference.hpp"
#include "mechanism_run.hpp"
#include "mechanisms.hpp"
#include "v_engine.hpp"
#include "quatstep/mechanism/adaptive.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "quatstep/mechanism/channels.hpp"
#include "quatstep/mechanism/registry.hpp"

namespace quatstep {
namespace {

using testing::read_dataset;
using testing::same_bits;
using testing::ScratchDirectory;

std::string example(const std::string& name) { return std::string(QUATSTEP_EXAMPLES) + "/" + name; }

/// The scenario run on the CPU whatever its [run] backend: these tests compare with the library's CPU
/// steps bit for bit (the GPU's agreement is tests/gpu/mechanism_agreement_test.cu's).
MechanismRunResult run(const MechanismScenario& sc, const std::string& file) {
  MechanismScenario on_cpu = sc;
  on_cpu.backend = Backend::cpu;
  RunOptions options;
  options.output = file;
  return run_mechanism_scenario(on_cpu, options);
}

/// The library's integrator of the examples: modified HHT with the inertia shift at α.
template <class Cap>
mechanism::MechanismModifiedHht<mechanism::Mechanism<double, Cap>> shifted_modified_hht(double alpha) {
  mechanism::MechanismHhtSettings<double> settings;
  settings.alpha = alpha;
  settings.inertia_shift = true;
  return mechanism::MechanismModifiedHht<mechanism::Mechanism<double, Cap>>(settings);
}

// ------------------------------------------------------------------ the mechanism registry
/// Counts the scalars an observer hands over.
struct CountingWriter {
  int scalars = 0;
  void operator()(double) { ++scalars; }
  template <int N>
  void operator()(const Vec<double, N>&) {
    scalars += N;
  }
};

TEST(MechanismRegistry, EveryMethodRunsFromAScenarioAndObservesItsDeclaredChannels) {
  // Each entry of include/quatstep/mechanism/registry.hpp: its name reaches it from a scenario, its
  // keys are its settings struct's, and the mechanism's and its own observers write exactly the
  // channels mechanism_channels declares (the four-bar: 4 bodies).
  using Cap = mechanism::SmallCapacity;
  const testing::TestMechanism<Cap> tm = testing::four_bar<Cap>();
  std::string text = testing::read_text_file(example("four_bar.toml"));
  const std::size_t integrator = text.find("[integrator]"), time = text.find("[time]");
  ASSERT_NE(integrator, std::string::npos);
  ASSERT_NE(time, std::string::npos);
  std::set<std::string> names;
  int checked = 0;
  for_each_type(mechanism::MechanismMethods{}, [&](auto tag, int index) {
    using Entry = tag_type<decltype(tag)>;
    const MechanismMethodView& view = mechanism_method_views().at(std::size_t(index));
    EXPECT_TRUE(names.insert(view.info.name).second) << view.info.name;
    EXPECT_EQ(view.keys.size(), key_table<typename Entry::Settings>().size()) << view.info.name;
    const MechanismScenario sc = parse_mechanism_scenario(
        text.substr(0, integrator) + "[integrator]\nmethod = \"" + view.info.name + "\"\n" + text.substr(time), "x.toml");
    EXPECT_EQ(sc.method, index);

    const typename Entry::template Integrator<mechanism::Mechanism<double, Cap>> integrator_of_entry;
    typename decltype(integrator_of_entry)::State s;
    ASSERT_EQ(integrator_of_entry.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
    CountingWriter w;
    mechanism::observe_mechanism(integrator_of_entry, tm.mech, s, 0.0, w);
    EXPECT_EQ(w.scalars, mechanism::mechanism_channel_scalars(tm.mech.n_bodies));
    if constexpr (has_integrator_channels<std::decay_t<decltype(integrator_of_entry)>>::value)
      integrator_of_entry.observe(tm.mech, s, w);
    std::vector<std::string> docs;
    const std::vector<Channel> channels = mechanism_channels(sc.mechanism, docs, view);
    EXPECT_EQ(w.scalars + 1, channel_scalars(channels)) << view.info.name;  // + sample_newton_iterations
    ++checked;
  });
  EXPECT_EQ(checked, mechanism::MechanismMethods::size);
  EXPECT_EQ(names.count("livens_em"), 1u);
}

// ------------------------------------------------------------------ the four-bar: TOML = library
// Bit for bit, but for the sign of zero in the initial velocities (the library's ω × r with ω = 0
// holds −0 where the file's zeros are +0; that changes no bit of any later sample).
TEST(MechanismScenario, FourBarFromTomlIsTheLibraryRunBitForBit) {
  ScratchDirectory dir;
  ScenarioOverrides shorter;
  shorter.t_end = 1.5;  // through both halves of the hat load and past it
  const MechanismScenario sc = load_mechanism_scenario(example("four_bar.toml"), shorter);
  const std::string file = dir.file("four_bar.h5");
  const MechanismRunResult result = run(sc, file);
  ASSERT_EQ(result.status[0], Status::ok);

  using Cap = mechanism::SmallCapacity;
  const testing::TestMechanism<Cap> tm = testing::four_bar<Cap>();
  const auto integrator = shifted_modified_hht<Cap>(-0.2);
  decltype(integrator)::State s;
  ASSERT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);

  const auto quaternion = read_dataset(file, "quaternion"), position = read_dataset(file, "position");
  const auto omega = read_dataset(file, "omega_body"), velocity = read_dataset(file, "velocity");
  ASSERT_EQ(quaternion.dims, (std::vector<unsigned long long>{16, 1, 16}));
  const double h = 0.01;
  long iterations = 0, compared = 0;
  for (long sample = 0; sample < 16; ++sample) {
    if (sample > 0)
      for (long k = (sample - 1) * 10; k < sample * 10; ++k) {
        const NewtonOutcome o = integrator.step(tm.mech, s, k * h, h);
        ASSERT_EQ(o.status, Status::ok);
        iterations += o.iterations;
      }
    const auto kin = integrator.kinematics(tm.mech, s);
    for (int b = 0; b < 4; ++b) {
      for (int c = 0; c < 4; ++c, ++compared)
        ASSERT_TRUE(same_bits(quaternion.values[sample * 16 + 4 * b + c], kin.body[b].quaternion[c])) << sample;
      for (int c = 0; c < 3; ++c, compared += 3) {
        ASSERT_TRUE(same_bits(position.values[sample * 12 + 3 * b + c], kin.body[b].position[c])) << sample;
        ASSERT_TRUE(same_bits(omega.values[sample * 12 + 3 * b + c], kin.body[b].omega_body[c])) << sample;
        const double v = velocity.values[sample * 12 + 3 * b + c];
        ASSERT_TRUE(sample == 0 ? v == kin.body[b].velocity[c] : same_bits(v, kin.body[b].velocity[c])) << sample;
      }
    }
  }
  EXPECT_EQ(compared, 16 * 4 * 13);
  EXPECT_EQ(result.newton_iterations, iterations);
  EXPECT_EQ(read_dataset(file, "newton_iterations").values, std::vector<double>{double(iterations)});
  // The load's impulse 8·∫f dt e₁ = 400 e₁ is in the linear momentum after t = 1 (mechanism_four_bar_test).
  const auto p = read_dataset(file, "linear_momentum");
  EXPECT_NEAR(p.values[15 * 3 + 0], 400.0, 1e-9);
  EXPECT_NEAR(p.values[15 * 3 + 1], 0.0, 1e-9);
}

// The same four-bar with the Livens EML at Kinon's h = 0.1 (Table 5): the file is the library's
// MechanismLivensEm bit for bit, and its /generalized_energy and momentum maps hold after the load.
TEST(MechanismScenario, FourBarWithLivensEmConservesInTheFile) {
  std::string text = testing::read_text_file(example("four_bar.toml"));
  const std::size_t integrator = text.find("[integrator]"), time = text.find("[time]");
  ASSERT_NE(integrator, std::string::npos);
  ASSERT_NE(time, std::string::npos);
  text = text.substr(0, integrator) + "[integrator]\nmethod = \"livens_em\"\n\n[time]\ndt = 0.1\nt_end = 10.0\n";
  ScratchDirectory dir;
  const MechanismScenario sc = parse_mechanism_scenario(text, "four_bar_livens.toml");
  const std::string file = dir.file("four_bar_livens.h5");
  const MechanismRunResult result = run(sc, file);
  ASSERT_EQ(result.status[0], Status::ok);

  using Cap = mechanism::SmallCapacity;
  const testing::TestMechanism<Cap> tm = testing::four_bar<Cap>();
  const mechanism::MechanismLivensEm<mechanism::Mechanism<double, Cap>> eml;
  decltype(eml)::State s;
  ASSERT_EQ(eml.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  const auto quaternion = read_dataset(file, "quaternion"), energy = read_dataset(file, "generalized_energy");
  const auto angular = read_dataset(file, "angular_momentum"), linear = read_dataset(file, "linear_momentum");
  ASSERT_EQ(energy.dims, (std::vector<unsigned long long>{101, 1}));
  for (long k = 0; k < 100; ++k) ASSERT_EQ(eml.step(tm.mech, s, k * 0.1, 0.1).status, Status::ok);
  for (int c = 0; c < 16; ++c) EXPECT_TRUE(same_bits(quaternion.values[100 * 16 + c], s.q[7 * (c / 4) + 3 + c % 4])) << c;
  EXPECT_TRUE(same_bits(energy.values[100], eml.generalized_energy(tm.mech, s)));
  double e_dev = 0, l_dev = 0;
  const Vec3<double> l10(angular.values[10 * 3], angular.values[10 * 3 + 1], angular.values[10 * 3 + 2]);
  for (long i = 10; i <= 100; ++i) {  // t ≥ 1: the load is off
    e_dev = std::max(e_dev, std::abs(energy.values[i] / energy.values[10] - 1));
    const Vec3<double> l(angular.values[i * 3], angular.values[i * 3 + 1], angular.values[i * 3 + 2]);
    l_dev = std::max(l_dev, (l - l10).norm() / l10.norm());
  }
  EXPECT_LE(e_dev, 1e-11);  // at the default Newton tolerance 1e-12: measured 4.2e-13
  EXPECT_LE(l_dev, 5e-11);  // 8.9e-12
  EXPECT_NEAR(linear.values[100 * 3], 400.0, 1e-9);
}

// The V8 of examples/v8_crank_drive.toml is the engine of problems/v_engine.hpp: its 17-digit
// decimals and space frames give, after assembly, the library's motion to round-off.
TEST(MechanismScenario, V8FromTomlFollowsTheLibraryEngine) {
  ScratchDirectory dir;
  ScenarioOverrides shorter;
  shorter.t_end = 0.01;
  const MechanismScenario sc = load_mechanism_scenario(example("v8_crank_drive.toml"), shorter);
  const std::string file = dir.file("v8.h5");
  ASSERT_EQ(run(sc, file).status[0], Status::ok);

  using Cap = mechanism::LargeCapacity;
  const testing::TestMechanism<Cap> tm = testing::engine<Cap>(testing::v8_geometry(), 0.0, 100.0, 50.0);
  const auto integrator = shifted_modified_hht<Cap>(-0.3);
  decltype(integrator)::State s;
  ASSERT_EQ(integrator.initialize(tm.mech, tm.initial, 0.0, s), Status::ok);
  for (long k = 0; k < 100; ++k) ASSERT_EQ(integrator.step(tm.mech, s, k * 1e-4, 1e-4).status, Status::ok);
  const auto kin = integrator.kinematics(tm.mech, s);
  const auto omega = read_dataset(file, "omega_body"), position = read_dataset(file, "position");
  const std::size_t last = (omega.dims[0] - 1) * 51;
  EXPECT_NEAR(omega.values[last], kin.body[0].omega_body[0], 1e-10 * kin.body[0].omega_body[0]);  // 108.3 rad/s
  EXPECT_GT(kin.body[0].omega_body[0], 100.0);  // the torque speeds the crank up
  for (int b = 1; b < 17; ++b)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(position.values[last + 3 * b + c], kin.body[b].position[c], 1e-12) << b;
}

// ------------------------------------------------------------------ every example through the CLI
struct ExampleRun {
  const char* file;
  double t_end;
  unsigned long long mechanisms, bodies, samples;
};

TEST(MechanismScenario, ExamplesRunFromTheCommandLine) {
  const ExampleRun runs[] = {{"four_bar.toml", 0.2, 1, 4, 3},
                             {"double_pendulum.toml", 0.05, 1, 2, 6},
                             {"slider_crank_sweep.toml", 0.05, 8, 3, 6},
                             {"v8_crank_drive.toml", 0.002, 1, 17, 3},
                             {"adaptive_slider_cranks.toml", 0.05, 8, 3, 6}};
  for (const ExampleRun& e : runs) {
    SCOPED_TRACE(e.file);
    ScratchDirectory dir;
    const std::string out = dir.file("out.h5");
    const std::string cmd = std::string("'") + QUATSTEP_EXE + "' run '" + example(e.file) + "' --t-end " +
                            std::to_string(e.t_end) + " --output '" + out + "' >'" + dir.file("stdout") + "' 2>'" +
                            dir.file("stderr") + "'";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << quatstep::testing::read_text_file(dir.file("stderr"));
    const std::string summary = quatstep::testing::read_text_file(dir.file("stdout"));
    EXPECT_NE(summary.find("bodies each"), std::string::npos) << summary;
    EXPECT_NE(summary.find("failures                0"), std::string::npos) << summary;
    using Dims = std::vector<unsigned long long>;
    const unsigned long long nt = e.samples, n = e.mechanisms, b = e.bodies;
    EXPECT_EQ(read_dataset(out, "time").dims, (Dims{nt}));
    EXPECT_EQ(read_dataset(out, "quaternion").dims, (Dims{nt, n, 4 * b}));
    for (const char* name : {"position", "omega_body", "velocity"}) EXPECT_EQ(read_dataset(out, name).dims, (Dims{nt, n, 3 * b}));
    for (const char* name : {"linear_momentum", "angular_momentum"}) EXPECT_EQ(read_dataset(out, name).dims, (Dims{nt, n, 3}));
    for (const char* name : {"energy", "position_residual", "velocity_residual", "sample_newton_iterations"})
      EXPECT_EQ(read_dataset(out, name).dims, (Dims{nt, n}));
    for (const char* name : {"status", "failed_step", "assembly_position_correction", "assembly_velocity_correction"})
      EXPECT_EQ(read_dataset(out, name).dims, (Dims{n}));
    for (double s : read_dataset(out, "status").values) EXPECT_EQ(s, 0.0);
    if (summary.find("adaptive steps") != std::string::npos)
      for (const char* name : {"accepted_steps", "rejected_steps", "smallest_step", "largest_step"})
        EXPECT_EQ(read_dataset(out, name).dims, (Dims{n}));
    // On the constraints: Newton's tolerance on positions, the projection on velocities.
    for (double c : read_dataset(out, "position_residual").values) EXPECT_LT(c, 1e-9);
    for (double c : read_dataset(out, "velocity_residual").values) EXPECT_LT(c, 1e-7);
    // The unit quaternions of every body of every mechanism.
    const auto q = read_dataset(out, "quaternion").values;
    for (std::size_t k = 0; k < q.size(); k += 4)
      EXPECT_NEAR(q[k] * q[k] + q[k + 1] * q[k + 1] + q[k + 2] * q[k + 2] + q[k + 3] * q[k + 3], 1.0, 1e-12);
  }
}

// ------------------------------------------------------------------ adaptive steps
/// The slider-crank example with `size` mechanisms whose spring stiffness spans 50…5000 N/m (its
/// natural frequency 10×), per-mechanism adaptive steps at `control` and tolerance `tol`, output every 0.01 s.
std::string adaptive_slider_cranks(int size, const std::string& control, double tol) {
  std::string text = testing::read_text_file(example("slider_crank_sweep.toml"));
  const std::size_t time = text.find("[time]"), output = text.find("[output]");
  EXPECT_NE(time, std::string::npos);
  EXPECT_NE(output, std::string::npos);
  std::ostringstream s;
  s.precision(17);
  s << "[time]\ndt = 0.01\nt_end = 0.3\nadaptive = true\ncontrol = \"" << control << "\"\nrotation_atol = " << tol
    << "\ntranslation_atol = " << tol << "\ntranslation_rtol = 0.0\nh_initial = 1e-4\n"
    << "[ensemble]\nsize = " << size << "\n[[ensemble.sweep]]\nkey = \"spring.return spring.stiffness\"\nfrom = 50.0\nto = 5000.0\n";
  return text.substr(0, time) + s.str();
}

// Each mechanism keeps its own t and h: the file is, bit for bit, the library's AdaptiveHht on that
// mechanism sampled at the output times by dense output, with its own step records; the stiffer
// mechanisms take more and smaller steps, and every mechanism reaches an RK4 reference to what the
// tolerance promises (per unit step: global error ∝ ε).
TEST(MechanismScenario, AdaptiveStepsAreEachMechanismsOwnAndMeetTheTolerance) {
  using Cap = mechanism::SmallCapacity;
  using Mech = mechanism::Mechanism<double, Cap>;
  constexpr double tol = 1e-6;
  const MechanismScenario sc = parse_mechanism_scenario(adaptive_slider_cranks(3, "per_unit_step", tol), "adaptive.toml");
  ASSERT_TRUE(sc.time.adaptive);
  ScratchDirectory dir;
  const std::string file = dir.file("adaptive.h5");
  const MechanismRunResult result = run(sc, file);
  ASSERT_EQ(result.failures(), 0);
  ASSERT_EQ(result.samples, 31);

  const auto quaternion = read_dataset(file, "quaternion"), position = read_dataset(file, "position");
  const auto accepted = read_dataset(file, "accepted_steps"), rejected = read_dataset(file, "rejected_steps");
  const auto smallest = read_dataset(file, "smallest_step"), largest = read_dataset(file, "largest_step");
  const auto failed = read_dataset(file, "failed_step");
  const mechanism::MechanismModifiedHht<Mech> integrator = shifted_modified_hht<Cap>(-0.1);
  const AdaptiveHht<mechanism::MechanismModifiedHht<Mech>> stepper(integrator, sc.time.step_control);
  const index_t n = 3, b = 3;
  for (index_t i = 0; i < n; ++i) {
    SCOPED_TRACE("mechanism " + std::to_string(i));
    BuiltMechanism<Cap> built = build_mechanism<Cap>(mechanism_description(sc, i), "");
    const mechanism::AssemblySettings<double> assembly{1e-12, 20, 0.1};
    ASSERT_EQ(mechanism::assemble(built.mech, built.initial, 0.0, assembly).status, Status::ok);
    decltype(stepper)::State st;
    ASSERT_EQ(stepper.initialize(built.mech, built.initial, 0.0, st), Status::ok);
    index_t steps = 0, rejections = 0;
    double low = INFINITY, high = 0;
    for (index_t j = 0; j < 31; ++j) {
      const double tj = 0.01 * double(j);
      while (st.t < tj) {
        const auto o = stepper.step(built.mech, st);
        ASSERT_EQ(o.status, Status::ok);
        ++steps, rejections += o.rejected, low = std::min(low, o.h), high = std::max(high, o.h);
      }
      const auto k = integrator.kinematics(built.mech, stepper.sample(built.mech, st, tj));
      for (int body = 0; body < b; ++body)
        for (int c = 0; c < 4; ++c)
          ASSERT_TRUE(same_bits(quaternion.values[(j * n + i) * 4 * b + 4 * body + c], k.body[body].quaternion[c]))
              << "sample " << j;
    }
    EXPECT_EQ(accepted.values[i], double(steps));
    EXPECT_EQ(rejected.values[i], double(rejections));
    EXPECT_EQ(smallest.values[i], low);
    EXPECT_EQ(largest.values[i], high);
    EXPECT_EQ(failed.values[i], -1.0);
    if (i > 0) EXPECT_GT(accepted.values[i], 1.5 * accepted.values[i - 1]);  // stiffer: more steps

    // Accuracy at t = 0.3 against RK4 of 1e-5 from the assembled state: positions (m) and Euler parameters.
    const testing::Rk4Reference<Mech> reference(built.mech, built.initial, 1e-5, 30000, 30000);
    ASSERT_EQ(reference.status, Status::ok);
    const auto exact = mechanism::kinematics_from_dae(built.mech, reference.samples.back().q, reference.samples.back().v);
    double error = 0;
    for (int body = 0; body < b; ++body) {
      for (int c = 0; c < 3; ++c)
        error = std::max(error, std::abs(position.values[(30 * n + i) * 3 * b + 3 * body + c] - exact.body[body].position[c]));
      for (int c = 0; c < 4; ++c)
        error = std::max(error,
                         std::abs(quaternion.values[(30 * n + i) * 4 * b + 4 * body + c] - exact.body[body].quaternion[c]));
    }
    // Tolerance-proportional, with the constant of the mechanism's error growth: measured (3.1, 0.37,
    // 8.4)·ε here, and (3.0, 1.4, 9.9)·ε at ε = 1e-7.
    EXPECT_LT(error, 20 * tol) << "tolerance per unit time " << tol << " over 0.3 s";
    std::printf("mechanism %ld: %ld steps, h in [%.3g, %.3g], error %.3g\n", long(i), long(steps), low, high, error);
  }
}

// ------------------------------------------------------------------ ensembles
TEST(MechanismScenario, SweptStiffnessReachesEachMechanismAndTheFile) {
  ScratchDirectory dir;
  ScenarioOverrides shorter;
  shorter.t_end = 0.3;
  const MechanismScenario sc = load_mechanism_scenario(example("slider_crank_sweep.toml"), shorter);
  ASSERT_EQ(sc.ensemble_size, 8);
  for (index_t i = 0; i < 8; ++i) {
    const auto built = build_mechanism<mechanism::SmallCapacity>(mechanism_description(sc, i), "");
    EXPECT_DOUBLE_EQ(built.mech.springs[0].stiffness, 50.0 + 750.0 * double(i) / 7.0);
  }
  const std::string file = dir.file("sweep.h5");
  run(sc, file);
  const auto k = read_dataset(file, "parameters/spring.return spring.stiffness");
  ASSERT_EQ(k.dims, (std::vector<unsigned long long>{8}));
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(k.values[i], 50.0 + 750.0 * i / 7.0);
  // The stiffer the spring, the sooner the slider turns back: its x at t = 0.3 differs per mechanism.
  const auto x = read_dataset(file, "position");  // nt × 8 × 9, the slider's x at component 6
  const std::size_t last = (x.dims[0] - 1) * 8 * 9;
  for (int i = 1; i < 8; ++i) EXPECT_NE(x.values[last + i * 9 + 6], x.values[last + (i - 1) * 9 + 6]);
}

std::string problem(const std::string& text);

/// A pendulum of one body whose hinge load is swept from 0 to an impossible `load`: the last
/// mechanism fails and the first is the same, bit for bit, as when it runs alone.
std::string pendulum(int size, double load) {
  std::ostringstream s;
  s << "[mechanism]\ngravity = [0.0, 0.0, -9.81]\n"
       "[[mechanism.body]]\nname = \"bob\"\nmass = 1.0\ninertia = [0.1, 0.1, 0.02]\nposition = [0.0, 0.0, -1.0]\n"
       "omega = [1.0, 0.0, 0.0]\nvelocity = [0.0, 1.0, 0.0]\n"
       "[[mechanism.joint]]\nname = \"hinge\"\ntype = \"revolute\"\nbody_i = \"ground\"\nbody_j = \"bob\"\naxis = [1.0, 0.0, 0.0]\n"
       "[[mechanism.load]]\nbody = \"bob\"\nkind = \"body_torque\"\nvalue = [0.0, 0.0, 0.0]\n"
       "[integrator]\nmethod = \"hht\"\nalpha = -0.1\n[time]\ndt = 0.01\nt_end = 0.5\n"
       "[ensemble]\nsize = "
    << size << "\n[[ensemble.sweep]]\nkey = \"load.0.value\"\nfrom = 0.0\nto = " << load << "\n";
  return s.str();
}

/// Dataset `name` of the file `part` holds, at every sample, the rows `rows` of the same dataset of
/// `whole` (a run of 8 mechanisms; one row per mechanism, or a per-mechanism parameter), bit for bit.
void expect_rows_of(const std::string& whole, const std::string& part, const std::string& name,
                    const std::vector<std::size_t>& rows) {
  const auto a = read_dataset(whole, name), b = read_dataset(part, name);
  const std::size_t samples = a.dims.size() > 1 ? a.dims[0] : 1, per = a.values.size() / samples / 8, m = rows.size();
  ASSERT_EQ(b.values.size(), samples * m * per) << name;
  for (std::size_t t = 0; t < samples; ++t)
    for (std::size_t k = 0; k < m; ++k)
      for (std::size_t c = 0; c < per; ++c)
        ASSERT_TRUE(same_bits(b.values[(t * m + k) * per + c], a.values[(t * 8 + rows[k]) * per + c]))
            << name << " sample " << t << " mechanism " << rows[k];
}

// --bodies 5,2: those two mechanisms alone, in that order; every channel and parameter row is the
// full run's row bit for bit, /bodies names them, and a bad index is refused naming it.
TEST(MechanismScenario, ChosenMechanismsRunAloneBitForBit) {
  ScratchDirectory dir;
  ScenarioOverrides shorter;
  shorter.t_end = 0.05;
  const MechanismScenario full = load_mechanism_scenario(example("slider_crank_sweep.toml"), shorter);
  ScenarioOverrides chosen = shorter;
  chosen.bodies = {5, 2};
  const MechanismScenario some = load_mechanism_scenario(example("slider_crank_sweep.toml"), chosen);
  EXPECT_EQ(some.runs(), 2);
  EXPECT_EQ(some.ensemble_size, 8);
  run(full, dir.file("full.h5"));
  run(some, dir.file("some.h5"));
  EXPECT_EQ(read_dataset(dir.file("some.h5"), "bodies").values, (std::vector<double>{5, 2}));
  EXPECT_FALSE(testing::has_dataset(dir.file("full.h5"), "bodies"));
  for (const char* name : {"quaternion", "position", "omega_body", "velocity", "energy", "angular_momentum",
                           "velocity_residual", "parameters/spring.return spring.stiffness"})
    expect_rows_of(dir.file("full.h5"), dir.file("some.h5"), name, {5, 2});
  // trajectories = "none" is the whole ensemble's choice: chosen mechanisms keep theirs
  std::string none = testing::read_text_file(example("slider_crank_sweep.toml"));
  const std::string output = "[output]\nstride = 10\n";
  ASSERT_NE(none.find(output), std::string::npos);
  none.replace(none.find(output), output.size(), output + "trajectories = \"none\"\n");
  const MechanismRunResult looked_at = run(parse_mechanism_scenario(none, "none.toml", chosen), dir.file("none.h5"));
  EXPECT_EQ(looked_at.trajectories.rfind("all 2 mechanisms (", 0), 0u) << looked_at.trajectories;
  EXPECT_NE(looked_at.trajectories.find("(--bodies keeps every chosen mechanism's trajectory)"), std::string::npos);
  expect_rows_of(dir.file("full.h5"), dir.file("none.h5"), "quaternion", {5, 2});
  EXPECT_FALSE(testing::has_dataset(dir.file("none.h5"), "trajectory_bodies"));
  const auto refused = [&](std::vector<index_t> bodies) {
    ScenarioOverrides o = shorter;
    o.bodies = std::move(bodies);
    try {
      load_mechanism_scenario(example("slider_crank_sweep.toml"), o);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused({8}).find("key 'ensemble.size': mechanism 8 (--bodies) is not a mechanism index in [0, 8)"),
            std::string::npos) << refused({8});
  EXPECT_NE(refused({1, 1}).find("mechanism 1 (--bodies) is listed twice"), std::string::npos);
}

// [output] channels and trajectories as for bodies: a list of mechanisms and two channels are those
// rows and columns of the full run's datasets bit for bit, /trajectory_bodies names the mechanisms;
// "none" writes statistics and records only; "every" and "auto" keep every k-th mechanism; bad keys
// are refused naming them.
TEST(MechanismScenario, ChosenTrajectoriesAndChannelsAreTheFullRunsRowsBitForBit) {
  ScratchDirectory dir;
  ScenarioOverrides shorter;
  shorter.t_end = 0.05;
  const std::string text = testing::read_text_file(example("slider_crank_sweep.toml"));
  const std::size_t output = text.find("[output]");
  ASSERT_NE(output, std::string::npos);
  const auto with_output = [&](const std::string& keys) {
    return text.substr(0, output) + "[output]\n" + keys + text.substr(output + std::string("[output]\n").size());
  };
  const MechanismScenario full = load_mechanism_scenario(example("slider_crank_sweep.toml"), shorter);
  const MechanismScenario some = parse_mechanism_scenario(
      with_output("channels = [\"energy\", \"omega_body\"]\ntrajectories = \"list\"\ntrajectory_bodies = [6, 1]\n"),
      example("slider_crank_sweep.toml"), shorter);
  EXPECT_EQ(some.channels, (std::vector<std::string>{"omega_body", "energy"}));  // in sample order
  run(full, dir.file("full.h5"));
  const MechanismRunResult r = run(some, dir.file("some.h5"));
  EXPECT_EQ(r.trajectories.rfind("2 listed mechanisms (", 0), 0u) << r.trajectories;
  EXPECT_EQ(read_dataset(dir.file("some.h5"), "trajectory_bodies").values, (std::vector<double>{1, 6}));
  EXPECT_FALSE(testing::has_dataset(dir.file("some.h5"), "quaternion"));
  EXPECT_FALSE(testing::has_dataset(dir.file("some.h5"), "position"));
  for (const char* name : {"omega_body", "energy"}) expect_rows_of(dir.file("full.h5"), dir.file("some.h5"), name, {1, 6});
  // The records of every mechanism are written whatever the trajectories.
  EXPECT_EQ(read_dataset(dir.file("some.h5"), "status").values.size(), 8u);

  const MechanismScenario none = parse_mechanism_scenario(
      with_output("trajectories = \"none\"\n"),
      example("slider_crank_sweep.toml"), shorter);
  EXPECT_EQ(run(none, dir.file("none.h5")).trajectories, "none");
  EXPECT_FALSE(testing::has_dataset(dir.file("none.h5"), "energy"));
  EXPECT_TRUE(testing::has_dataset(dir.file("none.h5"), "statistics/energy/mean"));

  const MechanismScenario every = parse_mechanism_scenario(with_output("trajectories = \"every\"\ntrajectory_every = 3\n"),
                                                           example("slider_crank_sweep.toml"), shorter);
  EXPECT_EQ(run(every, dir.file("every.h5")).trajectories.rfind("every 3rd mechanism: 3 of 8 (", 0), 0u);
  EXPECT_EQ(read_dataset(dir.file("every.h5"), "trajectory_bodies").values, (std::vector<double>{0, 3, 6}));

  // "auto" below the size of all: every k-th with the smallest k that fits.
  std::vector<std::string> docs;
  const double all = double(full.samples()) * 8 *
                      double(channel_scalars(mechanism_channels(full.mechanism, docs, full.method_view()))) * sizeof(double);
  const MechanismScenario capped = parse_mechanism_scenario(
      with_output("max_trajectory_bytes = " + std::to_string(all / 3.5) + "\n"), example("slider_crank_sweep.toml"), shorter);
  const std::string chosen = run(capped, dir.file("auto.h5")).trajectories;
  EXPECT_EQ(chosen.rfind("every 4th mechanism: 2 of 8 (", 0), 0u) << chosen;
  EXPECT_NE(chosen.find("> max_trajectory_bytes"), std::string::npos) << chosen;

  const auto refused = [&](const std::string& keys) {
    try {
      parse_mechanism_scenario(with_output(keys), "sweep.toml", shorter);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refused("trajectories = \"list\"\ntrajectory_bodies = [8]\n"),
            "sweep.toml: key 'output.trajectory_bodies': 8 is not a mechanism index in [0, 8)");
  EXPECT_EQ(refused("trajectory_every = 2\n"), "sweep.toml: key 'output.trajectory_every': only with trajectories = \"every\"");
  const std::string channel = refused("channels = [\"nutation\"]\n");
  EXPECT_EQ(channel.rfind("sweep.toml: key 'output.channels': 'nutation' is not a channel of a mechanism with method '", 0), 0u)
      << channel;
  // A stride that does not divide the steps (55 of 1e-3 with --t-end 0.055) would end the file before t_end.
  ScenarioOverrides ragged;
  ragged.t_end = 0.055;
  try {
    parse_mechanism_scenario(text, "sweep.toml", ragged);
    ADD_FAILURE() << "a stride of 10 over 55 steps was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              "sweep.toml: key 'output.stride': 10 does not divide the 55 steps of (t_end - t_start)/dt: the last "
              "sample would be step 50, not the state at t_end; choose a stride that divides 55 ([output] stride, "
              "or --stride) or another t_end");
  }
  ragged.stride = 5;  // --stride 5
  EXPECT_EQ(parse_mechanism_scenario(text, "sweep.toml", ragged).samples(), 12);
}

// An interrupted mechanism run (RunOptions::interrupt set before it starts: it stops after its first
// window) leaves a file marked incomplete with a checkpoint; resumed, every dataset is the
// uninterrupted run's bit for bit — fixed steps with statistics (their drifts' x₀ ride in the
// checkpoint), and adaptive steps (each mechanism's t, h and step records).
TEST(MechanismScenario, AnInterruptedRunResumesToTheUninterruptedBits) {
  ScenarioOverrides shorter;
  shorter.t_end = 0.2;
  const MechanismScenario fixed = load_mechanism_scenario(example("slider_crank_sweep.toml"), shorter);
  const MechanismScenario adaptive = parse_mechanism_scenario(adaptive_slider_cranks(3, "per_unit_step", 1e-6), "adaptive.toml");
  for (const MechanismScenario* sc : {&fixed, &adaptive}) {
    SCOPED_TRACE(sc->time.adaptive ? "adaptive steps" : "fixed steps");
    ScratchDirectory dir;
    const std::string whole = dir.file("whole.h5"), file = dir.file("interrupted.h5");
    run(*sc, whole);
    MechanismScenario on_cpu = *sc;
    on_cpu.backend = Backend::cpu;
    volatile std::sig_atomic_t stop = 1;
    RunOptions options;
    options.output = file;
    options.interrupt = &stop;
    options.max_chunk_steps = 3 * sc->stride;  // windows of at most 3 samples
    const MechanismRunResult stopped = run_mechanism_scenario(on_cpu, options);
    ASSERT_TRUE(stopped.interrupted);
    // The first window: samples 0, 1, 2; with adaptive steps samples 0 and 1 (its steps per interval
    // are unknown before it is timed).
    const index_t written = sc->time.adaptive ? 2 : 3;
    EXPECT_EQ(stopped.steps_done, (written - 1) * sc->stride);
    EXPECT_EQ(testing::read_string_attribute(file, "complete"), "0");
    EXPECT_EQ(testing::read_string_attribute(file, "samples_written"), std::to_string(written));
    EXPECT_TRUE(testing::has_dataset(file, "checkpoint/state"));

    const MechanismScenario again = load_interrupted_mechanism_scenario(file);
    EXPECT_EQ(again.text, sc->text);
    EXPECT_EQ(again.backend, Backend::cpu);
    options.interrupt = nullptr;
    options.resume = true;
    const MechanismRunResult resumed = run_mechanism_scenario(again, options);
    EXPECT_FALSE(resumed.interrupted);
    EXPECT_EQ(resumed.first_step, (written - 1) * sc->stride);
    EXPECT_EQ(resumed.steps_done, sc->time.steps);
    EXPECT_EQ(testing::read_string_attribute(file, "complete"), "1");
    const std::vector<std::string> names = testing::datasets(whole);
    EXPECT_EQ(testing::datasets(file), names) << "the same datasets, the checkpoint removed";
    EXPECT_GE(names.size(), sc->statistics ? 30u : 15u);
    for (const std::string& name : names) {
      const auto a = read_dataset(whole, name), b = read_dataset(file, name);
      ASSERT_EQ(a.values.size(), b.values.size()) << name;
      for (std::size_t k = 0; k < a.values.size(); ++k)
        ASSERT_TRUE(same_bits(a.values[k], b.values[k]) || (std::isnan(a.values[k]) && std::isnan(b.values[k])))
            << name << "[" << k << "]: " << a.values[k] << " resumed " << b.values[k];
    }
    EXPECT_THROW(load_interrupted_mechanism_scenario(file), std::runtime_error);  // complete: nothing to resume
  }
}

// The GPU takes every mechanism scenario, either capacity, fixed or adaptive steps
// (kernels/cuda_mechanisms.cuh; CPU = GPU bit for bit in tests/gpu/mechanism_agreement_test.cu):
// "auto" and "cuda" choose as for bodies, "cpu" is the CPU.
TEST(MechanismScenario, TheGpuTakesEveryMechanismScenario) {
  const auto load = [](const char* file, Backend backend) {
    ScenarioOverrides o;
    o.backend = backend;
    return load_mechanism_scenario(example(file), o);
  };
  for (const char* file : {"four_bar.toml", "adaptive_slider_cranks.toml", "v8_crank_drive.toml"}) {
    SCOPED_TRACE(file);
    EXPECT_EQ(mechanism_backend(load(file, Backend::cpu)).description, "cpu");
    EXPECT_EQ(mechanism_backend(load(file, Backend::automatic)).backend, choose_backend(Backend::automatic).backend);
    EXPECT_NO_THROW(load(file, Backend::cuda));  // the run says if no GPU is usable
  }
}

TEST(MechanismScenario, AFailingMechanismTouchesNoOther) {
  ScratchDirectory dir;
  const MechanismRunResult both = run(parse_mechanism_scenario(pendulum(2, 1e300), "p.toml"), dir.file("both.h5"));
  EXPECT_EQ(both.status[0], Status::ok);
  EXPECT_NE(both.status[1], Status::ok);
  EXPECT_GE(both.failed_step[1], 0);
  const MechanismRunResult alone = run(parse_mechanism_scenario(pendulum(1, 1e300), "p.toml"), dir.file("alone.h5"));
  ASSERT_EQ(alone.status[0], Status::ok);
  const auto q2 = read_dataset(dir.file("both.h5"), "quaternion"), q1 = read_dataset(dir.file("alone.h5"), "quaternion");
  ASSERT_EQ(q2.dims[0], q1.dims[0]);
  for (std::size_t t = 0; t < q1.dims[0]; ++t)
    for (int c = 0; c < 4; ++c) {
      EXPECT_TRUE(same_bits(q2.values[t * 8 + c], q1.values[t * 4 + c]));
      if (t > std::size_t(both.failed_step[1])) EXPECT_TRUE(std::isnan(q2.values[t * 8 + 4 + c]));
    }
}

// [output.statistics] of a mechanism study: every statistic equals its recomputation from the full
// trajectories (count, exact mean, min, max, type-7 quantiles, histogram), the default observables
// are the mechanism's that its method has, and a mechanism that fails mid-run counts up to its
// failure only.
TEST(MechanismScenario, StatisticsEqualThoseOfTheTrajectoriesAndDropAFailedMechanism) {
  ScratchDirectory dir;
  const std::string file = dir.file("stats.h5");
  const MechanismRunResult r = run(
      parse_mechanism_scenario(pendulum(6, 2.0) +
                                   "[[ensemble.override]]\nmechanism = 3\n\"load.0.value\" = [1e300, 0.0, 0.0]\n"
                                   "[output]\nstride = 5\n[output.statistics]\nquantiles = [0.0, 0.25, 0.5, 1.0]\n"
                                   "[[output.statistics.observable]]\nname = \"bob_wx\"\nkind = \"component\"\n"
                                   "channel = \"omega_body\"\ncomponent = 0\nbins = 4\nlow = -4.0\nhigh = 4.0\n",
                               "stats.toml"),
      file);
  ASSERT_EQ(r.failures(), 1);
  ASSERT_NE(r.status[3], Status::ok);
  const index_t n = 6, nt = r.samples;
  const auto e = read_dataset(file, "energy"), w = read_dataset(file, "omega_body"),
             c = read_dataset(file, "position_residual"), it = read_dataset(file, "sample_newton_iterations");
  for (const char* name : {"energy", "energy_drift", "linear_momentum_x", "linear_momentum_norm", "angular_momentum_z",
                           "angular_momentum_drift", "position_residual", "velocity_residual",
                           "sample_newton_iterations", "bob_wx"})
    EXPECT_TRUE(testing::has_dataset(file, std::string("statistics/") + name + "/mean")) << name;
  EXPECT_FALSE(testing::has_dataset(file, "statistics/generalized_energy/mean")) << "hht has no generalized energy";
  struct Check {
    std::string name;
    std::function<double(index_t, index_t)> value;
  };
  const std::vector<Check> checks = {
      {"energy", [&](index_t j, index_t i) { return e.values[j * n + i]; }},
      {"bob_wx", [&](index_t j, index_t i) { return w.values[(j * n + i) * 3]; }},
      {"position_residual", [&](index_t j, index_t i) { return c.values[j * n + i]; }},
      {"sample_newton_iterations", [&](index_t j, index_t i) { return it.values[j * n + i]; }},
  };
  const std::vector<double> levels{0.0, 0.25, 0.5, 1.0};
  for (const Check& check : checks) {
    const std::string g = "statistics/" + check.name + "/";
    const auto count = read_dataset(file, g + "count"), mean = read_dataset(file, g + "mean"),
               lo = read_dataset(file, g + "min"), hi = read_dataset(file, g + "max"), qs = read_dataset(file, g + "quantiles");
    ASSERT_EQ(count.values.size(), std::size_t(nt)) << check.name;
    for (index_t j = 0; j < nt; ++j) {
      std::vector<double> x;
      for (index_t i = 0; i < n; ++i)
        if (!std::isnan(check.value(j, i))) x.push_back(check.value(j, i));
      ASSERT_EQ(count.values[j], double(x.size())) << check.name << " sample " << j;
      ASSERT_EQ(x.size(), std::size_t(j * 5 <= r.failed_step[3] ? n : n - 1)) << "mechanism 3 counts until it fails";
      std::sort(x.begin(), x.end());
      long double sum = 0;
      for (double v : x) sum += v;
      const double scale = std::max({std::abs(x.front()), std::abs(x.back()), 1e-300});
      EXPECT_LE(std::abs(mean.values[j] - double(sum / x.size())), 4e-16 * scale) << check.name << " sample " << j;
      EXPECT_EQ(lo.values[j], x.front()) << check.name << " sample " << j;
      EXPECT_EQ(hi.values[j], x.back()) << check.name << " sample " << j;
      for (std::size_t l = 0; l < levels.size(); ++l) {
        const double h = double(x.size() - 1) * levels[l];
        const std::size_t k = std::size_t(h);
        const double expected = h > double(k) && k + 1 < x.size() ? x[k] + (h - double(k)) * (x[k + 1] - x[k]) : x[k];
        EXPECT_EQ(qs.values[j * levels.size() + l], expected) << check.name << " sample " << j << " level " << levels[l];
      }
    }
  }
  const auto histogram = read_dataset(file, "statistics/bob_wx/histogram");
  for (index_t j = 0; j < nt; ++j) {
    std::vector<double> bins(4, 0.0);
    for (index_t i = 0; i < n; ++i) {
      const double v = w.values[(j * n + i) * 3];
      if (!std::isnan(v) && v >= -4.0 && v <= 4.0) ++bins[std::min<std::size_t>(3, std::size_t((v + 4.0) / 2.0))];
    }
    for (int b = 0; b < 4; ++b) EXPECT_EQ(histogram.values[std::size_t(j * 4 + b)], bins[std::size_t(b)]) << j << " " << b;
  }
}

// [[ensemble.random]] and [[ensemble.design]] over a mechanism's keys, as for bodies: each
// mechanism's values are the sampling library's draws for (seed, mechanism, key) — recomputed here —
// written to /parameters, the same when the mechanism runs alone (--bodies); a body inertia is kept
// physical (invalid = "redraw", the draws thrown away counted in /redraws and the root attributes);
// a Latin hypercube puts one mechanism in each stratum.
TEST(MechanismScenario, DrawsReachEachMechanismAsForBodies) {
  ScratchDirectory dir;
  const index_t n = 8;
  const std::string draws =
      "[[ensemble.random]]\nkey = \"body.bob.mass\"\ndistribution = \"log_uniform\"\nlow = 0.5\nhigh = 2.0\nseed = 11\n"
      "[[ensemble.random]]\nkey = \"body.bob.inertia\"\ndistribution = \"normal\"\nmean = [0.1, 0.1, 0.02]\n"
      "stddev = 0.05\ninvalid = \"redraw\"\nseed = 3\n"
      "[[ensemble.design]]\ntype = \"latin_hypercube\"\nseed = 5\n[[ensemble.design.keys]]\nkey = "
      "\"joint.hinge.origin\"\ndistribution = \"uniform\"\nlow = [0.0, 0.0, 0.0]\nhigh = [0.0, 0.0, 0.4]\n";
  const MechanismScenario sc = parse_mechanism_scenario(pendulum(int(n), 1.0) + draws, "draws.toml");
  EXPECT_TRUE(sc.redraws);
  const MechanismRunResult r = run(sc, dir.file("all.h5"));
  EXPECT_EQ(r.failures(), 0);
  const auto mass = read_dataset(dir.file("all.h5"), "parameters/body.bob.mass"),
             inertia = read_dataset(dir.file("all.h5"), "parameters/body.bob.inertia"),
             origin = read_dataset(dir.file("all.h5"), "parameters/joint.hinge.origin");
  ASSERT_EQ(mass.values.size(), std::size_t(n));
  ASSERT_EQ(inertia.values.size(), std::size_t(3 * n));
  sampling::SamplingPlan expected;
  expected.add("body.bob.mass", sampling::Distribution::componentwise({sampling::Marginal::log_uniform(0.5, 2.0)}), 11);
  std::vector<bool> strata(std::size_t(n), false);
  for (index_t i = 0; i < n; ++i) {
    EXPECT_TRUE(same_bits(mass.values[i], expected.draw(i).values.at(0).value.at(0))) << "mechanism " << i;
    const double* J = &inertia.values[std::size_t(3 * i)];
    EXPECT_TRUE(J[0] > 0 && J[1] > 0 && J[2] > 0 && J[0] + J[1] >= J[2] && J[1] + J[2] >= J[0] && J[0] + J[2] >= J[1])
        << "mechanism " << i << ": " << J[0] << " " << J[1] << " " << J[2];
    const double z = origin.values[std::size_t(3 * i + 2)];
    ASSERT_TRUE(z >= 0.0 && z < 0.4) << z;
    strata[std::size_t(z / 0.4 * double(n))] = true;
    EXPECT_EQ(mechanism_description(sc, i).bodies[0].mass, mass.values[i]);
  }
  EXPECT_EQ(std::count(strata.begin(), strata.end(), true), n) << "one mechanism per stratum";
  // The invalid inertias thrown away: per mechanism the plan's count, recomputed; their sums in the
  // root attributes and the result.
  const auto redraws = read_dataset(dir.file("all.h5"), "redraws");
  ASSERT_EQ(redraws.values.size(), std::size_t(n));
  double redrawn = 0, total = 0;
  for (index_t i = 0; i < n; ++i) {
    int expected_redraws = -1;
    mechanism_description(sc, i, &expected_redraws);
    EXPECT_EQ(redraws.values[i], expected_redraws) << "mechanism " << i;
    EXPECT_EQ(expected_redraws, sc.plan.draw(i).redraws) << "mechanism " << i;
    redrawn += redraws.values[i] > 0, total += redraws.values[i];
  }
  EXPECT_GT(total, 0) << "a normal law of stddev 0.05 about [0.1, 0.1, 0.02] draws invalid inertias";
  EXPECT_EQ(r.redrawn_bodies, redrawn);
  EXPECT_EQ(r.redraws, total);
  EXPECT_EQ(testing::read_string_attribute(dir.file("all.h5"), "redrawn_bodies"), std::to_string(index_t(redrawn)));
  EXPECT_EQ(testing::read_string_attribute(dir.file("all.h5"), "redraws"), std::to_string(index_t(total)));
  ScenarioOverrides alone;
  alone.bodies = {5};
  run(parse_mechanism_scenario(pendulum(int(n), 1.0) + draws, "draws.toml", alone), dir.file("five.h5"));
  EXPECT_TRUE(same_bits(read_dataset(dir.file("five.h5"), "parameters/body.bob.mass").values.at(0), mass.values[5]));
  const auto q5 = read_dataset(dir.file("five.h5"), "quaternion"), q = read_dataset(dir.file("all.h5"), "quaternion");
  for (std::size_t t = 0; t < q5.dims[0]; ++t)
    for (int c = 0; c < 4; ++c) ASSERT_TRUE(same_bits(q5.values[t * 4 + c], q.values[(t * n + 5) * 4 + c]));
  // The tables' own checks, named as for bodies.
  EXPECT_EQ(problem(pendulum(2, 1.0) + "[[ensemble.random]]\nkey = \"body.rod.mass\"\ndistribution = \"uniform\"\n"
                                       "low = 1.0\nhigh = 2.0\n"),
            "bad.toml: key 'ensemble.random[0].key': 'body.rod.mass' is not a numeric key of this mechanism (did you "
            "mean 'body.bob.mass'?)");
  EXPECT_EQ(problem(pendulum(2, 1.0) + "[[ensemble.random]]\nkey = \"body.bob.mass\"\ndistribution = \"uniform\"\n"
                                       "low = 1.0\nhigh = 2.0\ninvalid = \"redraw\"\n"),
            "bad.toml: key 'ensemble.random[0].invalid': only laws of body.<name>.inertia can draw invalid bodies");
  const std::string fails = problem(pendulum(4, 1.0) + "[[ensemble.random]]\nkey = \"body.bob.inertia\"\n"
                                                      "distribution = \"normal\"\nmean = [0.1, 0.1, 0.02]\nstddev = 0.05\n");
  EXPECT_EQ(fails.rfind("bad.toml: mechanism ", 0), 0u) << fails;
}

TEST(MechanismScenario, OverridesSetOneMechanismsKeysLast) {
  ScratchDirectory dir;
  const std::string text = pendulum(3, 6.0) +
                           "[[ensemble.override]]\nmechanism = 1\n\"body.bob.mass\" = 2.5\n\"load.0.value\" = [1.0, 2.0, 3.0]\n";
  const MechanismScenario sc = parse_mechanism_scenario(text, "p.toml");
  EXPECT_EQ(mechanism_description(sc, 0).bodies[0].mass, 1.0);
  EXPECT_EQ(mechanism_description(sc, 1).bodies[0].mass, 2.5);
  EXPECT_EQ(mechanism_description(sc, 1).loads[0].value, (std::array<double, 3>{1.0, 2.0, 3.0}));  // not the sweep's 3
  EXPECT_EQ(mechanism_description(sc, 2).loads[0].value, (std::array<double, 3>{6.0, 6.0, 6.0}));
  run(sc, dir.file("o.h5"));
  EXPECT_EQ(read_dataset(dir.file("o.h5"), "parameters/body.bob.mass").values, (std::vector<double>{1.0, 2.5, 1.0}));
  EXPECT_EQ(read_dataset(dir.file("o.h5"), "parameters/load.0.value").values,
            (std::vector<double>{0, 0, 0, 1, 2, 3, 6, 6, 6}));
  EXPECT_EQ(problem(pendulum(3, 6.0) + "[[ensemble.override]]\nmechanism = 3\n"),
            "bad.toml: key 'ensemble.override[0].mechanism': 3 is not a mechanism of the ensemble (size 3)");
  EXPECT_EQ(problem(pendulum(3, 6.0) + "[[ensemble.override]]\nmechanism = 0\n\"body.bob.colour\" = 1.0\n"),
            "bad.toml: key 'ensemble.override[0].body.bob.colour': unknown key");
  EXPECT_EQ(problem(pendulum(3, 6.0) + "[[ensemble.override]]\nmechanism = 0\n\"body.bob.mas\" = 1.0\n"),
            "bad.toml: key 'ensemble.override[0].body.bob.mas': unknown key (did you mean 'body.bob.mass'?)");
}

// ------------------------------------------------------------------ assembly
const char* crooked_pendulum(const char* policy) {
  static std::string text;
  text = std::string("[mechanism]\ngravity = [0.0, 0.0, -9.81]\nassemble = \"") + policy +
         "\"\n[[mechanism.body]]\nname = \"bob\"\nmass = 1.0\ninertia = [0.1, 0.1, 0.02]\nposition = [0.0, 0.01, -1.0]\n"
         "[[mechanism.joint]]\nname = \"pivot\"\ntype = \"spherical\"\nframe = \"body\"\nbody_i = \"ground\"\n"
         "body_j = \"bob\"\norigin_j = [0.0, 0.0, 1.0]\n"
         "[integrator]\nmethod = \"modified_hht\"\n[time]\ndt = 0.01\nt_end = 0.1\n";
  return text.c_str();
}

TEST(MechanismScenario, AssemblyProjectsOrRejectsNamingTheJoint) {
  ScratchDirectory dir;
  // The bob 1 cm off its pivot: "project" moves it there (a correction of 1 cm over the 1 m size)…
  const MechanismRunResult r = run(parse_mechanism_scenario(crooked_pendulum("project"), "p.toml"), dir.file("p.h5"));
  ASSERT_EQ(r.status[0], Status::ok);
  EXPECT_GT(r.position_correction[0], 1e-3);
  EXPECT_LT(r.position_correction[0], 0.02);
  EXPECT_LT(read_dataset(dir.file("p.h5"), "position_residual").values[0], 1e-12);
  // … "reject" stops, naming the joint, its row and the violation.
  try {
    run(parse_mechanism_scenario(crooked_pendulum("reject"), "p.toml"), dir.file("r.h5"));
    FAIL() << "not rejected";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("p.toml: assembly: mechanism.joint[0] 'pivot' (spherical) row 1 is violated "
                                         "by 0.01"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("assemble = \"reject\""), std::string::npos) << e.what();
  }
  // 30 cm off, beyond what "project" would move (max_correction 0.1): "reject" names the violation,
  // not the projection's limit.
  std::string far = crooked_pendulum("reject");
  far.replace(far.find("position = [0.0, 0.01, -1.0]"), 28, "position = [0.0, 0.3, -1.0]");
  try {
    run(parse_mechanism_scenario(far, "f.toml"), dir.file("f.h5"));
    FAIL() << "not rejected";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("f.toml: assembly: mechanism.joint[0] 'pivot' (spherical) row 1 is violated "
                                         "by 0.3"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("max_correction"), std::string::npos) << e.what();
  }
  // On its pivot but moving along the rod: the velocity row is named as the position row is.
  std::string moving = crooked_pendulum("reject");
  moving.replace(moving.find("position = [0.0, 0.01, -1.0]"), 28, "position = [0.0, 0.0, -1.0]\nvelocity = [0.0, 0.0, 0.5]");
  try {
    run(parse_mechanism_scenario(moving, "v.toml"), dir.file("v.h5"));
    FAIL() << "not rejected";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("v.toml: assembly: the velocity constraint of mechanism.joint[0] 'pivot' "
                                         "(spherical) row 2 is violated by 1"),
              std::string::npos)
        << e.what();
  }
}

// ------------------------------------------------------------------ bad input
/// The message of parsing `text` (a mechanism scenario), or "" if it parses.
std::string problem(const std::string& text) {
  try {
    parse_mechanism_scenario(text, "bad.toml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return {};
}

const std::string good_body = "[[mechanism.body]]\nname = \"bob\"\nmass = 1.0\ninertia = [0.1, 0.1, 0.02]\n";
const std::string good_rest = "[integrator]\nmethod = \"hht\"\n[time]\ndt = 0.1\nt_end = 1.0\n";
const std::string joint_to = "[[mechanism.joint]]\nname = \"pivot\"\ntype = \"spherical\"\nbody_i = \"ground\"\nbody_j = ";

TEST(MechanismScenario, BadInputNamesTheFileTheElementAndTheKey) {
  EXPECT_EQ(problem("[mechanism]\n" + good_body + joint_to + "\"bob\"\n" + good_rest), "");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + joint_to + "\"rod\"\n" + good_rest),
            "bad.toml: key 'mechanism.joint[0].body_j': 'rod' is not a body (the bodies: 'bob'; or \"ground\")");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + "quaternion = [1.0, 0.1, 0.0, 0.0]\n" + good_rest),
            "bad.toml: key 'mechanism.body[0].quaternion': not a unit quaternion (norm 1.004987562, must be 1 to 1e-06)");
  EXPECT_EQ(problem("[mechanism]\n[[mechanism.body]]\nname = \"bob\"\nmass = 1.0\ninertia = [1.0, 1.0, 3.0]\n" + good_rest),
            "bad.toml: key 'mechanism.body[0].inertia': moments (1, 1, 3) violate the triangle inequality I1 + I2 >= "
            "I3 (no real body has them)");
  EXPECT_EQ(problem("[mechanism]\n[[mechanism.body]]\nname = \"bob\"\nmass = -1.0\ninertia = [1.0, 1.0, 1.0]\n" + good_rest),
            "bad.toml: key 'mechanism.body[0].mass': -1, must be > 0");
  const std::string hinge = problem("[mechanism]\n" + good_body +
                                    "[[mechanism.joint]]\nname = \"pivot\"\ntype = \"hinge\"\nbody_i = \"ground\"\nbody_j = "
                                    "\"bob\"\n" + good_rest);
  EXPECT_NE(hinge.find("bad.toml: key 'mechanism.joint[0].type': 'hinge'"), std::string::npos) << hinge;
  EXPECT_NE(hinge.find("revolute"), std::string::npos) << hinge;
  EXPECT_EQ(problem("[mechanism]\n" + good_body + "colour = \"red\"\n" + joint_to + "\"bob\"\n" + good_rest),
            "bad.toml: key 'mechanism.body[0].colour': unknown key (this table's keys: 'name', 'mass', 'inertia', "
            "'position', 'quaternion', 'velocity', 'omega')");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + joint_to + "\"bob\"\norigin_i = [0.0, 0.0, 0.0]\n" + good_rest),
            "bad.toml: key 'mechanism.joint[0].origin_i': not used with frame = \"space\"");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + joint_to + "\"bob\"\n[mechanism.joint.driver]\nramp = 1.0\n" + good_rest),
            "bad.toml: key 'mechanism.joint[0].driver': only a revolute joint can be driven");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + joint_to + "\"bob\"\n[integrator]\nmethod = \"zupan3\"\n[time]\ndt = "
                                                            "0.1\nt_end = 1.0\n"),
            "bad.toml: key 'integrator.method': method 'zupan3' does not run on mechanisms; they run \"hht\", "
            "\"modified_hht\", \"livens_em\", \"livens_midpoint\" (hht and modified_hht with inertia_shift = true for "
            "the second-order variant)");
  // The Livens schemes read their own keys: an HHT key is unknown there, and the gradient is one of two names.
  const std::string livens_alpha = problem("[mechanism]\n" + good_body + joint_to +
                                           "\"bob\"\n[integrator]\nmethod = \"livens_em\"\nalpha = -0.1\n[time]\ndt = "
                                           "0.1\nt_end = 1.0\n");
  EXPECT_NE(livens_alpha.find("bad.toml: key 'integrator.alpha'"), std::string::npos) << livens_alpha;
  const std::string gradient = problem("[mechanism]\n" + good_body + joint_to +
                                       "\"bob\"\n[integrator]\nmethod = \"livens_em\"\nconstraint_gradient = \"gonzalez\"\n"
                                       "[time]\ndt = 0.1\nt_end = 1.0\n");
  EXPECT_NE(gradient.find("bad.toml: key 'integrator.constraint_gradient'"), std::string::npos) << gradient;
  EXPECT_NE(gradient.find("equivariant"), std::string::npos) << gradient;
  EXPECT_EQ(problem("[mechanism]\n" + good_body + good_rest + "[output.statistics]\nobservables = [\"nutation\"]\n")
                .rfind("bad.toml: key 'output.statistics.observables': 'nutation' is not a standard observable (\"energy\", ", 0),
            0u);
  const std::string residual = problem("[mechanism]\n" + good_body + good_rest +
                                       "[output.statistics]\n[[output.statistics.observable]]\nname = \"c\"\nkind = "
                                       "\"component\"\nchannel = \"constraint_violation\"\n");
  EXPECT_EQ(residual.rfind("bad.toml: key 'output.statistics.observable[0]': ", 0), 0u) << residual;
  EXPECT_NE(residual.find("'constraint_violation'"), std::string::npos) << residual;
  EXPECT_EQ(problem("[mechanism]\n" + good_body + good_rest + "[ensemble]\nsize = 2\n[[ensemble.sweep]]\nkey = "
                                                              "\"body.bob.mass\"\nfrom = 1.0\nto = -1.0\n"),
            "bad.toml: mechanism 1: key 'body.bob.mass': -1, must be > 0");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + good_rest + "[ensemble]\nsize = 2\n[[ensemble.sweep]]\nkey = "
                                                              "\"body.rod.mass\"\nfrom = 1.0\nto = 2.0\n"),
            "bad.toml: key 'ensemble.sweep[0].key': 'body.rod.mass' is not a numeric key of this mechanism (did you "
            "mean 'body.bob.mass'?)");
  EXPECT_EQ(problem("[mechanism]\n" + good_body + good_rest + "[ensemble]\nsize = 2\n[[ensemble.sweep]]\nkey = "
                                                              "\"body.wheel.mass\"\nfrom = 1.0\nto = 2.0\n"),
            "bad.toml: key 'ensemble.sweep[0].key': 'body.wheel.mass' is not a numeric key of this mechanism (e.g. "
            "\"gravity\"; body.<name>.<key>, joint.<name>.<key>, spring.<name>.<key>, load.<index>.<key>, gravity)");
}

TEST(MechanismScenario, AdaptiveStepsNeedAnHhtMethodAndValidKeys) {
  const std::string text = adaptive_slider_cranks(1, "per_step", 1e-6);
  EXPECT_EQ(problem(text), "");
  const std::size_t method = text.find("method = \"modified_hht\"");
  ASSERT_NE(method, std::string::npos);
  std::string livens = text;
  livens.replace(method, std::string("method = \"modified_hht\"\nalpha = -0.1\ninertia_shift = true").size(),
                 "method = \"livens_em\"");
  EXPECT_EQ(problem(livens), "bad.toml: key 'time.adaptive': method 'livens_em' takes fixed steps only; adaptive steps "
                             "run with the HHT family: \"hht\", \"modified_hht\"");
  std::string fixed = text;
  fixed.replace(fixed.find("adaptive = true\n"), 16, "");
  EXPECT_EQ(problem(fixed), "bad.toml: key 'time.control': read only with adaptive = true");
  std::string bounds = text;
  bounds.replace(bounds.find("h_initial = 1e-4"), 16, "h_initial = 2.0");
  EXPECT_EQ(problem(bounds), "bad.toml: key 'time.h_initial': 2, must be in [h_min, h_max]");
}

// A pendulum on a hinge under a body torque has out-of-plane components that the scheme's numerical
// damping lets decay geometrically from round-off: without include/quatstep/subnormals.hpp they
// stuck at the smallest subnormal (4.9e-324) and the run stepped up to 3x slower (docs/mechanisms.md).
// The 16 pendulums of tests/torqued_pendulums.hpp, 12000 steps of each HHT scheme: some state
// component decays from a non-zero value to exactly zero, and none is ever subnormal after a step.
// (Sampled channels computed from the state may still be: only the state is stepped with.)
TEST(MechanismScenario, DecayingStateComponentsBecomeZeroNeverSubnormal) {
  using Cap = mechanism::SmallCapacity;
  using Mech = mechanism::Mechanism<double, Cap>;
  const MechanismScenario sc = parse_mechanism_scenario(testing::torqued_pendulums, "pendulums.toml");
  const auto check = [&](const auto& integrator, const char* name) {
    SCOPED_TRACE(name);
    int decayed = 0, subnormal = 0;
    for (index_t i = 0; i < sc.ensemble_size; ++i) {
      BuiltMechanism<Cap> built = build_mechanism<Cap>(mechanism_description(sc, i), "");
      ASSERT_EQ(mechanism::assemble(built.mech, built.initial, 0.0).status, Status::ok);
      typename std::decay_t<decltype(integrator)>::State s;
      ASSERT_EQ(integrator.initialize(built.mech, built.initial, 0.0, s), Status::ok);
      constexpr int n = decltype(s)::size;
      std::array<bool, n> was_nonzero{};
      for (index_t k = 0; k < sc.time.steps; ++k) {
        ASSERT_EQ(integrator.step(built.mech, s, double(k) * sc.time.dt, sc.time.dt).status, Status::ok) << "step " << k;
        for (int c = 0; c < n; ++c) {
          subnormal += s[c] != 0.0 && std::abs(s[c]) < std::numeric_limits<double>::min();
          decayed += was_nonzero[c] && s[c] == 0.0;
          was_nonzero[c] = was_nonzero[c] || s[c] != 0.0;
          if (s[c] == 0.0) was_nonzero[c] = false;  // counted once
        }
      }
    }
    std::printf("%s: %d state components decayed to exactly zero, %d subnormal after a step\n", name, decayed, subnormal);
    EXPECT_EQ(subnormal, 0);
    EXPECT_GT(decayed, 0) << "no component decayed through the subnormal range: the test would not see them";
  };
  mechanism::MechanismHhtSettings<double> settings;
  settings.alpha = -0.1;
  settings.inertia_shift = true;
  check(mechanism::MechanismModifiedHht<Mech>(settings), "modified HHT with the inertia shift");
  check(mechanism::MechanismHht<Mech>(settings), "classical HHT with the inertia shift");
}
}  // namespace
}  // namespace quatstep
