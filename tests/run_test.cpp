// run_scenario end to end at the library level: the HDF5 file holds exactly what the core
// integrators compute body by body (every model × method of the dispatch), whatever the thread
// count, and a failing body changes nothing for the others; launches queued as the GPU queues them
// write the same file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "hdf5_read.hpp"
#include "quatstep/integrators/hamiltonian_em.hpp"
#include "quatstep/integrators/hamiltonian_midpoint.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/quatstep.hpp"
#include "run.hpp"
#include "scenario.hpp"

using namespace quatstep;
using quatstep::testing::Dataset;
using quatstep::testing::read_dataset;
using quatstep::testing::same_bits;
using quatstep::testing::ScratchDirectory;

namespace {

const char* const sampled_datasets[] = {"quaternion", "omega_body", "energy", "angular_momentum", "constraint_violation"};
const char* const all_datasets[] = {"time",   "quaternion", "omega_body",        "energy",     "angular_momentum",
                                    "constraint_violation", "status", "newton_iterations", "failed_step"};

/// On the CPU: the bitwise comparisons below are with the core compiled for the CPU.
Scenario on_cpu(const std::string& text) {
  ScenarioOverrides cpu;
  cpu.backend = Backend::cpu;
  return parse_scenario(text, "test.toml", cpu);
}

/// Two threads, no progress bar, at most `steps` steps per launch (0: as the loop chooses), into `output`.
RunOptions in_chunks_of(index_t steps, const std::string& output) {
  RunOptions options;
  options.threads = 2;
  options.progress = ProgressMode::never;
  options.max_chunk_steps = steps;
  options.output = output;
  return options;
}

RunResult run(const std::string& text, const std::string& output, int threads = 2) {
  RunOptions options = in_chunks_of(0, output);
  options.threads = threads;
  return run_scenario(on_cpu(text), options);
}

/// One sample of a direct integration: the kinematics and the channels the integrator adds.
struct DirectSample {
  RigidBodyKinematics<double> kinematics;
  double local_error = NAN, generalized_energy = NAN;
  Vec3<double> momentum_map = Vec3<double>::Constant(NAN);
};

template <class I, class = void>
struct has_local_error : std::false_type {};
template <class I>
struct has_local_error<I, std::void_t<decltype(I::local_error(std::declval<const typename I::State&>()))>>
    : std::true_type {};
template <class I, class = void>
struct has_generalized_energy : std::false_type {};
template <class I>
struct has_generalized_energy<I, std::void_t<decltype(std::declval<const I&>().generalized_energy(
                                     std::declval<const typename I::ModelType&>(),
                                     std::declval<const typename I::State&>()))>> : std::true_type {};

/// Whether the integrator adds the channel `name`.
template <class I>
constexpr bool has_channel(std::string_view name) {
  if constexpr (has_integrator_channels<I>::value)
    for (const Channel& c : I::channels)
      if (name == c.name) return true;
  return false;
}

template <class Integrator>
DirectSample direct_sample(const Integrator& integrator, const typename Integrator::ModelType& model,
                           const typename Integrator::State& s) {
  DirectSample d{integrator.kinematics(model, s)};
  if constexpr (has_local_error<Integrator>::value) d.local_error = integrator.local_error(s);
  if constexpr (has_generalized_energy<Integrator>::value) d.generalized_energy = integrator.generalized_energy(model, s);
  if constexpr (has_channel<Integrator>("momentum_map")) d.momentum_map = integrator.angular_momentum(model, s);
  return d;
}

/// Every sample of one body, integrated directly with the core (no host code).
template <class Integrator>
std::vector<DirectSample> integrate_directly(const Integrator& integrator, const typename Integrator::ModelType& model,
                                             const RigidBodyKinematics<double>& k0, double t0, double h, index_t steps,
                                             index_t stride) {
  typename Integrator::State s;
  EXPECT_EQ(integrator.initialize(model, k0, t0, s), Status::ok);
  std::vector<DirectSample> samples{direct_sample(integrator, model, s)};
  for (index_t k = 0; k < steps; ++k) {
    EXPECT_EQ(integrator.step(model, s, t0 + double(k) * h, h).status, Status::ok) << "step " << k;
    if ((k + 1) % stride == 0) samples.push_back(direct_sample(integrator, model, s));
  }
  return samples;
}

/// The integrators' own datasets, with their scalars per body and sample.
const std::pair<const char*, int> optional_datasets[] = {{"local_error", 1}, {"generalized_energy", 1}, {"momentum_map", 3}};

/// Every sample of every body in the file equals the direct integration, bit for bit; the time
/// column is t0 + k·h; a translating body's position and velocity too. `optional` lists the
/// integrator's own datasets the file must have (compared too); the others must be absent.
template <class Integrator>
void expect_file_matches_core(const std::string& file, const Integrator& integrator,
                              const typename Integrator::ModelType& model,
                              const std::vector<Vec3<double>>& omegas, double t0, double h, index_t steps,
                              index_t stride, const std::vector<std::string>& optional = {}) {
  const index_t n = static_cast<index_t>(omegas.size()), nt = steps / stride + 1;
  const Dataset time = read_dataset(file, "time"), q = read_dataset(file, "quaternion"),
                w = read_dataset(file, "omega_body"), e = read_dataset(file, "energy"),
                L = read_dataset(file, "angular_momentum"), cv = read_dataset(file, "constraint_violation");
  ASSERT_EQ(q.dims, (std::vector<unsigned long long>{std::size_t(nt), std::size_t(n), 4}));
  ASSERT_EQ(w.dims, (std::vector<unsigned long long>{std::size_t(nt), std::size_t(n), 3}));
  ASSERT_EQ(e.dims, (std::vector<unsigned long long>{std::size_t(nt), std::size_t(n)}));
  const auto wanted = [&](const std::string& name) { return std::find(optional.begin(), optional.end(), name) != optional.end(); };
  for (const auto& [name, size] : optional_datasets) {
    ASSERT_EQ(quatstep::testing::has_dataset(file, std::string("/") + name), wanted(name)) << name;
    std::vector<unsigned long long> dims{std::size_t(nt), std::size_t(n)};
    if (size > 1) dims.push_back(std::size_t(size));
    if (wanted(name)) ASSERT_EQ(read_dataset(file, name).dims, dims) << name;
  }
  const Dataset le = wanted("local_error") ? read_dataset(file, "local_error") : Dataset{},
                ge = wanted("generalized_energy") ? read_dataset(file, "generalized_energy") : Dataset{},
                mm = wanted("momentum_map") ? read_dataset(file, "momentum_map") : Dataset{};
  constexpr bool translates = Integrator::ModelType::translates;
  ASSERT_EQ(quatstep::testing::has_dataset(file, "/position"), translates);
  ASSERT_EQ(quatstep::testing::has_dataset(file, "/velocity"), translates);
  const Dataset r = translates ? read_dataset(file, "position") : Dataset{},
                v = translates ? read_dataset(file, "velocity") : Dataset{};
  for (index_t j = 0; j < nt; ++j) ASSERT_TRUE(same_bits(time.values[j], t0 + double(j * stride) * h)) << "sample " << j;
  int mismatches = 0, compared = 0;
  for (index_t i = 0; i < n; ++i) {
    RigidBodyKinematics<double> k0;
    k0.omega_body = omegas[i];
    k0.velocity = Vec3<double>(1, 0, 0);  // ignored by bodies about a fixed point
    const auto direct = integrate_directly(integrator, model, k0, t0, h, steps, stride);
    ASSERT_EQ(static_cast<index_t>(direct.size()), nt);
    for (index_t j = 0; j < nt; ++j) {
      const RigidBodyKinematics<double>& k = direct[j].kinematics;
      const RigidBodyObservables<double> o = model.observables(k);
      const auto compare = [&](double file_value, double core_value) {
        mismatches += !same_bits(file_value, core_value);
        ++compared;
      };
      for (int c = 0; c < 4; ++c) compare(q.values[(j * n + i) * 4 + c], k.quaternion[c]);
      for (int c = 0; c < 3; ++c) compare(w.values[(j * n + i) * 3 + c], k.omega_body[c]);
      for (int c = 0; c < 3; ++c) compare(L.values[(j * n + i) * 3 + c], o.angular_momentum[c]);
      compare(e.values[j * n + i], o.energy);
      compare(cv.values[j * n + i], o.constraint_violation);
      if constexpr (Integrator::ModelType::translates) {
        for (int c = 0; c < 3; ++c) compare(r.values[(j * n + i) * 3 + c], k.position[c]);
        for (int c = 0; c < 3; ++c) compare(v.values[(j * n + i) * 3 + c], k.velocity[c]);
      }
      if (wanted("local_error")) compare(le.values[j * n + i], direct[j].local_error);
      if (wanted("generalized_energy")) compare(ge.values[j * n + i], direct[j].generalized_energy);
      if (wanted("momentum_map"))
        for (int c = 0; c < 3; ++c) compare(mm.values[(j * n + i) * 3 + c], direct[j].momentum_map[c]);
    }
  }
  EXPECT_EQ(mismatches, 0) << "values differing from the direct core integration, of " << compared;
}

// Sherif §10.1 top plus torques that exercise the profile mapping.
const std::string heavy_top_model = R"(
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
body_torque = [0.5, 0.0, 0.0]
[model.spatial_torque_profile]
amplitude = [0.0, 2.0, 0.0]
frequency = 30.0
phase = 0.25
[ensemble]
size = 3
[[ensemble.override]]
body = 0
initial.omega_body = [0.0, 150.0, -4.61538]
[[ensemble.override]]
body = 1
initial.omega_body = [1.0, 100.0, 0.0]
[[ensemble.override]]
body = 2
initial.omega_body = [0.0, 50.0, 10.0]
)";
const std::vector<Vec3<double>> heavy_top_omegas = {{0.0, 150.0, -4.61538}, {1.0, 100.0, 0.0}, {0.0, 50.0, 10.0}};

