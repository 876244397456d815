// Scenario files: every class of bad input is rejected with the file, the key (and the body) and the
// problem in the message; sweep / random / override semantics follow the documented formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hamiltonian_quaternion.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_integrator.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "ensemble_builder.hpp"
#include "scenario.hpp"

using namespace quatstep;

namespace {

const std::string model = R"(
[model]
type = "heavy_top"
inertia = [1.0, 2.0, 1.5]
)";
const std::string rest = R"(
[integrator]
method = "modified_hht"
[time]
dt = 0.01
t_end = 1.0
)";
const std::string valid = model + rest;

/// Replace the first occurrence of `from` in `text` (the test fails if it is absent).
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// The error message of parsing `text` as "bad.toml" (empty if it parsed).
std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "bad.toml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REJECTED(text, key, problem)                                          \
  do {                                                                               \
    const std::string message = error_of(text);                                      \
    EXPECT_EQ(message.rfind("bad.toml: ", 0), 0u) << message;                        \
    EXPECT_NE(message.find(std::string("key '") + (key) + "'"), std::string::npos) << message; \
    EXPECT_NE(message.find(problem), std::string::npos) << message;                  \
  } while (0)

}  // namespace

TEST(ScenarioValid, MinimalFileGetsTheDocumentedDefaults) {
  const Scenario sc = parse_scenario(valid, "dir/minimal.toml");
  EXPECT_EQ(sc.model_view().info.name, std::string("heavy_top"));
  EXPECT_EQ(sc.integrator.view().info.name, std::string("modified_hht"));
  EXPECT_EQ(sc.integrator.value("alpha"), -0.2);
  EXPECT_EQ(sc.integrator.value("inertia_shift"), 0.0);
  EXPECT_EQ(sc.integrator.value("newton_tolerance"), 1e-12);
  EXPECT_EQ(sc.integrator.value("newton_max_iterations"), 10);
  EXPECT_EQ(sc.time.steps, 100);
  EXPECT_EQ(sc.ensemble_size, 1);
  EXPECT_EQ(sc.stride, 1);
  EXPECT_EQ(sc.samples(), 101);
  EXPECT_EQ(sc.output_file, "minimal.h5");
  EXPECT_EQ(sc.value("model.mass"), std::vector<double>{0.0});
  EXPECT_EQ(sc.value("initial.quaternion"), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(sc.channels, (std::vector<std::string>{"quaternion", "omega_body", "energy", "angular_momentum",
                                                   "constraint_violation"}));
  EXPECT_EQ(sc.text, valid);
}

TEST(ScenarioValid, EveryKeyIsRead) {
  const std::string text = R"(
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
body_torque = [1.0, 2.0, 3.0]
spatial_torque = [4.0, 5.0, 6.0]
[model.body_torque_profile]
ramp = [0.5, 0.0, 0.0]
amplitude = [0.0, 0.25, 0.0]
frequency = 3.0
phase = 0.5
[model.spatial_torque_profile]
frequency = 7
[initial]
quaternion = [0.0, 1.0, 0.0, 0.0]
omega_body = [0.0, 150.0, -4.61538]
[integrator]
method = "hht"
alpha = -0.3
inertia_shift = true
drift_tolerance = 0.01
newton_tolerance = 1e-8
newton_max_iterations = 7
newton_jacobian_reuse_below = 0
[time]
dt = 1e-4
t_start = 0.5
t_end = 1.5
[output]
file = "out.h5"
stride = 10
channels = ["energy", "quaternion"]
)";
  const Scenario sc = parse_scenario(text, "all.toml");
  const auto value = [&](const char* key, int c) { return sc.value(key).at(c); };
  EXPECT_EQ(value("model.mass", 0), 15.0);
  EXPECT_EQ(value("model.center_of_mass", 1), 1.0);
  EXPECT_EQ(value("model.gravity", 2), -9.81);
  EXPECT_EQ(value("model.body_torque", 2), 3.0);
  EXPECT_EQ(value("model.spatial_torque", 0), 4.0);
  EXPECT_EQ(value("model.body_torque_profile.ramp", 0), 0.5);
  EXPECT_EQ(value("model.body_torque_profile.amplitude", 1), 0.25);
  EXPECT_EQ(value("model.body_torque_profile.frequency", 0), 3.0);
  EXPECT_EQ(value("model.body_torque_profile.phase", 0), 0.5);
  EXPECT_EQ(value("model.spatial_torque_profile.frequency", 0), 7.0);
  EXPECT_EQ(value("initial.quaternion", 1), 1.0);
  EXPECT_EQ(value("initial.omega_body", 2), -4.61538);
  EXPECT_EQ(sc.integrator.view().info.name, std::string("hht"));
  EXPECT_EQ(sc.integrator.value("alpha"), -0.3);
  EXPECT_EQ(sc.integrator.value("inertia_shift"), 1.0);
  EXPECT_EQ(sc.integrator.value("drift_tolerance"), 0.01);
  EXPECT_EQ(sc.integrator.value("newton_tolerance"), 1e-8);
  EXPECT_EQ(sc.integrator.value("newton_max_iterations"), 7);
  EXPECT_EQ(sc.integrator.value("newton_jacobian_reuse_below"), 0.0);
  EXPECT_EQ(sc.time.t_start, 0.5);
  EXPECT_EQ(sc.time.steps, 10000);  // (1.5 − 0.5)/1e-4
  EXPECT_EQ(sc.output_file, "out.h5");
  EXPECT_EQ(sc.samples(), 1001);
  EXPECT_EQ(sc.channels, (std::vector<std::string>{"quaternion", "energy"}));  // in sample order
}

