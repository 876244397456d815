// A run described by a TOML scenario file, parsed and validated before any integration.
//
// The format is printed in full by `quatstep docs scenario` (docs/scenario.md is that output): every
// table is read against a key table — the registry's for [model], [initial] and [integrator] (each
// model's parameters and each integrator's settings, declared next to their code), the describe()
// of the structs below for the rest — so a key is documented, defaulted and checked in one place,
// and any other key is an error. In short:
//   [model]       type = "heavy_top" | "free_rigid_body" | …, the model's numeric keys
//   [initial]     the model's initial-state keys (quaternion scalar first, omega_body, …)
//   [integrator]  method = "modified_hht" | …, variant (methods with a compile-time choice), settings
//   [run]         backend = "auto" | "cuda" | "cpu", precision = "double" | "float"
//   [time]        dt, t_end, t_start
//   [ensemble]    size, [[ensemble.sweep]], [[ensemble.random]], [[ensemble.override]]
//   [output]      file, stride, channels
// Order of application for each body: file values, sweeps, random draws, overrides (each in file
// order). The file values are validated as written; each body is validated again after the ensemble
// tables are applied. Every problem is a ScenarioError naming the file, the key (and the body) and
// the problem, e.g. "x.toml: body 17: key 'model.inertia': component 2 is -1, must be > 0".
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "quatstep/settings_keys.hpp"
#include "registry_views.hpp"

namespace quatstep {

struct ScenarioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Backend { automatic, cuda, cpu };
enum class Precision { double_precision, single_precision };
inline constexpr keys::Choice<Backend> backend_names[] = {
    {Backend::automatic, "auto"}, {Backend::cuda, "cuda"}, {Backend::cpu, "cpu"}};
inline constexpr keys::Choice<Precision> precision_names[] = {{Precision::double_precision, "double"},
                                                              {Precision::single_precision, "float"}};
const char* to_string(Backend backend);      ///< "auto", "cuda", "cpu" as in the file
const char* to_string(Precision precision);  ///< "double", "float"
/// "auto" | "cuda" | "cpu" and "double" | "float"; otherwise a ScenarioError listing the names.
Backend parse_backend(const std::string& name);
Precision parse_precision(const std::string& name);

/// [run]
struct RunSpec {
  Backend backend = Backend::automatic;
  Precision precision = Precision::double_precision;

  template <class Keys>
  void describe(Keys& k) {
    k("backend", backend,
      "\"auto\": the GPU when one is usable, else the CPU (the summary says which); \"cuda\": an error without a "
      "usable GPU; the --backend option overrides it",
      keys::Choices<Backend>(backend_names));
    k("precision", precision,
      "every method runs in both; the Newton tolerance default follows the precision; --precision overrides it",
      keys::Choices<Precision>(precision_names));
  }
};

/// [time]
struct TimeSpec {
  double dt = 0;
  double t_end = 0;
  double t_start = 0;
  index_t steps = 0;  ///< round((t_end − t_start)/dt), not a key

  template <class Keys>
  void describe(Keys& k) {
    k.required("dt", dt, "step size", keys::positive);
    k.required("t_end", t_end, "end time, > t_start; (t_end - t_start)/dt must be an integer to 1e-9 relative");
    k("t_start", t_start, "start time");
  }
};

/// [ensemble] (its tables of tables are below)
struct EnsembleSpec {
  std::int64_t size = 1;

  template <class Keys>
  void describe(Keys& k) {
    k("size", size, "number of bodies", keys::between(1, 1e15, ">= 1"));
  }
};

/// [[ensemble.sweep]]: body i gets from + (to - from) * i / (size - 1) (from if size = 1).
struct Sweep {
  std::string key;
  std::vector<double> from, to;

  template <class Keys>
  void describe(Keys& k) {
    k.required("key", key, "a numeric key of [model] or [initial], e.g. \"model.inertia\"");
    k.required("from", from, "value of body 0: as many numbers as the key has, or one for all");
    k.required("to", to, "value of the last body");
  }
};

enum class Distribution { uniform, normal, uniform_rotation };
inline constexpr keys::Choice<Distribution> distribution_names[] = {
    {Distribution::uniform, "uniform"}, {Distribution::normal, "normal"}, {Distribution::uniform_rotation, "uniform_rotation"}};

/// [[ensemble.random]]: reproducible, body i's draw depends only on (seed, i, key).
struct RandomDraw {
  std::string key;
  Distribution distribution = Distribution::uniform;
  std::vector<double> low, high, mean, stddev;
  std::int64_t seed = 0;