HeavyTop<double> heavy_top() {
  auto m = HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0, {0, 1, 0}, {0, 0, -9.81});
  m.loads.body_torque.constant = {0.5, 0, 0};
  m.loads.spatial_torque.amplitude = {0, 2, 0};
  m.loads.spatial_torque.frequency = 30;
  m.loads.spatial_torque.phase = 0.25;
  return m;
}

// A free asymmetric body under gravity and a ramped force acting for 0.05 <= t < 0.35, translating.
const std::string free_body_model = R"(
[model]
type = "free_rigid_body"
inertia = [1.0, 2.0, 2.5]
mass = 2.0
gravity = [0.0, 0.0, -9.81]
force = [0.0, 0.0, 1.0]
[model.force_profile]
ramp = [0.5, 0.0, 0.0]
begin = 0.05
end = 0.35
[initial]
velocity = [1.0, 0.0, 0.0]
[ensemble]
size = 2
[[ensemble.override]]
body = 0
initial.omega_body = [0.1, 5.0, 0.1]
[[ensemble.override]]
body = 1
initial.omega_body = [0.1, 5.0, 2.0]
)";
const std::vector<Vec3<double>> free_body_omegas = {{0.1, 5.0, 0.1}, {0.1, 5.0, 2.0}};

FreeRigidBody<double> free_body() {
  FreeRigidBody<double> m;
  m.inertia = Vec3<double>(1, 2, 2.5).asDiagonal();
  m.mass = 2;
  m.gravity = {0, 0, -9.81};
  m.force_profile.constant = {0, 0, 1};
  m.force_profile.ramp = {0.5, 0, 0};
  m.force_profile.begin = 0.05;
  m.force_profile.end = 0.35;
  return m;
}