TEST(ScenarioValid, FreeBodyKeysAndDefaults) {
  const std::string text = edit(valid, "heavy_top", "free_rigid_body") +
                           "[initial]\nposition = [1, 2, 3]\nvelocity = [4, 5, 6]\n"
                           "[model.force_profile]\nramp = [0, 0, 1]\n";
  const std::string with_force = edit(text, "inertia =", "force = [0, 0, -1]\ninertia =");
  const Scenario sc = parse_scenario(with_force, "free.toml");
  EXPECT_EQ(sc.model_view().info.name, std::string("free_rigid_body"));
  EXPECT_EQ(sc.value("model.mass").at(0), 1.0);  // free body default
  EXPECT_EQ(sc.value("initial.position").at(2), 3.0);
  EXPECT_EQ(sc.value("initial.velocity").at(0), 4.0);
  EXPECT_EQ(sc.value("model.force").at(2), -1.0);
  EXPECT_EQ(sc.value("model.force_profile.ramp").at(2), 1.0);
  EXPECT_EQ(sc.channels, (std::vector<std::string>{"quaternion", "omega_body", "position", "velocity", "energy",
                                                   "angular_momentum", "constraint_violation"}));
}

TEST(ScenarioValid, TEndOverrideReplacesTheFileValueBeforeTheStepCount) {
  EXPECT_EQ(parse_scenario(valid, "x.toml", {0.25}).time.steps, 25);
  EXPECT_EQ(parse_scenario(valid, "x.toml", {0.25}).time.t_end, 0.25);
}

TEST(ScenarioValid, NearlyUnitQuaternionIsNormalised) {
  // ‖q‖ = 1 + 5e-7 is within the 1e-6 tolerance; the body gets the normalised quaternion.
  const Scenario sc = parse_scenario(valid + "[initial]\nquaternion = [1.0000005, 0.0, 0.0, 0.0]\n", "q.toml");
  EXPECT_EQ(build::parameters<HeavyTopModel>(body_parameters(sc, 0), 0).initial.quaternion[0], 1.0000005);
  EXPECT_EQ(HeavyTopModel::initial<double>(build::parameters<HeavyTopModel>(body_parameters(sc, 0), 0)).quaternion[0], 1.0);
  EXPECT_NE(error_of(valid + "[initial]\nquaternion = [1.000002, 0.0, 0.0, 0.0]\n"), "");
}

TEST(ScenarioValid, ThinDiscSatisfiesTheTriangleInequalityWithEquality) {
  // Sherif §10.1 disc: 0.234375 + 0.234375 = 0.46875 exactly (docs/errata.md S1) must be accepted.
  EXPECT_EQ(error_of(edit(valid, "[1.0, 2.0, 1.5]", "[0.234375, 0.46875, 0.234375]")), "");
}

TEST(ScenarioValid, AlphaBoundsAreInclusive) {
  EXPECT_EQ(error_of(edit(valid, "method = \"modified_hht\"", "method = \"hht\"\nalpha = -0.3333333333333333")), "");
  EXPECT_EQ(error_of(edit(valid, "method = \"modified_hht\"", "method = \"simo_vu_quoc\"\nalpha = 0")), "");
}

TEST(ScenarioValid, EveryRegisteredMethodByNameWithItsOwnNewtonDefaults) {
  // Every method of the registry parses by its name; its settings defaults are those of its
  // default-constructed settings struct, in the run's precision.
  ASSERT_EQ(method_views().size(), 13u) << "a method was added or removed: extend the expectations below";
  for (const MethodView& m : method_views()) {
    const Scenario sc = parse_scenario(edit(valid, "\"modified_hht\"", std::string("\"") + m.info.name + "\""), "x.toml");
    EXPECT_EQ(sc.integrator.method, m.index) << m.info.name;
    for (std::size_t k = 0; k < m.keys.size(); ++k) EXPECT_EQ(sc.integrator.settings[k], m.keys[k].value) << m.keys[k].name;
    const Scenario in_float = parse_scenario(edit(valid, "\"modified_hht\"", std::string("\"") + m.info.name + "\"") +
                                                 "[run]\nprecision = \"float\"\n",
                                             "x.toml");
    for (std::size_t k = 0; k < m.keys.size(); ++k) EXPECT_EQ(in_float.integrator.settings[k], m.float_defaults[k]);
  }
  // The values those defaults come from, written out.
  for (const char* name : {"hht", "modified_hht", "livens_em", "hamiltonian_midpoint", "zupan3"}) {
    const Scenario sc = parse_scenario(edit(valid, "modified_hht", name), "x.toml");
    EXPECT_EQ(sc.integrator.value("newton_tolerance"), 1e-12) << name;
    EXPECT_EQ(sc.integrator.value("newton_max_iterations"), 10) << name;
  }
  EXPECT_EQ(parse_scenario(edit(valid, "modified_hht", "hht"), "x.toml").integrator.value("alpha"),
            HhtSettings<double>{}.alpha);
}

