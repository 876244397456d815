// In-memory runs (session.hpp): the scenario path on make_ensemble, and ensembles from arrays.
#include "session.hpp"

#include <algorithm>
#include <cmath>

#include "key_suggestion.hpp"
#include "keys.hpp"
#include "mechanism_run.hpp"
#include "scenario_reader.hpp"

namespace quatstep {
namespace {

// ---------------------------------------------------------------- checks with the parser's messages
[[noreturn]] void fail(const BodyEnsembleSpec& spec, const std::string& key, const std::string& problem) {
  fail_key(spec.source, key, problem);
}

const char* type_name(const SettingValue& v) {
  switch (v.kind) {
    case SettingValue::Kind::boolean: return "a boolean";
    case SettingValue::Kind::text: return "a string";
    default: return v.numbers.size() == 1 ? "a number" : "an array";
  }
}

/// One [integrator] setting from a value given by key, checked as Reader::value checks a file's.
std::vector<double> setting(const BodyEnsembleSpec& spec, const KeyInfo& k, const SettingValue& v,
                            const std::string& shown) {
  const auto expect = [&](const char* what) {
    fail(spec, shown, std::string("expected ") + what + ", got " + type_name(v));
  };
  switch (k.kind) {
    case KeyInfo::Kind::boolean:
      if (v.kind != SettingValue::Kind::boolean) expect("a boolean");
      return {v.flag ? 1.0 : 0.0};
    case KeyInfo::Kind::choice:
      if (v.kind != SettingValue::Kind::text) expect("a string");
      try {
        return {double(index_of(k.choices, v.text))};
      } catch (const std::invalid_argument& e) {
        fail(spec, shown, e.what());
      }
    case KeyInfo::Kind::integer:
      if (v.kind != SettingValue::Kind::numbers || v.numbers.size() != 1 || v.numbers[0] != std::floor(v.numbers[0]))
        expect("an integer");
      if (!k.range.contains(v.numbers[0]))
        fail(spec, shown, validation::format(v.numbers[0]) + ", must be " + k.range.text);
      return v.numbers;
    case KeyInfo::Kind::number:
      if (v.kind != SettingValue::Kind::numbers || int(v.numbers.size()) != k.size)
        expect(k.size == 1 ? "a number" : ("an array of " + std::to_string(k.size) + " numbers").c_str());
      if (auto p = range_problem(k, v.numbers.data(), k.size)) fail(spec, shown, *p);
      return v.numbers;
    default:
      fail(spec, shown, "not a setting");
  }
}

/// The [integrator] of a spec, checked as parse_integrator checks a file's.
IntegratorSpec integrator_spec(const BodyEnsembleSpec& spec, int model) {
  const std::optional<std::string> variant = spec.variant.empty() ? std::nullopt : std::optional(spec.variant);
  IntegratorSpec in = integrator_named(spec.source, model, spec.method, variant, spec.precision);
  const MethodView& view = in.view();
  for (const auto& [name, value] : spec.settings) {
    const int k = find_key(view.keys, name);
    if (k < 0) {
      const std::string why = unused_setting(spec.method, name);
      fail(spec, "integrator." + name, why.empty() ? unknown_key_problem(name, key_names(view.keys)) : why);
    }
    in.settings[k] = setting(spec, view.keys[k], value, "integrator." + name);
  }
  check_settings(spec.source, in);
  return in;
}

/// [time]'s step control from keys given by name, each checked as a file's, the rest default.
AdaptiveSettings<double> step_control(const BodyEnsembleSpec& spec) {
  const std::vector<KeyInfo> keys = key_table<AdaptiveSettings<double>>();
  std::vector<std::vector<double>> numbers;
  for (const KeyInfo& k : keys) numbers.push_back(k.value);
  for (const auto& [name, value] : spec.step_control) {
    const int k = find_key(keys, name);
    if (k < 0) fail(spec, "time." + name, unknown_key_problem(name, key_names(keys)));
    numbers[std::size_t(k)] = setting(spec, keys[std::size_t(k)], value, "time." + name);
  }
  AdaptiveSettings<double> control;
  KeyAssigner assign(numbers);
  control.describe(assign);
  return control;
}

/// Every body's parameters: the keys given, the required ones, then each body as a scenario's.
void check_bodies(const BodyEnsembleSpec& spec, const ModelView& view) {
  const std::size_t p = view.defaults.size();
  if (spec.bodies < 0 || spec.parameters.size() != std::size_t(spec.bodies) * p)
    throw std::invalid_argument("BodyEnsembleSpec: parameters must hold bodies × " + std::to_string(p) + " numbers");
  std::vector<std::string> names = key_names(view.keys);  // full ("model.inertia") and short, as Python takes them
  for (const KeyInfo& k : view.keys) names.push_back(k.name.substr(k.name.find('.') + 1));
  for (const std::string& key : spec.given)
    if (find_key(view.keys, key) < 0) {
      fail(spec, key, "not a key of a " + std::string(view.info.name) + " model" + did_you_mean_clause(key, names));
    }
  for (const KeyInfo& k : view.keys)
    if (k.required && std::find(spec.given.begin(), spec.given.end(), k.name) == spec.given.end())
      fail(spec, k.name, "missing (required)");
  for (index_t i = 0; i < spec.bodies; ++i)
    if (auto problem = body_problem(view, {spec.parameters.begin() + i * p, spec.parameters.begin() + (i + 1) * p}))
      throw ScenarioError(spec.source + ": body " + std::to_string(i) + ": key '" + problem->key + "': " +
                          problem->message);
}

// ---------------------------------------------------------------- the ensemble from arrays
/// The scenario a spec stands for: its model, method and settings, precision, backend and time, and
/// its bodies as given (Scenario::rows: nothing is drawn).
Scenario scenario_of(const BodyEnsembleSpec& spec, const CheckedSpec& c) {
  Scenario sc;
  sc.source = spec.source;
  sc.model = c.model;
  sc.base = sc.model_view().defaults;
  sc.integrator = c.integrator;
  sc.backend = spec.backend;
  sc.precision = spec.precision;
  sc.time.dt = spec.dt;
  sc.time.t_start = sc.time.t_end = spec.t_start;
  sc.time.adaptive = spec.adaptive;
  sc.time.step_control = c.step_control;
  sc.ensemble_size = sc.declared_size = spec.bodies;
  sc.rows = spec.parameters;
  return sc;
}

/// make_ensemble's ensemble of the spec's scenario, on the CPU or the GPU, stepped by its caller.
class ArrayEnsemble final : public BodyEnsemble {
 public:
  ArrayEnsemble(Scenario scenario, BackendChoice backend)
      : scenario_(std::move(scenario)), backend_(std::move(backend)), ensemble_(make_ensemble(scenario_, backend_)) {
    ensemble_->initialize(SampleView<double>{nullptr, bodies(), 0, 0, 1, 0});
    std::vector<double>().swap(scenario_.rows);  // built: the models hold the bodies now
  }