std::string time_and_output(double dt, double t_end, int stride) {
  return "[time]\ndt = " + std::to_string(dt) + "\nt_end = " + std::to_string(t_end) + "\n[output]\nstride = " +
         std::to_string(stride) + "\n";
}

HhtSettings<double> hht_settings(double alpha, bool shift) {
  HhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = shift;
  return s;
}

}  // namespace

// ---------------------------------------------------------------- the dispatch, combination by combination
TEST(RunScenario, HeavyTopModifiedHhtMatchesTheCoreOverManyChunks) {
  // 3 bodies: the first chunk is 10⁴/3 = 3333 steps, so 5000 steps span at least two chunks, and
  // stride 8 does not divide the first.
  ScratchDirectory dir;
  const std::string text = heavy_top_model +
                           "[integrator]\nmethod = 'modified_hht'\nalpha = -0.2\ninertia_shift = true\n" +
                           time_and_output(1e-4, 0.5, 8);
  const RunResult r = run(text, dir.file("out.h5"));
  EXPECT_EQ(r.steps, 5000);
  EXPECT_EQ(r.samples, 626);
  EXPECT_EQ(r.failures(), 0);
  expect_file_matches_core(dir.file("out.h5"), ModifiedHht<HeavyTop<double>>(hht_settings(-0.2, true)), heavy_top(),
                           heavy_top_omegas, 0.0, 1e-4, 5000, 8);
}

TEST(RunScenario, HeavyTopClassicalHhtMatchesTheCore) {
  ScratchDirectory dir;
  const std::string text = heavy_top_model + "[integrator]\nmethod = 'hht'\nalpha = -0.1\ninertia_shift = true\n" +
                           time_and_output(1e-4, 0.04, 8);
  run(text, dir.file("out.h5"));
  expect_file_matches_core(dir.file("out.h5"), Hht<HeavyTop<double>>(hht_settings(-0.1, true)), heavy_top(),
                           heavy_top_omegas, 0.0, 1e-4, 400, 8);
}