TEST(ScenarioValid, LivensVariantAndTheMethodsOwnChannels) {
  const std::string livens = edit(valid, "\"modified_hht\"", "\"livens_em\"");
  const auto variant = [&](const std::string& text) {
    const Scenario sc = parse_scenario(text, "x.toml");
    return std::string(sc.integrator.view().variants[sc.integrator.variant].name);
  };
  EXPECT_EQ(variant(livens), "reml");  // the default
  EXPECT_EQ(variant(edit(livens, "\"livens_em\"", "\"livens_em\"\nvariant = \"reml\"")), "reml");
  EXPECT_EQ(variant(edit(livens, "\"livens_em\"", "\"livens_em\"\nvariant = \"full\"")), "full");
  EXPECT_EQ(variant(edit(livens, "\"livens_em\"", "\"livens_em\"\nvariant = \"nullspace\"")), "nullspace");
  // The generalized energy is written by default for the conserving schemes; Zupan3's local error
  // only when [output] channels asks for it.
  const auto channels = [&](const std::string& method, const std::string& output = "") {
    return parse_scenario(edit(valid, "\"modified_hht\"", "\"" + method + "\"") + output, "x.toml").channels;
  };
  const auto has = [](const std::vector<std::string>& v, const char* name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  for (const char* m : {"livens_em", "livens_midpoint", "hamiltonian_em", "hamiltonian_midpoint"})
    EXPECT_TRUE(has(channels(m), "generalized_energy")) << m;
  for (const char* m : {"hht", "modified_hht", "simo_vu_quoc", "zupan3", "explicit_newmark_lie", "midpoint_lie"})
    EXPECT_FALSE(has(channels(m), "generalized_energy")) << m;
  EXPECT_FALSE(has(channels("zupan3"), "local_error"));
  EXPECT_TRUE(has(channels("zupan3", "[output]\nchannels = [\"quaternion\", \"local_error\"]\n"), "local_error"));
}

// ---------------------------------------------------------------- bad input, one class per test
TEST(ScenarioRejects, SyntaxErrorWithLine) {
  const std::string message = error_of(valid + "[time\n");
  EXPECT_NE(message.find("bad.toml:11:"), std::string::npos) << message;
  EXPECT_NE(message.find("TOML syntax error"), std::string::npos) << message;
}

TEST(ScenarioRejects, MissingFile) {
  try {
    load_scenario("/nonexistent/dir/s.toml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/s.toml: cannot open"), std::string::npos) << e.what();
  }
}

TEST(ScenarioRejects, UnknownKeysAnywhere) {
  EXPECT_REJECTED(valid + "[outptu]\nfile = 'x.h5'\n", "outptu", "unknown key (did you mean 'output'?)");
  EXPECT_REJECTED(edit(valid, "inertia", "inertai = [1,1,1]\ninertia"), "model.inertai", "unknown key (did you mean 'inertia'?)");
  EXPECT_REJECTED(valid + "[initial]\nomega = [0, 0, 1]\n", "initial.omega", "unknown key (did you mean 'omega_body'?)");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = 0.01\nsteps = 100"), "time.steps",
                  "unknown key (this table's keys: 'dt', 't_end', 't_start', 'adaptive',");
  EXPECT_REJECTED(edit(valid, "method =", "methd = 1\nmethod ="), "integrator.methd", "unknown key (did you mean 'method'?)");
  EXPECT_REJECTED(valid + "[model.body_torque_profile]\nramp = [0,0,0]\nfreq = 1\n",
                  "model.body_torque_profile.freq", "unknown key (did you mean 'frequency'?)");
  EXPECT_REJECTED(valid + "[output]\nstrid = 2\n", "output.strid", "unknown key (did you mean 'stride'?)");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\nsweeps = 1\n", "ensemble.sweeps", "unknown key (did you mean 'sweep'?)");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.sweep]]\nkey = 'model.mass'\nfrom = 0\nto = 1\nstep = 1\n",
                  "ensemble.sweep[0].step", "unknown key (this table's keys: 'key', 'from', 'to')");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.random]]\nkey = 'model.mass'\ndistribution = 'uniform'\n"
                          "low = 0\nhigh = 1\nmean = 0\n",
                  "ensemble.random[0].mean", "not a parameter of distribution 'uniform'");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.override]]\nbody = 1\ninitial.omega = [0,0,1]\n",
                  "ensemble.override[0].initial.omega", "unknown key (did you mean 'omega_body'?)");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.override]]\nbody = 1\n\"initial.omega\" = [0,0,1]\n",
                  "ensemble.override[0].initial.omega", "unknown key (did you mean 'initial.omega_body'?)");
  // A key of the other model type.
  EXPECT_REJECTED(valid + "[initial]\nposition = [0, 0, 1]\n", "initial.position", "not a key of a heavy_top model");
  EXPECT_REJECTED(edit(edit(valid, "heavy_top", "free_rigid_body"), "inertia", "center_of_mass = [0,1,0]\ninertia"),
                  "model.center_of_mass", "not a key of a free_rigid_body model");
}

TEST(ScenarioRejects, MissingRequiredKeys) {
  EXPECT_REJECTED(edit(valid, "type = \"heavy_top\"", ""), "model.type", "missing (required)");
  EXPECT_REJECTED(edit(valid, "inertia = [1.0, 2.0, 1.5]", ""), "model.inertia", "missing (required)");
  EXPECT_REJECTED(edit(valid, "method = \"modified_hht\"", ""), "integrator.method", "missing (required)");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", ""), "time.dt", "missing (required)");
  EXPECT_REJECTED(edit(valid, "t_end = 1.0", ""), "time.t_end", "missing (required)");
  EXPECT_REJECTED(rest, "model.type", "missing (required)");
}

