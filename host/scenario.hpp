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
//   [time]        dt, t_end, t_start; adaptive = true and its step-size control (HHT family)
//   [ensemble]    size, [[ensemble.sweep]], [[ensemble.random]], [[ensemble.design]] (with
//                 [[ensemble.design.keys]]), [[ensemble.override]]
//   [output]      file, stride, channels, trajectories (all | none | list | every | auto);
//                 [output.statistics] observables, quantiles, [[output.statistics.observable]]
// Order of application for each body: file values, sweeps, random draws, designs, overrides (each in
// file order). The file values are validated as written; each body is validated again after the ensemble
// tables are applied. Every problem is a ScenarioError naming the file, the key (and the body) and
// the problem, e.g. "x.toml: body 17: key 'model.inertia': component 2 is -1, must be > 0".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "quatstep/adaptive/adaptive_settings.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/settings_keys.hpp"
#include "registry_views.hpp"
#include "sampling/body_shape.hpp"
#include "sampling/distribution.hpp"
#include "sampling/plan.hpp"
#include "shard_range.hpp"
#include "statistics.hpp"

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
  bool adaptive = false;
  AdaptiveSettings<double> step_control;  ///< adaptive = true: its keys (include/quatstep/adaptive/adaptive_settings.hpp)
  /// round((t_end − t_start)/dt), not a key: the steps, or with adaptive = true the output intervals
  index_t steps = 0;

  template <class Keys>
  void describe(Keys& k) {
    k.required("dt", dt,
               "step size; with adaptive = true the spacing of the output times t_start + j dt, between which each "
               "body takes steps of its own size (sampled by dense output)",
               keys::positive);
    k.required("t_end", t_end, "end time, > t_start; (t_end - t_start)/dt must be an integer to 1e-9 relative");
    k("t_start", t_start, "start time");
    k("adaptive", adaptive,
      "per-body adaptive steps (Negrut et al. 2007 section 3: local error estimate, accuracy test, step-size rule, "
      "predictor; include/quatstep/adaptive/): HHT-family methods only, on either backend; the keys below are read "
      "only with adaptive = true");
    step_control.describe(k);
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

/// The laws of [[ensemble.random]] and [[ensemble.design]] (host/sampling/distribution.hpp); the
/// first six are scalar laws, applied to each component (and the only ones of a nested law table).
enum class Law {
  fixed, uniform, normal, truncated_normal, log_normal, log_uniform,  // scalar laws
  choice, uniform_rotation, rotation_cone, axis_magnitude, body_shape
};
inline constexpr keys::Choice<Law> law_names[] = {
    {Law::fixed, "fixed"}, {Law::uniform, "uniform"}, {Law::normal, "normal"}, {Law::truncated_normal, "truncated_normal"},
    {Law::log_normal, "log_normal"}, {Law::log_uniform, "log_uniform"}, {Law::choice, "choice"},
    {Law::uniform_rotation, "uniform_rotation"}, {Law::rotation_cone, "rotation_cone"},
    {Law::axis_magnitude, "axis_magnitude"}, {Law::body_shape, "body_shape"}};
inline constexpr keys::Choice<sampling::Shape> shape_names[] = {{sampling::Shape::box, "box"},
                                                                {sampling::Shape::ellipsoid, "ellipsoid"},
                                                                {sampling::Shape::cylinder, "cylinder"},
                                                                {sampling::Shape::cone, "cone"}};
inline constexpr keys::Choice<sampling::InvalidPolicy> invalid_names[] = {{sampling::InvalidPolicy::fail, "fail"},
                                                                          {sampling::InvalidPolicy::redraw, "redraw"}};

/// A scalar law's parameters: one number per component of the key, or one for every component.
/// Alone, it is a nested law table (magnitude, dimensions, mass, density of a LawSpec).
struct ScalarLawSpec {
  Law distribution = Law::fixed;
  std::vector<double> value, low, high, mean, stddev, mu, sigma;

  template <class Keys>
  void describe(Keys& k) {
    k.required("distribution", distribution,
               "each component: fixed (value) | uniform (low, high) | normal (mean, stddev) | truncated_normal (mean, "
               "stddev, low, high: exact, not clipped; a bound left out is infinite) | log_normal (mu, sigma: ln x ~ "
               "N(mu, sigma^2)) | log_uniform (low, high > 0); the whole value (not in nested law tables): choice "
               "(values, weights) | uniform_rotation (quaternion keys: uniform over SO(3)) | rotation_cone (quaternion "
               "keys: mean, axis, half_angle, spin) | axis_magnitude (3-vectors: axis, half_angle, magnitude) | "
               "body_shape (model.inertia: shape, dimensions, mass or density, mass_key)",
               keys::Choices<Law>(law_names));
    k("value", value, "fixed: the value");
    k("low", low, "uniform, log_uniform: lower bound; truncated_normal: lower truncation");
    k("high", high, "uniform, log_uniform: upper bound (>= low); truncated_normal: upper truncation (> low)");
    k("mean", mean, "normal, truncated_normal: mean (of the untruncated normal); rotation_cone: the mean orientation, "
                    "a unit quaternion (default: the key's value in the file)");
    k("stddev", stddev, "normal (>= 0), truncated_normal (> 0): standard deviation");
    k("mu", mu, "log_normal: mean of ln x");
    k("sigma", sigma, "log_normal: standard deviation of ln x (>= 0)");
  }
};

/// The law of one key's value: [[ensemble.random]] (with `key` and `seed`) and each key of an
/// [[ensemble.design]]. Its nested scalar-law tables (magnitude, dimensions, mass, density) are read
/// against ScalarLawSpec.
struct LawSpec {
  ScalarLawSpec law;
  std::vector<double> values;  ///< read by hand (an array of numbers or of arrays); in describe() for the docs
  std::vector<double> weights;
  std::array<double, 3> axis{0, 0, 1};
  double half_angle = 0;
  bool spin = false;
  sampling::Shape shape = sampling::Shape::box;
  sampling::InvalidPolicy invalid = sampling::InvalidPolicy::fail;
  std::string mass_key;

  template <class Keys>
  void describe(Keys& k) {
    law.describe(k);
    k("values", values,
      "choice: the list of values, numbers for a scalar key, arrays for a vector key; each body takes one");
    k("weights", weights, "choice: one weight >= 0 per value (default: equal)");
    k("axis", axis, "rotation_cone: the body axis whose direction is drawn; axis_magnitude: the cap's axis (any length)");
    k("half_angle", half_angle,
      "rotation_cone, axis_magnitude: half-angle [rad] of the cap of directions, uniform in area; 0: the axis itself, "
      "pi: the whole sphere",
      keys::between(0, 3.14159265358979323846, "in [0, pi]"));
    k("spin", spin, "rotation_cone: add a rotation about `axis` uniform in [0, 2 pi)");
    k("shape", shape,
      "body_shape (model.inertia): principal inertia of a homogeneous solid about its centre of mass, from `dimensions` "
      "(box: length_x, length_y, length_z; ellipsoid: semi_axis_x, _y, _z; cylinder, cone: radius, height along body z) "
      "and `mass` or `density`; the drawn dimensions, mass and density are written per body to "
      "/parameters/model.inertia.shape_dimensions, .shape_mass and .shape_density",
      keys::Choices<sampling::Shape>(shape_names));
    k("invalid", invalid,
      "model.inertia laws, body_shape: a drawn body that is not physical (a moment <= 0, I1 + I2 < I3): \"fail\" "
      "stops before the run naming the body, \"redraw\" draws that body's value again (counted in the summary and "
      "/redraws)",
      keys::Choices<sampling::InvalidPolicy>(invalid_names));
    k("mass_key", mass_key, "body_shape: a key that receives the drawn mass (e.g. \"model.mass\")");
  }
};

/// The nested scalar-law tables of a LawSpec: name, the laws that read it, what it is.
struct NestedLaw {
  const char* name;
  const char* doc;
};
inline constexpr NestedLaw nested_laws[] = {
    {"magnitude", "axis_magnitude: the law of the vector's length"},
    {"dimensions", "body_shape: the law of the shape's dimensions (one number per dimension, or one for all)"},
    {"mass", "body_shape: the law of the body's mass (or `density`)"},
    {"density", "body_shape: the law of the body's density (or `mass`)"}};

/// [[ensemble.random]]: body i's value of `key` depends only on (seed, i, key) (host/sampling/).
struct RandomDraw {
  std::string key;
  LawSpec law;
  std::int64_t seed = 0;

  template <class Keys>
  void describe(Keys& k) {
    k.required("key", key, "a numeric key of [model] or [initial]");
    law.describe(k);
    k("seed", seed, "seed of the counter-based draws (Philox4x32-10)", keys::non_negative);
  }
};

enum class DesignKind { latin_hypercube, sobol };
inline constexpr keys::Choice<DesignKind> design_names[] = {{DesignKind::latin_hypercube, "latin_hypercube"},
                                                            {DesignKind::sobol, "sobol"}};

/// [[ensemble.design]]: one point per body of a joint design over several keys (host/sampling/design.hpp).
struct DesignSpec {
  DesignKind type = DesignKind::latin_hypercube;
  std::int64_t seed = 0;

  template <class Keys>
  void describe(Keys& k) {
    k.required("type", type,
               "latin_hypercube: each coordinate has one body in each of its N strata (depends on the ensemble size) "
               "| sobol: body i takes point i of a digitally shifted Sobol sequence (the first 2^m bodies form a net)",
               keys::Choices<DesignKind>(design_names));
    k("seed", seed, "seed of the design's permutations, jitter and shift", keys::non_negative);
  }
};

/// [[ensemble.design.keys]]: one key of a design, with its law (no seed of its own).
struct DesignKey {
  std::string key;
  LawSpec law;

  template <class Keys>
  void describe(Keys& k) {
    k.required("key", key, "a numeric key of [model] or [initial]");
    law.describe(k);
  }
};

/// [[ensemble.override]]: per-body values, applied last: body = index, then any numeric keys.
struct Override {
  index_t body = 0;
  std::vector<std::pair<int, std::vector<double>>> values;  ///< parameter key index, value
};

/// output.stride against the steps of [time]: the last sample must be the state at t_end, so the
/// stride divides the steps. The problem ("" where there is none), for the output.stride key (a
/// stride below 1, from an override, is a problem too).
std::string stride_problem(const TimeSpec& time, std::int64_t stride);

enum class Trajectories { automatic, all, none, list, every };
inline constexpr keys::Choice<Trajectories> trajectory_names[] = {{Trajectories::automatic, "auto"},
                                                                  {Trajectories::all, "all"},
                                                                  {Trajectories::none, "none"},
                                                                  {Trajectories::list, "list"},
                                                                  {Trajectories::every, "every"}};

/// [output]
struct OutputSpec {
  std::string file;  ///< default: <scenario stem>.h5
  std::int64_t stride = 1;
  std::vector<std::string> channels;  ///< default: every channel not marked optional
  Trajectories trajectories = Trajectories::automatic;
  std::vector<double> trajectory_bodies;  ///< integers, checked by the parser
  std::int64_t trajectory_every = 1;
  double max_trajectory_bytes = 1e9;

  template <class Keys>
  void describe(Keys& k) {
    k("file", file, "output file, relative to the current directory (default <scenario stem>.h5); --output overrides it");
    k("stride", stride,
      "write every stride-th step and the initial state (trajectories and statistics); it must divide the steps "
      "(t_end - t_start)/dt, so that the last sample is the state at t_end",
      keys::between(1, 1e15, ">= 1"));
    k("channels", channels,
      "the sampled channels to write (of the model's and the method's, listed by `quatstep docs scenario`); "
      "default: all but the optional ones");
    k("trajectories", trajectories,
      "which bodies' trajectories are written: \"all\", \"none\" (statistics only), \"list\" (trajectory_bodies), "
      "\"every\" (every trajectory_every-th body from body 0), \"auto\": all when they take at most "
      "max_trajectory_bytes, else every k-th body with the smallest k that fits, or none where one body's alone "
      "would not (the summary and the file's `trajectories` attribute say which, and why)",
      keys::Choices<Trajectories>(trajectory_names));
    k("trajectory_bodies", trajectory_bodies, "trajectories = \"list\": the ensemble indices of the bodies");
    k("trajectory_every", trajectory_every, "trajectories = \"every\": the step between bodies", keys::between(1, 1e15, ">= 1"));
    k("max_trajectory_bytes", max_trajectory_bytes, "trajectories = \"auto\": the size the trajectories may take",
      keys::positive);
  }
};

/// [output] trajectories and the keys of its choice, as read (read_trajectory_list checks the list).
struct TrajectoryChoice {
  Trajectories kind = Trajectories::automatic;
  std::vector<index_t> listed;  ///< trajectory_bodies: ensemble indices, increasing
  std::int64_t every = 1;       ///< trajectory_every
  double max_bytes = 1e9;       ///< max_trajectory_bytes
};

/// [output.statistics]: per-sample ensemble statistics (host/statistics.hpp) of observables.
struct StatisticsTable {
  std::vector<std::string> observables;
  std::vector<double> quantiles{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};

  template <class Keys>
  void describe(Keys& k) {
    k("observables", observables,
      "standard observables by name (below); default: every one the run's channels allow. "
      "[[output.statistics.observable]] tables add others, or bins to these");
    k("quantiles", quantiles, "quantile levels in [0, 1] (type 7, numpy's default); [] for none");
  }
};

enum class ObservableKind { standard, component, norm, relative_drift, nutation, newton_iterations };
inline constexpr keys::Choice<ObservableKind> observable_kind_names[] = {
    {ObservableKind::standard, "standard"},         {ObservableKind::component, "component"},
    {ObservableKind::norm, "norm"},                 {ObservableKind::relative_drift, "relative_drift"},
    {ObservableKind::nutation, "nutation"},         {ObservableKind::newton_iterations, "newton_iterations"}};

/// [[output.statistics.observable]]: an observable of one body's channels, with optional histogram bins.
struct ObservableTable {
  std::string name;
  ObservableKind kind = ObservableKind::standard;
  std::string channel;
  std::int64_t component = 0;
  std::array<double, 3> body_axis{0, 0, 1}, spatial_axis{0, 0, 1};
  std::int64_t bins = 0;
  double low = 0, high = 0;

  template <class Keys>
  void describe(Keys& k) {
    k.required("name", name, "the group /statistics/<name>: a standard observable's name, or a new one (letters, digits, _ - .)");
    k("kind", kind,
      "standard (the definition of a standard name) | component (channel, component) | norm (channel) | "
      "relative_drift (channel: (x - x0)/|x0| for a scalar, |x - x0|/|x0| for a vector: the norm of the "
      "difference) | nutation (body_axis, spatial_axis: the angle between the body axis carried to space and the "
      "spatial axis) | newton_iterations (per step since the previous sample; adaptive steps: per step attempted, "
      "accepted or rejected; at the first sample no step was taken: NaN, counted in nonfinite)",
      keys::Choices<ObservableKind>(observable_kind_names));
    k("channel", channel, "component, norm, relative_drift: a sampled channel of the model or the method");
    k("component", component, "component: the channel's component (0 first)", keys::non_negative);
    k("body_axis", body_axis, "nutation: body axis");
    k("spatial_axis", spatial_axis, "nutation: spatial axis");
    k("bins", bins, "a histogram of this many equal bins over [low, high] per sample (0: none)", keys::non_negative);
    k("low", low, "histogram: lower edge");
    k("high", high, "histogram: upper edge (> low)");
  }
};

/// The channel of the per-sample Newton iterations (the newton_iterations observable reads it): not
/// a sampled channel, the run loop computes it from the bodies' iteration counts.
inline constexpr const char* newton_iterations_channel = "newton_iterations";

/// The [integrator] of a scenario: registry indices and the settings values.
struct IntegratorSpec {
  int method = 0;   ///< in method_views()
  int variant = 0;  ///< in the method's variants
  std::vector<std::vector<double>> settings;  ///< per key of the method's settings, in describe() order

  const MethodView& view() const { return method_views().at(method); }
  /// A setting's value by key name (its first component).
  double value(const std::string& key) const;
};

// ---------------------------------------------------------------- the checks of a scenario's keys
// For inputs that come from elsewhere too (session.hpp's ensembles from arrays): every problem is a
// ScenarioError "<source>: key '<key>': <problem>".
[[noreturn]] void fail_key(const std::string& source, const std::string& key, const std::string& problem);
/// "component 2 is -1, must be > 0" / "-1, must be > 0" / "not finite" when one of `size` values is
/// outside `key`'s range.
std::optional<std::string> range_problem(const KeyInfo& key, const double* values, int size);
/// The first problem of one body's flat parameters (ModelView::keys): each key in its range, then the
/// model's rules across keys.
std::optional<validation::Problem> body_problem(const ModelView& model, const std::vector<double>& parameters);
/// [integrator] method and variant (absent: the method's default) for model `model` (in model_views()),
/// checked — a known method, one that runs on the model, a variant it has — with every setting at its
/// default for `precision` (the Newton tolerance differs).
IntegratorSpec integrator_named(const std::string& source, int model, const std::string& method,
                                const std::optional<std::string>& variant, Precision precision);
/// Why `key` is no setting of `method`: "not used by method 'hht' (only by modified_hht, …)", or ""
/// when no method has it (an unknown key).
std::string unused_setting(const std::string& method, const std::string& key);
/// The rules across a method's settings that a single key's range cannot say (MethodView::check_settings).
void check_settings(const std::string& source, const IntegratorSpec& integrator);

struct Scenario {
  std::string source;  ///< file name used in messages
  std::string text;    ///< the TOML text, stored in the output file
  int model = 0;       ///< in model_views()
  std::vector<double> base;  ///< the model's per-body parameters as in the file (ModelView::keys)
  /// Every body's parameters given outright (ensemble_size rows of ModelView::defaults' size), for a
  /// scenario made from arrays rather than a file (session.hpp); empty: built from base and [ensemble].
  std::vector<double> rows;
  IntegratorSpec integrator;
  Backend backend = Backend::automatic;
  Precision precision = Precision::double_precision;
  TimeSpec time;
  index_t ensemble_size = 1;  ///< bodies of this run: [ensemble] size, or the count of a body selection
  index_t declared_size = 1;  ///< [ensemble] size: the N of sweeps, Latin hypercubes and override indices
  std::vector<index_t> selection;  ///< the bodies run, as indices of the declared ensemble; empty: all
  std::optional<ShardRange> shard;  ///< a shard's range (shard.hpp), also the selection; none: not a shard
  std::vector<Sweep> sweeps;
  sampling::SamplingPlan plan;      ///< [[ensemble.random]] in file order, then [[ensemble.design]]
  bool redraws = false;             ///< some law redraws invalid bodies (invalid = "redraw")
  std::vector<Override> overrides;  ///< sorted by body, file order within a body
  std::vector<int> ensemble_keys;   ///< the model keys an [ensemble] table sets, in the model's key order
  std::string output_file;
  index_t stride = 1;
  std::vector<std::string> channels;  ///< the channels written, in sample order
  Trajectories trajectories = Trajectories::automatic;
  std::vector<index_t> trajectory_bodies;  ///< Trajectories::list: ensemble indices
  index_t trajectory_every = 1;
  double max_trajectory_bytes = 1e9;
  std::optional<statistics::StatisticsSpec> statistics;  ///< [output.statistics]

  const ModelView& model_view() const { return model_views().at(model); }
  index_t samples() const { return time.steps / stride + 1; }
  /// Body i of this run as an index of the declared ensemble (i itself without a selection).
  index_t body_index(index_t i) const { return selection.empty() ? i : selection[std::size_t(i)]; }
  /// A file value of the model's parameters by key ("model.mass"), every component.
  std::vector<double> value(const std::string& key) const;
};

/// The standard observables of [output.statistics] (statistics::rigid_body_observables() and
/// newton_iterations, the iterations per step since the previous sample).
std::vector<statistics::Observable> standard_observables();

/// The channels of a sample of the scenario's ensemble, in buffer order: the model's, then the method's.
std::vector<Channel> sample_channels(const Scenario& scenario);

/// Values given outside the file (command-line options) that replace the file's before validation.
struct ScenarioOverrides {
  std::optional<double> t_end;         ///< [time] t_end (short trial runs)
  std::optional<index_t> stride;       ///< [output] stride (with t_end: a short run's stride must divide its steps)
  std::optional<Backend> backend;      ///< [run] backend
  std::optional<Precision> precision;  ///< [run] precision (before the Newton defaults are chosen)
  std::vector<index_t> bodies;         ///< run these bodies of the ensemble alone (each in [0, size), no repeats)
};

/// Parse and validate, with `overrides` replacing the file's values.
Scenario parse_scenario(const std::string& text, const std::string& source, const ScenarioOverrides& overrides = {});
/// Read `path`, then parse_scenario.
Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides = {});

