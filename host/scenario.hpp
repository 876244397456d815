// A run described by a TOML scenario file, parsed and validated before any integration.
//
// ---------------------------------------------------------------- scenario file format
//   [model]
//   type = "heavy_top"            # required: "heavy_top" (rigid body about a fixed point)
//                                 #           | "free_rigid_body" (translation + rotation about the CoM)
//   inertia = [Ix, Iy, Iz]        # required: principal inertia about the centre of mass, body axes;
//                                 # each > 0 and I1 + I2 >= I3 for every ordering (a real body)
//   mass = 15.0                   # heavy_top: >= 0, default 0, must be > 0 when center_of_mass != 0
//                                 # free_rigid_body: > 0, default 1
//   center_of_mass = [0, 1, 0]    # heavy_top only: fixed point -> centre of mass, body axes, default 0
//   gravity = [0, 0, -9.81]       # spatial, default 0
//   body_torque = [0, 0, 0]       # constant torque in body axes, default 0
//   spatial_torque = [0, 0, 0]    # constant torque in spatial axes, default 0
//   force = [0, 0, 0]             # free_rigid_body only: constant spatial force at the CoM, default 0
//   [model.body_torque_profile]   # optional; also [model.spatial_torque_profile] and (free_rigid_body)
//                                 # [model.force_profile]. value(t) = constant + ramp*t
//                                 #   + amplitude*sin(frequency*t + phase), the constant being
//                                 #   body_torque / spatial_torque / force above.
//   ramp = [0, 0, 0]              # default 0
//   amplitude = [0, 0, 0]         # default 0
//   frequency = 0.0               # rad/s, default 0
//   phase = 0.0                   # rad, default 0
//
//   [initial]
//   quaternion = [1, 0, 0, 0]     # scalar first, default identity; | |q| - 1 | <= 1e-6 is normalised,
//                                 # more is an error
//   omega_body = [0, 150, -4.61538]  # body angular velocity, default 0
//   position = [0, 0, 0]          # free_rigid_body only, default 0
//   velocity = [0, 0, 0]          # free_rigid_body only, default 0
//
//   [integrator]
//   method = "modified_hht"       # required, one of (class in include/quatstep/integrators/):
//       "hht"                     #   Hht: classical HHT-alpha on the Euler-parameter DAE (Sherif)
//       "modified_hht"            #   ModifiedHht: Sherif's modified HHT-alpha
//       "simo_vu_quoc"            #   SimoVuQuoc: Simo & Vu-Quoc's Lie-group HHT-alpha (Sherif)
//       "zupan3"                  #   Zupan3: Zupan & Zupan's third-order TR-BDF2
//       "explicit_newmark_lie"    #   ExplicitNewmarkLie: Krysl's explicit Newmark (Lie group)
//       "midpoint_lie"            #   MidpointLie: Krysl's implicit midpoint LIEMID[I]
//       "livens_em"               #   LivensEm: Kinon & Betsch's energy-momentum scheme (EML)
//       "livens_midpoint"         #   LivensMidpoint: the midpoint rule on Livens' equations (MPL)
//       "livens_hamiltonian_em"   #   HamiltonianEm: Betsch & Siebert's Hamiltonian EM (EMH)
//       "hamiltonian_midpoint"    #   HamiltonianMidpoint: the Hamiltonian midpoint rule (MPH)
//   alpha = -0.2                  # hht / modified_hht / simo_vu_quoc only: in [-1/3, 0],
//                                 # default -0.2 (HhtSettings)
//   inertia_shift = true          # hht / modified_hht only: second-order variant, default false
//   variant = "reml"              # livens_em only: Newton unknowns "reml" (reduced, §4.5) | "full"
//                                 # | "nullspace" (Remark 4.11), default "reml" (LivensEm's default)
//   newton_tolerance = 1e-12      # > 0, default the method's own settings struct (1e-12 for all)
//   newton_max_iterations = 10    # integer in [1, 1000], default the method's own (10)
//                                 # A key that the method does not use is an error.
//
//   [time]
//   dt = 1e-4                     # required, > 0
//   t_end = 1.0                   # required, > t_start; (t_end - t_start)/dt must be an integer
//   t_start = 0.0                 #   to 1e-9 relative; default 0
//
//   [ensemble]
//   size = 1000                   # number of bodies, integer >= 1, default 1
//   [[ensemble.sweep]]            # body i gets from + (to - from) * i / (size - 1) (from if size = 1)
//   key = "model.inertia"         # any numeric key of [model] or [initial] listed above, profile keys
//   from = [1.0, 2.0, 1.5]        #   as "model.body_torque_profile.amplitude"
//   to = [1.0, 2.0, 3.0]
//   [[ensemble.random]]           # reproducible: body i's draw depends only on (seed, i, key)
//   key = "initial.omega_body"
//   distribution = "uniform"      # with low, high (low <= high) | "normal" with mean, stddev (>= 0)
//   low = -1.0                    # in [ensemble] tables a single number stands for every component
//   high = 1.0
//   seed = 42                     # integer >= 0, default 0
//                                 # key = "initial.quaternion" with distribution = "uniform_rotation"
//                                 # (no other keys but seed) draws orientations uniformly over SO(3)
//   [[ensemble.override]]         # per-body values, applied last
//   body = 3                      # 0 <= body < size
//   initial.omega_body = [0.0, 0.0, 10.0]
//
//   [run]                         # optional: where and in which precision the bodies are integrated
//   backend = "auto"              # "auto" (the GPU when one is usable, else the CPU; the summary
//                                 # says which) | "cuda" (an error if no GPU is usable) | "cpu";
//                                 # default "auto"; the --backend option overrides it
//   precision = "double"          # "double" | "float" (every method; Newton tolerance default
//                                 # then the float one), default "double"; --precision overrides it
//
//   [output]
//   file = "heavy_top.h5"         # relative to the current directory, default <scenario stem>.h5;
//                                 # the --output option overrides it
//   stride = 10                   # write every stride-th step and the initial state, default 1
//   local_error = false           # zupan3 only: write /local_error, the geodesic angle [rad] between
//                                 # the second- and third-order orientation of the step that ended
//                                 # at the sample (errata Z7; 0 at t_start), default false
// /generalized_energy is written for the livens_* and hamiltonian methods: Kinon eq. (74) for
// livens_em / livens_midpoint, the Hamiltonian H of eqs. (138)–(139) for the other two.
//
// Order of application for each body: file values, sweeps, random draws, overrides (each in file
// order). The file values are validated as written; each body is validated again after the ensemble
// tables are applied. Every problem is a ScenarioError naming the file, the key (and the body) and
// the problem, e.g. "x.toml: body 17: key 'model.inertia': component 2 is -1, must be > 0".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "quatstep/integrators/livens_variant.hpp"

