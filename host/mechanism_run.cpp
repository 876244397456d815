// The CPU run of a mechanism scenario (mechanism_run.hpp): build, assemble, initialise, step in
// windows of samples, write each window to the run's output (the HDF5 file or memory).
#include "mechanism_run.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "hdf5_output.hpp"
#include "quatstep/config.hpp"
#include "quatstep/mechanism/channels.hpp"

namespace quatstep {

std::vector<Channel> mechanism_channels(const MechanismDescription& d, std::vector<std::string>& docs,
                                        const MechanismMethodView& method) {
  const int nb = int(d.bodies.size());
  std::string names;
  for (const MechanismBodySpec& b : d.bodies) names += (names.empty() ? "'" : ", '") + b.name + "'";
  docs.clear();
  for (const mechanism::MechanismChannel& c : mechanism::mechanism_channels)
    if (c.per_body) docs.push_back(std::string(c.channel.doc) + ", per body (" + names + ") in that order");
  std::vector<Channel> channels;
  std::size_t doc = 0;
  for (const mechanism::MechanismChannel& c : mechanism::mechanism_channels) {
    Channel channel = c.channel;
    if (c.per_body) channel.size *= nb, channel.doc = docs[doc++].c_str();
    channels.push_back(channel);
  }
  channels.push_back(Channel{"sample_newton_iterations", 1, "Newton iterations since the previous sample", false});
  channels.insert(channels.end(), method.channels.begin(), method.channels.end());
  return channels;
}

namespace {

using mechanism::AssemblyReport;
using mechanism::AssemblySettings;

/// Hands a sample's scalars to column i of a window: component c at sample[c·n + i].
struct SampleWriter {
  double* sample;
  index_t n, i, c = 0;
  void operator()(double x) { sample[(c++) * n + i] = x; }
  template <int N>
  void operator()(const Vec<double, N>& v) {
    for (int k = 0; k < N; ++k) (*this)(v[k]);
  }
};

/// Mechanism i's values at one sample, in the order of mechanism_channels (the mechanism's channels,
/// the iterations, the integrator's own).
template <class Integrator, class Mech>
void observe_sample(const Integrator& integrator, const Mech& m, const typename Integrator::State& s, double t,
                    index_t iterations, double* sample, index_t n, index_t i) {
  SampleWriter w{sample, n, i};
  mechanism::observe_mechanism(integrator, m, s, t, w);
  w(double(iterations));
  if constexpr (has_integrator_channels<Integrator>::value) integrator.observe(m, s, w);
}

void fill_nan(double* sample, int scalars, index_t n, index_t i) {
  for (int c = 0; c < scalars; ++c) sample[c * n + i] = NAN;
}

/// The reject policy's verdict: empty when the input is on the constraints to the tolerance.
template <class Cap>
std::string rejection(const BuiltMechanism<Cap>& built, const AssemblyReport<double>& r,
                      const AssemblySettings<double>& s) {
  const std::string accepts = "; assemble = \"reject\" accepts at most assembly_tolerance = " + validation::format(s.tolerance);
  if (r.status != Status::ok) return built.builder.assembly_problem(built.mech, r, s);
  if (r.position_violation > s.tolerance)
    return "assembly: " + built.builder.row_label(built.mech, r.worst_row) + " is violated by " +
           validation::format(r.position_violation) + " (lengths relative to the mechanism size " +
           validation::format(built.mech.length_scale) + ")" + accepts;
  if (r.velocity_violation > s.tolerance)
    return "assembly: the velocity constraints are violated by " + validation::format(r.velocity_violation) +
           " (relative to the largest speed)" + accepts;
  return {};
}

/// The run with method Entry (a mechanism registry entry) on Mechanism<double, Cap>.
template <class Cap, class Entry>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open) {
  using Mech = mechanism::Mechanism<double, Cap>;
  using Integrator = typename Entry::template Integrator<Mech>;
  typename Entry::Settings settings;
  KeyAssigner assign(sc.settings);
  settings.describe(assign);
  const Integrator integrator(settings);
  using State = typename Integrator::State;
  const auto start = std::chrono::steady_clock::now();
  const index_t n = sc.runs();
  const double t0 = sc.time.t_start, h = sc.time.dt;
  const AssemblySettings<double> assembly{sc.mechanism.spec.assembly_tolerance, int(sc.mechanism.spec.assembly_iterations),
                                          sc.mechanism.spec.max_correction};

  MechanismRunResult r;
  r.mechanisms = n;
  r.bodies = int(sc.mechanism.bodies.size());
  r.steps = sc.time.steps;
  r.samples = sc.samples();
  r.status.assign(std::size_t(n), Status::ok);
  r.failed_step.assign(std::size_t(n), -1);
  r.iterations.assign(std::size_t(n), 0);
  r.position_correction.assign(std::size_t(n), 0.0);
  r.velocity_correction.assign(std::size_t(n), 0.0);

  // Build, assemble, initialise: every error before the file is created.
  std::vector<Mech> mechs(static_cast<std::size_t>(n));
  std::vector<State> states(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const index_t j = sc.mechanism_index(i);
    const std::string where = sc.source + ": " + (sc.ensemble_size > 1 ? "mechanism " + std::to_string(j) + ": " : "");
    BuiltMechanism<Cap> built = build_mechanism<Cap>(mechanism_description(sc, j), where);
    mechanism::MechanismKinematics<double, Cap::bodies> k = built.initial;
    if (sc.mechanism.spec.assemble == AssemblyPolicy::project) {
      const AssemblyReport<double> report = mechanism::assemble(built.mech, k, t0, assembly);
      if (report.status != Status::ok) throw ScenarioError(where + built.builder.assembly_problem(built.mech, report, assembly));
      r.position_correction[i] = report.position_correction;
      r.velocity_correction[i] = report.velocity_correction;
    } else {
      mechanism::MechanismKinematics<double, Cap::bodies> projected = k;
      const std::string problem = rejection(built, mechanism::assemble(built.mech, projected, t0, assembly), assembly);
      if (!problem.empty()) throw ScenarioError(where + problem);
    }
    mechs[i] = built.mech;
    const Status s = integrator.initialize(mechs[i], k, t0, states[i]);
    if (s != Status::ok) r.status[i] = s, r.failed_step[i] = 0;
  }

  std::vector<std::string> docs;
  OutputLayout layout;
  layout.bodies = n;
  layout.samples = r.samples;
  layout.channels = mechanism_channels(sc.mechanism, docs, sc.method_view());
  for (const Channel& c : layout.channels) layout.written.push_back(c.name);
  for (index_t i = 0; i < n; ++i) layout.trajectory_rows.push_back(i);
  layout.body_indices = sc.selection;
  const std::vector<std::pair<std::string, int>> varied = varied_keys(sc);
  for (const auto& [key, size] : varied) layout.parameters.push_back({key, size});
  OutputAttributes attributes;
  attributes.scenario = sc.text;
  attributes.method = std::string(sc.method_view().info.name) + " (" +
                      settings_summary(sc.method_view().keys, sc.settings) + ")";
  std::string names;
  for (const MechanismBodySpec& b : sc.mechanism.bodies) names += (names.empty() ? "'" : ", '") + b.name + "'";
  attributes.model = "mechanism: " + std::to_string(r.bodies) + " bodies (" + names + ")";
  attributes.backend = "cpu";
  attributes.precision = "double";
  attributes.dt = h;
  attributes.t_start = t0;
  attributes.t_end = sc.time.t_end;
  attributes.stride = sc.stride;
  attributes.trajectories = "all " + std::to_string(n) + " mechanisms" +
                            (sc.selection.empty() ? "" : " (of " + std::to_string(sc.ensemble_size) + ", /bodies)");
  const OpenedOutput opened = open(layout, attributes);
  if (opened.resume) throw std::logic_error("run_mechanism_scenario: a mechanism run does not resume");
  RunOutput& out = *opened.output;
  for (std::size_t p = 0; p < varied.size(); ++p) {
    std::vector<double> values;
    for (index_t i = 0; i < n; ++i) {
      MechanismDescription d = mechanism_description(sc, sc.mechanism_index(i));
      for_each_parameter(d, [&](const std::string& key, double* v, int size) {
        if (key == varied[p].first) values.insert(values.end(), v, v + size);
      });
    }
    out.write_parameters(int(p), 0, n, values.data());
  }

  // Windows of samples, each mechanism stepped through the window in one OpenMP iteration.
  const int scalars = channel_scalars(layout.channels);
  const index_t window = std::max<index_t>(
      1, options.max_chunk_steps > 0 ? options.max_chunk_steps / sc.stride : index_t(4e6) / (index_t(scalars) * n));
  std::vector<double> buffer, times;
  for (index_t first = 0; first < r.samples; first += window) {
    const index_t count = std::min(window, r.samples - first);
    buffer.assign(std::size_t(count * scalars * n), 0.0);
    times.resize(std::size_t(count));
    for (index_t j = 0; j < count; ++j) times[j] = t0 + double((first + j) * sc.stride) * h;
#pragma omp parallel for schedule(dynamic, 1)
    for (index_t i = 0; i < n; ++i) {
      for (index_t j = 0; j < count; ++j) {
        double* sample = buffer.data() + j * scalars * n;
        const index_t sample_index = first + j;
        index_t iterations = 0;
        if (sample_index > 0 && r.status[i] == Status::ok) {
          for (index_t k = (sample_index - 1) * sc.stride; k < sample_index * sc.stride; ++k) {
            const NewtonOutcome o = integrator.step(mechs[i], states[i], t0 + double(k) * h, h);
            iterations += o.iterations;
            if (o.status != Status::ok) {
              r.status[i] = o.status;
              r.failed_step[i] = k;
              break;
            }
          }
          r.iterations[i] += iterations;
        }
        if (r.status[i] == Status::ok) observe_sample(integrator, mechs[i], states[i], times[j], iterations, sample, n, i);
        else fill_nan(sample, scalars, n, i);
      }
    }
    out.write_samples(first, count, buffer.data(), times.data());
  }
  out.write_body_results(r.status, r.iterations, r.failed_step);
  out.write_body_values("assembly_position_correction", r.position_correction);
  out.write_body_values("assembly_velocity_correction", r.velocity_correction);
  out.mark_progress(true, r.samples);
  out.close();
  for (index_t it : r.iterations) r.newton_iterations += it;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

index_t MechanismRunResult::failures() const {
  return index_t(std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; }));
}

