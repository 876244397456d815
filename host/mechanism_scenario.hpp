// A scenario of mechanisms: a TOML file whose [mechanism] tables describe rigid bodies, joints,
// spring–dampers, timed loads and gravity (include/quatstep/mechanism/, docs/mechanisms.md), run by
// `quatstep run` as an ensemble of such mechanisms (host/mechanism_run.hpp). In short:
//   [mechanism]            gravity, assemble = "project" | "reject", assembly tolerances
//   [[mechanism.body]]     name, mass, inertia, position, quaternion, velocity, omega
//   [[mechanism.joint]]    name, type, body_i, body_j, frame = "space" | "body" and its origin and
//                          axes; [mechanism.joint.driver] an angle profile (revolute joints)
//   [[mechanism.spring]]   name, body_i, body_j, point_i, point_j, stiffness, damping, rest_length
//   [[mechanism.load]]     body, kind, value, profile, begin, end
//   [integrator]           method = "hht" | "modified_hht", the HHT settings and project_velocities
//   [time], [run]          as for single bodies (adaptive = true: per-mechanism adaptive HHT steps)
//   [ensemble]             size, [[ensemble.sweep]], [[ensemble.override]] over the mechanism's numeric keys
//   [output]               file, stride, channels, trajectories as for single bodies, [output.statistics]
// Every table is read against the key tables of the spec structs below (keys.hpp), with the
// machinery of the single-body scenario (scenario_reader.hpp), so `quatstep docs scenario` prints
// them and any other key is an error naming the file and the key.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "quatstep/mechanism/assembly.hpp"
#include "quatstep/mechanism/builder.hpp"
#include "quatstep/mechanism/registry.hpp"
#include "quatstep/models/rigid_body_parameters.hpp"
#include "scenario.hpp"

namespace quatstep {

enum class AssemblyPolicy { project, reject };
inline constexpr keys::Choice<AssemblyPolicy> assembly_policy_names[] = {{AssemblyPolicy::project, "project"},
                                                                         {AssemblyPolicy::reject, "reject"}};
inline constexpr keys::Choice<mechanism::JointType> joint_type_names[] = {
    {mechanism::JointType::spherical, "spherical"},     {mechanism::JointType::revolute, "revolute"},
    {mechanism::JointType::universal, "universal"},     {mechanism::JointType::prismatic, "prismatic"},
    {mechanism::JointType::cylindrical, "cylindrical"}, {mechanism::JointType::fixed, "fixed"}};
enum class FrameCoordinates { space, body };
inline constexpr keys::Choice<FrameCoordinates> frame_names[] = {{FrameCoordinates::space, "space"},
                                                                 {FrameCoordinates::body, "body"}};
inline constexpr keys::Choice<mechanism::LoadKind> load_kind_names[] = {
    {mechanism::LoadKind::force, "force"},
    {mechanism::LoadKind::body_torque, "body_torque"},
    {mechanism::LoadKind::spatial_torque, "spatial_torque"}};

/// [mechanism]
struct MechanismSpec {
  std::array<double, 3> gravity{0, 0, 0};
  AssemblyPolicy assemble = AssemblyPolicy::project;
  double assembly_tolerance = 1e-12;
  double max_correction = 0.1;
  std::int64_t assembly_iterations = 20;

  template <class Keys>
  void describe(Keys& k) {
    k("gravity", gravity, "acceleration of gravity, spatial axes [m/s^2]");
    k("assemble", assemble,
      "an initial state off the constraints: \"project\" moves it onto the position and velocity constraints (least "
      "kinetic-energy-norm correction; the summary and /assembly_position_correction, /assembly_velocity_correction report its size), \"reject\" stops with "
      "the joint and the violation when a residual exceeds assembly_tolerance, and otherwise runs the state as given",
      keys::Choices<AssemblyPolicy>(assembly_policy_names));
    k("assembly_tolerance", assembly_tolerance,
      "accepted max |C| (length rows relative to the mechanism's size) and velocity residual (relative to its "
      "largest speed)",
      keys::positive);
    k("max_correction", max_correction,
      "project: a larger position correction (translation relative to the mechanism's size, rotation in rad) is "
      "refused as wrong input; the velocity correction is reported, not bounded",
      keys::positive);
    k("assembly_iterations", assembly_iterations, "project: Gauss-Newton iterations at most",
      keys::between(1, 1000, "in [1, 1000]"));
  }
};

/// [[mechanism.body]]
struct MechanismBodySpec {
  std::string name;
  double mass = 0;
  std::array<double, 3> inertia{0, 0, 0};
  std::array<double, 3> position{0, 0, 0};
  std::array<double, 4> quaternion{1, 0, 0, 0};
  std::array<double, 3> velocity{0, 0, 0};
  std::array<double, 3> omega{0, 0, 0};