/// What a valid scenario may still ask that its precision cannot deliver, as messages naming the file
/// and the key: adaptive steps in float whose [time] rotation_atol is below float's round-off floor
/// for the fastest initial spin of the ensemble — ε_float·|ω| per unit time with control =
/// "per_unit_step" (bench/adaptive.md §3: there the fastest bodies fail with step_size_too_small),
/// ε_float per step otherwise. `quatstep run` prints them as warnings before it starts.
std::vector<std::string> scenario_warnings(const Scenario& scenario);

/// The flat parameters (ModelView::keys) of body i of the run (Scenario::body_index(i) of the
/// ensemble): file values, sweeps, random draws and designs, overrides. `redraws`, if given, receives
/// the number of invalid draws thrown away for the body (invalid = "redraw"); `shapes` the records of
/// its body_shape draws (SamplingPlan::shape_records; NaN where an override replaced the drawn key).
std::vector<double> body_parameters(const Scenario& scenario, index_t i, int* redraws = nullptr,
                                    std::vector<sampling::Assignment>* shapes = nullptr);
/// body_parameters of every body of the run, body-major (ensemble_size × ModelView::defaults.size()),
/// drawn in parallel (each body's draws depend on it alone): what the ensemble factory builds models
/// and initial states from, once.
std::vector<double> body_table(const Scenario& scenario);
/// One parameter of body i of the run by key, every component.
std::vector<double> body_value(const Scenario& scenario, index_t i, const std::string& key);

}  // namespace quatstep
