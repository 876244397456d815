// quatstep._quatstep: the compiled half of the Python package (python/quatstep/ is the other).
// Arrays cross as nanobind ndarrays: results are NumPy views of buffers this module allocated,
// ensemble state views are read-only NumPy views of the ensemble's own storage (no copy), and the
// coupled-step API takes any DLPack or __cuda_array_interface__ CUDA array (CuPy, PyTorch, JAX).
// Long calls release the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "host/mechanism_ensemble.hpp"
#include "host/mechanism_run.hpp"
#include "host/run.hpp"
#include "host/session.hpp"
#include "quatstep/status.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace quatstep::python {
namespace {

using Array = nb::ndarray<nb::numpy>;
using ReadOnlyArray = nb::ndarray<nb::numpy, nb::ro>;
/// Per-mechanism, per-body loads: (mechanisms, bodies, 3) float64 in host memory.
/// A coupled step's loads on the mechanisms' bodies: host memory, or CUDA device memory (CuPy,
/// PyTorch, any DLPack array) for an ensemble on the GPU.
using BodyLoads = nb::ndarray<const double, nb::ndim<3>, nb::c_contig>;

/// A NumPy view of `data` (shape, strides in elements) kept alive by `owner`.
template <class T, class A = std::conditional_t<std::is_const_v<T>, ReadOnlyArray, Array>>
A view(T* data, std::initializer_list<std::size_t> shape, std::initializer_list<std::int64_t> strides, nb::handle owner) {
  return A(data, shape, owner, strides, nb::dtype<std::remove_const_t<T>>());
}

/// Status codes as int32 (the enum's storage), for NumPy.
static_assert(sizeof(Status) == sizeof(std::int32_t));
const std::int32_t* codes(const std::vector<Status>& status) {
  return reinterpret_cast<const std::int32_t*>(status.data());
}
std::int32_t* codes(std::vector<Status>& status) { return reinterpret_cast<std::int32_t*>(status.data()); }

/// The channels `names` of a sample buffer as arrays of shape (samples, bodies) for one scalar,
/// (samples, bodies, k) for k: strided views into the buffer, owned by `owner`.
nb::dict channel_views(SampleBuffer& b, const std::vector<std::string>& names, nb::handle owner, bool one_sample) {
  nb::dict out;
  const std::int64_t n = b.bodies, per_sample = std::int64_t(channel_scalars(b.layout)) * n;
  const std::size_t nt = std::size_t(b.samples), bodies = std::size_t(n);
  for (const std::string& name : names) {
    int size = 0;
    for (const Channel& c : b.layout)
      if (name == c.name) size = c.size;
    double* first = b.data.data() + std::int64_t(b.offset(name)) * n;
    if (one_sample)
      out[name.c_str()] = size == 1 ? view(first, {bodies}, {1}, owner)
                                    : view(first, {bodies, std::size_t(size)}, {1, n}, owner);
    else
      out[name.c_str()] = size == 1 ? view(first, {nt, bodies}, {per_sample, 1}, owner)
                                    : view(first, {nt, bodies, std::size_t(size)}, {per_sample, 1, n}, owner);
  }
  return out;
}

/// Python owner of a C++ object: a capsule that deletes it.
template <class T>
nb::capsule owning(T* p) {
  return nb::capsule(p, [](void* q) noexcept { delete static_cast<T*>(q); });
}

/// What run_in_memory kept, as the file's datasets: NumPy views of the run's arrays (no copy), owned
/// by the run.
nb::dict run_dict(std::unique_ptr<InMemoryRun> run) {
  InMemoryRun& r = *run;
  const nb::capsule owner = owning(run.release());
  OutputLayout& l = r.layout;
  const std::size_t nt = std::size_t(l.samples), m = l.trajectory_rows.size(), n = std::size_t(l.bodies);
  const auto vector = [&](auto& v) { return view(v.data(), {v.size()}, {1}, owner); };
  const auto table = [&](auto& v, std::size_t rows, std::size_t width) {  // (rows,) or (rows, width)
    return width == 1 ? view(v.data(), {rows}, {1}, owner)
                      : view(v.data(), {rows, width}, {std::int64_t(width), 1}, owner);
  };
  nb::dict d;
  d["time"] = vector(r.time);
  nb::dict channels;
  for (auto& [channel, values] : r.trajectories) {
    const std::size_t k = std::size_t(channel.size);
    channels[channel.name] =
        k == 1 ? view(values.data(), {nt, m}, {std::int64_t(m), 1}, owner)
               : view(values.data(), {nt, m, k}, {std::int64_t(m * k), std::int64_t(k), 1}, owner);
  }
  d["channels"] = channels;
  const auto optional = [&](auto& v, bool present) { return present ? nb::cast(vector(v)) : nb::object(nb::none()); };
  d["trajectory_bodies"] = optional(l.trajectory_bodies, !l.trajectory_bodies.empty());
  d["bodies"] = optional(l.body_indices, !l.body_indices.empty());
  nb::dict parameters;
  for (std::size_t p = 0; p < l.parameters.size(); ++p)
    parameters[l.parameters[p].name.c_str()] = table(r.parameters[p], n, std::size_t(l.parameters[p].size));
  d["parameters"] = parameters;
  d["redraws"] = optional(r.redraws, l.redraws);
  const auto attribute = [&](const std::string& name) {  // 0 when the run wrote none
    for (const auto& [key, value] : r.integer_attributes)
      if (key == name) return value;
    return std::int64_t(0);
  };
  d["redrawn_bodies"] = attribute("redrawn_bodies");
  d["redraw_count"] = attribute("redraws");
  nb::dict statistics;
  for (StatisticsColumns& c : r.statistics) {
    nb::dict o;
    o["definition"] = c.definition;
    o["count"] = vector(c.count);
    o["nonfinite"] = vector(c.nonfinite);
    o["mean"] = vector(c.mean);
    o["std"] = vector(c.std);
    o["min"] = vector(c.min);
    o["max"] = vector(c.max);
    o["levels"] = l.quantile_levels;
    if (!l.quantile_levels.empty())
      o["quantiles"] = view(c.quantiles.data(), {nt, l.quantile_levels.size()},
                            {std::int64_t(l.quantile_levels.size()), 1}, owner);
    if (!c.edges.empty()) {
      const std::size_t bins = c.edges.size() - 1;
      o["histogram"] = view(c.histogram.data(), {nt, bins}, {std::int64_t(bins), 1}, owner);
      o["edges"] = c.edges;
      o["below"] = vector(c.below);
      o["above"] = vector(c.above);
    }
    statistics[c.name.c_str()] = o;
  }
  d["statistics"] = statistics;
  d["status"] = view(codes(r.records.status), {n}, {1}, owner);
  d["newton_iterations"] = vector(r.records.newton_iterations);
  d["failed_step"] = vector(r.records.failed_step);
  d["accepted_steps"] = optional(r.step_records.accepted, l.step_records);
  d["rejected_steps"] = optional(r.step_records.rejected, l.step_records);
  d["smallest_step"] = optional(r.step_records.smallest, l.step_records);
  d["largest_step"] = optional(r.step_records.largest, l.step_records);
  nb::dict body_values;
  for (auto& [name, values] : r.body_values) body_values[name.c_str()] = vector(values);
  d["body_values"] = body_values;
  d["backend"] = r.attributes.backend;
  d["trajectories"] = r.attributes.trajectories;
  return d;
}

nb::dict samples_dict(SampleBuffer* buffer, const std::vector<std::string>& names) {
  const nb::capsule owner = owning(buffer);
  nb::dict d;
  d["time"] = view(buffer->time.data(), {std::size_t(buffer->samples)}, {1}, owner);
  d["channels"] = channel_views(*buffer, names, owner, false);
  return d;
}

std::vector<std::string> names_of_channels(const std::vector<Channel>& layout) {
  std::vector<std::string> names;
  for (const Channel& c : layout) names.push_back(c.name);
  return names;
}

/// A run's results, computed with the GIL released, as run_dict's arrays.
template <class Run>
nb::dict run_released(const Run& run) {
  std::unique_ptr<InMemoryRun> r;
  {
    nb::gil_scoped_release release;
    r = run();
  }
  return run_dict(std::move(r));
}

/// The module function run_to_file(scenario: S, output, threads): `run`(scenario, options) (run_scenario
/// or run_mechanism_scenario, giving the file's path) with the GIL released.
template <class S, class Run>
void def_run_to_file(nb::module_& m, Run run, const char* doc) {
  m.def(
      "run_to_file",
      [run](const S& sc, const std::string& output, int threads) {
        nb::gil_scoped_release release;
        RunOptions options;
        options.threads = threads;
        options.output = output;
        options.progress = ProgressMode::never;
        return run(sc, options);
      },
      "scenario"_a, "output"_a = "", "threads"_a = 0, doc);
}

ScenarioOverrides overrides(std::optional<double> t_end, std::optional<std::string> backend,
                            std::optional<std::string> precision, std::optional<index_t> stride) {
  ScenarioOverrides o;
  o.t_end = t_end;
  o.stride = stride;
  if (backend) o.backend = parse_backend(*backend);
  if (precision) o.precision = parse_precision(*precision);
  return o;
}

/// The module functions `parse_name`(text, source, t_end, backend, precision, stride) and `load_name`(path, …):
/// `parse` and `load` (a scenario's or a mechanism scenario's) with the command's overrides.
template <auto parse, auto load>
void def_readers(nb::module_& m, const char* parse_name, const char* parse_doc, const char* load_name,
                 const char* load_doc) {
  m.def(
      parse_name,
      [](const std::string& text, const std::string& source, std::optional<double> t_end,
         std::optional<std::string> backend, std::optional<std::string> precision, std::optional<index_t> stride) {
        return parse(text, source, overrides(t_end, backend, precision, stride));
      },
      "text"_a, "source"_a, "t_end"_a = nb::none(), "backend"_a = nb::none(), "precision"_a = nb::none(),
      "stride"_a = nb::none(), parse_doc);
  m.def(
      load_name,
      [](const std::string& path, std::optional<double> t_end, std::optional<std::string> backend,
         std::optional<std::string> precision, std::optional<index_t> stride) {
        return load(path, overrides(t_end, backend, precision, stride));
      },
      "path"_a, "t_end"_a = nb::none(), "backend"_a = nb::none(), "precision"_a = nb::none(), "stride"_a = nb::none(),
      load_doc);
}

// ---------------------------------------------------------------- registry as Python data
nb::dict key_dict(const KeyInfo& k) {
  static const char* kinds[] = {"number", "numbers", "integer", "boolean", "choice", "text", "text_list"};
  nb::dict d;
  d["name"] = k.name;
  d["kind"] = kinds[int(k.kind)];
  d["size"] = k.size;
  d["doc"] = k.doc;
  d["required"] = k.required;
  d["default"] = k.value;
  d["range"] = k.range.text;
  d["choices"] = k.choices;
  d["offset"] = k.offset;
  return d;
}

nb::list channel_list(const std::vector<Channel>& channels) {
  nb::list l;
  for (const Channel& c : channels) {
    nb::dict d;
    d["name"] = c.name;
    d["size"] = c.size;
    d["doc"] = c.doc;
    d["optional"] = c.optional;
    l.append(d);
  }
  return l;
}

nb::dict registry() {
  nb::dict models, methods;
  for (const ModelView& m : model_views()) {
    nb::dict d;
    d["class"] = m.info.class_name;
    d["doc"] = m.info.doc;
    nb::list keys;
    for (const KeyInfo& k : m.keys) keys.append(key_dict(k));
    d["keys"] = keys;
    d["defaults"] = m.defaults;
    d["channels"] = channel_list(m.channels);
    models[m.info.name] = d;
  }
  for (const MethodView& m : method_views()) {
    nb::dict d;
    d["class"] = m.info.class_name;
    d["reference"] = m.info.reference;
    d["order"] = m.info.order;
    d["conserves"] = m.info.conserves;
    nb::list variants, models_run;
    if (m.has_variants())
      for (const VariantInfo& v : m.variants) variants.append(nb::make_tuple(v.name, v.doc));
    d["variants"] = variants;
    nb::list keys;
    for (const KeyInfo& k : m.keys) keys.append(key_dict(k));
    d["settings"] = keys;
    d["channels"] = channel_list(m.channels);
    for (const ModelView& model : model_views())
      if (m.applies_to(model.index)) models_run.append(model.info.name);
    d["models"] = models_run;
    methods[m.info.name] = d;
  }
  nb::dict r;
  r["models"] = models;
  r["methods"] = methods;
  return r;
}

/// A Python value of a setting keyword as a SettingValue (bool before int: bool is an int in Python).
SettingValue setting_value(nb::handle v) {
  SettingValue s;
  if (nb::isinstance<nb::bool_>(v)) {
    s.kind = SettingValue::Kind::boolean;
    s.flag = nb::cast<bool>(v);
  } else if (nb::isinstance<nb::str>(v)) {
    s.kind = SettingValue::Kind::text;
    s.text = nb::cast<std::string>(v);
  } else if (nb::isinstance<nb::int_>(v) || nb::isinstance<nb::float_>(v) || nb::hasattr(v, "__float__")) {
    s.numbers = {nb::cast<double>(v)};
  } else {
    s.numbers = nb::cast<std::vector<double>>(v);
  }
  return s;
}

/// The rows of an ensemble's arrays: its bodies or its mechanisms.
index_t rows(const BodyEnsemble& e) { return e.bodies(); }
index_t rows(const MechanismEnsemble& e) { return e.mechanisms(); }

/// What both ensembles (bodies, mechanisms) do alike: advance, advance_sampled, observe and the
/// per-row records as zero-copy views.
/// The binding of MechanismEnsemble::step or ::initialize (`call`): the three optional arrays, each
/// checked for the shape (mechanisms, bodies, 3), as MechanismLoads; the GIL released for the call.
auto with_loads(void (MechanismEnsemble::*call)(const MechanismLoads&)) {
  return [call](MechanismEnsemble& e, std::optional<BodyLoads> force, std::optional<BodyLoads> body_torque,
                std::optional<BodyLoads> spatial_torque) {
    int device = -1;  // of the first CUDA array; every array given must be where the first is
    bool first = true;
    const auto data = [&](const std::optional<BodyLoads>& a, const char* name) -> const double* {
      if (!a) return nullptr;
      if (a->shape(0) != std::size_t(e.mechanisms()) || a->shape(1) != std::size_t(e.bodies()) || a->shape(2) != 3)
        throw std::invalid_argument(std::string(name) + " must have the shape (mechanisms, bodies, 3) = (" +
                                    std::to_string(e.mechanisms()) + ", " + std::to_string(e.bodies()) + ", 3)");
      const bool on_cuda = a->device_type() == nb::device::cuda::value;
      if (!on_cuda && a->device_type() != nb::device::cpu::value)
        throw std::invalid_argument(std::string(name) + ": an array in host memory or CUDA device memory expected");
      const int here = on_cuda ? int(a->device_id()) : -1;
      if (!first && here != device)
        throw std::invalid_argument(std::string(name) + ": the loads of one call must all be in host memory or all "
                                    "on one CUDA device");
      first = false, device = here;
      return a->data();
    };
    MechanismLoads loads{data(force, "force"), data(body_torque, "body_torque"), data(spatial_torque, "spatial_torque")};
    loads.device = device;
    nb::gil_scoped_release release;
    (e.*call)(loads);
  };
}

template <class E>
void def_stepping(nb::class_<E>& c) {
  c.def(
       "advance",
       [](E& e, index_t steps) {
         if (steps < 0) throw std::invalid_argument("advance: steps must be >= 0");
         nb::gil_scoped_release release;
         e.advance(steps, SampleView<double>{nullptr, rows(e), 0, 0, 1, 0});
       },
       "steps"_a, "Advance every row by `steps` steps (the GIL is released meanwhile).")
      .def(
          "advance_sampled",
          [](E& e, index_t steps, index_t stride) {
            if (steps < 0 || stride < 1) throw std::invalid_argument("advance: steps >= 0 and stride >= 1 required");
            if (e.steps_done() % stride != 0 || steps % stride != 0)
              throw std::invalid_argument("advance: steps and the steps done so far must be multiples of stride");
            const index_t first = e.steps_done() / stride + 1, count = steps / stride;
            auto buffer = std::make_unique<SampleBuffer>(e.channels(), rows(e), first, count, stride, e.t_start(), e.dt());
            {
              nb::gil_scoped_release release;
              e.advance(steps, buffer->view());
            }
            return samples_dict(buffer.release(), names_of_channels(e.channels()));
          },
          "steps"_a, "stride"_a,
          "Advance by `steps` steps keeping every stride-th state's channels: {'time', 'channels'}.")
      .def(
          "observe",
          [](const E& e) {
            auto* buffer = new SampleBuffer(e.channels(), rows(e), e.steps_done(), 1, 1, e.time(), 0.0);
            const nb::capsule owner = owning(buffer);
            {
              nb::gil_scoped_release release;
              e.observe(buffer->view());
            }
            return channel_views(*buffer, names_of_channels(e.channels()), owner, true);
          },
          "The channels of the current state: {name: array (rows[, k])} (NaN for failed rows).")
      .def(
          "status",
          [](nb::handle self) {
            const E& e = nb::cast<const E&>(self);
            return view(codes(e.status()), {std::size_t(rows(e))}, {1}, self);
          },
          "Per-row status codes (int32, read-only view, no copy).")
      .def(
          "newton_iterations",
          [](nb::handle self) {
            const E& e = nb::cast<const E&>(self);
            return view(e.newton_iterations().data(), {std::size_t(rows(e))}, {1}, self);
          },
          "Per-row Newton iterations in all (int64, read-only view, no copy).")
      .def(
          "failed_step",
          [](nb::handle self) {
            const E& e = nb::cast<const E&>(self);
            return view(e.failed_step().data(), {std::size_t(rows(e))}, {1}, self);
          },
          "Per-row step of failure, -1 for none (int64, read-only view, no copy).")
      .def_prop_ro("steps_done", &E::steps_done)
      .def_prop_ro("time", &E::time)
      .def_prop_ro("dt", &E::dt)
      .def_prop_ro("channels", [](const E& e) { return names_of_channels(e.channels()); });
}

/// The ensemble's state components from `first` on, every body's, as an array of `shape` and
/// `strides` (elements; none: C order) kept alive by `self`, not copied: a NumPy view in host
/// memory, a DLPack array (cupy.from_dlpack, torch.from_dlpack) in CUDA device memory.
nb::object state_array(nb::handle self, int first, std::initializer_list<std::size_t> shape,
                       std::initializer_list<std::int64_t> strides) {
  const BodyEnsemble& e = nb::cast<const BodyEnsemble&>(self);
  const StateStorage storage = e.storage();
  const bool single = e.precision() == Precision::single_precision;
  const nb::dlpack::dtype dtype = single ? nb::dtype<float>() : nb::dtype<double>();
  const void* data = static_cast<const char*>(storage.data) +
                     std::size_t(first) * std::size_t(e.bodies()) * (single ? sizeof(float) : sizeof(double));
  if (storage.device < 0) return nb::cast(ReadOnlyArray(data, shape, self, strides, dtype));
  return nb::cast(nb::ndarray<nb::ro>(data, shape, self, strides, dtype, nb::device::cuda::value, storage.device));
}

}  // namespace