  template <class Keys>
  void describe(Keys& k) {
    k.required("name", name, "the body's name, unique; joints, springs and loads refer to it");
    k.required("mass", mass, "mass [kg]", keys::positive);
    k.required("inertia", inertia, "principal moments of inertia about the centre of mass, body axes [kg m^2]");
    k("position", position, "initial position of the centre of mass, spatial [m]");
    k("quaternion", quaternion, "initial orientation, scalar first; within 1e-6 of unit norm (then normalised)");
    k("velocity", velocity, "initial velocity of the centre of mass, spatial [m/s]");
    k("omega", omega, "initial angular velocity, spatial axes [rad/s]");
  }
};

/// [mechanism.joint.driver]: θ(t) = constant + ramp·t + amplitude·sin(frequency·t + phase).
struct DriverSpec {
  double constant = 0, ramp = 0, amplitude = 0, frequency = 0, phase = 0;

  template <class Keys>
  void describe(Keys& k, const std::string& key) {
    k(key + ".constant", constant, "driver: the angle at t = 0 (without the sinusoid) [rad]");
    k(key + ".ramp", ramp, "driver: angular speed [rad/s]");
    k(key + ".amplitude", amplitude, "driver: amplitude of the sinusoid [rad]");
    k(key + ".frequency", frequency, "driver: angular frequency of the sinusoid [rad/s]");
    k(key + ".phase", phase, "driver: phase of the sinusoid [rad]");
  }
};

/// [[mechanism.joint]]
struct MechanismJointSpec {
  std::string name;
  mechanism::JointType type = mechanism::JointType::spherical;
  std::string body_i, body_j;
  FrameCoordinates frame = FrameCoordinates::space;
  std::array<double, 3> origin{0, 0, 0}, axis{0, 0, 1}, x_axis{1, 0, 0};
  std::array<double, 3> origin_i{0, 0, 0}, origin_j{0, 0, 0}, axis_i{0, 0, 1}, axis_j{0, 0, 1};
  std::array<double, 3> x_axis_i{1, 0, 0}, x_axis_j{1, 0, 0};
  DriverSpec driver;
  bool driven = false;  ///< the file has a [mechanism.joint.driver] table (not a key itself)

  template <class Keys>
  void describe(Keys& k) {
    k.required("name", name, "the joint's name, unique");
    k.required("type", type,
               "spherical (3 rows: origins coincide) | revolute (5: and the z axes stay aligned) | universal (4: "
               "origins coincide, z_i perpendicular to z_j, the cross's two arms) | prismatic (5: z axes aligned, "
               "origin j on the z_i line, no rotation about z) | cylindrical (4: prismatic with rotation about z) | "
               "fixed (6)",
               keys::Choices<mechanism::JointType>(joint_type_names));
    k.required("body_i", body_i, "a body's name or \"ground\" (side i)");
    k.required("body_j", body_j, "a body's name or \"ground\" (side j)");
    k("frame", frame,
      "\"space\": one frame given in space at the initial pose (origin, axis, x_axis; a universal joint's arm on "
      "body j is axis_j) and carried into both bodies; \"body\": each side's frame in its body's coordinates "
      "(origin_i, axis_i, x_axis_i, origin_j, axis_j, x_axis_j; the ground's in space)",
      keys::Choices<FrameCoordinates>(frame_names));
    k("origin", origin, "frame = \"space\": the joint's point [m]");
    k("axis", axis, "frame = \"space\": the joint axis z (any length)");
    k("x_axis", x_axis, "frame = \"space\": reference for the frame's x axis (its part normal to z)");
    k("origin_i", origin_i, "frame = \"body\": the point on side i, its body's coordinates [m]");
    k("origin_j", origin_j, "frame = \"body\": the point on side j [m]");
    k("axis_i", axis_i, "frame = \"body\": z on side i");
    k("axis_j", axis_j, "frame = \"body\": z on side j; frame = \"space\": a universal joint's arm on body j");
    k("x_axis_i", x_axis_i, "frame = \"body\": reference x on side i");
    k("x_axis_j", x_axis_j, "frame = \"body\": reference x on side j (frame = \"space\": of a universal's arm j)");
    driver.describe(k, "driver");
  }
};

/// [[mechanism.spring]]: tension k (L - L0) + c dL/dt along the line between the two points.
struct MechanismSpringSpec {
  std::string name;
  std::string body_i, body_j;
  std::array<double, 3> point_i{0, 0, 0}, point_j{0, 0, 0};
  double stiffness = 0, damping = 0, rest_length = 0;

