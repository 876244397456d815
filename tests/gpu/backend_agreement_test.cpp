// The scenario path on both backends, in the build's own mode (fast unless QUATSTEP_STRICT_FP):
// for every model × method × precision a random ensemble runs 1000 steps through make_ensemble on
// the CPU and on the GPU, and every sampled channel must agree to the stated relative tolerance
// (double: 1e-12 of the channel's scale; float: 1e-3, float's round-off grown over 1000 steps of
// chaotic spinning bodies). The measured differences are printed per channel. Backend choice itself
// ("auto", "cuda", "cpu") is tested here too, and that part runs without a GPU, as does the check
// that g++ and nvcc objects lay the shared types out alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "gpu_test_support.hpp"
#include "kernels/device_array.cuh"
#include "../hdf5_read.hpp"
#include "kernels/shared_layout.hpp"
#include "random_ensemble.hpp"
#include "mechanism_ensemble.hpp"
#include "mechanism_run.hpp"
#include "run.hpp"

namespace quatstep {
namespace {

struct Outcome {
  std::vector<double> samples;
  std::vector<Status> status;
};

Outcome run_on(const Scenario& sc, Backend backend) {
  const index_t n = sc.ensemble_size;
  const int scalars = channel_scalars(sample_channels(sc));
  const std::unique_ptr<Ensemble> e = make_ensemble(sc, choose_backend(backend));
  Outcome o{std::vector<double>(sc.samples() * scalars * n), {}};
  const SampleView<double> all{o.samples.data(), n, 0, sc.samples(), sc.stride, scalars};
  e->initialize(all);
  e->advance(sc.time.steps, all);
  o.status = e->status();
  return o;
}

/// Largest |cpu − gpu| of each sampled scalar over all samples and the bodies ok on both backends,
/// relative to its largest |value| (angles, rates, energies have their own scales), or to 1 for the
/// channels that are round-off by nature — the constraint violation ‖q‖² − 1 and Zupan3's local error
/// estimate, whose own scale is ~1e-16 and whose relative difference under FMA is O(1).
std::vector<double> relative_differences(const Scenario& sc, const Outcome& a, const Outcome& b) {
  const index_t n = sc.ensemble_size;
  std::vector<bool> unit_scales;
  for (const Channel& ch : sample_channels(sc))
    for (int k = 0; k < ch.size; ++k)
      unit_scales.push_back(std::string(ch.name) == "constraint_violation" || std::string(ch.name) == "local_error");
  const int scalars = int(unit_scales.size());
  std::vector<double> worst(scalars, 0.0);
  for (int c = 0; c < scalars; ++c) {
    const bool unit_scale = unit_scales[c];
    double scale = unit_scale ? 1.0 : 0.0, diff = 0;
    for (index_t j = 0; j < sc.samples(); ++j)
      for (index_t i = 0; i < n; ++i) {
        if (a.status[i] != Status::ok || b.status[i] != Status::ok) continue;
        const std::size_t k = (j * scalars + c) * n + i;
        if (std::isnan(a.samples[k]) && std::isnan(b.samples[k])) continue;
        scale = std::max(scale, std::abs(a.samples[k]));
        diff = std::isnan(b.samples[k]) || std::isnan(a.samples[k]) ? INFINITY
                                                                     : std::max(diff, std::abs(a.samples[k] - b.samples[k]));
      }
    if (scale > 0) worst[c] = diff / scale;
  }
  return worst;
}

class BackendAgreement
    : public ::testing::TestWithParam<testing::EveryCase> {};

// Fast mode (FMA in the kernels, none on the CPU), measured on an H100 (2026-11-24), worst channel:
//   double: ≤ 2.7e-13 for every method except the reduced Livens forms (REML, null space, Livens
//     midpoint): 6e-12 on the heavy top, 1.2e-9 on the free body. Their unknowns are positions, solved
//     to the Newton tolerance 1e-12, and the rates are read back as differences over h = 1e-3: FMA
//     moves the stopping point within that tolerance, amplified by 1/h. The full form (13 unknowns,
//     rates among them) agrees to 8e-14. Strict mode agrees bit for bit (strict_agreement_test.cu).
//   float: ≤ 1.7e-4 except the same reduced Livens forms (2.3e-3 REML, 3.1e-3 midpoint, 8.9e-3 null
//     space); the same bodies fail on both backends except for the HHT family (40–59 of 1000 bodies:
//     float Newton at the margin of its 1e-3 tolerance decides by the last bit) and the Hamiltonian
//     schemes on the free body (15–18).
// Asserted: double 1e-12 (2e-9 for the reduced Livens forms) and the same failing bodies; float 1e-3
// (1e-2 for the reduced Livens forms) and at most 8 % of the bodies with a different status.
bool rates_from_positions(const testing::IntegratorCase& c) {
  const std::string name = c.name;
  return name == "livens_em_reml" || name == "livens_em_nullspace" || name == "livens_midpoint";
}

TEST_P(BackendAgreement, RandomEnsembleAgreesToTheStatedTolerance) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const auto [integrator, model, precision] = GetParam();
  if (!testing::runs_on(integrator, model)) GTEST_SKIP() << integrator.name << " does not run on " << testing::model_name(model);
  const Scenario sc =
      parse_scenario(testing::random_ensemble_toml(integrator, model, 1000, 1000, 100, precision), "random.toml");
  const Outcome cpu = run_on(sc, Backend::cpu), gpu = run_on(sc, Backend::cuda);
  const bool is_double = sc.precision == Precision::double_precision;
  const double tolerance = (is_double ? 1e-12 : 1e-3) * (rates_from_positions(integrator) ? (is_double ? 2000 : 10) : 1);
  const std::vector<double> worst = relative_differences(sc, cpu, gpu);
  index_t status_differs = 0;
  for (index_t i = 0; i < sc.ensemble_size; ++i) status_differs += cpu.status[i] != gpu.status[i];
  std::cout << "[ measured ] " << integrator.name << " " << testing::model_name(model) << " " << precision
            << ": after 1000 steps, bodies whose status differs " << status_differs << ", worst relative difference per channel";
  for (double w : worst) std::cout << " " << w;
  std::cout << "\n";
  for (std::size_t c = 0; c < worst.size(); ++c) EXPECT_LE(worst[c], tolerance) << "sampled scalar " << c;
  if (is_double) EXPECT_EQ(status_differs, 0);
  else EXPECT_LE(status_differs, sc.ensemble_size * 8 / 100);
}

INSTANTIATE_TEST_SUITE_P(EveryIntegrator, BackendAgreement, testing::every_case(), testing::every_case_name);

/// `toml` run by `quatstep run`'s loop on `backend` into dir/<name>.h5.
std::string run_file(const std::string& toml, Backend backend, const testing::ScratchDirectory& dir, const std::string& name) {
  Scenario sc = parse_scenario(toml, name + ".toml");
  sc.backend = backend;
  RunOptions options;
  options.output = dir.file(name + ".h5");
  options.progress = ProgressMode::never;
  const RunResult r = run_scenario(sc, options);
  EXPECT_EQ(r.backend.backend, backend);
  return options.output;
}

/// Largest |a − b| of two datasets of the same shape (NaN where both are NaN), over max |a|, or
/// absolute for the quantities that are round-off by nature (unit_scale: residuals, drifts).
double difference(const testing::Dataset& a, const testing::Dataset& b, bool unit_scale = false) {
  EXPECT_EQ(a.dims, b.dims);
  double scale = unit_scale ? 1.0 : 0.0, diff = 0;
  for (std::size_t k = 0; k < std::min(a.values.size(), b.values.size()); ++k) {
    if (std::isnan(a.values[k]) && std::isnan(b.values[k])) continue;
    if (!unit_scale) scale = std::max(scale, std::abs(a.values[k]));
    diff = std::max(diff, std::isnan(a.values[k] - b.values[k]) ? INFINITY : std::abs(a.values[k] - b.values[k]));
  }
  return scale > 0 ? diff / scale : diff;
}

// A statistics-only study on the GPU: the statistics are reduced there (kernels/device_statistics.hpp,
// whose bitwise identity with the CPU's reduction test_gpu_statistics checks) and no sample leaves
// the device. Against the CPU run in the build's mode: the same healthy bodies per sample, and every
// statistic within 1e-9 of its column's scale (the trajectories differ by FMA round-off), or within
// 1e-9 absolutely for the drifts and the constraint residual, which are themselves round-off (on an
// H200 their relative differences reached 0.5 for the residual, of values ~1e-16).
TEST(DeviceStatisticsRun, StatisticsOnlyStudyAgreesWithTheCpuRun) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const std::string toml = R"(
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
[integrator]
method = "modified_hht"
alpha = -0.2
inertia_shift = true
[time]
dt = 1e-4
t_end = 0.05
[ensemble]
size = 3000
[[ensemble.random]]
key = "model.inertia"
distribution = "normal"
mean = [0.234375, 0.46875, 0.234375]
stddev = [0.0046875, 0.009375, 0.0046875]
invalid = "redraw"
seed = 1
[[ensemble.random]]
key = "initial.omega_body"
distribution = "axis_magnitude"
axis = [0.0, 150.0, -4.61538]
half_angle = 0.0174533
magnitude = { distribution = "normal", mean = 150.071, stddev = 5.0 }
seed = 2
[output]
stride = 50
trajectories = "none"
[[output.statistics.observable]]
name = "axis_tilt"
kind = "nutation"
body_axis = [0.0, 1.0, 0.0]
spatial_axis = [0.0, 0.0, 1.0]
bins = 30
low = 1.0
high = 2.2
)";
  const testing::ScratchDirectory dir;
  const std::string cpu = run_file(toml, Backend::cpu, dir, "cpu"), gpu = run_file(toml, Backend::cuda, dir, "gpu");
  int compared = 0;
  for (const std::string& name : testing::datasets(cpu)) {  // names as H5Ovisit gives them: "statistics/…"
    if (name.rfind("statistics/", 0) != 0) continue;
    const testing::Dataset a = testing::read_dataset(cpu, name), b = testing::read_dataset(gpu, name);
    const bool counted = name.find("/count") != std::string::npos || name.find("/histogram") != std::string::npos ||
                         name.find("/nonfinite") != std::string::npos;
    const bool round_off = name.find("drift") != std::string::npos || name.find("constraint_violation") != std::string::npos;
    if (name.find("/count") != std::string::npos) EXPECT_EQ(a.values, b.values) << name;
    else if (!counted) EXPECT_LE(difference(a, b, round_off), 1e-9) << name;
    ++compared;
  }
  EXPECT_GT(compared, 50);
}

