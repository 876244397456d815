// Mechanism ensembles advanced step by step (host/mechanism_ensemble.hpp): however the steps are split
// into calls, the state and every channel are those of `quatstep run` of the same scenario bit for
// bit; arrays over a key replace the scenario's values as a sweep would; bad arrays and scenarios the
// ensemble does not take are refused naming the source, the mechanism and the key. A coupled code's
// loads passed to step() are the scenario's own loads bit for bit (held constants with every method,
// a profile sampled at the midpoints with the Livens schemes; those of t_start given to initialize()),
// act on their mechanism only, and a value that is not finite changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "hdf5_read.hpp"
#include "mechanism_ensemble.hpp"
#include "mechanism_run.hpp"
#include "quatstep/models/torque_profile.hpp"

namespace quatstep {
namespace {

using testing::read_dataset;
using testing::same_bits;
using testing::ScratchDirectory;

const std::string stiffness = "spring.return spring.stiffness";

/// The eight slider-cranks of examples/slider_crank_sweep.toml (stiffness swept from 50 to 800) over
/// 0.1 s: 100 steps, a sample every 10.
MechanismScenario sweep() {
  ScenarioOverrides shorter;
  shorter.t_end = 0.1;
  MechanismScenario sc = load_mechanism_scenario(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml", shorter);
  sc.backend = Backend::cpu;
  return sc;
}

/// The scenario's run written to `file`.
void run_to(const MechanismScenario& sc, const std::string& file) {
  RunOptions options;
  options.output = file;
  run_mechanism_scenario(sc, options);
}

/// Sample `j` of every channel of `file` (a run of `n` mechanisms) against the ensemble's current
/// channels; sample_newton_iterations too when `iterations`.
void expect_sample(const MechanismEnsemble& e, const std::string& file, index_t j, bool iterations) {
  const index_t n = e.mechanisms();
  const int scalars = channel_scalars(e.channels());
  std::vector<double> now(std::size_t(scalars * n));
  e.observe(SampleView<double>{now.data(), n, j, 1, 1, scalars});
  int offset = 0;
  for (const Channel& c : e.channels()) {
    if (c.name != "sample_newton_iterations" || iterations) {
      const auto d = read_dataset(file, c.name);  // samples × n × size
      for (index_t i = 0; i < n; ++i)
        for (int k = 0; k < c.size; ++k)
          ASSERT_TRUE(same_bits(now[std::size_t((offset + k) * n + i)], d.values[std::size_t((j * n + i) * c.size + k)]))
              << c.name << " component " << k << " of mechanism " << i << " at sample " << j;
    }
    offset += c.size;
  }
}

TEST(MechanismEnsemble, StepsSplitAnyWayAreTheRunsSamplesBitForBit) {
  ScratchDirectory dir;
  const MechanismScenario sc = sweep();
  ASSERT_EQ(sc.stride, 10);
  const std::string file = dir.file("run.h5");
  run_to(sc, file);

  // One output interval per call: every sample, Newton iterations included.
  const auto by_interval = make_mechanism_ensemble(sc, {});
  ASSERT_EQ(by_interval->mechanisms(), 8);
  expect_sample(*by_interval, file, 0, true);
  for (index_t j = 1; j <= 10; ++j) {
    by_interval->advance(10, SampleView<double>{nullptr, 8, 0, 0, 1, 0});
    expect_sample(*by_interval, file, j, true);
  }
  EXPECT_EQ(by_interval->steps_done(), 100);

  // Uneven calls (3 + 17 + 1 + 29 + 50 steps): the same state at the end, and the same records.
  const auto uneven = make_mechanism_ensemble(sc, {});
  for (index_t steps : {3, 17, 1, 29, 50}) uneven->advance(steps, SampleView<double>{nullptr, 8, 0, 0, 1, 0});
  expect_sample(*uneven, file, 10, false);
  const auto iterations = read_dataset(file, "newton_iterations");
  for (index_t i = 0; i < 8; ++i) EXPECT_EQ(double(uneven->newton_iterations()[i]), iterations.values[i]);
  const auto correction = read_dataset(file, "assembly_position_correction");
  for (index_t i = 0; i < 8; ++i) EXPECT_TRUE(same_bits(uneven->position_correction()[i], correction.values[i]));

  // Samples kept by the calls: 25 + 75 steps with a window of samples 1 … 10, split between them.
  const auto sampled = make_mechanism_ensemble(sc, {});
  const int scalars = channel_scalars(sampled->channels());
  std::vector<double> window(std::size_t(10 * scalars * 8));
  const SampleView<double> view{window.data(), 8, 1, 10, 10, scalars};
  sampled->advance(25, view);
  sampled->advance(75, view);
  int offset = 0;
  for (const Channel& c : sampled->channels()) {
    const auto d = read_dataset(file, c.name);
    for (index_t j = 1; j <= 10; ++j)
      for (index_t i = 0; i < 8; ++i)
        for (int k = 0; k < c.size; ++k) {
          // Samples 1 and 2 come from the call that began at step 0; sample 3's interval was split
          // (steps 20 … 24, then 25 … 29), so its count holds the second call's iterations alone.
          if (c.name == "sample_newton_iterations" && j == 3) continue;
          ASSERT_TRUE(same_bits(view(j, offset + k, i), d.values[std::size_t((j * 8 + i) * c.size + k)]))
              << c.name << " sample " << j << " mechanism " << i;
        }
    offset += c.size;
  }
}

TEST(MechanismEnsemble, ArraysOverAKeyAreTheSweepsMechanisms) {
  ScratchDirectory dir;
  const MechanismScenario swept = sweep();
  const std::string file = dir.file("run.h5");
  run_to(swept, file);

  MechanismScenario one = swept;  // the file's single mechanism, stiffness 200
  one.sweeps.clear();
  one.ensemble_size = 1;
  MechanismEnsembleSpec spec;
  spec.mechanisms = 8;
  std::vector<double> k(8);
  for (int i = 0; i < 8; ++i) k[i] = 50.0 + (800.0 - 50.0) * (double(i) / 7.0);  // the sweep's formula
  spec.arrays.push_back({stiffness, k});
  const auto e = make_mechanism_ensemble(one, spec);
  ASSERT_EQ(e->mechanisms(), 8);
  e->advance(90, SampleView<double>{nullptr, 8, 0, 0, 1, 0});
  e->advance(10, SampleView<double>{nullptr, 8, 0, 0, 1, 0});  // the last output interval's iterations
  expect_sample(*e, file, 10, true);

  // Without rows the single mechanism stays one, with rows it is repeated; a scenario of 8 takes 8 only.
  EXPECT_EQ(make_mechanism_ensemble(one, {})->mechanisms(), 1);
  EXPECT_EQ(make_mechanism_ensemble(one, {5, {}})->mechanisms(), 5);
  MechanismEnsembleSpec three = spec;
  three.mechanisms = 3;
  three.arrays[0].values.resize(3);
  EXPECT_EQ(make_mechanism_ensemble(one, three)->mechanisms(), 3);
  try {
    make_mechanism_ensemble(swept, three);
    ADD_FAILURE() << "3 rows for 8 mechanisms accepted";
  } catch (const ScenarioError& error) {
    EXPECT_NE(std::string(error.what()).find("3 rows, but the scenario has 8 mechanisms"), std::string::npos) << error.what();
  }
}

/// The message of the ScenarioError `make` throws ("" when it throws none).
template <class Make>
std::string refusal(Make make) {
  try {
    make();
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

TEST(MechanismEnsemble, BadArraysAndScenariosItDoesNotTakeAreRefusedNamingTheKey) {
  MechanismScenario one = sweep();
  one.sweeps.clear();
  one.ensemble_size = 1;
  const auto with = [&](const std::string& key, std::vector<double> values, index_t n) {
    MechanismEnsembleSpec spec;
    spec.mechanisms = n;
    spec.arrays.push_back({key, std::move(values)});
    return refusal([&] { make_mechanism_ensemble(one, spec); });
  };
  const std::string source = one.source;
  EXPECT_EQ(with(stiffness, {100, 200, -1, 300}, 4),
            source + ": mechanism 2: key 'spring.return spring.stiffness': -1, must be >= 0");
  EXPECT_NE(with("body.crank.mass", {1, 0}, 2).find("mechanism 1: key 'body.crank.mass': 0, must be > 0"), std::string::npos);
  EXPECT_NE(with("body.crank.inertia", {1, 1, 3}, 1).find("key 'body.crank.inertia'"), std::string::npos);
  const std::string unknown = with("spring.return.stiffness", {1}, 1);
  EXPECT_NE(unknown.find("'spring.return.stiffness' is not a numeric key of the mechanism (its keys: "), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find(stiffness), std::string::npos) << unknown;
  EXPECT_EQ(with("body.crank.mas", {1}, 1),
            source + ": parameters: 'body.crank.mas' is not a numeric key of the mechanism (did you mean 'body.crank.mass'?)");
  EXPECT_EQ(with(stiffness, {1, 2, 3}, 2),
            source + ": parameters: key '" + stiffness + "': 3 values, expected 1 per mechanism for 2 mechanisms");

  MechanismScenario adaptive = one;
  adaptive.time.adaptive = true;
  EXPECT_NE(refusal([&] { make_mechanism_ensemble(adaptive, {}); }).find("key 'time.adaptive'"), std::string::npos);
}

// The scenario's [run] backend is `quatstep run`'s; the ensemble steps where spec.backend says (the
// CPU by default), and "cuda" without a usable GPU is refused saying why.
TEST(MechanismEnsemble, StepsWhereItsSpecSays) {
  MechanismScenario run_on_gpu = sweep();
  run_on_gpu.backend = Backend::cuda;
  EXPECT_EQ(make_mechanism_ensemble(run_on_gpu, {})->backend(), "cpu");
  MechanismEnsembleSpec on_gpu;
  on_gpu.backend = Backend::cuda;
  const BackendChoice usable = choose_backend(Backend::automatic);
  if (usable.backend == Backend::cuda) {
    const auto e = make_mechanism_ensemble(sweep(), on_gpu);
    EXPECT_EQ(e->backend(), usable.description);
    EXPECT_EQ(e->mechanisms_in_lanes(), 0);
  } else {
    try {
      make_mechanism_ensemble(sweep(), on_gpu);
      ADD_FAILURE() << "backend cuda without a usable GPU was taken";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("backend \"cuda\" requested, but ", 0), 0u) << e.what();
    }
    on_gpu.backend = Backend::automatic;
    EXPECT_EQ(make_mechanism_ensemble(sweep(), on_gpu)->backend(), usable.description);
  }
}

/// The 3-D double pendulum of examples/double_pendulum.toml, 60 steps of 1e-3 with `method` (the
/// [integrator] table's lines) and the `loads` tables.
MechanismScenario pendulum(const std::string& method, const std::string& loads) {
  const std::string text = R"(
[mechanism]
gravity = [0.0, 0.0, -9.81]
[[mechanism.body]]
name = "upper"
mass = 1.0
inertia = [0.09083333333333334, 0.08666666666666667, 0.010833333333333334]
position = [0.0, 0.0, -0.5]
omega = [2.0, 0.0, 0.0]
velocity = [0.0, 1.0, 0.0]
[[mechanism.body]]
name = "lower"
mass = 1.0
inertia = [0.09083333333333334, 0.08666666666666667, 0.010833333333333334]
position = [0.0, 0.0, -1.5]
omega = [0.0, 3.0, 1.0]
velocity = [-1.5, 2.0, 0.0]
[[mechanism.joint]]
name = "pivot"
type = "spherical"
body_i = "ground"
body_j = "upper"
origin = [0.0, 0.0, 0.0]
[[mechanism.joint]]
name = "elbow"
type = "spherical"
body_i = "upper"
body_j = "lower"
origin = [0.0, 0.0, -1.0]
)" + loads + "\n[integrator]\n" + method + R"(
[time]
dt = 0.001
t_end = 0.06
)";
  MechanismScenario sc = parse_mechanism_scenario(text, "pendulum.toml");
  sc.backend = Backend::cpu;
  return sc;
}

/// Every channel of the ensemble's current state, [scalar][mechanism].
std::vector<double> channels_now(const MechanismEnsemble& e) {
  std::vector<double> now(std::size_t(channel_scalars(e.channels()) * e.mechanisms()));
  e.observe(SampleView<double>{now.data(), e.mechanisms(), 0, 1, 1, channel_scalars(e.channels())});
  return now;
}

/// Mechanism i's channels of two observations, scalar by scalar, bit for bit (but the Newton
/// iterations of the latest call, which count different calls).
void expect_same_mechanism(const MechanismEnsemble& a, const std::vector<double>& of_a, index_t i,
                           const MechanismEnsemble& b, const std::vector<double>& of_b, index_t j,
                           const std::string& what) {
  int c = 0;
  for (const Channel& channel : a.channels())
    for (int k = 0; k < channel.size; ++k, ++c)
      if (channel.name != "sample_newton_iterations")
        ASSERT_TRUE(same_bits(of_a[std::size_t(c * a.mechanisms() + i)], of_b[std::size_t(c * b.mechanisms() + j)]))
            << what << ": " << channel.name << "[" << k << "]: " << of_a[std::size_t(c * a.mechanisms() + i)]
            << " vs " << of_b[std::size_t(c * b.mechanisms() + j)];
}

const char* const methods[] = {"method = \"hht\"\nalpha = -0.1", "method = \"modified_hht\"\nalpha = -0.1",
                               "method = \"modified_hht\"\nalpha = -0.1\ninertia_shift = true",
                               "method = \"livens_em\"", "method = \"livens_midpoint\""};

TEST(MechanismEnsembleStep, HeldLoadsAreTheScenariosConstantLoadsBitForBit) {
  const std::string loads = R"(
[[mechanism.load]]
body = "upper"
kind = "force"
value = [1.5, -2.0, 0.75]
[[mechanism.load]]
body = "lower"
kind = "body_torque"
value = [0.3, 0.125, -0.2]
[[mechanism.load]]
body = "upper"
kind = "spatial_torque"
value = [0.0, 0.4, 0.1]
)";
  // [mechanism][body][3]: mechanism 0 the file's loads, mechanism 1 none.
  const double force[] = {1.5, -2.0, 0.75, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const double body_torque[] = {0, 0, 0, 0.3, 0.125, -0.2, 0, 0, 0, 0, 0, 0};
  const double spatial_torque[] = {0.0, 0.4, 0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (const char* method : methods) {
    SCOPED_TRACE(method);
    const auto loaded = make_mechanism_ensemble(pendulum(method, loads), {});
    const auto free = make_mechanism_ensemble(pendulum(method, ""), {});
    const auto coupled = make_mechanism_ensemble(pendulum(method, ""), {2, {}});
    loaded->advance(60, SampleView<double>{nullptr, 1, 0, 0, 1, 0});
    free->advance(60, SampleView<double>{nullptr, 1, 0, 0, 1, 0});
    coupled->initialize({force, body_torque, spatial_torque});
    for (int k = 0; k < 60; ++k) coupled->step({force, body_torque, spatial_torque});
    ASSERT_EQ(coupled->steps_done(), 60);
    const std::vector<double> a = channels_now(*loaded), b = channels_now(*free), c = channels_now(*coupled);
    expect_same_mechanism(*coupled, c, 0, *loaded, a, 0, "with the loads");
    expect_same_mechanism(*coupled, c, 1, *free, b, 0, "without");
    // The loads act: the loaded pendulum is elsewhere by far more than round-off.
    const int position = 4 * 2;  // the channels start with the quaternions, then the positions
    EXPECT_GT(std::abs(a[std::size_t(position)] - b[std::size_t(position)]), 1e-6);
    EXPECT_EQ(coupled->status()[0], Status::ok);
    EXPECT_EQ(coupled->status()[1], Status::ok);
    // Without the loads of t_start in the initial accelerations the HHT family differs (it keeps
    // them in its state); the Livens schemes only start Newton from the multipliers there.
    const auto uninitialized = make_mechanism_ensemble(pendulum(method, ""), {});
    for (int k = 0; k < 60; ++k) uninitialized->step({force, body_torque, spatial_torque});
    const double q0 = channels_now(*uninitialized)[0];
    if (std::string(method).find("hht") != std::string::npos) EXPECT_GT(std::abs(q0 - a[0]), 1e-9);
    else EXPECT_LT(std::abs(q0 - a[0]), 1e-13);
  }
}

TEST(MechanismEnsembleStep, LivensSchemesTakeAProfileSampledAtTheMidpointsBitForBit) {
  const std::string profiled = R"(
[[mechanism.load]]
body = "lower"
kind = "spatial_torque"
value = [0.2, -0.1, 0.05]
profile.ramp = [0.5, 0.0, 1.0]
profile.amplitude = [0.3, 0.2, -0.4]
profile.frequency = 40.0
profile.phase = 0.7
)";
  TimeProfile<double> p;
  p.constant = {0.2, -0.1, 0.05};
  p.ramp = {0.5, 0.0, 1.0};
  p.amplitude = {0.3, 0.2, -0.4};
  p.frequency = 40.0;
  p.phase = 0.7;
  for (const char* method : {methods[3], methods[4]}) {
    SCOPED_TRACE(method);
    const auto model = make_mechanism_ensemble(pendulum(method, profiled), {});
    const auto coupled = make_mechanism_ensemble(pendulum(method, ""), {});
    model->advance(60, SampleView<double>{nullptr, 1, 0, 0, 1, 0});
    double torque[6] = {};
    std::copy_n(p(coupled->t_start()).data(), 3, torque + 3);
    coupled->initialize({nullptr, nullptr, torque});
    for (int k = 0; k < 60; ++k) {
      const double t = coupled->t_start() + double(k) * coupled->dt();  // the step's start, as batch.hpp has it
      const Vec3<double> value = p(t + 0.5 * coupled->dt());
      std::copy_n(value.data(), 3, torque + 3);
      coupled->step({nullptr, nullptr, torque});
    }
    expect_same_mechanism(*coupled, channels_now(*coupled), 0, *model, channels_now(*model), 0, "profile");
  }
}

TEST(MechanismEnsembleStep, ALoadThatIsNotFiniteChangesNoMechanism) {
  const auto e = make_mechanism_ensemble(pendulum(methods[2], ""), {3, {}});
  e->advance(5, SampleView<double>{nullptr, 3, 0, 0, 1, 0});
  const std::vector<double> before = channels_now(*e);
  std::vector<double> torque(3 * 2 * 3, 0.1);
  torque[3 * (2 * 1 + 1) + 2] = NAN;  // mechanism 1, body 'lower', component 2
  const std::string message =
      "MechanismEnsemble: mechanism 1, body 'lower': body_torque[2] = nan is not finite (no mechanism was changed)";
  EXPECT_EQ(refusal([&] { e->step({nullptr, torque.data(), nullptr}); }), message);
  EXPECT_EQ(e->steps_done(), 5);
  const std::vector<double> after = channels_now(*e);
  for (index_t i = 0; i < 3; ++i) expect_same_mechanism(*e, before, i, *e, after, i, "untouched");
  torque[3 * (2 * 1 + 1) + 2] = 0.1;
  e->step({nullptr, torque.data(), nullptr});
  EXPECT_EQ(e->steps_done(), 6);
  for (Status s : e->status()) EXPECT_EQ(s, Status::ok);
  EXPECT_THROW(e->initialize({}), std::logic_error);  // after steps

  const auto fresh = make_mechanism_ensemble(pendulum(methods[2], ""), {3, {}});
  torque[0] = NAN;
  const std::vector<double> initial = channels_now(*fresh);
  EXPECT_NE(refusal([&] { fresh->initialize({nullptr, torque.data(), nullptr}); }).find("mechanism 0, body 'upper'"),
            std::string::npos);
  for (index_t i = 0; i < 3; ++i) expect_same_mechanism(*fresh, initial, i, *fresh, channels_now(*fresh), i, "initial");
}

}  // namespace
}  // namespace quatstep