  template <class Keys>
  void describe(Keys& k) {
    k.required("name", name, "the spring's name, unique");
    k.required("body_i", body_i, "a body's name or \"ground\"");
    k.required("body_j", body_j, "a body's name or \"ground\"");
    k("point_i", point_i, "end on body_i, its body coordinates (the ground's: spatial) [m]");
    k("point_j", point_j, "end on body_j [m]");
    k("stiffness", stiffness, "[N/m]", keys::non_negative);
    k("damping", damping, "[N s/m]", keys::non_negative);
    k("rest_length", rest_length, "[m]", keys::non_negative);
  }
};

/// [[mechanism.load]]: value(t) = value + ramp·t + amplitude·sin(frequency·t + phase), for begin ≤ t < end.
struct MechanismLoadSpec {
  std::string body;
  mechanism::LoadKind kind = mechanism::LoadKind::force;
  std::array<double, 3> value{0, 0, 0};
  ProfileParameters profile;  ///< its window is the load's begin and end

  template <class Keys>
  void describe(Keys& k) {
    k.required("body", body, "the body's name");
    k("kind", kind,
      "force (spatial, at the centre of mass) | body_torque (body axes) | spatial_torque; several loads on one body "
      "add up",
      keys::Choices<mechanism::LoadKind>(load_kind_names));
    k("value", value, "the constant of its profile [N or N m]");
    profile.describe_shape(k, "profile");
    profile.describe_window(k, "begin", "end");
  }
};

/// A mechanism as the file describes it: what the ensemble tables vary, before it is built.
struct MechanismDescription {
  MechanismSpec spec;
  std::vector<MechanismBodySpec> bodies;
  std::vector<MechanismJointSpec> joints;
  std::vector<MechanismSpringSpec> springs;
  std::vector<MechanismLoadSpec> loads;
};

/// Every numeric key of a mechanism that [ensemble] tables can vary, with its value: "gravity",
/// "body.<name>.<key>", "joint.<name>.<key>" (driver keys "joint.<name>.driver.ramp"),
/// "spring.<name>.<key>", "load.<index>.<key>" (profile keys "load.0.profile.ramp"); keys as in
/// the tables above.
void for_each_parameter(MechanismDescription& d,
                        const std::function<void(const std::string& key, double* value, int size)>& f);
/// The parameter keys of `d` and their sizes (for_each_parameter's order).
std::vector<std::pair<std::string, int>> parameter_keys(const MechanismDescription& d);

/// An integrator of mechanisms (include/quatstep/mechanism/registry.hpp) as the parser, the run and
/// `quatstep docs` see it, derived from its registry entry once, at first use.
struct MechanismMethodView {
  int index;  ///< in mechanism::MechanismMethods
  MethodInfo info;
  std::vector<KeyInfo> keys;      ///< its settings keys, with their defaults
  std::vector<Channel> channels;  ///< the integrator's own (after the mechanism's in a sample)
  bool adaptive = false;          ///< takes per-mechanism adaptive steps, [time] adaptive = true (the HHT family)
};
const std::vector<MechanismMethodView>& mechanism_method_views();

struct MechanismScenario {
  std::string source;  ///< file name in messages
  std::string text;    ///< the TOML text, stored in the output file
  MechanismDescription mechanism;
  int method = 0;  ///< in mechanism_method_views()
  std::vector<std::vector<double>> settings;  ///< per key of the method's settings, in describe() order
  TimeSpec time;
  Backend backend = Backend::cpu;
  index_t ensemble_size = 1;  ///< [ensemble] size: the mechanisms the sweeps and overrides index
  /// The mechanisms run (--bodies), as indices of the ensemble, in the order given; empty: all.
  std::vector<index_t> selection;
  std::optional<ShardRange> shard;  ///< a shard's range (shard.hpp), also the selection; none: not a shard
  std::vector<Sweep> sweeps;  ///< keys of parameter_keys(), from/to sized to them
  /// [[ensemble.random]] and [[ensemble.design]] over keys of parameter_keys(), drawn per mechanism
  /// (of the ensemble) after the sweeps, before the overrides.
  sampling::SamplingPlan plan;
  bool redraws = false;  ///< some law draws invalid inertias again (invalid = "redraw")
  /// [[ensemble.override]]: mechanism index, then (key of parameter_keys(), value), in file order.
  struct Override {
    index_t mechanism = 0;
    std::vector<std::pair<std::string, std::vector<double>>> values;
  };
  std::vector<Override> overrides;
  std::string output_file;
  index_t stride = 1;
  std::vector<std::string> channels;  ///< [output] channels: those written, in sample order
  TrajectoryChoice trajectories;      ///< [output] trajectories: whose are written (list: ensemble indices)
  /// [output.statistics]: observables of the mechanism's channels (mechanism_observables() by name,
  /// others by kind), written to /statistics as for single bodies.
  std::optional<statistics::StatisticsSpec> statistics;