// A caller stepping a GPU ensemble itself (Ensemble::storage, observe, kinematics; quatstep.Ensemble
// with backend "cuda"): the state stays in device memory, at one address, and what is read from it
// there is the ensemble's own checkpoint; observe() and kinematics() agree with the CPU ensemble's
// to the backend tolerance above (1e-12 in double).
TEST(EnsembleAccess, GpuStateStaysInDeviceMemoryAndReadsAsTheCpus) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const testing::IntegratorCase integrator = testing::default_case("modified_hht");
  const Scenario sc = parse_scenario(
      testing::random_ensemble_toml(integrator, testing::model_index("heavy_top"), 500, 200, 200), "random.toml");
  const index_t n = sc.ensemble_size;
  const int scalars = channel_scalars(sample_channels(sc));
  const SampleView<double> none{nullptr, n, 0, 0, 1, scalars};
  const std::unique_ptr<Ensemble> cpu = make_ensemble(sc, choose_backend(Backend::cpu)),
                                  gpu = make_ensemble(sc, choose_backend(Backend::cuda));
  cpu->initialize(none), gpu->initialize(none);
  cpu->advance(sc.time.steps, none), gpu->advance(sc.time.steps, none);

  const StateStorage storage = gpu->storage();
  cudaPointerAttributes where{};
  ASSERT_EQ(cudaPointerGetAttributes(&where, storage.data), cudaSuccess);
  EXPECT_EQ(where.type, cudaMemoryTypeDevice);
  EXPECT_EQ(where.device, storage.device);
  std::vector<double> on_device(std::size_t(storage.components) * n);
  ASSERT_EQ(cudaMemcpy(on_device.data(), storage.data, on_device.size() * sizeof(double), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_TRUE(testing::same_bits(on_device, gpu->save().state, "device storage vs checkpoint"));

  std::vector<double> a(std::size_t(scalars) * n), b(a.size());
  cpu->observe(SampleView<double>{a.data(), n, sc.time.steps, 1, 1, scalars});
  gpu->observe(SampleView<double>{b.data(), n, sc.time.steps, 1, 1, scalars});
  double scale = 0, diff = 0;
  for (std::size_t k = 0; k < a.size(); ++k) scale = std::max(scale, std::abs(a[k])), diff = std::max(diff, std::abs(a[k] - b[k]));
  EXPECT_LE(diff, 1e-12 * scale);
  std::vector<double> qa(4 * n), qb(4 * n);
  cpu->kinematics(qa.data(), nullptr, nullptr, nullptr);
  gpu->kinematics(qb.data(), nullptr, nullptr, nullptr);
  for (std::size_t k = 0; k < qa.size(); ++k) ASSERT_NEAR(qa[k], qb[k], 1e-12) << k;

  gpu->advance(10, none);
  EXPECT_EQ(gpu->storage().data, storage.data);
  EXPECT_EQ(gpu->steps_done(), sc.time.steps + 10);
}

// Adaptive steps ([time] adaptive = true) through the scenario path on the GPU: trajectories and
// step records against the CPU run in the build's mode (strict mode: bit for bit, adaptive_agreement_test.cu).
TEST(AdaptiveRun, GpuRunAgreesWithTheCpuRun) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const std::string toml = testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/adaptive_heavy_tops.toml");
  const testing::ScratchDirectory dir;
  const std::string with_end = toml.substr(0, toml.find("t_end = 1.0")) + "t_end = 0.2" +
                               toml.substr(toml.find("t_end = 1.0") + std::string("t_end = 1.0").size());
  const std::string cpu = run_file(with_end, Backend::cpu, dir, "cpu"), gpu = run_file(with_end, Backend::cuda, dir, "gpu");
  EXPECT_LE(difference(testing::read_dataset(cpu, "/quaternion"), testing::read_dataset(gpu, "/quaternion")), 1e-8);
  EXPECT_LE(difference(testing::read_dataset(cpu, "/omega_body"), testing::read_dataset(gpu, "/omega_body")), 1e-8);
  const testing::Dataset a = testing::read_dataset(cpu, "/accepted_steps"), b = testing::read_dataset(gpu, "/accepted_steps");
  double steps_a = 0, steps_b = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) steps_a += a.values[i], steps_b += b.values[i];
  std::cout << "[ measured ] adaptive heavy tops to t = 0.2: accepted steps cpu " << steps_a << ", gpu " << steps_b << "\n";
  EXPECT_GT(steps_a, 0);
  EXPECT_LE(std::abs(steps_a - steps_b), 1e-3 * steps_a);
}