  index_t bodies() const override { return scenario_.ensemble_size; }
  Precision precision() const override { return scenario_.precision; }
  index_t steps_done() const override { return ensemble_->steps_done(); }
  double t_start() const override { return scenario_.time.t_start; }
  double dt() const override { return scenario_.time.dt; }
  double time() const override { return t_start() + double(steps_done()) * dt(); }
  bool translates() const override { return ensemble_->translates(); }
  std::vector<Channel> channels() const override { return sample_channels(scenario_); }
  const BackendChoice& backend() const override { return backend_; }
  StateStorage storage() const override { return ensemble_->storage(); }
  const StateLayout& layout() const override { return ensemble_->layout(); }

  void advance(index_t steps, const SampleView<double>& out) override { ensemble_->advance(steps, out); }
  void observe(const SampleView<double>& out) const override { ensemble_->observe(out); }
  void kinematics(double* quaternion, double* omega_body, double* position, double* velocity) const override {
    ensemble_->kinematics(quaternion, omega_body, position, velocity);
  }

  const std::vector<Status>& status() const override { return ensemble_->status(); }
  const std::vector<index_t>& newton_iterations() const override { return ensemble_->newton_iterations(); }
  const std::vector<index_t>& failed_step() const override { return ensemble_->failed_step(); }
  StepRecords step_records() const override { return ensemble_->step_records(); }
  index_t bodies_in_lanes() const override { return ensemble_->bodies_in_lanes(); }