  const MechanismMethodView& method_view() const { return mechanism_method_views().at(std::size_t(method)); }
  index_t samples() const { return time.steps / stride + 1; }
  /// The mechanisms of this run: the selection's, or the whole ensemble's.
  index_t runs() const { return selection.empty() ? ensemble_size : index_t(selection.size()); }
  /// Mechanism i of this run as an index of the ensemble (i itself without a selection).
  index_t mechanism_index(index_t i) const { return selection.empty() ? i : selection[std::size_t(i)]; }
};

/// The observables an [output.statistics] of a mechanism scenario may name alone, the default set
/// those its method's channels have: energy, energy_drift, the components, norms and drifts of the
/// mechanism-wide linear and angular momenta, position_residual, velocity_residual,
/// sample_newton_iterations, and (Livens schemes) generalized_energy and its drift.
std::vector<statistics::Observable> mechanism_observables();

/// Whether the scenario file `path` describes mechanisms (has a [mechanism] table); false when it
/// cannot be read (load_scenario says why), a ScenarioError when it is not TOML.
bool is_mechanism_scenario(const std::string& path);
/// Whether the TOML `text` describes mechanisms (a ScenarioError naming `source` when it is not TOML).
bool is_mechanism_text(const std::string& text, const std::string& source);
/// Parse and validate (every mechanism of the ensemble is built once, so that a bad one is reported
/// here). Overrides: t_end, backend (mechanism_run.hpp's mechanism_backend) and bodies
/// (the mechanisms to run alone, indices of the ensemble: each one's values and trajectory are its
/// row of the whole ensemble's run, bit for bit).
MechanismScenario parse_mechanism_scenario(const std::string& text, const std::string& source,
                                           const ScenarioOverrides& overrides = {});
/// Read `path`, then parse_mechanism_scenario.
MechanismScenario load_mechanism_scenario(const std::string& path, const ScenarioOverrides& overrides = {});

/// The values a varied mechanism may have got wrong (masses, inertias, quaternions, joint axes, springs,
/// load windows) checked as the file's are: a ScenarioError naming `source` and the key as
/// for_each_parameter names it ("body.crank.mass").
void check_mechanism_values(const MechanismDescription& d, const std::string& source);

/// The keys the [ensemble] tables vary (swept or overridden), once each, in file order, with their
/// sizes: the /parameters datasets.
std::vector<std::pair<std::string, int>> varied_keys(const MechanismScenario& scenario);

/// Mechanism i of the ensemble: the file's description with the sweeps, the draws (a law with
/// invalid = "fail" that draws an invalid inertia: sampling::SamplingError), then the overrides
/// applied; `redraws` (when given) receives the invalid draws thrown away (invalid = "redraw").
MechanismDescription mechanism_description(const MechanismScenario& scenario, index_t i, int* redraws = nullptr);

/// A built mechanism and its initial kinematics (not yet assembled), or a ScenarioError naming the
/// file (and the mechanism, for i ≥ 0 in an ensemble of more than one) and the element.
template <class Cap>
struct BuiltMechanism {
  mechanism::MechanismBuilder<double> builder;
  mechanism::Mechanism<double, Cap> mech;
  mechanism::MechanismKinematics<double, Cap::bodies> initial;
};
template <class Cap>
BuiltMechanism<Cap> build_mechanism(const MechanismDescription& d, const std::string& where);
/// Whether `d` fits SmallCapacity (else LargeCapacity is used).
bool fits_small_capacity(const MechanismDescription& d);
/// SmallCapacity in words: "4 bodies, 8 joints, 24 joint rows, 4 springs and 8 loads".
std::string small_capacity_limits();

}  // namespace quatstep