TEST(RunScenario, HeavyTopSimoVuQuocMatchesTheCore) {
  ScratchDirectory dir;
  const std::string text = heavy_top_model + "[integrator]\nmethod = 'simo_vu_quoc'\nalpha = -0.3\n" +
                           time_and_output(1e-4, 0.04, 4);
  run(text, dir.file("out.h5"));
  SimoVuQuocSettings<double> s;
  s.alpha = -0.3;
  expect_file_matches_core(dir.file("out.h5"), SimoVuQuoc<HeavyTop<double>>(s), heavy_top(), heavy_top_omegas, 0.0,
                           1e-4, 400, 4);
}

TEST(RunScenario, FreeBodyEveryMethodMatchesTheCore) {
  const std::string tail = time_and_output(0.01, 4.0, 5);
  {
    ScratchDirectory dir;
    run(free_body_model + "[integrator]\nmethod = 'hht'\nalpha = -0.2\n" + tail, dir.file("out.h5"));
    expect_file_matches_core(dir.file("out.h5"), Hht<FreeRigidBody<double>>(hht_settings(-0.2, false)), free_body(),
                             free_body_omegas, 0.0, 0.01, 400, 5);
  }
  {
    ScratchDirectory dir;
    // Newton settings reach the integrator: a tighter tolerance than the default.
    run(free_body_model + "[integrator]\nmethod = 'modified_hht'\nalpha = -0.05\nnewton_tolerance = 1e-12\n" + tail,
        dir.file("out.h5"));
    HhtSettings<double> s = hht_settings(-0.05, false);
    s.newton.tolerance = 1e-12;
    expect_file_matches_core(dir.file("out.h5"), ModifiedHht<FreeRigidBody<double>>(s), free_body(), free_body_omegas,
                             0.0, 0.01, 400, 5);
  }
  {
    ScratchDirectory dir;
    run(free_body_model + "[integrator]\nmethod = 'simo_vu_quoc'\nalpha = 0.0\n" + tail, dir.file("out.h5"));
    SimoVuQuocSettings<double> s;
    s.alpha = 0;
    expect_file_matches_core(dir.file("out.h5"), SimoVuQuoc<FreeRigidBody<double>>(s), free_body(), free_body_omegas,
                             0.0, 0.01, 400, 5);
  }
}

/// Runs the method of `integrator_toml` (plus `output_keys` in [output]) on the heavy-top ensemble
/// (400 steps of 1e-4, stride 4) or the free-body ensemble (400 steps of 0.01, stride 5), whichever
/// the integrator's model is, and compares the file with `integrator` run directly.
template <class Integrator>
void expect_run_matches_core(const std::string& integrator_toml, const Integrator& integrator,
                             const std::vector<std::string>& optional = {}, const std::string& output_keys = "") {
  constexpr bool top = std::is_same_v<typename Integrator::ModelType, HeavyTop<double>>;
  const double h = top ? 1e-4 : 0.01;
  const int stride = top ? 4 : 5;
  ScratchDirectory dir;
  const RunResult r = run((top ? heavy_top_model : free_body_model) + "[integrator]\n" + integrator_toml + "\n" +
                              time_and_output(h, 400 * h, stride) + output_keys,
                          dir.file("out.h5"));
  EXPECT_EQ(r.failures(), 0);
  if constexpr (top)
    expect_file_matches_core(dir.file("out.h5"), integrator, heavy_top(), heavy_top_omegas, 0.0, h, 400, stride, optional);
  else
    expect_file_matches_core(dir.file("out.h5"), integrator, free_body(), free_body_omegas, 0.0, h, 400, stride, optional);
}

/// [output] channels: every channel of the model and the optional local error of Zupan3.
const std::string top_channels_with_local_error =
    "channels = ['quaternion', 'omega_body', 'energy', 'angular_momentum', 'constraint_violation', 'local_error']\n";
const std::string free_body_channels_with_local_error =
    "channels = ['quaternion', 'omega_body', 'position', 'velocity', 'energy', 'angular_momentum', "
    "'constraint_violation', 'local_error']\n";

TEST(RunScenario, Zupan3MatchesTheCoreWithItsLocalErrorOnRequest) {
  expect_run_matches_core("method = 'zupan3'", Zupan3<HeavyTop<double>>(), {"local_error"}, top_channels_with_local_error);
  expect_run_matches_core("method = 'zupan3'", Zupan3<FreeRigidBody<double>>(), {"local_error"},
                          free_body_channels_with_local_error);
  expect_run_matches_core("method = 'zupan3'", Zupan3<HeavyTop<double>>());  // not asked: no /local_error
  // The Newton keys reach the integrator.
  Zupan3Settings<double> s;
  s.newton.tolerance = 1e-13;
  s.newton.max_iterations = 20;
  expect_run_matches_core("method = 'zupan3'\nnewton_tolerance = 1e-13\nnewton_max_iterations = 20",
                          Zupan3<FreeRigidBody<double>>(s));
}