 private:
  Scenario scenario_;
  BackendChoice backend_;
  std::unique_ptr<Ensemble> ensemble_;
};

// ---------------------------------------------------------------- a run's output kept in memory
/// run_scenario's output into an InMemoryRun, the file's datasets as arrays.
class MemoryOutput final : public RunOutput {
 public:
  MemoryOutput(InMemoryRun& run, const OutputLayout& layout, const OutputAttributes& attributes) : r_(run) {
    r_.layout = layout;
    r_.attributes = attributes;
    r_.channel_docs.reserve(layout.channels.size());  // no reallocation: the docs stay where they are
    for (Channel& c : r_.layout.channels) c.doc = r_.channel_docs.emplace_back(c.doc).c_str();
    const std::size_t nt = std::size_t(layout.samples), m = layout.trajectory_rows.size();
    const std::size_t n = std::size_t(layout.bodies);
    r_.time.resize(nt);
    if (m > 0)  // as the file: no channel dataset when no body has trajectories
      for (const Channel& c : r_.layout.channels)
        if (std::find(layout.written.begin(), layout.written.end(), c.name) != layout.written.end())
          r_.trajectories.emplace_back(c, std::vector<double>(nt * m * std::size_t(c.size)));
    for (const ParameterDataset& p : layout.parameters) r_.parameters.emplace_back(n * std::size_t(p.size));
    if (layout.redraws) r_.redraws.resize(n);
    const std::size_t levels = layout.quantile_levels.size();
    for (const StatisticsDataset& d : layout.statistics) {
      const std::size_t bins = d.edges.empty() ? 0 : d.edges.size() - 1;
      StatisticsColumns c{d.name, d.definition, d.edges, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
      for (auto* column : {&c.count, &c.nonfinite}) column->resize(nt);
      for (auto* column : {&c.mean, &c.std, &c.min, &c.max}) column->resize(nt);
      c.quantiles.resize(nt * levels);
      if (bins > 0) c.histogram.resize(nt * bins), c.below.resize(nt), c.above.resize(nt);
      r_.statistics.push_back(std::move(c));
    }
  }

  void write_samples(index_t first, index_t count, const double* samples, const double* times) override {
    std::copy(times, times + count, r_.time.begin() + first);
    const OutputLayout& l = r_.layout;
    const index_t m = index_t(l.trajectory_rows.size());
    for (auto& [channel, values] : r_.trajectories)
      gather_trajectories(samples, count, l.bodies, channel_scalars(l.channels),
                          detail::offset_in(l.channels, channel.name, 0), channel.size, l.trajectory_rows,
                          values.data() + first * m * channel.size);
  }
  void write_parameters(int p, index_t first, index_t count, const double* values) override {
    const int size = r_.layout.parameters.at(std::size_t(p)).size;
    std::copy(values, values + count * size, r_.parameters[std::size_t(p)].begin() + first * size);
  }
  void write_redraws(index_t first, index_t count, const std::int32_t* values) override {
    std::copy(values, values + count, r_.redraws.begin() + first);
  }
  void write_statistics(index_t first, const std::vector<std::vector<statistics::Summary>>& rows) override {
    const std::size_t levels = r_.layout.quantile_levels.size();
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const std::size_t at = std::size_t(first) + j;
      for (std::size_t k = 0; k < r_.statistics.size(); ++k) {
        StatisticsColumns& c = r_.statistics[k];
        const statistics::Summary& s = rows[j][k];
        c.count[at] = s.count, c.nonfinite[at] = s.nonfinite;
        c.mean[at] = s.mean, c.std[at] = s.std, c.min[at] = s.min, c.max[at] = s.max;
        std::copy(s.quantiles.begin(), s.quantiles.end(), c.quantiles.begin() + at * levels);
        if (!c.edges.empty()) {
          std::copy(s.histogram.begin(), s.histogram.end(), c.histogram.begin() + at * s.histogram.size());
          c.below[at] = s.below, c.above[at] = s.above;
        }
      }
    }
  }
  void write_body_results(const std::vector<Status>& status, const std::vector<index_t>& iterations,
                          const std::vector<index_t>& failed) override {
    r_.records = {status, iterations, failed};
  }
  void write_step_records(const StepRecords& steps) override { r_.step_records = steps; }
  void write_statistics_states(index_t, const std::vector<std::vector<statistics::AccumulatorState>>&) override {
    throw std::logic_error("a shard run writes its accumulators to a shard file, not to memory");
  }
  void integer_attribute(const std::string& name, std::int64_t value) override {
    r_.integer_attributes.emplace_back(name, value);
  }
  void write_body_values(const std::string& name, const std::vector<double>& values) override {
    r_.body_values.emplace_back(name, values);
  }
  void write_checkpoint(const Checkpoint&) override {}  // never interrupted: RunOptions::interrupt is null
  void mark_progress(bool, index_t) override {}
  void close() override {}