MechanismRunResult run_mechanism_scenario(const MechanismScenario& sc, const RunOptions& options) {
  const std::string path = options.output.empty() ? sc.output_file : options.output;
  MechanismRunResult r =
      run_mechanism_scenario(sc, options, [&](const OutputLayout& layout, const OutputAttributes& attributes) {
        return OpenedOutput{std::make_unique<Hdf5Output>(path, layout, attributes), std::nullopt};
      });
  r.output_file = path;
  return r;
}

MechanismRunResult run_mechanism_scenario(const MechanismScenario& sc, const RunOptions& options,
                                          const OpenOutput& open) {
  const int previous = omp_get_max_threads();
  if (options.threads > 0) omp_set_num_threads(options.threads);
  MechanismRunResult r;
  try {
    r = with_type(mechanism::MechanismMethods{}, sc.method, [&](auto tag) {
      using Entry = tag_type<decltype(tag)>;
      return fits_small_capacity(sc.mechanism) ? run_ensemble<mechanism::SmallCapacity, Entry>(sc, options, open)
                                               : run_ensemble<mechanism::LargeCapacity, Entry>(sc, options, open);
    });
  } catch (...) {
    omp_set_num_threads(previous);
    throw;
  }
  r.threads = omp_get_max_threads();
  omp_set_num_threads(previous);
  return r;
}