  template <class Keys>
  void describe(Keys& k) {
    k.required("key", key, "a numeric key of [model] or [initial]");
    k.required("distribution", distribution,
               "uniform (low, high) | normal (mean, stddev) | uniform_rotation (initial.quaternion only: uniform over "
               "SO(3))",
               keys::Choices<Distribution>(distribution_names));
    k("low", low, "uniform: lower bound, a number per component or one for all");
    k("high", high, "uniform: upper bound (>= low)");
    k("mean", mean, "normal: mean");
    k("stddev", stddev, "normal: standard deviation (>= 0)");
    k("seed", seed, "seed of the counter-based draws", keys::non_negative);
  }
};

/// [[ensemble.override]]: per-body values, applied last: body = index, then any numeric keys.
struct Override {
  index_t body = 0;
  std::vector<std::pair<int, std::vector<double>>> values;  ///< parameter key index, value
};

/// [output]
struct OutputSpec {
  std::string file;  ///< default: <scenario stem>.h5
  std::int64_t stride = 1;
  std::vector<std::string> channels;  ///< default: every channel not marked optional

  template <class Keys>
  void describe(Keys& k) {
    k("file", file, "output file, relative to the current directory (default <scenario stem>.h5); --output overrides it");
    k("stride", stride, "write every stride-th step and the initial state", keys::between(1, 1e15, ">= 1"));
    k("channels", channels,
      "the sampled channels to write (of the model's and the method's, listed by `quatstep docs scenario`); "
      "default: all but the optional ones");
  }
};

/// The [integrator] of a scenario: registry indices and the settings values.
struct IntegratorSpec {
  int method = 0;   ///< in method_views()
  int variant = 0;  ///< in the method's variants
  std::vector<std::vector<double>> settings;  ///< per key of the method's settings, in describe() order

  const MethodView& view() const { return method_views().at(method); }
  /// A setting's value by key name (its first component).
  double value(const std::string& key) const;
};

struct Scenario {
  std::string source;  ///< file name used in messages
  std::string text;    ///< the TOML text, stored in the output file
  int model = 0;       ///< in model_views()
  std::vector<double> base;  ///< the model's per-body parameters as in the file (ModelView::keys)
  IntegratorSpec integrator;
  Backend backend = Backend::automatic;
  Precision precision = Precision::double_precision;
  TimeSpec time;
  index_t ensemble_size = 1;
  std::vector<Sweep> sweeps;
  std::vector<RandomDraw> randoms;
  std::vector<Override> overrides;  ///< sorted by body, file order within a body
  std::string output_file;
  index_t stride = 1;
  std::vector<std::string> channels;  ///< the channels written, in sample order

  const ModelView& model_view() const { return model_views().at(model); }
  index_t samples() const { return time.steps / stride + 1; }
  /// A file value of the model's parameters by key ("model.mass"), every component.
  std::vector<double> value(const std::string& key) const;
};

/// The channels of a sample of the scenario's ensemble, in buffer order: the model's, then the method's.
std::vector<Channel> sample_channels(const Scenario& scenario);

/// Values given outside the file (command-line options) that replace the file's before validation.
struct ScenarioOverrides {
  std::optional<double> t_end;         ///< [time] t_end (short trial runs)
  std::optional<Backend> backend;      ///< [run] backend
  std::optional<Precision> precision;  ///< [run] precision (before the Newton defaults are chosen)
};

/// Parse and validate, with `overrides` replacing the file's values.
Scenario parse_scenario(const std::string& text, const std::string& source, const ScenarioOverrides& overrides = {});
/// Read `path`, then parse_scenario.
Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides = {});

/// Body i's flat parameters (ModelView::keys): file values, sweeps, random draws, overrides.
std::vector<double> body_parameters(const Scenario& scenario, index_t i);
/// One parameter of body i by key, every component.
std::vector<double> body_value(const Scenario& scenario, index_t i, const std::string& key);

}  // namespace quatstep