// Mechanism scenarios on the GPU (kernels/cuda_mechanisms.cuh) through `quatstep run`'s mechanism
// path, in the build's mode, for every method of the mechanism registry: the slider-crank sweep
// (8 mechanisms, a spring each) to t = 0.2. Against the CPU: the same statuses and Newton iteration
// counts within 1 %, every kinematic and mechanism-wide channel within 1e-8 of its scale, the
// residuals within 1e-10 absolute (round-off by nature); the file says which device ran it.
TEST(MechanismBackends, SweptSliderCranksAgreeOnCpuAndGpuForEveryMethod) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  testing::ScratchDirectory dir;
  const std::string text = testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml");
  const std::size_t integrator = text.find("[integrator]"), time = text.find("[time]");
  ASSERT_NE(integrator, std::string::npos);
  ASSERT_NE(time, std::string::npos);
  for (const MechanismMethodView& view : mechanism_method_views()) {
    SCOPED_TRACE(view.info.name);
    const std::string toml = text.substr(0, integrator) + "[integrator]\nmethod = \"" + view.info.name + "\"\n" +
                             text.substr(time);
    std::map<Backend, MechanismRunResult> results;
    for (const Backend backend : {Backend::cpu, Backend::cuda}) {
      ScenarioOverrides o;
      o.backend = backend;
      o.t_end = 0.2;
      RunOptions options;
      options.output = dir.file(std::string(view.info.name) + (backend == Backend::cpu ? "_cpu.h5" : "_gpu.h5"));
      results[backend] = run_mechanism_scenario(parse_mechanism_scenario(toml, "sweep.toml", o), options);
      EXPECT_EQ(results[backend].backend.backend, backend);
    }
    const MechanismRunResult &cpu = results[Backend::cpu], &gpu = results[Backend::cuda];
    EXPECT_EQ(cpu.status, gpu.status);
    EXPECT_EQ(cpu.failures(), 0);
    EXPECT_NEAR(double(gpu.newton_iterations), double(cpu.newton_iterations), 0.01 * double(cpu.newton_iterations));
    EXPECT_EQ(testing::read_string_attribute(gpu.output_file, "backend").rfind("cuda: ", 0), 0u);
    for (const char* name : {"quaternion", "position", "omega_body", "velocity", "energy", "linear_momentum",
                             "angular_momentum", "position_residual", "velocity_residual"}) {
      const bool residual = std::string(name).find("residual") != std::string::npos;
      const double d = difference(testing::read_dataset(cpu.output_file, name),
                                  testing::read_dataset(gpu.output_file, name), residual);
      std::cout << "[ measured ] " << view.info.name << " /" << name << ": cpu vs gpu " << d
                << (residual ? " (absolute)\n" : " (of its scale)\n");
      EXPECT_LE(d, residual ? 1e-10 : 1e-8) << name;
    }
  }
}