TEST(ScenarioRejects, WrongTypes) {
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "\"big\""), "model.inertia", "expected an array of 3 numbers, got a string");
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "[1.0, 2.0]"), "model.inertia", "expected an array of 3 numbers, got 2");
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "[1.0, 2.0, 'x']"), "model.inertia[2]", "expected a number, got a string");
  EXPECT_REJECTED(edit(valid, "\"heavy_top\"", "3"), "model.type", "expected a string, got an integer");
  EXPECT_REJECTED(edit(valid, "\"heavy_top\"", "\"top\""), "model.type", "'top' is not one of");
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"rk4\""), "integrator.method", "'rk4' is not one of");
  // a misspelt choice names the one it most likely meant (key_suggestion.hpp), as a misspelt key does
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"modifed_hht\""), "integrator.method",
                  "\"exact_free_splitting\" (did you mean 'modified_hht'?)");
  EXPECT_REJECTED(edit(valid, "\"heavy_top\"", "\"heavytop\""), "model.type", "(did you mean 'heavy_top'?)");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = '0.01'"), "time.dt", "expected a number, got a string");
  EXPECT_REJECTED(edit(valid, "method = \"modified_hht\"", "method = \"hht\"\ninertia_shift = 1"),
                  "integrator.inertia_shift", "expected a boolean, got an integer");
  EXPECT_REJECTED(edit(valid, "method =", "newton_max_iterations = 10.0\nmethod ="), "integrator.newton_max_iterations",
                  "expected an integer, got a float");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2.5\n", "ensemble.size", "expected an integer, got a float");
  EXPECT_REJECTED("initial = 5\n" + valid, "initial", "expected a table, got an integer");
  EXPECT_REJECTED(valid + "[model.body_torque_profile]\nramp = 'up'\n", "model.body_torque_profile.ramp",
                  "expected an array of 3 numbers, got a string");
  EXPECT_REJECTED(edit(valid, "inertia", "body_torque_profile = 1\ninertia"), "model.body_torque_profile",
                  "expected a table, got an integer (its keys: 'body_torque_profile.");
  EXPECT_REJECTED(valid + "[output]\nfile = 3\n", "output.file", "expected a string, got an integer");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\nsweep = 1\n", "ensemble.sweep", "expected an array of tables");
}

TEST(ScenarioRejects, NanAndInfAnywhere) {
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "[1.0, nan, 1.5]"), "model.inertia[1]", "not a finite number (nan)");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = inf"), "time.dt", "not a finite number (inf)");
  EXPECT_REJECTED(valid + "[initial]\nomega_body = [0, -inf, 0]\n", "initial.omega_body[1]", "not a finite number (-inf)");
  EXPECT_REJECTED(edit(valid, "method =", "alpha = nan\nmethod ="), "integrator.alpha", "not a finite number");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.sweep]]\nkey = 'model.mass'\nfrom = nan\nto = 1\n",
                  "ensemble.sweep[0].from", "not a finite number (nan)");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.override]]\nbody = 0\nmodel.gravity = [0, 0, inf]\n",
                  "ensemble.override[0].model.gravity[2]", "not a finite number (inf)");
}

TEST(ScenarioRejects, NonUnitQuaternion) {
  EXPECT_REJECTED(valid + "[initial]\nquaternion = [1.2, 0, 0, 0]\n", "initial.quaternion", "not a unit quaternion (norm 1.2, must be 1 to 1e-06)");
  EXPECT_REJECTED(valid + "[initial]\nquaternion = [0, 0, 0, 0]\n", "initial.quaternion", "not a unit quaternion (norm 0, must be 1 to 1e-06)");
}

TEST(ScenarioRejects, ImpossibleInertia) {
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "[1.0, 2.0, -1]"), "model.inertia", "component 2 is -1, must be > 0");
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "[0, 2.0, 1.5]"), "model.inertia", "component 0 is 0, must be > 0");
  EXPECT_REJECTED(edit(valid, "[1.0, 2.0, 1.5]", "[1.0, 1.0, 3.0]"), "model.inertia", "violate the triangle inequality");
}

// A load's window: begin <= end, for each profile, and also when a sweep makes it otherwise.
TEST(ScenarioRejects, LoadWindowsEndAfterTheyBegin) {
  EXPECT_EQ(error_of(edit(valid, "inertia", "body_torque = [0, 0, 1]\nbody_torque_profile.begin = 0.5\n"
                                            "body_torque_profile.end = 0.6\ninertia")), "");
  EXPECT_REJECTED(edit(valid, "inertia", "body_torque_profile.begin = 0.5\nbody_torque_profile.end = 0.4\ninertia"),
                  "model.body_torque_profile.end", "0.4, must be >= begin (0.5)");
  EXPECT_REJECTED(edit(edit(valid, "heavy_top", "free_rigid_body"), "inertia",
                       "force_profile.begin = 2\nforce_profile.end = 1\ninertia"),
                  "model.force_profile.end", "1, must be >= begin (2)");
  EXPECT_REJECTED(edit(valid, "inertia", "spatial_torque_profile.begin = 0\ninertia") +
                      "[ensemble]\nsize = 2\n[[ensemble.sweep]]\nkey = 'model.spatial_torque_profile.end'\nfrom = 1\nto = -1\n",
                  "model.spatial_torque_profile.end", "-1, must be >= begin (0)");
}

TEST(ScenarioRejects, MassRules) {
  EXPECT_REJECTED(edit(valid, "inertia", "center_of_mass = [0, 1, 0]\ninertia"), "model.mass",
                  "must be > 0 when model.center_of_mass is not zero");
  EXPECT_REJECTED(edit(valid, "inertia", "mass = -1\ninertia"), "model.mass", "-1, must be >= 0");
  EXPECT_REJECTED(edit(edit(valid, "heavy_top", "free_rigid_body"), "inertia", "mass = 0\ninertia"), "model.mass",
                  "0, must be > 0");
}