BodyEnsembleSpec ensemble_spec(const std::string& model, const std::string& method, const std::string& variant,
                               nb::dict settings, const std::string& precision, const std::string& backend, double dt,
                               double t_start, const ParameterArray& parameters, std::vector<std::string> given) {
  BodyEnsembleSpec spec;
  spec.model = model;
  spec.method = method;
  spec.variant = variant;
  for (auto [key, value] : settings) spec.settings.emplace_back(nb::cast<std::string>(key), setting_value(value));
  spec.precision = parse_precision(precision);
  spec.backend = parse_backend(backend);
  spec.dt = dt;
  spec.t_start = t_start;
  spec.bodies = index_t(parameters.shape(0));
  spec.parameters.assign(parameters.data(), parameters.data() + parameters.size());
  spec.given = std::move(given);
  return spec;
}
}  // namespace quatstep::python

NB_MODULE(_quatstep, m) {
  using namespace quatstep;
  using namespace quatstep::python;
  m.doc() = "The compiled core of quatstep (use the package `quatstep`, which wraps it).";
  m.attr("version") = version;
  m.attr("simd_lanes") = simd_lanes_available();
  m.attr("simd_isa") = simd_lanes_isa();
  nb::exception<ScenarioError>(m, "ScenarioError", PyExc_ValueError);

  m.def("registry", &registry,
        "The registry: {'models': {name: {keys, defaults, channels, ...}}, 'methods': {name: {settings, variants, "
        "channels, models, ...}}}.");
  m.def(
      "status_name", [](int code) { return std::string(to_string(Status(code))); }, "code"_a,
      "The name of a per-body status code ('ok', 'newton_not_converged', ...).");

  nb::class_<Scenario>(m, "Scenario", "A parsed and validated scenario (quatstep.load / quatstep.run make them).")
      .def_prop_ro("source", [](const Scenario& s) { return s.source; })
      .def_prop_ro("text", [](const Scenario& s) { return s.text; }, "The TOML text.")
      .def_prop_ro("model", [](const Scenario& s) { return std::string(s.model_view().info.name); })
      .def_prop_ro("method", [](const Scenario& s) { return std::string(s.integrator.view().info.name); })
      .def_prop_ro("bodies", [](const Scenario& s) { return s.ensemble_size; })
      .def_prop_ro("steps", [](const Scenario& s) { return s.time.steps; })
      .def_prop_ro("samples", [](const Scenario& s) { return s.samples(); })
      .def_prop_ro("stride", [](const Scenario& s) { return s.stride; })
      .def_prop_ro("dt", [](const Scenario& s) { return s.time.dt; })
      .def_prop_ro("t_start", [](const Scenario& s) { return s.time.t_start; })
      .def_prop_ro("t_end", [](const Scenario& s) { return s.time.t_end; })
      .def_prop_ro("precision", [](const Scenario& s) { return std::string(to_string(s.precision)); })
      .def_prop_ro("warnings", [](const Scenario& s) { return scenario_warnings(s); },
                   "What the scenario asks that its precision cannot deliver (quatstep.load warns with them).")
      .def_prop_ro("backend", [](const Scenario& s) { return std::string(to_string(s.backend)); })
      .def_prop_ro("channels", [](const Scenario& s) { return s.channels; }, "The [output] channels.")
      .def_prop_ro("output_file", [](const Scenario& s) { return s.output_file; })
      .def("body_parameters", [](const Scenario& s, index_t i) { return body_parameters(s, i); }, "body"_a,
           "Body i's flat parameters (registry()['models'][model]['keys'] give the offsets).");

  def_readers<parse_scenario, load_scenario>(
      m, "parse_scenario", "Parse and validate a TOML scenario (ScenarioError, a ValueError, with the command's message).",
      "load_scenario", "Read, parse and validate a scenario file.");

  nb::class_<MechanismScenario>(m, "MechanismScenario",
                                 "A parsed and validated mechanism scenario ([mechanism] tables; quatstep.load / "
                                 "quatstep.run make them).")
      .def_prop_ro("source", [](const MechanismScenario& s) { return s.source; })
      .def_prop_ro("text", [](const MechanismScenario& s) { return s.text; }, "The TOML text.")
      .def_prop_ro("method", [](const MechanismScenario& s) { return std::string(s.method_view().info.name); })
      .def_prop_ro("mechanisms", [](const MechanismScenario& s) { return s.ensemble_size; },
                   "The mechanisms of the ensemble (the rows of every dataset).")
      .def_prop_ro(
          "body_names",
          [](const MechanismScenario& s) {
            std::vector<std::string> names;
            for (const MechanismBodySpec& b : s.mechanism.bodies) names.push_back(b.name);
            return names;
          },
          "The bodies of a mechanism, in the order of the per-body channels' components.")
      .def_prop_ro("steps", [](const MechanismScenario& s) { return s.time.steps; })
      .def_prop_ro("samples", [](const MechanismScenario& s) { return s.samples(); })
      .def_prop_ro("stride", [](const MechanismScenario& s) { return s.stride; })
      .def_prop_ro("dt", [](const MechanismScenario& s) { return s.time.dt; })
      .def_prop_ro("t_start", [](const MechanismScenario& s) { return s.time.t_start; })
      .def_prop_ro("t_end", [](const MechanismScenario& s) { return s.time.t_end; })
      .def_prop_ro("channels", [](const MechanismScenario& s) { return s.channels; },
                   "The [output] channels (the datasets of a run's trajectories), in sample order.")
      .def_prop_ro("output_file", [](const MechanismScenario& s) { return s.output_file; })
      .def_prop_ro(
          "parameter_keys",
          [](const MechanismScenario& s) {
            nb::dict keys;
            for (const auto& [key, size] : parameter_keys(s.mechanism)) keys[key.c_str()] = size;
            return keys;
          },
          "{key: size} of every numeric key of the mechanism ('body.crank.mass': 1, 'body.crank.inertia': 3, …): "
          "what [ensemble] tables and quatstep.MechanismEnsemble's parameters may vary.");

  m.def("is_mechanism_text", &is_mechanism_text, "text"_a, "source"_a,
        "Whether a TOML text describes mechanisms (has a [mechanism] table).");
  m.def("is_mechanism_scenario", &is_mechanism_scenario, "path"_a,
        "Whether a scenario file describes mechanisms (False when it cannot be read).");
  def_readers<parse_mechanism_scenario, load_mechanism_scenario>(
      m, "parse_mechanism_scenario",
      "Parse and validate a mechanism scenario (ScenarioError, a ValueError, with the command's message).",
      "load_mechanism_scenario", "Read, parse and validate a mechanism scenario file.");

  m.def(
      "run_in_memory",
      [](const Scenario& sc, int threads) { return run_released([&] { return run_in_memory(sc, threads); }); },
      "scenario"_a, "threads"_a = 0,
      "Run a scenario to its end as `quatstep run` does, keeping in memory what its file would hold (the GIL is "
      "released meanwhile): {'time', 'channels': {name: (samples, M[, k])}, 'trajectory_bodies', 'bodies', "
      "'parameters': {key: (N[, k])}, 'redraws', 'redrawn_bodies', 'redraw_count', 'statistics': {observable: "
      "{'definition', 'count', 'nonfinite', 'mean', 'std', 'min', 'max', 'quantiles', 'levels', 'histogram', "
      "'edges', 'below', 'above'}}, 'status', 'newton_iterations', 'failed_step', 'accepted_steps', "
      "'rejected_steps', 'smallest_step', 'largest_step' (adaptive steps, else None), 'backend', 'trajectories'}: "
      "the datasets' names, shapes and values.");
  m.def(
      "run_in_memory",
      [](const MechanismScenario& sc, int threads) {
        return run_released([&] { return run_mechanisms_in_memory(sc, threads); });
      },
      "scenario"_a, "threads"_a = 0,
      "Run a mechanism scenario to its end as `quatstep run` does, keeping in memory what its file would hold: "
      "{'time', 'channels': {name: (samples, N[, k])} (the per-body channels with every body's components in "
      "turn), 'parameters': {key: (N[, k])} (swept or overridden keys), 'status', 'newton_iterations', "
      "'failed_step', 'body_values': {'assembly_position_correction', 'assembly_velocity_correction'}, …} as for "
      "a scenario of bodies.");
  def_run_to_file<Scenario>(
      m, [](const Scenario& sc, const RunOptions& o) { return run_scenario(sc, o).output_file; },
      "Run a scenario as `quatstep run` does, writing its HDF5 file; returns the file's path.");
  def_run_to_file<MechanismScenario>(
      m, [](const MechanismScenario& sc, const RunOptions& o) { return run_mechanism_scenario(sc, o).output_file; },
      "Run a mechanism scenario as `quatstep run` does, writing its HDF5 file; returns the file's path.");

  nb::class_<BodyEnsemble> body_ensemble(m, "BodyEnsemble",
                           "An ensemble made from arrays (quatstep.Ensemble wraps it); the state lives in the ensemble, "
                           "the views below read it without a copy.");
  body_ensemble.def_prop_ro("bodies", &BodyEnsemble::bodies)
      .def_prop_ro("precision", [](const BodyEnsemble& e) { return std::string(to_string(e.precision())); })
      .def_prop_ro("translates", &BodyEnsemble::translates)
      .def_prop_ro("bodies_in_lanes", &BodyEnsemble::bodies_in_lanes,
                   "The bodies the CPU steps in SIMD lanes (host/cpu_lanes.hpp); 0 on the GPU.")
      .def_prop_ro("backend", [](const BodyEnsemble& e) { return e.backend().description; })
      .def_prop_ro("state_size", [](const BodyEnsemble& e) { return e.storage().components; })
      .def_prop_ro("device", [](const BodyEnsemble& e) { return e.storage().device; },
                   "The CUDA device holding the state, -1 for host memory.")
      .def_prop_ro(
          "layout",
          [](const BodyEnsemble& e) {
            const StateLayout& l = e.layout();
            nb::dict d;
            d["quaternion"] = l.quaternion;
            d["omega_body"] = l.omega_body;
            d["position"] = l.position;
            d["velocity"] = l.velocity;
            return d;
          },
          "The first state component of each kinematic quantity stored verbatim, or -1 (computed; adaptive "
          "steps: every one, each body being stored at its own time).")
      .def(
          "state",
          [](nb::handle self) {
            const BodyEnsemble& e = nb::cast<const BodyEnsemble&>(self);
            return state_array(self, 0, {std::size_t(e.storage().components), std::size_t(e.bodies())}, {});
          },
          "The integrator's state as stored: (state_size, bodies), read-only, no copy (on the GPU a DLPack array "
          "in device memory).")
      .def(
          "state_view",
          [](nb::handle self, int first, int size) {
            const BodyEnsemble& e = nb::cast<const BodyEnsemble&>(self);
            const std::size_t n = std::size_t(e.bodies());
            if (first < 0 || size < 1 || first + size > e.storage().components)
              throw std::out_of_range("state_view: components");
            return state_array(self, first, {n, std::size_t(size)}, {1, std::int64_t(n)});
          },
          "first"_a, "size"_a,
          "State components [first, first + size) as a (bodies, size) read-only view, no copy (on the GPU a "
          "DLPack array in device memory).")
      .def(
          "kinematics",
          [](const BodyEnsemble& e) {
            const std::size_t n = std::size_t(e.bodies());
            auto* values = new std::vector<double>(n * 13);
            const nb::capsule owner = owning(values);
            double* q = values->data();
            {
              nb::gil_scoped_release release;
              e.kinematics(q, q + 4 * n, e.translates() ? q + 7 * n : nullptr, e.translates() ? q + 10 * n : nullptr);
            }
            nb::dict d;
            d["quaternion"] = view(q, {n, 4}, {4, 1}, owner);
            d["omega_body"] = view(q + 4 * n, {n, 3}, {3, 1}, owner);
            if (e.translates()) {
              d["position"] = view(q + 7 * n, {n, 3}, {3, 1}, owner);
              d["velocity"] = view(q + 10 * n, {n, 3}, {3, 1}, owner);
            }
            return d;
          },
          "Orientation, body angular velocity (and position, velocity) of every body, computed from the state: copies.")
      .def(
          "step_records",
          [](const BodyEnsemble& e) -> nb::object {
            auto* r = new StepRecords(e.step_records());
            const nb::capsule owner = owning(r);
            if (r->accepted.empty()) return nb::none();
            const std::size_t n = r->accepted.size();
            nb::dict d;
            d["accepted_steps"] = view(r->accepted.data(), {n}, {1}, owner);
            d["rejected_steps"] = view(r->rejected.data(), {n}, {1}, owner);
            d["smallest_step"] = view(r->smallest.data(), {n}, {1}, owner);
            d["largest_step"] = view(r->largest.data(), {n}, {1}, owner);
            return d;
          },
          "Adaptive steps: per body {'accepted_steps', 'rejected_steps', 'smallest_step', 'largest_step'} (copies); "
          "None for fixed steps.");
  def_stepping(body_ensemble);

  m.def(
      "make_ensemble",
      [](const std::string& model, const std::string& method, const std::string& variant, nb::dict settings,
         const std::string& precision, const std::string& backend, double dt, double t_start,
         const ParameterArray& parameters, std::vector<std::string> given, bool adaptive, nb::dict step_control) {
        BodyEnsembleSpec spec =
            ensemble_spec(model, method, variant, settings, precision, backend, dt, t_start, parameters, std::move(given));
        spec.adaptive = adaptive;
        for (auto [key, value] : step_control)
          spec.step_control.emplace_back(nb::cast<std::string>(key), setting_value(value));
        nb::gil_scoped_release release;
        return make_body_ensemble(spec);
      },
      "model"_a, "method"_a, "variant"_a, "settings"_a, "precision"_a, "backend"_a, "dt"_a, "t_start"_a,
      "parameters"_a, "given"_a, "adaptive"_a = false, "step_control"_a = nb::dict(),
      "The core of quatstep.Ensemble: `parameters` (bodies, flat parameters of the model), `given` the keys set, "
      "`step_control` [time]'s step-control keys with adaptive steps.");

  nb::class_<MechanismEnsemble> mechanism_ensemble(
      m, "MechanismEnsembleCore",
      "A mechanism scenario's mechanisms advanced step by step (quatstep.MechanismEnsemble wraps it).");
  mechanism_ensemble.def_prop_ro("mechanisms", &MechanismEnsemble::mechanisms)
      .def_prop_ro("bodies", &MechanismEnsemble::bodies, "Bodies per mechanism.")
      .def_prop_ro("mechanisms_in_lanes", &MechanismEnsemble::mechanisms_in_lanes,
                   "The mechanisms advance() steps in SIMD lanes (host/cpu_mechanism_lanes.hpp).")
      .def("use_lanes", &MechanismEnsemble::use_lanes, "on"_a,
           "Turn advance()'s SIMD lanes off or back on where the build, CPU and method have them; the same bits.")
      .def_prop_ro("backend", &MechanismEnsemble::backend, "What steps the mechanisms (for \"auto\", why).")
      .def(
          "assembly_corrections",
          [](nb::handle self) {
            const MechanismEnsemble& e = nb::cast<const MechanismEnsemble&>(self);
            const std::size_t n = std::size_t(e.mechanisms());
            return nb::make_tuple(view(e.position_correction().data(), {n}, {1}, self),
                                  view(e.velocity_correction().data(), {n}, {1}, self));
          },
          "What assembly moved per mechanism: (position, velocity) corrections, read-only views.")
      .def("step", with_loads(&MechanismEnsemble::step), "force"_a = nb::none(), "body_torque"_a = nb::none(),
           "spatial_torque"_a = nb::none(),
           "One step of every mechanism with these loads (float64, (mechanisms, bodies, 3), C order; host "
           "arrays, or CUDA arrays for an ensemble on the GPU) held over it.")
      .def("initialize", with_loads(&MechanismEnsemble::initialize), "force"_a = nb::none(),
           "body_torque"_a = nb::none(), "spatial_torque"_a = nb::none(),
           "Before the first step: the initial accelerations and multipliers consistent with these loads at t_start.");
  def_stepping(mechanism_ensemble);
  m.def(
      "make_mechanism_ensemble",
      [](const MechanismScenario& sc, index_t mechanisms, const std::vector<std::string>& keys,
         const std::vector<nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>>& values,
         const std::string& backend) {
        if (keys.size() != values.size()) throw std::invalid_argument("make_mechanism_ensemble: one array per key");
        MechanismEnsembleSpec spec;
        spec.mechanisms = mechanisms;
        spec.backend = parse_backend(backend);
        for (std::size_t k = 0; k < keys.size(); ++k)
          spec.arrays.push_back({keys[k], std::vector<double>(values[k].data(), values[k].data() + values[k].size())});
        nb::gil_scoped_release release;
        return make_mechanism_ensemble(sc, spec);
      },
      "scenario"_a, "mechanisms"_a, "keys"_a, "values"_a, "backend"_a = "cpu",
      "The core of quatstep.MechanismEnsemble: the scenario's mechanisms, `values[k]` (mechanisms × size of "
      "keys[k], flat) replacing key k, stepped by `backend` (\"cpu\", \"cuda\", \"auto\").");

  bind_batch_stepper(m);
}