/// The ensemble's every channel, one sample: [scalar][mechanism] with the channels' names per scalar.
std::map<std::string, testing::Dataset> observed(const MechanismEnsemble& e) {
  const index_t n = e.mechanisms();
  const int scalars = channel_scalars(e.channels());
  std::vector<double> buffer(std::size_t(scalars * n));
  e.observe(SampleView<double>{buffer.data(), n, 0, 1, 1, scalars});
  std::map<std::string, testing::Dataset> channels;
  std::size_t offset = 0;
  for (const Channel& c : e.channels()) {
    const std::size_t size = std::size_t(c.size) * std::size_t(n);
    channels[c.name].dims = {std::size_t(c.size), std::size_t(n)};
    channels[c.name].values.assign(buffer.begin() + std::ptrdiff_t(offset), buffer.begin() + std::ptrdiff_t(offset + size));
    offset += size;
  }
  return channels;
}

// MechanismEnsemble on the GPU (MechanismEnsembleSpec::backend; host/mechanism_run.cpp) against the
// CPU's, in the build's mode, for the HHT and a Livens method: the slider-crank sweep made
// consistent with a caller's loads, advanced 40 steps in two calls with samples, then 40 coupled
// steps with loads that change every step. The same statuses and Newton iterations within 1 %, the
// samples and every channel of the final state within the tolerances of the run's test above
// (strict mode: the same functions, advance_mechanism_with_loads, so the same bits).
TEST(MechanismBackends, CoupledEnsembleStepsOnTheGpuAsOnTheCpu) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const std::string text = testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml");
  const std::size_t integrator = text.find("[integrator]"), time = text.find("[time]");
  ASSERT_NE(integrator, std::string::npos);
  ASSERT_NE(time, std::string::npos);
  for (const char* method : {"modified_hht", "livens_em"}) {
    SCOPED_TRACE(method);
    const MechanismScenario sc = parse_mechanism_scenario(
        text.substr(0, integrator) + "[integrator]\nmethod = \"" + method + "\"\n" + text.substr(time), "sweep.toml");
    std::map<Backend, std::unique_ptr<MechanismEnsemble>> e;
    std::map<Backend, std::vector<double>> samples;
    for (const Backend backend : {Backend::cpu, Backend::cuda}) {
      MechanismEnsembleSpec spec;
      spec.backend = backend;
      e[backend] = make_mechanism_ensemble(sc, spec);
      MechanismEnsemble& m = *e[backend];
      const index_t n = m.mechanisms();
      const int scalars = channel_scalars(m.channels());
      std::vector<double> loads(std::size_t(n * m.bodies() * 3));
      const auto vary = [&](int k) {
        for (std::size_t j = 0; j < loads.size(); ++j) loads[j] = 0.5 * std::sin(0.37 * double(j) + 0.11 * k);
      };
      vary(0);
      m.initialize(MechanismLoads{loads.data(), nullptr, nullptr});
      // Samples 1 … 4 (every 10 steps) over two calls: sample 1 in the first, 2 … 4 in the second.
      samples[backend].assign(std::size_t(4 * scalars * n), 0.0);
      m.advance(15, SampleView<double>{samples[backend].data(), n, 1, 1, 10, scalars});
      m.advance(25, SampleView<double>{samples[backend].data() + scalars * n, n, 2, 3, 10, scalars});
      for (int k = 1; k <= 40; ++k) {
        vary(k);
        m.step(MechanismLoads{loads.data(), k % 2 ? loads.data() : nullptr, nullptr});
      }
    }
    const MechanismEnsemble &cpu = *e[Backend::cpu], &gpu = *e[Backend::cuda];
    EXPECT_EQ(gpu.backend().rfind("cuda: ", 0), 0u) << gpu.backend();
    EXPECT_EQ(cpu.status(), gpu.status());
    EXPECT_EQ(std::count(cpu.status().begin(), cpu.status().end(), Status::ok), cpu.mechanisms());
    for (index_t i = 0; i < cpu.mechanisms(); ++i)
      EXPECT_NEAR(double(gpu.newton_iterations()[i]), double(cpu.newton_iterations()[i]),
                  0.01 * double(cpu.newton_iterations()[i]));
    const double d = difference({{}, samples[Backend::cpu]}, {{}, samples[Backend::cuda]});
    std::cout << "[ measured ] " << method << " samples of advance(): cpu vs gpu " << d << " (of their scale)\n";
    EXPECT_LE(d, 1e-8);
    const auto a = observed(cpu), b = observed(gpu);
    for (const auto& [name, values] : a) {
      const bool residual = name.find("residual") != std::string::npos;
      const double dc = difference(values, b.at(name), residual);
      std::cout << "[ measured ] " << method << " " << name << " after the coupled steps: cpu vs gpu " << dc << "\n";
      EXPECT_LE(dc, residual ? 1e-10 : 1e-8) << name;
    }
  }
}