TEST(ScenarioRejects, IntegratorSettings) {
  EXPECT_REJECTED(edit(valid, "method =", "alpha = 0.1\nmethod ="), "integrator.alpha", "0.1, must be in [-1/3, 0]");
  EXPECT_REJECTED(edit(valid, "method =", "alpha = -0.34\nmethod ="), "integrator.alpha", "-0.34, must be in [-1/3, 0]");
  EXPECT_REJECTED(edit(valid, "method =", "drift_tolerance = 0\nmethod ="), "integrator.drift_tolerance", "0, must be > 0");
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"simo_vu_quoc\"\ninertia_shift = true"), "integrator.inertia_shift",
                  "not used by method 'simo_vu_quoc' (only by hht, modified_hht)");
  EXPECT_REJECTED(edit(valid, "method =", "newton_tolerance = 0\nmethod ="), "integrator.newton_tolerance", "must be > 0");
  EXPECT_REJECTED(edit(valid, "method =", "newton_max_iterations = 0\nmethod ="), "integrator.newton_max_iterations",
                  "must be in [1, 1000]");
  // A rule of the settings struct beyond the ranges (SplittingSettings::validate).
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"no_squish\"\norder = 3"), "integrator.order", "3, must be 2, 4 or 6");
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"symmetric_splitting\"\norder = 8"), "integrator.order",
                  "8, must be 2, 4 or 6");
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"no_squish\"\nnewton_tolerance = 1e-10"),
                  "integrator.newton_tolerance", "not used by method 'no_squish'");
  // ExactFreeSplittingSettings::validate: the near-integrable composition has order 4 only; the other
  // splittings do not take the key (their drift is not exact)
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"exact_free_splitting\"\norder = 6\ncomposition = \"near_integrable\""),
                  "integrator.order", "6, must be 4 with composition = \"near_integrable\"");
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"exact_free_splitting\"\ncomposition = \"aba\""),
                  "integrator.composition", "\"symmetric\", \"near_integrable\"");
  EXPECT_REJECTED(edit(valid, "\"modified_hht\"", "\"symmetric_splitting\"\ncomposition = \"near_integrable\""),
                  "integrator.composition", "not used by method 'symmetric_splitting' (only by exact_free_splitting)");
}

TEST(ScenarioRejects, KeysTheMethodDoesNotUse) {
  const auto with = [](const std::string& method, const std::string& keys) {
    return edit(valid, "method = \"modified_hht\"", "method = \"" + method + "\"\n" + keys);
  };
  EXPECT_REJECTED(with("zupan3", "alpha = -0.1"), "integrator.alpha",
                  "not used by method 'zupan3' (only by hht, modified_hht, simo_vu_quoc)");
  EXPECT_REJECTED(with("livens_em", "alpha = 0"), "integrator.alpha", "not used by method 'livens_em'");
  EXPECT_REJECTED(with("zupan3", "alpha = 'x'"), "integrator.alpha", "not used by method 'zupan3'");  // before its type
  EXPECT_REJECTED(with("simo_vu_quoc", "inertia_shift = false"), "integrator.inertia_shift",
                  "not used by method 'simo_vu_quoc' (only by hht, modified_hht)");
  EXPECT_REJECTED(with("midpoint_lie", "inertia_shift = true"), "integrator.inertia_shift",
                  "not used by method 'midpoint_lie'");
  EXPECT_REJECTED(with("hht", "variant = 'reml'"), "integrator.variant", "not used by method 'hht' (only by livens_em)");
  EXPECT_REJECTED(with("livens_midpoint", "variant = 'full'"), "integrator.variant",
                  "not used by method 'livens_midpoint' (only by livens_em)");
  EXPECT_REJECTED(with("livens_em", "variant = 'reduced'"), "integrator.variant",
                  "'reduced' is not one of \"reml\", \"full\", \"nullspace\"");
  EXPECT_REJECTED(with("livens_em", "variant = 2"), "integrator.variant", "expected a string, got an integer");
  EXPECT_REJECTED(with("hht", "") + "[output]\nchannels = ['local_error']\n", "output.channels",
                  "'local_error' is not a channel of a heavy_top model with method 'hht' (its channels: \"quaternion\"");
  EXPECT_REJECTED(with("livens_em", "") + "[output]\nchannels = ['position']\n", "output.channels",
                  "'position' is not a channel of a heavy_top model with method 'livens_em'");
  EXPECT_REJECTED(with("zupan3", "") + "[output]\nchannels = ['energy', 'energy']\n", "output.channels",
                  "'energy' is listed twice");
  EXPECT_REJECTED(with("zupan3", "") + "[output]\nchannels = 'energy'\n", "output.channels",
                  "expected an array of strings, got a string");
  EXPECT_REJECTED(with("zupan3", "") + "[output]\nlocal_error = true\n", "output.local_error", "unknown key");
}

TEST(ScenarioRejects, TimeGrid) {
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = 0"), "time.dt", "0, must be > 0");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = -0.01"), "time.dt", "-0.01, must be > 0");
  EXPECT_REJECTED(edit(valid, "t_end = 1.0", "t_end = 1.0\nt_start = 1.0"), "time.t_end", "must be > t_start (1)");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = 0.3"), "time.dt", "is not an integer number of steps");
  EXPECT_REJECTED(edit(valid, "dt = 0.01", "dt = 3.0"), "time.dt", "is not an integer number of steps");
}

TEST(ScenarioRejects, OutputAndEnsembleCounts) {
  EXPECT_REJECTED(valid + "[output]\nstride = 0\n", "output.stride", "0, must be >= 1");
  EXPECT_REJECTED(valid + "[output]\nstride = 7\n", "output.stride",
                  "7 does not divide the 100 steps of (t_end - t_start)/dt: the last sample would be step 98, not the "
                  "state at t_end");
  EXPECT_EQ(parse_scenario(valid + "[output]\nstride = 25\n", "ok.toml").samples(), 5);
  EXPECT_REJECTED(valid + "[output]\nfile = ''\n", "output.file", "empty file name");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 0\n", "ensemble.size", "0, must be >= 1");
}