namespace quatstep {

struct ScenarioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ModelKind { heavy_top, free_rigid_body };
enum class Method {
  hht,
  modified_hht,
  simo_vu_quoc,
  zupan3,
  explicit_newmark_lie,
  midpoint_lie,
  livens_em,
  livens_midpoint,
  livens_hamiltonian_em,
  hamiltonian_midpoint,
};
const char* to_string(ModelKind kind);
const char* to_string(Method method);
const char* to_string(LivensVariant variant);  ///< "reml", "full", "nullspace" as in the file

/// The method-specific [integrator] keys a method reads (Newton's keys apply to every method).
struct MethodKeys {
  bool alpha, inertia_shift, variant;
};
MethodKeys method_keys(Method method);
/// Whether the method's integrator fills the optional sample channels (traits of ensemble.hpp).
bool provides_local_error(Method method);
bool provides_generalized_energy(Method method);

/// value(t) = constant + ramp·t + amplitude·sin(frequency·t + phase) (models/torque_profile.hpp);
/// the constant lives in BodyParameters next to it.
struct ProfileParameters {
  std::array<double, 3> ramp{};
  std::array<double, 3> amplitude{};
  double frequency = 0;
  double phase = 0;
};

/// Every per-body number of a scenario ([model] and [initial]).
struct BodyParameters {
  std::array<double, 3> inertia{};  ///< principal, about the centre of mass
  double mass = 0;
  std::array<double, 3> center_of_mass{};
  std::array<double, 3> gravity{};
  std::array<double, 3> body_torque{};
  std::array<double, 3> spatial_torque{};
  std::array<double, 3> force{};
  ProfileParameters body_torque_profile, spatial_torque_profile, force_profile;
  std::array<double, 4> quaternion{1, 0, 0, 0};
  std::array<double, 3> omega_body{};
  std::array<double, 3> position{};
  std::array<double, 3> velocity{};
};

struct IntegratorSpec {
  Method method = Method::modified_hht;
  double alpha = 0;             ///< methods with MethodKeys::alpha
  bool inertia_shift = false;   ///< methods with MethodKeys::inertia_shift
  /// Methods with MethodKeys::variant. Default: REML, LivensEm's own (the default of its Variant).
  LivensVariant variant = LivensVariant::reduced;
  double newton_tolerance = 0;
  int newton_max_iterations = 0;
};

struct TimeSpec {
  double t_start = 0;
  double t_end = 0;
  double dt = 0;
  index_t steps = 0;  ///< round((t_end − t_start)/dt)
};

struct Sweep {
  std::string key;
  std::vector<double> from, to;
};

enum class Distribution { uniform, normal, uniform_rotation };
struct RandomDraw {
  std::string key;
  Distribution distribution = Distribution::uniform;
  std::vector<double> first, second;  ///< low/high or mean/stddev (none for uniform_rotation)
  std::uint64_t seed = 0;
};

struct Override {
  index_t body = 0;
  std::vector<std::pair<std::string, std::vector<double>>> values;  ///< key, value
};

enum class Backend { automatic, cuda, cpu };
enum class Precision { double_precision, single_precision };
const char* to_string(Backend backend);      ///< "auto", "cuda", "cpu" as in the file
const char* to_string(Precision precision);  ///< "double", "float"
/// "auto" | "cuda" | "cpu" and "double" | "float"; otherwise a ScenarioError listing the names.
Backend parse_backend(const std::string& name);
Precision parse_precision(const std::string& name);

struct Scenario {
  std::string source;  ///< file name used in messages
  std::string text;    ///< the TOML text, stored in the output file
  ModelKind model = ModelKind::heavy_top;
  BodyParameters base;
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
  bool local_error = false;  ///< write /local_error (only for methods that provide it)

  index_t samples() const { return time.steps / stride + 1; }
};

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

/// Parameters of body i: file values, sweeps, random draws, overrides; quaternion normalised.
BodyParameters body_parameters(const Scenario& scenario, index_t i);

}  // namespace quatstep