TEST(RunScenario, Zupan3LocalErrorScalesAsTheCubeOfTheStep) {
  // The estimate of docs/errata.md Z7 is O(h³): halving h divides the values at the same sample times by ~8.
  // Measured (heavy top, |Ω| up to 150 rad/s, t ∈ [0, 0.01]): 1.1e-9 .. 1.2e-8 rad at h = 1e-4; sum
  // over the samples at h = 2e-4 / sum at h = 1e-4 = 8.000.
  ScratchDirectory dir;
  const auto local_error = [&](double h, int stride) {
    run(heavy_top_model + "[integrator]\nmethod = 'zupan3'\n" + time_and_output(h, 0.01, stride) +
            top_channels_with_local_error,
        dir.file("out.h5"));
    return read_dataset(dir.file("out.h5"), "local_error").values;
  };
  const std::vector<double> fine = local_error(1e-4, 10), coarse = local_error(2e-4, 5);  // samples every 1e-3
  ASSERT_EQ(fine.size(), coarse.size());
  EXPECT_EQ(fine[0], 0.0) << "no step has ended at t_start";
  double sum_fine = 0, sum_coarse = 0, smallest = INFINITY, largest = 0;
  for (std::size_t k = 3; k < fine.size(); ++k) {  // 3 bodies per sample; sample 0 skipped
    sum_fine += fine[k], sum_coarse += coarse[k];
    smallest = std::min(smallest, fine[k]), largest = std::max(largest, fine[k]);
  }
  std::printf("h = 1e-4: local error %.3g .. %.3g rad; ratio h = 2e-4 / 1e-4: %.3f\n", smallest, largest,
              sum_coarse / sum_fine);
  EXPECT_GT(smallest, 0.0);
  EXPECT_NEAR(sum_coarse / sum_fine, 8.0, 0.5);
}

TEST(RunScenario, LieGroupSchemesMatchTheCore) {
  expect_run_matches_core("method = 'explicit_newmark_lie'", ExplicitNewmarkLie<HeavyTop<double>>());
  expect_run_matches_core("method = 'explicit_newmark_lie'", ExplicitNewmarkLie<FreeRigidBody<double>>());
  expect_run_matches_core("method = 'midpoint_lie'", MidpointLie<HeavyTop<double>>());
  LieGroupSettings<double> s;
  s.newton.tolerance = 1e-12;
  expect_run_matches_core("method = 'midpoint_lie'\nnewton_tolerance = 1e-12", MidpointLie<FreeRigidBody<double>>(s));
}

TEST(RunScenario, LivensSchemesMatchTheCoreWithTheGeneralizedEnergyAndMomentumMap) {
  const std::vector<std::string> energy = {"generalized_energy", "momentum_map"};
  expect_run_matches_core("method = 'livens_em'", LivensEm<HeavyTop<double>>(), energy);  // default reml
  expect_run_matches_core("method = 'livens_em'\nvariant = 'full'", LivensEm<FreeRigidBody<double>, LivensVariant::full>(),
                          energy);
  expect_run_matches_core("method = 'livens_em'\nvariant = 'nullspace'",
                          LivensEm<HeavyTop<double>, LivensVariant::nullspace>(), energy);
  expect_run_matches_core("method = 'livens_em'\nvariant = 'reml'", LivensEm<FreeRigidBody<double>>(), energy);
  expect_run_matches_core("method = 'livens_midpoint'", LivensMidpoint<HeavyTop<double>>(), energy);
  expect_run_matches_core("method = 'livens_midpoint'", LivensMidpoint<FreeRigidBody<double>>(), energy);
}

TEST(RunScenario, ExplicitSplittingsMatchTheCore) {
  SplittingSettings<double> second;
  second.order = 2;
  expect_run_matches_core("method = 'no_squish'", NoSquish<HeavyTop<double>>());  // default order 4
  expect_run_matches_core("method = 'no_squish'\norder = 2", NoSquish<FreeRigidBody<double>>(second));
  SplittingSettings<double> sixth;
  sixth.order = 6;
  expect_run_matches_core("method = 'symmetric_splitting'\norder = 6", SymmetricSplitting<HeavyTop<double>>(sixth));
  expect_run_matches_core("method = 'symmetric_splitting'", SymmetricSplitting<FreeRigidBody<double>>());
}

TEST(RunScenario, HamiltonianSchemesMatchTheCoreWithTheGeneralizedEnergy) {
  const std::vector<std::string> energy = {"generalized_energy"};
  expect_run_matches_core("method = 'hamiltonian_em'", HamiltonianEm<HeavyTop<double>>(), energy);
  expect_run_matches_core("method = 'hamiltonian_em'", HamiltonianEm<FreeRigidBody<double>>(), energy);
  expect_run_matches_core("method = 'hamiltonian_midpoint'", HamiltonianMidpoint<HeavyTop<double>>(), energy);
  HamiltonianSettings<double> s;
  s.newton.max_iterations = 25;
  expect_run_matches_core("method = 'hamiltonian_midpoint'\nnewton_max_iterations = 25",
                          HamiltonianMidpoint<FreeRigidBody<double>>(s), energy);
}