// Loads in device memory (MechanismLoads::device; CuPy arrays in Python): the GPU ensemble reads
// them in place and steps as with the same loads from the host, bit for bit (the same kernel on the
// same values); a value that is not finite is found on the GPU and named as on the host, before any
// mechanism steps; a CPU ensemble refuses them.
TEST(MechanismBackends, DeviceLoadsStepAsHostLoads) {
  QUATSTEP_SKIP_WITHOUT_GPU();
  const MechanismScenario sc = parse_mechanism_scenario(
      testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml"), "sweep.toml");
  MechanismEnsembleSpec spec;
  spec.backend = Backend::cuda;
  const std::unique_ptr<MechanismEnsemble> from_host = make_mechanism_ensemble(sc, spec),
                                           from_device = make_mechanism_ensemble(sc, spec);
  const index_t n = from_host->mechanisms();
  std::vector<double> loads(std::size_t(n * from_host->bodies() * 3));
  cuda::DeviceArray<double> on_device(loads.size());
  ASSERT_EQ(from_host->backend().rfind("cuda: ", 0), 0u) << from_host->backend();
  int current = 0;
  cuda::check(cudaGetDevice(&current), "cudaGetDevice");
  for (int k = 0; k < 30; ++k) {
    for (std::size_t j = 0; j < loads.size(); ++j) loads[j] = 0.5 * std::sin(0.37 * double(j) + 0.11 * k);
    on_device.upload(loads);
    from_host->step(MechanismLoads{loads.data(), nullptr, loads.data()});
    from_device->step(MechanismLoads{on_device.data(), nullptr, on_device.data(), current});
  }
  const auto a = observed(*from_host), b = observed(*from_device);
  for (const auto& [name, values] : a) EXPECT_TRUE(testing::same_bits(values.values, b.at(name).values, name.c_str()));

  loads[7] = std::nan("");  // mechanism 0, body 2, component 1
  on_device.upload(loads);
  const index_t steps = from_device->steps_done();
  try {
    from_device->step(MechanismLoads{nullptr, nullptr, on_device.data(), current});
    ADD_FAILURE() << "a NaN load stepped";
  } catch (const ScenarioError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("mechanism 0, body '" + sc.mechanism.bodies[2].name + "': spatial_torque[1] = nan"),
              std::string::npos) << message;
  }
  EXPECT_EQ(from_device->steps_done(), steps);

  spec.backend = Backend::cpu;
  const std::unique_ptr<MechanismEnsemble> cpu = make_mechanism_ensemble(sc, spec);
  EXPECT_THROW(cpu->step(MechanismLoads{on_device.data(), nullptr, nullptr, current}), std::invalid_argument);
}