TEST(ScenarioRejects, BadOverrideBody) {
  const std::string ensemble = valid + "[ensemble]\nsize = 3\n[[ensemble.override]]\n";
  EXPECT_REJECTED(ensemble + "body = 3\ninitial.omega_body = [0, 0, 1]\n", "ensemble.override[0].body",
                  "3 is not a body index in [0, 3)");
  EXPECT_REJECTED(ensemble + "body = -1\ninitial.omega_body = [0, 0, 1]\n", "ensemble.override[0].body",
                  "-1 is not a body index");
  EXPECT_REJECTED(ensemble + "initial.omega_body = [0, 0, 1]\n", "ensemble.override[0].body", "missing (required)");
  EXPECT_REJECTED(ensemble + "body = 0\nmodel.type = 'free_rigid_body'\n", "ensemble.override[0].model.type", "unknown key");
}

TEST(ScenarioRejects, SweepAndRandomKeysThatDoNotExist) {
  const std::string ensemble = valid + "[ensemble]\nsize = 3\n";
  EXPECT_REJECTED(ensemble + "[[ensemble.sweep]]\nkey = 'model.inertai'\nfrom = 1\nto = 2\n", "ensemble.sweep[0].key",
                  "'model.inertai' is not a numeric key of [model] or [initial] (did you mean 'model.inertia'?)");
  EXPECT_REJECTED(ensemble + "[[ensemble.sweep]]\nkey = 'time.dt'\nfrom = 1\nto = 2\n", "ensemble.sweep[0].key",
                  "'time.dt' is not a numeric key");
  EXPECT_REJECTED(ensemble + "[[ensemble.random]]\nkey = 'initial.omega'\ndistribution = 'normal'\nmean = 0\nstddev = 1\n",
                  "ensemble.random[0].key", "'initial.omega' is not a numeric key");
  EXPECT_REJECTED(ensemble + "[[ensemble.random]]\nkey = 'initial.velocity'\ndistribution = 'normal'\nmean = 0\nstddev = 1\n",
                  "ensemble.random[0].key", "'initial.velocity' is not a key of a heavy_top model");
  EXPECT_REJECTED(ensemble + "[[ensemble.random]]\nkey = 'model.mass'\ndistribution = 'poisson'\nmean = 0\nstddev = 1\n",
                  "ensemble.random[0].distribution", "'poisson' is not one of");
  EXPECT_REJECTED(ensemble + "[[ensemble.random]]\nkey = 'model.mass'\ndistribution = 'normal'\nmean = 0\nstddev = -1\n",
                  "ensemble.random[0].stddev", "must be >= 0");
  EXPECT_REJECTED(ensemble + "[[ensemble.random]]\nkey = 'model.mass'\ndistribution = 'uniform'\nlow = 2\nhigh = 1\n",
                  "ensemble.random[0].low", "2, must be <= high (1)");
  EXPECT_REJECTED(ensemble + "[[ensemble.sweep]]\nkey = 'model.inertia'\nfrom = [1, 1]\nto = 2\n", "ensemble.sweep[0].from",
                  "expected an array of 3 numbers, got 2");
}

TEST(ScenarioRejects, PerBodyProblemsNameTheBody) {
  // z inertia 1, 0.5, 0, −0.5, −1 for bodies 0..4: body 2 is the first bad one.
  const std::string sweep = edit(valid, "[1.0, 2.0, 1.5]", "[1.0, 1.0, 1.0]") +
                            "[ensemble]\nsize = 5\n[[ensemble.sweep]]\nkey = 'model.inertia'\nfrom = [1, 1, 1]\nto = [1, 1, -1]\n";
  const std::string message = error_of(sweep);
  EXPECT_NE(message.find("bad.toml: body 2: key 'model.inertia': component 2 is 0, must be > 0"), std::string::npos)
      << message;
  const std::string over = valid + "[ensemble]\nsize = 20\n[[ensemble.override]]\nbody = 17\ninitial.quaternion = [0, 2, 0, 0]\n";
  EXPECT_NE(error_of(over).find("bad.toml: body 17: key 'initial.quaternion': not a unit quaternion (norm 2, must be 1 to 1e-06)"),
            std::string::npos)
      << error_of(over);
  EXPECT_EQ(error_of(over).find("uniform_rotation"), std::string::npos) << "an override is no law: no hint";
  // A quaternion drawn component by component is (almost) never unit: the message says what draws one.
  const std::string drawn = valid + "[ensemble]\nsize = 4\n[[ensemble.random]]\nkey = 'initial.quaternion'\n"
                                    "distribution = 'uniform'\nlow = 0.0\nhigh = 1.0\n";
  const std::string law = error_of(drawn);
  EXPECT_EQ(law.rfind("bad.toml: body 0: key 'initial.quaternion': not a unit quaternion (norm ", 0), 0u) << law;
  EXPECT_NE(law.find("distribution = \"uniform_rotation\" or \"rotation_cone\" draws orientations)"), std::string::npos)
      << law;
}

// ---------------------------------------------------------------- ensemble semantics
namespace {
/// Body i's parameters of a heavy-top scenario.
HeavyTopParameters body(const Scenario& sc, index_t i) { return build::parameters<HeavyTopModel>(body_parameters(sc, i), 0); }
}  // namespace

