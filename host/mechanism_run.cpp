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
#include "quatstep/mechanism/adaptive.hpp"
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

/// How a mechanism goes from one output time to the next with fixed steps: stride steps of dt.
template <class Integrator>
struct FixedSteps {
  using State = typename Integrator::State;
  Integrator method;

  const Integrator& integrator() const { return method; }
  template <class Mech, class Kinematics>
  Status initialize(const Mech& m, const Kinematics& k, double t0, State& s) const {
    return method.initialize(m, k, t0, s);
  }
  /// From sample j − 1 to sample j of mechanism i: its iterations, and on failure its failed step, into r.
  template <class Mech>
  Status advance(const Mech& m, State& s, const MechanismScenario& sc, index_t j, index_t i, MechanismRunResult& r) const {
    const double t0 = sc.time.t_start, h = sc.time.dt;
    for (index_t k = (j - 1) * sc.stride; k < j * sc.stride; ++k) {
      const NewtonOutcome o = method.step(m, s, t0 + double(k) * h, h);
      r.iterations[i] += o.iterations;
      if (o.status != Status::ok) {
        r.failed_step[i] = k;
        return o.status;
      }
    }
    return Status::ok;
  }
  /// The integrator's state at the output time t that `advance` ended on.
  template <class Mech>
  const State& at(const Mech&, const State& s, double) const {
    return s;
  }
};

/// The same with adaptive steps (include/quatstep/mechanism/adaptive.hpp): each mechanism keeps its
/// own t and h, steps past each output time and is sampled there by dense output; its accepted and
/// rejected steps and its smallest and largest step go to r.step_records, and a failure's step is the
/// number of steps it had accepted (as for single bodies, adaptive_ensemble.hpp).
template <class Integrator>
struct AdaptiveSteps {
  using State = typename AdaptiveHht<Integrator>::State;
  AdaptiveHht<Integrator> stepper;

  const Integrator& integrator() const { return stepper.integrator; }
  template <class Mech, class Kinematics>
  Status initialize(const Mech& m, const Kinematics& k, double t0, State& s) const {
    return stepper.initialize(m, k, t0, s);
  }
  template <class Mech>
  Status advance(const Mech& m, State& s, const MechanismScenario& sc, index_t j, index_t i, MechanismRunResult& r) const {
    const double tj = sc.time.t_start + double(j * sc.stride) * sc.time.dt;
    while (s.t < tj) {
      const auto o = stepper.step(m, s);
      r.iterations[i] += o.iterations;
      r.step_records.rejected[i] += o.rejected;
      if (o.status != Status::ok) {
        r.failed_step[i] = r.step_records.accepted[i];
        return o.status;
      }
      ++r.step_records.accepted[i];
      r.step_records.smallest[i] = std::min(r.step_records.smallest[i], double(o.h));
      r.step_records.largest[i] = std::max(r.step_records.largest[i], double(o.h));
    }
    return Status::ok;
  }
  template <class Mech>
  typename Integrator::State at(const Mech& m, const State& s, double t) const {
    return stepper.sample(m, s, t);
  }
};

template <class Cap, class Stepper>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open,
                                const Stepper& stepper);

/// The run with method Entry (a mechanism registry entry) on Mechanism<double, Cap>: adaptive steps
/// with [time] adaptive = true (the HHT family), fixed ones otherwise.
template <class Cap, class Entry>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open) {
  using Integrator = typename Entry::template Integrator<mechanism::Mechanism<double, Cap>>;
  typename Entry::Settings settings;
  KeyAssigner assign(sc.settings);
  settings.describe(assign);
  const Integrator integrator(settings);
  if constexpr (takes_adaptive_steps<Integrator>::value)
    if (sc.time.adaptive)
      return run_ensemble<Cap>(sc, options, open, AdaptiveSteps<Integrator>{{integrator, sc.time.step_control}});
  return run_ensemble<Cap>(sc, options, open, FixedSteps<Integrator>{integrator});
}

/// The run on Mechanism<double, Cap>, advanced by Stepper (FixedSteps or AdaptiveSteps).
template <class Cap, class Stepper>
MechanismRunResult run_ensemble(const MechanismScenario& sc, const RunOptions& options, const OpenOutput& open,
                                const Stepper& stepper) {
  using Mech = mechanism::Mechanism<double, Cap>;
  using State = typename Stepper::State;
  const auto& integrator = stepper.integrator();
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
  if (sc.time.adaptive) r.step_records = StepRecords::before_first_step(n);

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
    const Status s = stepper.initialize(mechs[i], k, t0, states[i]);
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
  layout.step_records = sc.time.adaptive;
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
        const index_t sample_index = first + j, before = r.iterations[i];
        if (sample_index > 0 && r.status[i] == Status::ok)
          r.status[i] = stepper.advance(mechs[i], states[i], sc, sample_index, i, r);
        if (r.status[i] == Status::ok)
          observe_sample(integrator, mechs[i], stepper.at(mechs[i], states[i], times[j]), times[j],
                         r.iterations[i] - before, sample, n, i);
        else
          fill_nan(sample, scalars, n, i);
      }
    }
    out.write_samples(first, count, buffer.data(), times.data());
  }
  out.write_body_results(r.status, r.iterations, r.failed_step);
  if (sc.time.adaptive) out.write_step_records(r.step_records);
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
  const StepRecords::Totals taken = r.step_records.totals();
  const bool adaptive = sc.time.adaptive;
  const double mechanism_steps = adaptive ? taken.accepted : double(r.mechanisms) * double(r.steps);
  os << "quatstep " << version << ": mechanism, " << sc.method_view().info.name << " ("
     << settings_summary(sc.method_view().keys, sc.settings) << ")"
     << (adaptive ? ", adaptive steps, output every " : ", dt ") << sc.time.dt << "\n";
  row("mechanisms") << r.mechanisms << " (" << r.bodies << " bodies each)\n";
  row(adaptive ? "output intervals" : "steps") << r.steps << " (t = " << sc.time.t_start << " .. " << sc.time.t_end
                                                << ")\n";
  if (adaptive)
    row("adaptive steps") << taken.accepted << " accepted, " << taken.rejected << " rejected (all mechanisms), h in ["
                          << taken.smallest << ", " << taken.largest
                          << "] (/accepted_steps, /rejected_steps, /smallest_step, /largest_step)\n";
  row("backend") << "cpu, double\n";
  row("threads") << r.threads << "\n";
  row("wall time") << std::setprecision(3) << r.wall_seconds << " s\n";
  row("mechanism-steps/s") << std::setprecision(3) << mechanism_steps / std::max(r.wall_seconds, 1e-9) << "\n";
  row("Newton iterations/step") << std::fixed << std::setprecision(2)
                                << double(r.newton_iterations) /
                                       std::max(1.0, adaptive ? taken.accepted + taken.rejected : mechanism_steps)
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
    os << (listed++ ? ", " : " (") << "mechanism " << i << ": " << to_string(r.status[i])
       << (adaptive ? " after accepted step " : " at step ") << r.failed_step[i];
  }
  if (listed) os << (r.failures() > shown ? ", ...)" : ")");
  os << "\n";
  row("output") << r.output_file << " (" << r.samples << " samples)\n";
}

}  // namespace quatstep