// ---------------------------------------------------------------- reproducibility and isolation
namespace {

/// `bodies` heavy tops (heavy_top_model's) with normally drawn spins, modified HHT with the shift.
std::string drawn_spin_tops(int bodies, double t_end) {
  const std::size_t at = heavy_top_model.find("size = 3");
  return heavy_top_model.substr(0, at) + "size = " + std::to_string(bodies) + heavy_top_model.substr(at + 8) + R"(
[[ensemble.random]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 100.0, 0.0]
stddev = [5.0, 20.0, 5.0]
seed = 5
[integrator]
method = "modified_hht"
inertia_shift = true
)" + time_and_output(1e-4, t_end, 3);
}

/// Every dataset `names` of two files bit for bit.
void expect_same_files(const std::string& a_file, const std::string& b_file, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const Dataset a = read_dataset(a_file, name), b = read_dataset(b_file, name);
    ASSERT_EQ(a.dims, b.dims) << name;
    int differing = 0;
    for (std::size_t k = 0; k < a.values.size(); ++k) differing += !same_bits(a.values[k], b.values[k]);
    EXPECT_EQ(differing, 0) << name << ": values differing, of " << a.values.size();
  }
}

const std::vector<std::string> every_dataset(std::begin(all_datasets), std::end(all_datasets));

}  // namespace

TEST(RunScenario, OneAndTwoThreadsWriteIdenticalFiles) {
  ScratchDirectory dir;
  const std::string text = drawn_spin_tops(64, 0.03);
  const RunResult one = run(text, dir.file("one.h5"), 1), two = run(text, dir.file("two.h5"), 2);
  EXPECT_EQ(one.threads, 1);
  EXPECT_EQ(two.threads, 2);
  EXPECT_EQ(one.bodies, 64);
  expect_same_files(dir.file("one.h5"), dir.file("two.h5"), every_dataset);
}

namespace {

/// The GPU's queue on the CPU (Ensemble::launch/complete, as cuda::CudaEnsemble): launch() only
/// records the request and complete() carries it out, so that a run loop that handed a window to
/// the writer before its complete(), or launched into a buffer the writer still held, would write
/// samples that are not the run's. Host buffers start filled with a value no run produces.
class DeferredEnsemble final : public Ensemble {
 public:
  /// `most_in_flight` counts the launches in flight at most; `stop`, when not null, is set at
  /// launch `stop_at` (as a signal would be).
  DeferredEnsemble(std::unique_ptr<Ensemble> inner, int* most_in_flight, volatile std::sig_atomic_t* stop = nullptr,
                   int stop_at = 0)
      : inner_(std::move(inner)), most_in_flight_(most_in_flight), stop_(stop), stop_at_(stop_at) {}

  void initialize(const SampleView<double>& out) override { inner_->initialize(out); }
  void advance(index_t steps, const SampleView<double>& out) override {
    launch(steps, out);
    while (!queue_.empty()) complete();
  }
  void launch(index_t steps, const SampleView<double>& out) override {
    if (queue_.size() == 2) throw std::logic_error("a third launch in flight");
    queue_.push_back({steps, out});
    *most_in_flight_ = std::max(*most_in_flight_, int(queue_.size()));
    if (stop_ && ++launches_ == stop_at_) *stop_ = 1;
  }
  void complete() override {
    if (queue_.empty()) return;
    const auto [steps, out] = queue_.front();
    queue_.pop_front();
    inner_->advance(steps, out);
  }
  bool queues() const override { return true; }
  HostBuffer host_buffer(std::size_t count) const override {
    HostBuffer b = inner_->host_buffer(count);
    std::fill(b.get(), b.get() + count, -12345.0);
    return b;
  }
  const std::vector<Status>& status() const override { return inner_->status(); }
  const std::vector<index_t>& newton_iterations() const override { return inner_->newton_iterations(); }
  const std::vector<index_t>& failed_step() const override { return inner_->failed_step(); }
  StepRecords step_records() const override { return inner_->step_records(); }
  EnsembleState save() const override {
    if (!queue_.empty()) throw std::logic_error("save with launches in flight");
    return inner_->save();
  }
  void restore(const EnsembleState& state) override { inner_->restore(state); }
  bool attach_statistics(cuda::DeviceStatistics*) override { return false; }
  index_t steps_done() const override { return inner_->steps_done(); }
  bool translates() const override { return inner_->translates(); }
  StateStorage storage() const override { return inner_->storage(); }
  const StateLayout& layout() const override { return inner_->layout(); }
  void observe(const SampleView<double>& out) const override { inner_->observe(out); }
  void kinematics(double* q, double* w, double* x, double* v) const override { inner_->kinematics(q, w, x, v); }