TEST(ScenarioEnsemble, SweepIsLinearInTheBodyIndex) {
  const std::string text = valid + "[ensemble]\nsize = 5\n[[ensemble.sweep]]\nkey = 'model.inertia'\n"
                                   "from = [1.0, 2.0, 1.5]\nto = [1.0, 2.0, 3.0]\n"
                                   "[[ensemble.sweep]]\nkey = 'initial.omega_body'\nfrom = 0\nto = 4\n";
  const Scenario sc = parse_scenario(text, "s.toml");
  const double iz[] = {1.5, 1.875, 2.25, 2.625, 3.0};  // 1.5 + 1.5 i/4, exact in binary
  for (index_t i = 0; i < 5; ++i) {
    const HeavyTopParameters p = body(sc, i);
    EXPECT_EQ(p.inertia[0], 1.0);
    EXPECT_EQ(p.inertia[1], 2.0);
    EXPECT_EQ(p.inertia[2], iz[i]) << "body " << i;
    for (int c = 0; c < 3; ++c) EXPECT_EQ(p.initial.omega_body[c], double(i)) << "broadcast sweep, body " << i;  // 0 + 4 i/4
  }
  // size 1: the sweep gives `from`.
  const Scenario one = parse_scenario(edit(text, "size = 5", "size = 1"), "s.toml");
  EXPECT_EQ(body(one, 0).inertia[2], 1.5);
}

TEST(ScenarioEnsemble, OverridesApplyLastAndOnlyToTheirBody) {
  const std::string text = valid + "[ensemble]\nsize = 4\n[[ensemble.sweep]]\nkey = 'initial.omega_body'\nfrom = 0\nto = 3\n"
                                   "[[ensemble.random]]\nkey = 'model.mass'\ndistribution = 'uniform'\nlow = 1\nhigh = 2\n"
                                   "[[ensemble.override]]\nbody = 2\ninitial.omega_body = [7, 8, 9]\nmodel.mass = 0.5\n"
                                   "model.body_torque_profile.amplitude = [0, 0, 3]\n";
  const Scenario sc = parse_scenario(text, "o.toml");
  for (index_t i = 0; i < 4; ++i) {
    const HeavyTopParameters p = body(sc, i);
    if (i == 2) {
      EXPECT_EQ(p.initial.omega_body, (std::array<double, 3>{7, 8, 9}));
      EXPECT_EQ(p.mass, 0.5);
      EXPECT_EQ(p.loads.body_torque_profile.amplitude[2], 3.0);
    } else {
      EXPECT_EQ(p.initial.omega_body[1], double(i));
      EXPECT_GE(p.mass, 1.0);
      EXPECT_LT(p.mass, 2.0);
      EXPECT_EQ(p.loads.body_torque_profile.amplitude[2], 0.0);
    }
  }
}

namespace {
std::string random_scenario(index_t size, const std::string& distribution, int seed) {
  const std::string params = distribution == "uniform" ? "low = [-1, 0, 2]\nhigh = [1, 0, 5]\n" : "mean = [0, 3, -2]\nstddev = [1, 0, 0.5]\n";
  return valid + "[ensemble]\nsize = " + std::to_string(size) + "\n[[ensemble.random]]\nkey = 'initial.omega_body'\n" +
         "distribution = '" + distribution + "'\n" + params + "seed = " + std::to_string(seed) + "\n";
}
}  // namespace

TEST(ScenarioEnsemble, RandomDrawDependsOnlyOnSeedBodyAndKey) {
  const Scenario small = parse_scenario(random_scenario(10, "normal", 42), "r.toml");
  const Scenario large = parse_scenario(random_scenario(1000, "normal", 42), "r.toml");
  const Scenario other_seed = parse_scenario(random_scenario(10, "normal", 43), "r.toml");
  for (index_t i = 0; i < 10; ++i) {
    EXPECT_EQ(body(small, i).initial.omega_body, body(large, i).initial.omega_body) << "body " << i;
    EXPECT_NE(body(small, i).initial.omega_body[0], body(other_seed, i).initial.omega_body[0]) << "body " << i;
  }
  EXPECT_NE(body(small, 0).initial.omega_body[0], body(small, 1).initial.omega_body[0]);
  // Same seed, another key: a different draw.
  const std::string two_keys = random_scenario(10, "normal", 42) +
                               "[[ensemble.random]]\nkey = 'model.gravity'\ndistribution = 'normal'\nmean = 0\nstddev = 1\nseed = 42\n";
  const HeavyTopParameters p = body(parse_scenario(two_keys, "r.toml"), 3);
  EXPECT_NE(p.initial.omega_body[0], p.loads.gravity[0]);
}

TEST(ScenarioEnsemble, UniformDrawsFillTheirIntervals) {
  constexpr index_t n = 4000;
  const Scenario sc = parse_scenario(random_scenario(n, "uniform", 7), "u.toml");
  double lo = 1e9, hi = -1e9, sum = 0, sum_z = 0;
  for (index_t i = 0; i < n; ++i) {
    const HeavyTopParameters p = body(sc, i);
    lo = std::min(lo, p.initial.omega_body[0]), hi = std::max(hi, p.initial.omega_body[0]);
    sum += p.initial.omega_body[0], sum_z += p.initial.omega_body[2];
    ASSERT_EQ(p.initial.omega_body[1], 0.0);
    ASSERT_GE(p.initial.omega_body[2], 2.0);
    ASSERT_LT(p.initial.omega_body[2], 5.0);
  }
  // Means: σ/√n = 2/√(12·4000) = 0.0091 for x, 1.5× that for z; 4σ bounds.
  EXPECT_NEAR(sum / n, 0.0, 4 * 0.0091) << "measured mean " << sum / n;
  EXPECT_NEAR(sum_z / n, 3.5, 4 * 0.0137) << "measured mean " << sum_z / n;
  EXPECT_LT(lo, -0.99) << "measured min " << lo;
  EXPECT_GT(hi, 0.99) << "measured max " << hi;
}

