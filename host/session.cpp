// In-memory runs (session.hpp): the scenario path on make_ensemble, and ensembles from arrays.
#include "session.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "cpu_ensemble.hpp"
#include "ensemble_builder.hpp"
#include "registry_dispatch.hpp"

namespace quatstep {
namespace {

/// Sets the OpenMP thread count for the lifetime of the object (0: leave it).
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadCount() { omp_set_num_threads(previous_); }

 private:
  int previous_;
};

// ---------------------------------------------------------------- checks with the parser's messages
constexpr const char* source = "quatstep.Ensemble";

[[noreturn]] void fail(const std::string& key, const std::string& problem) {
  throw ScenarioError(std::string(source) + ": key '" + key + "': " + problem);
}

/// "component 2 is -1, must be > 0" / "-1, must be > 0" / "not finite", as the parser words it.
std::optional<std::string> range_problem(const KeyInfo& k, const double* v, int size) {
  for (int c = 0; c < size; ++c) {
    if (k.range.contains(v[c])) continue;
    const std::string what = std::isfinite(v[c]) ? validation::format(v[c]) + ", must be " + k.range.text : "not finite";
    return size > 1 ? "component " + std::to_string(c) + " is " + what : what;
  }
  return std::nullopt;
}

const char* type_name(const SettingValue& v) {
  switch (v.kind) {
    case SettingValue::Kind::boolean: return "a boolean";
    case SettingValue::Kind::text: return "a string";
    default: return v.numbers.size() == 1 ? "a number" : "an array";
  }
}

/// One [integrator] setting from a value given by key, checked as Reader::value checks a file's.
std::vector<double> setting(const KeyInfo& k, const SettingValue& v, const std::string& shown) {
  const auto expect = [&](const char* what) { fail(shown, std::string("expected ") + what + ", got " + type_name(v)); };
  switch (k.kind) {
    case KeyInfo::Kind::boolean:
      if (v.kind != SettingValue::Kind::boolean) expect("a boolean");
      return {v.flag ? 1.0 : 0.0};
    case KeyInfo::Kind::choice:
      if (v.kind != SettingValue::Kind::text) expect("a string");
      try {
        return {double(index_of(k.choices, v.text))};
      } catch (const std::invalid_argument& e) {
        fail(shown, e.what());
      }
    case KeyInfo::Kind::integer:
      if (v.kind != SettingValue::Kind::numbers || v.numbers.size() != 1 || v.numbers[0] != std::floor(v.numbers[0]))
        expect("an integer");
      if (!k.range.contains(v.numbers[0])) fail(shown, validation::format(v.numbers[0]) + ", must be " + k.range.text);
      return v.numbers;
    case KeyInfo::Kind::number:
      if (v.kind != SettingValue::Kind::numbers || int(v.numbers.size()) != k.size)
        expect(k.size == 1 ? "a number" : ("an array of " + std::to_string(k.size) + " numbers").c_str());
      if (auto p = range_problem(k, v.numbers.data(), k.size)) fail(shown, *p);
      return v.numbers;
    default:
      fail(shown, "not a setting");
  }
}

/// The [integrator] of a spec, as parse_integrator reads it from a file.
IntegratorSpec integrator_spec(const BodyEnsembleSpec& spec, int model) {
  IntegratorSpec in;
  try {
    in.method = index_of(names_of(method_views()), spec.method);
  } catch (const std::invalid_argument& e) {
    fail("integrator.method", e.what());
  }
  const MethodView& view = in.view();
  const std::string model_name = model_views().at(model).info.name;
  if (!view.applies_to(model)) fail("integrator.method", "'" + spec.method + "' does not run on a " + model_name + " model");
  const auto unused = [&](const std::string& key) {
    std::string users;
    for (const MethodView& m : method_views())
      if ((key == "variant" && m.has_variants()) || find_key(m.keys, key) >= 0)
        users += (users.empty() ? "" : ", ") + std::string(m.info.name);
    return users.empty() ? std::string("unknown key") : "not used by method '" + spec.method + "' (only by " + users + ")";
  };
  if (!spec.variant.empty()) {
    if (!view.has_variants()) fail("integrator.variant", unused("variant"));
    try {
      in.variant = index_of(names_of(view.variants), spec.variant);
    } catch (const std::invalid_argument& e) {
      fail("integrator.variant", e.what());
    }
    if (!view.applies[model][in.variant])
      fail("integrator.variant", "'" + spec.variant + "' does not run on a " + model_name + " model");
  }
  for (std::size_t k = 0; k < view.keys.size(); ++k)
    in.settings.push_back(spec.precision == Precision::single_precision ? view.float_defaults[k] : view.keys[k].value);
  for (const auto& [name, value] : spec.settings) {
    const int k = find_key(view.keys, name);
    if (k < 0) fail("integrator." + name, unused(name));
    in.settings[k] = setting(view.keys[k], value, "integrator." + name);
  }
  try {
    view.check_settings(in.settings);  // the rules a single key's range cannot say
  } catch (const keys::KeyError& e) {
    fail(e.key, e.problem);
  }
  return in;
}

/// Every body's parameters: each key in its range, then the model's rules across keys.
void check_bodies(const BodyEnsembleSpec& spec, const ModelView& view) {
  const std::size_t p = view.defaults.size();
  if (spec.bodies < 0 || spec.parameters.size() != std::size_t(spec.bodies) * p)
    throw std::invalid_argument("BodyEnsembleSpec: parameters must hold bodies × " + std::to_string(p) + " numbers");
  for (const std::string& key : spec.given)
    if (find_key(view.keys, key) < 0) fail(key, "not a key of a " + std::string(view.info.name) + " model");
  for (const KeyInfo& k : view.keys)
    if (k.required && std::find(spec.given.begin(), spec.given.end(), k.name) == spec.given.end())
      fail(k.name, "missing (required)");
  for (index_t i = 0; i < spec.bodies; ++i) {
    const std::vector<double> row(spec.parameters.begin() + i * p, spec.parameters.begin() + (i + 1) * p);
    std::optional<validation::Problem> problem;
    for (const KeyInfo& k : view.keys)
      if (auto r = range_problem(k, row.data() + k.offset, k.size)) {
        problem = validation::Problem{k.name, *r};
        break;
      }
    if (!problem) problem = view.check(row);
    if (problem)
      throw ScenarioError(std::string(source) + ": body " + std::to_string(i) + ": key '" + problem->key + "': " +
                          problem->message);
  }
}

// ---------------------------------------------------------------- the CPU ensemble from arrays
/// Samples in the caller's double window, through a float staging window for float ensembles.
template <class S>
class Widening {
 public:
  SampleView<S> window(const SampleView<double>& out) {
    if constexpr (std::is_same_v<S, double>) {
      return out;
    } else {
      staging_.resize(static_cast<std::size_t>(out.samples * out.scalars * out.bodies));
      return SampleView<S>{staging_.data(), out.bodies, out.first_sample, out.samples, out.stride, out.scalars};
    }
  }
  void widen(const SampleView<double>& out) const {
    if constexpr (!std::is_same_v<S, double>)
      for (std::size_t k = 0; k < staging_.size(); ++k) out.data[k] = double(staging_[k]);
  }