 private:
  std::unique_ptr<Ensemble> inner_;
  std::deque<std::pair<index_t, SampleView<double>>> queue_;
  int* most_in_flight_;
  volatile std::sig_atomic_t* stop_;
  int stop_at_, launches_ = 0;
};

}  // namespace

TEST(RunScenario, QueuedLaunchesWriteTheFileOfAdvancesThatWait) {
  // Trajectories only: the loop keeps two launches in flight, in short chunks (many windows, both
  // buffers in turn); with statistics reduced on the host it completes each launch at once (their
  // records are the window's). Either way the file is the plain run's, bit for bit.
  ScratchDirectory dir;
  const std::string text = drawn_spin_tops(40, 0.018);
  for (const std::string& scenario : {text, text + "[output.statistics]\nquantiles = [0.5]\n"}) {
    const Scenario sc = on_cpu(scenario);
    RunOptions options = in_chunks_of(7, dir.file("plain.h5"));
    run_scenario(sc, options);
    int most_in_flight = 0;
    options.output = dir.file("queued.h5");
    run_scenario(sc, options, [&](const Scenario& s, const BackendChoice& b) {
      return std::make_unique<DeferredEnsemble>(make_ensemble(s, b), &most_in_flight);
    });
    EXPECT_EQ(most_in_flight, sc.statistics ? 1 : 2);
    std::vector<std::string> names = every_dataset;
    if (sc.statistics) names.insert(names.end(), {"statistics/energy/mean", "statistics/energy/quantiles"});
    expect_same_files(dir.file("plain.h5"), dir.file("queued.h5"), names);
  }
}

TEST(RunScenario, InterruptedWithLaunchesInFlightResumesToTheSameFile) {
  // The stop comes with two launches queued: both are completed and written, the checkpoint is
  // taken after them, and the resumed run ends with the uninterrupted run's file.
  ScratchDirectory dir;
  const std::string text = heavy_top_model + "[integrator]\nmethod = 'modified_hht'\ninertia_shift = true\n" +
                           time_and_output(1e-4, 0.02, 4);
  const Scenario sc = on_cpu(text);
  RunOptions options = in_chunks_of(5, dir.file("whole.h5"));
  run_scenario(sc, options);

  volatile std::sig_atomic_t stop = 0;
  int most_in_flight = 0;
  options.interrupt = &stop;
  options.output = dir.file("stopped.h5");
  const RunResult stopped = run_scenario(sc, options, [&](const Scenario& s, const BackendChoice& b) {
    return std::make_unique<DeferredEnsemble>(make_ensemble(s, b), &most_in_flight, &stop, 6);
  });
  ASSERT_TRUE(stopped.interrupted);
  EXPECT_EQ(most_in_flight, 2);
  EXPECT_EQ(stopped.steps_done, 6 * 5);  // the chunk that saw the stop and the one queued before it: all 6
  EXPECT_EQ(stopped.samples_written, 6 * 5 / 4 + 1);
  RunOptions rest = options;
  rest.interrupt = nullptr;
  rest.resume = true;
  const RunResult resumed = run_scenario(load_interrupted_scenario(dir.file("stopped.h5"), Backend::cpu), rest);
  EXPECT_FALSE(resumed.interrupted);
  expect_same_files(dir.file("whole.h5"), dir.file("stopped.h5"), every_dataset);
}

TEST(RunScenario, AFailingBodyGetsNanSamplesAndLeavesTheOthersUntouched) {
  // Body 1 is spun up by an absurd torque (5000 N·m on I_y = 2) until Newton fails at h = 0.01.
  const std::string head = R"(
[model]
type = "heavy_top"
inertia = [1.0, 2.0, 1.5]
[integrator]
method = "modified_hht"
[time]
dt = 0.01
t_end = 0.5
[output]
stride = 2
[ensemble]
)";
  const std::string with_failure = head + R"(size = 3
[[ensemble.override]]
body = 0
initial.omega_body = [0.3, 2.0, 0.2]
[[ensemble.override]]
body = 1
model.body_torque = [0.0, 5000.0, 0.0]
[[ensemble.override]]
body = 2
initial.omega_body = [0.1, -3.0, 0.5]
)";
  const std::string without = head + R"(size = 2