TEST(ScenarioEnsemble, NormalDrawsHaveTheirMeanAndStandardDeviation) {
  constexpr index_t n = 4000;
  const Scenario sc = parse_scenario(random_scenario(n, "normal", 11), "n.toml");
  double s1 = 0, s2 = 0, z1 = 0, z2 = 0;
  for (index_t i = 0; i < n; ++i) {
    const HeavyTopParameters p = body(sc, i);
    s1 += p.initial.omega_body[0], s2 += p.initial.omega_body[0] * p.initial.omega_body[0];
    z1 += p.initial.omega_body[2], z2 += p.initial.omega_body[2] * p.initial.omega_body[2];
    ASSERT_EQ(p.initial.omega_body[1], 3.0);  // stddev 0
  }
  const double mx = s1 / n, sx = std::sqrt(s2 / n - mx * mx), mz = z1 / n, sz = std::sqrt(z2 / n - mz * mz);
  // 4σ bounds: mean σ/√n, standard deviation σ/√(2n).
  EXPECT_NEAR(mx, 0.0, 4 * 1.0 / std::sqrt(n)) << "measured mean " << mx;
  EXPECT_NEAR(sx, 1.0, 4 * 1.0 / std::sqrt(2.0 * n)) << "measured stddev " << sx;
  EXPECT_NEAR(mz, -2.0, 4 * 0.5 / std::sqrt(n)) << "measured mean " << mz;
  EXPECT_NEAR(sz, 0.5, 4 * 0.5 / std::sqrt(2.0 * n)) << "measured stddev " << sz;
}

TEST(ScenarioEnsemble, UniformRotationDrawsAreUnitAndUniformOverSO3) {
  constexpr index_t n = 4000;
  const std::string text = valid + "[ensemble]\nsize = 4000\n[[ensemble.random]]\nkey = 'initial.quaternion'\n"
                                   "distribution = 'uniform_rotation'\nseed = 5\n";
  const Scenario sc = parse_scenario(text, "q.toml");
  Vec4<double> second_moment = Vec4<double>::Zero();
  Vec3<double> mean_axis = Vec3<double>::Zero();  // R e_z averaged: 0 for a uniform rotation
  for (index_t i = 0; i < n; ++i) {
    const auto q = body(sc, i).initial.quaternion;
    const Vec4<double> e(q[0], q[1], q[2], q[3]);
    ASSERT_NEAR(e.norm(), 1.0, 4e-16) << "body " << i;
    second_moment += e.cwiseProduct(e);
    mean_axis += rotation_matrix(e).col(2);
  }
  second_moment /= double(n);
  mean_axis /= double(n);
  // Uniform on S³: e_k² ~ Beta(1/2, 3/2), mean 1/4 and σ 1/4; R e_z is uniform on S², each component of
  // its mean has σ = 1/√(3n), so |mean| is about 1/√n. 4σ bounds.
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(second_moment[k], 0.25, 4 * 0.25 / std::sqrt(double(n))) << "measured E[e_" << k << "²] " << second_moment[k];
  EXPECT_LT(mean_axis.norm(), 4 / std::sqrt(double(n))) << "measured |E[R e_z]| " << mean_axis.norm();
}

TEST(ScenarioRejects, UniformRotationOnlyForTheQuaternion) {
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.random]]\nkey = 'initial.omega_body'\n"
                          "distribution = 'uniform_rotation'\n",
                  "ensemble.random[0].distribution", "draws quaternion keys only, not 'initial.omega_body'");
  EXPECT_REJECTED(valid + "[ensemble]\nsize = 2\n[[ensemble.random]]\nkey = 'initial.quaternion'\n"
                          "distribution = 'uniform_rotation'\nlow = 0\n",
                  "ensemble.random[0].low", "not a parameter of distribution 'uniform_rotation'");
}

TEST(ScenarioValid, RunTableSelectsBackendAndPrecisionAndOverridesWin) {
  const Scenario defaults = parse_scenario(valid, "r.toml");
  EXPECT_EQ(defaults.backend, Backend::automatic);
  EXPECT_EQ(defaults.precision, Precision::double_precision);
  const std::string text = valid + "[run]\nbackend = 'cpu'\nprecision = 'float'\n";
  const Scenario sc = parse_scenario(text, "r.toml");
  EXPECT_EQ(sc.backend, Backend::cpu);
  EXPECT_EQ(sc.precision, Precision::single_precision);
  ScenarioOverrides o;
  o.backend = Backend::cuda;
  o.precision = Precision::double_precision;
  const Scenario overridden = parse_scenario(text, "r.toml", o);
  EXPECT_EQ(overridden.backend, Backend::cuda);
  EXPECT_EQ(overridden.precision, Precision::double_precision);
  // The Newton default follows the precision: float's own tolerance, double's 1e-12.
  EXPECT_EQ(overridden.integrator.value("newton_tolerance"), 1e-12);
  EXPECT_EQ(sc.integrator.value("newton_tolerance"), double(NewtonSettings<float>{}.tolerance));
  EXPECT_GT(sc.integrator.value("newton_tolerance"), 1e-7) << "float cannot reach double's tolerance";
}

TEST(ScenarioRejects, UnknownBackendOrPrecision) {
  EXPECT_REJECTED(valid + "[run]\nbackend = 'gpu'\n", "run.backend", "'gpu' is not one of \"auto\", \"cuda\", \"cpu\"");
  EXPECT_REJECTED(valid + "[run]\nprecision = 'half'\n", "run.precision", "'half' is not one of \"double\", \"float\"");
  EXPECT_REJECTED(valid + "[run]\nthreads = 4\n", "run.threads", "unknown key (this table's keys: 'backend', 'precision')");
}