 private:
  InMemoryRun& r_;
};

/// A run into memory: `run_with` (run_scenario or run_mechanism_scenario) with the given options and
/// an opener of a MemoryOutput.
template <class RunWith>
std::unique_ptr<InMemoryRun> run_into_memory(int threads, const RunWith& run_with) {
  RunOptions options;
  options.threads = threads;
  options.progress = ProgressMode::never;
  auto run = std::make_unique<InMemoryRun>();
  run_with(options, [&](const OutputLayout& layout, const OutputAttributes& attributes) {
    return OpenedOutput{std::make_unique<MemoryOutput>(*run, layout, attributes), std::nullopt};
  });
  return run;
}

}  // namespace

SampleBuffer::SampleBuffer(std::vector<Channel> layout_, index_t bodies_, index_t first_sample_, index_t samples_,
                           index_t stride_, double t_start, double dt)
    : layout(std::move(layout_)),
      bodies(bodies_),
      first_sample(first_sample_),
      samples(samples_),
      stride(stride_),
      time(static_cast<std::size_t>(samples_)),
      data(static_cast<std::size_t>(samples_ * channel_scalars(layout) * bodies_)) {
  for (index_t j = 0; j < samples; ++j)  // t_k = t0 + k·h as in advance_body and the output file
    time[j] = t_start + double((first_sample + j) * stride) * dt;
}

int SampleBuffer::offset(const std::string& name) const {
  const int offset = detail::offset_in(layout, name, 0);
  if (offset < 0) throw std::invalid_argument("'" + name + "' is not a channel of this run");
  return offset;
}

std::unique_ptr<InMemoryRun> run_in_memory(const Scenario& sc, int threads) {
  return run_into_memory(threads, [&](const RunOptions& o, const OpenOutput& open) { run_scenario(sc, o, open); });
}

std::unique_ptr<InMemoryRun> run_mechanisms_in_memory(const MechanismScenario& sc, int threads) {
  return run_into_memory(threads,
                         [&](const RunOptions& o, const OpenOutput& open) { run_mechanism_scenario(sc, o, open); });
}

CheckedSpec check_spec(const BodyEnsembleSpec& spec) {
  CheckedSpec c;
  try {
    c.model = index_of(names_of(model_views()), spec.model);
  } catch (const std::invalid_argument& e) {
    fail(spec, "model.type", e.what());
  }
  c.integrator = integrator_spec(spec, c.model);
  if (!keys::positive.contains(spec.dt)) fail(spec, "time.dt", validation::format(spec.dt) + ", must be > 0");
  if (!std::isfinite(spec.t_start)) fail(spec, "time.t_start", "not finite");
  if (spec.adaptive) {
    c.step_control = step_control(spec);
    if (auto problem = adaptive_steps_problem(c.step_control, c.integrator.method))
      fail(spec, problem->key, problem->message);
  } else if (!spec.step_control.empty()) {
    fail(spec, "time." + spec.step_control.front().first, "read only with adaptive = true");
  }
  check_bodies(spec, model_views().at(c.model));
  return c;
}

std::unique_ptr<BodyEnsemble> make_body_ensemble(const BodyEnsembleSpec& spec) {
  const CheckedSpec c = check_spec(spec);
  return std::make_unique<ArrayEnsemble>(scenario_of(spec, c), choose_backend(spec.backend));
}

}  // namespace quatstep