 private:
  std::vector<S> staging_;
};

/// Where kinematics() takes each quantity verbatim from the state: it is evaluated on two states of
/// distinct, exactly representable components, and a quantity lies at offset o when both results
/// are components o, o+1, … of their states.
template <class Integrator>
StateLayout probe_layout(const Integrator& integrator, const typename Integrator::ModelType& model) {
  using S = typename Integrator::Scalar;
  using State = typename Integrator::State;
  using Kinematics = typename CpuEnsemble<Integrator>::Kinematics;
  StateLayout l;
  if constexpr (is_rigid_body_kinematics<Kinematics>::value) {
    State a{}, b{};
    for (int c = 0; c < State::size; ++c) {
      a[c] = S(c + 1);
      b[c] = S(-0.25) * S(2 * c + 3);
    }
    const Kinematics ka = integrator.kinematics(model, a), kb = integrator.kinematics(model, b);
    const auto find = [&](const auto& va, const auto& vb) {
      const int size = int(va.size());
      for (int o = 0; o + size <= State::size; ++o) {
        bool same = true;
        for (int c = 0; c < size; ++c) same = same && va[c] == a[o + c] && vb[c] == b[o + c];
        if (same) return o;
      }
      return -1;
    };
    l.quaternion = find(ka.quaternion, kb.quaternion);
    l.omega_body = find(ka.omega_body, kb.omega_body);
    if (Integrator::ModelType::translates) {
      l.position = find(ka.position, kb.position);
      l.velocity = find(ka.velocity, kb.velocity);
    }
  }
  return l;
}

template <class Integrator, class ModelEntry>
class CpuBodyEnsemble final : public BodyEnsemble {
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  using Kinematics = typename CpuEnsemble<Integrator>::Kinematics;