[[ensemble.override]]
body = 0
initial.omega_body = [0.3, 2.0, 0.2]
[[ensemble.override]]
body = 1
initial.omega_body = [0.1, -3.0, 0.5]
)";
  ScratchDirectory dir;
  const RunResult a = run(with_failure, dir.file("a.h5")), b = run(without, dir.file("b.h5"));
  ASSERT_EQ(a.failures(), 1);
  EXPECT_EQ(b.failures(), 0);
  EXPECT_NE(a.status[1], Status::ok);
  const index_t failed = a.failed_step[1];
  std::cout << "body 1: " << to_string(a.status[1]) << " at step " << failed << "\n";
  ASSERT_GT(failed, 0) << "the failure should come mid-run";
  ASSERT_LT(failed, 50);

  const Dataset status = read_dataset(dir.file("a.h5"), "status"), step = read_dataset(dir.file("a.h5"), "failed_step");
  EXPECT_EQ(status.values[1], double(static_cast<int>(a.status[1])));
  EXPECT_EQ(step.values[1], double(failed));
  EXPECT_EQ(step.values[0], -1.0);

  // Body 1: samples up to step `failed` (the state before the failing step) are finite, later ones NaN.
  for (const char* name : sampled_datasets) {
    const Dataset d = read_dataset(dir.file("a.h5"), name);
    const std::size_t nt = d.dims[0], per_body = d.values.size() / (nt * 3);
    for (std::size_t j = 0; j < nt; ++j)
      for (std::size_t c = 0; c < per_body; ++c) {
        const double v = d.values[(j * 3 + 1) * per_body + c];
        if (index_t(j) * 2 <= failed) EXPECT_TRUE(std::isfinite(v)) << name << " sample " << j;
        else EXPECT_TRUE(std::isnan(v)) << name << " sample " << j;
      }
  }
  // Bodies 0 and 2 of the run with the failure are bodies 0 and 1 of the run without it.
  for (const char* name : all_datasets) {
    if (std::string(name) == "time") continue;
    const Dataset da = read_dataset(dir.file("a.h5"), name), db = read_dataset(dir.file("b.h5"), name);
    const std::size_t rows = da.dims.size() == 1 ? 1 : da.dims[0];
    const std::size_t per_body = da.values.size() / (rows * 3);
    int differing = 0;
    for (std::size_t j = 0; j < rows; ++j)
      for (std::size_t c = 0; c < per_body; ++c) {
        differing += !same_bits(da.values[(j * 3 + 0) * per_body + c], db.values[(j * 2 + 0) * per_body + c]);
        differing += !same_bits(da.values[(j * 3 + 2) * per_body + c], db.values[(j * 2 + 1) * per_body + c]);
      }
    EXPECT_EQ(differing, 0) << name;
  }
}

// ---------------------------------------------------------------- the file itself
TEST(RunScenario, FileCarriesTheScenarioAndTheStatusCodes) {
  ScratchDirectory dir;
  const std::string text = heavy_top_model + "[integrator]\nmethod = 'simo_vu_quoc'\n" + time_and_output(1e-3, 0.01, 1);
  run(text, dir.file("out.h5"));
  using quatstep::testing::read_string_attribute;
  EXPECT_EQ(read_string_attribute(dir.file("out.h5"), "scenario"), text);
  EXPECT_EQ(read_string_attribute(dir.file("out.h5"), "quatstep_version"), version);
  EXPECT_EQ(read_string_attribute(dir.file("out.h5"), "method"), "simo_vu_quoc");
  EXPECT_EQ(read_string_attribute(dir.file("out.h5"), "model"), "heavy_top");
  EXPECT_EQ(read_string_attribute(dir.file("out.h5"), "dt"), std::to_string(1e-3));
  const std::string codes = read_string_attribute(dir.file("out.h5"), "codes", "status");
  EXPECT_EQ(codes.rfind("-1 missing (a merge without its shard), 0 ok, ", 0), 0u) << codes;
  for (int c = 0; c <= static_cast<int>(Status::invalid_input); ++c)
    EXPECT_NE(codes.find(std::to_string(c) + " " + to_string(static_cast<Status>(c))), std::string::npos) << codes;
  const Dataset it = read_dataset(dir.file("out.h5"), "newton_iterations");
  for (double x : it.values) EXPECT_GE(x, 10.0) << "at least one iteration per step over 10 steps";
}

TEST(RunScenario, UnwritableOutputFailsBeforeIntegration) {
  const std::string text = heavy_top_model + "[integrator]\nmethod = 'simo_vu_quoc'\n" + time_and_output(1e-4, 100.0, 1);
  try {
    run(text, "/nonexistent/dir/out.h5");  // 10⁶ steps: would take many seconds if it integrated first
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/out.h5: cannot create"), std::string::npos) << e.what();
  }
}