TEST(SharedLayout, GxxAndNvccObjectsLayOutTheSharedTypesAlike) {  // runs without a GPU too
  const cuda::SharedLayout here = cuda::shared_layout_here(), nvcc = cuda::shared_layout_in_nvcc_objects();
  constexpr std::size_t types = std::size(cuda::shared_layout_types);
  for (std::size_t k = 0; k < types; ++k) {
    EXPECT_EQ(here[k], nvcc[k]) << "sizeof(" << cuda::shared_layout_types[k] << ") in g++ and nvcc objects";
    EXPECT_EQ(here[types + k], nvcc[types + k]) << "alignof(" << cuda::shared_layout_types[k] << ")";
  }
}

TEST(BackendChoice, CpuIsAlwaysAvailable) {
  const BackendChoice c = choose_backend(Backend::cpu);
  EXPECT_EQ(c.backend, Backend::cpu);
  EXPECT_EQ(c.description, "cpu");
}

TEST(BackendChoice, AutoPicksTheGpuExactlyWhenOneIsUsableAndSaysWhich) {
  const BackendChoice c = choose_backend(Backend::automatic);
  const std::string reason = cuda::device_unusable_reason();
  if (reason.empty()) {
    EXPECT_EQ(c.backend, Backend::cuda);
    EXPECT_EQ(c.description.rfind("cuda: ", 0), 0u) << c.description;
  } else {
    EXPECT_EQ(c.backend, Backend::cpu);
    EXPECT_EQ(c.description, "cpu (auto: " + reason + ")");
  }
}

TEST(BackendChoice, CudaWithoutAUsableDeviceIsAnErrorThatSaysWhy) {
  const std::string reason = cuda::device_unusable_reason();
  if (reason.empty()) GTEST_SKIP() << "a GPU is usable here; the error path needs a machine without one";
  try {
    choose_backend(Backend::cuda);
    FAIL() << "backend cuda accepted without a device";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "backend \"cuda\" requested, but " + reason);
  }
}

}  // namespace
}  // namespace quatstep