 public:
  CpuBodyEnsemble(const Integrator& integrator, std::vector<Model> models, const std::vector<Kinematics>& initial,
                  double t_start, double dt, BackendChoice backend)
      : integrator_(integrator),
        ensemble_(integrator, std::move(models), S(t_start), S(dt)),
        t_start_(t_start),
        dt_(dt),
        backend_(std::move(backend)) {
    ensemble_.initialize(initial, SampleView<S>{nullptr, ensemble_.bodies(), 0, 0, 1, 0});
    if (ensemble_.bodies() > 0) layout_ = probe_layout(integrator_, ensemble_.model(0));
  }

  index_t bodies() const override { return ensemble_.bodies(); }
  Precision precision() const override {
    return std::is_same_v<S, float> ? Precision::single_precision : Precision::double_precision;
  }
  index_t steps_done() const override { return ensemble_.steps_done(); }
  double t_start() const override { return t_start_; }
  double dt() const override { return dt_; }
  double time() const override { return t_start_ + double(ensemble_.steps_done()) * dt_; }
  bool rigid_body() const override { return is_rigid_body_kinematics<Kinematics>::value; }
  bool translates() const override {
    if constexpr (is_rigid_body_kinematics<Kinematics>::value) return Model::translates;
    else return false;
  }
  std::vector<Channel> channels() const override {
    std::vector<Channel> c(std::begin(Model::channels), std::end(Model::channels));
    if constexpr (has_integrator_channels<Integrator>::value)
      c.insert(c.end(), std::begin(Integrator::channels), std::end(Integrator::channels));
    return c;
  }
  const BackendChoice& backend() const override { return backend_; }

  const void* state_data() const override { return ensemble_.state_data().data(); }
  int state_size() const override { return Integrator::State::size; }
  const StateLayout& layout() const override { return layout_; }

  void advance(index_t steps, const SampleView<double>& out) override {
    ensemble_.advance(steps, widening_.window(out));
    widening_.widen(out);
  }
  void observe(const SampleView<double>& out) const override {
    const SampleView<S> w = widening_.window(out);
    const index_t n = bodies(), k = steps_done();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i)
      write_sample(w, k, i, integrator_, ensemble_.model(i), ensemble_.state(i), ensemble_.status()[i] == Status::ok);
    widening_.widen(out);
  }
  void kinematics(double* quaternion, double* omega_body, double* position, double* velocity) const override {
    if constexpr (!is_rigid_body_kinematics<Kinematics>::value) {
      throw std::invalid_argument(std::string("kinematics: a ") + ModelEntry::info.name +
                                  " model is not one rigid body (its channels are observe()'s)");
    } else {
      const index_t n = bodies();
#pragma omp parallel for schedule(static)
      for (index_t i = 0; i < n; ++i) {
        const Kinematics k = ensemble_.kinematics(i);
        for (int c = 0; c < 4 && quaternion; ++c) quaternion[4 * i + c] = double(k.quaternion[c]);
        for (int c = 0; c < 3 && omega_body; ++c) omega_body[3 * i + c] = double(k.omega_body[c]);
        for (int c = 0; c < 3 && position; ++c) position[3 * i + c] = double(k.position[c]);
        for (int c = 0; c < 3 && velocity; ++c) velocity[3 * i + c] = double(k.velocity[c]);
      }
    }
  }