void print_mechanism_summary(std::ostream& os, const MechanismScenario& sc, const MechanismRunResult& r) {
  const auto row = [&](const char* name) -> std::ostream& { return os << "  " << std::left << std::setw(24) << name; };
  os << "quatstep " << version << ": mechanism, " << sc.method_view().info.name << " ("
     << settings_summary(sc.method_view().keys, sc.settings) << "), dt " << sc.time.dt << "\n";
  row("mechanisms") << r.mechanisms << " (" << r.bodies << " bodies each)\n";
  row("steps") << r.steps << " (t = " << sc.time.t_start << " .. " << sc.time.t_end << ")\n";
  row("backend") << "cpu, double\n";
  row("threads") << r.threads << "\n";
  row("wall time") << std::setprecision(3) << r.wall_seconds << " s\n";
  row("mechanism-steps/s") << std::setprecision(3)
                           << double(r.mechanisms) * double(r.steps) / std::max(r.wall_seconds, 1e-9) << "\n";
  row("Newton iterations/step") << std::fixed << std::setprecision(2)
                                << double(r.newton_iterations) / std::max(1.0, double(r.mechanisms) * double(r.steps))
                                << std::defaultfloat << std::setprecision(6) << "\n";
  if (sc.mechanism.spec.assemble == AssemblyPolicy::project)
    row("assembly correction") << "position " << *std::max_element(r.position_correction.begin(), r.position_correction.end())
                               << ", velocity "
                               << *std::max_element(r.velocity_correction.begin(), r.velocity_correction.end())
                               << " (largest; /assembly_*_correction)\n";
  row("failures") << r.failures();
  constexpr int shown = 5;
  int listed = 0;
  for (index_t i = 0; i < r.mechanisms && listed < shown; ++i) {
    if (r.status[i] == Status::ok) continue;
    os << (listed++ ? ", " : " (") << "mechanism " << i << ": " << to_string(r.status[i]) << " at step "
       << r.failed_step[i];
  }
  if (listed) os << (r.failures() > shown ? ", ...)" : ")");
  os << "\n";
  row("output") << r.output_file << " (" << r.samples << " samples)\n";
}

}  // namespace quatstep