  const std::vector<Status>& status() const override { return ensemble_.status(); }
  const std::vector<index_t>& newton_iterations() const override { return ensemble_.newton_iterations(); }
  const std::vector<index_t>& failed_step() const override { return ensemble_.failed_step(); }

 private:
  Integrator integrator_;
  CpuEnsemble<Integrator> ensemble_;
  double t_start_, dt_;
  BackendChoice backend_;
  StateLayout layout_;
  mutable Widening<S> widening_;
};

template <class S>
std::unique_ptr<BodyEnsemble> cpu_body_ensemble(const BodyEnsembleSpec& spec, int model, const IntegratorSpec& in,
                                                BackendChoice backend) {
  using R = std::unique_ptr<BodyEnsemble>;
  const std::size_t p = model_views().at(model).defaults.size();
  return with_registered_integrator<S, R>(model, in.method, in.variant, [&](auto model_tag, auto integrator_tag) -> R {
    using ModelEntry = tag_type<decltype(model_tag)>;
    using Integrator = tag_type<decltype(integrator_tag)>;
    std::vector<typename Integrator::ModelType> models;
    std::vector<typename CpuEnsemble<Integrator>::Kinematics> initial;
    models.reserve(spec.bodies);
    initial.reserve(spec.bodies);
    for (index_t i = 0; i < spec.bodies; ++i) {
      typename ModelEntry::Parameters parameters;
      static_assert(sizeof parameters % sizeof(double) == 0);
      std::memcpy(&parameters, spec.parameters.data() + i * p, sizeof parameters);
      models.push_back(ModelEntry::template build<S>(parameters));
      initial.push_back(ModelEntry::template initial<S>(parameters));
    }
    return std::make_unique<CpuBodyEnsemble<Integrator, ModelEntry>>(build::make_integrator<Integrator>(in),
                                                                     std::move(models), initial, spec.t_start,
                                                                     spec.dt, std::move(backend));
  });
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
  int offset = 0;
  for (const Channel& c : layout) {
    if (name == c.name) return offset;
    offset += c.size;
  }
  throw std::invalid_argument("'" + name + "' is not a channel of this run");
}

InMemoryRun run_in_memory(const Scenario& sc, int threads) {
  const ThreadCount thread_count(threads);
  const BackendChoice backend = choose_backend(sc);
  const std::unique_ptr<Ensemble> ensemble = make_ensemble(sc, backend);
  InMemoryRun run{SampleBuffer(sample_channels(sc), sc.ensemble_size, 0, sc.samples(), sc.stride, sc.time.t_start,
                               sc.time.dt),
                  sc.channels, {}, backend};
  ensemble->initialize(run.samples.view());
  ensemble->advance(sc.time.steps, run.samples.view());
  run.records = {ensemble->status(), ensemble->newton_iterations(), ensemble->failed_step()};
  return run;
}

CheckedSpec check_spec(const BodyEnsembleSpec& spec) {
  CheckedSpec c;
  try {
    c.model = index_of(names_of(model_views()), spec.model);
  } catch (const std::invalid_argument& e) {
    fail("model.type", e.what());
  }
  c.integrator = integrator_spec(spec, c.model);
  if (!keys::positive.contains(spec.dt)) fail("time.dt", validation::format(spec.dt) + ", must be > 0");
  if (!std::isfinite(spec.t_start)) fail("time.t_start", "not finite");
  check_bodies(spec, model_views().at(c.model));
  return c;
}

std::unique_ptr<BodyEnsemble> make_body_ensemble(const BodyEnsembleSpec& spec) {
  const CheckedSpec c = check_spec(spec);
  if (spec.backend == Backend::cuda)
    throw std::runtime_error("backend \"cuda\": an ensemble from arrays runs on the CPU (the GPU from Python is "
                             "BatchStepper)");
  const BackendChoice backend{Backend::cpu, "cpu"};
  if (spec.precision == Precision::single_precision) return cpu_body_ensemble<float>(spec, c.model, c.integrator, backend);
  return cpu_body_ensemble<double>(spec, c.model, c.integrator, backend);
}

}  // namespace quatstep
