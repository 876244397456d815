// [[ensemble.random]] and [[ensemble.design]] in scenario files: every law of host/sampling reaches
// the bodies exactly as the library draws it (same bits: the parser only maps keys to parameters),
// inertias stay physical (redraw | fail), laws that can never give a valid body and every malformed
// law table are rejected before any integration with the file, the key and the problem, and a body
// selection (--bodies) gives the rows of the full ensemble.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "ensemble_builder.hpp"
#include "quatstep/models/validation.hpp"
#include "quatstep/quaternion.hpp"
#include "sampling.hpp"
#include "scenario.hpp"

using namespace quatstep;
using sampling::Distribution;
using sampling::InvalidPolicy;
using sampling::Marginal;

namespace {

constexpr double pi = 3.14159265358979323846;

const std::string top = R"(
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
[initial]
omega_body = [0.0, 150.0, -4.61538]
[integrator]
method = "modified_hht"
[time]
dt = 1e-3
t_end = 0.01
)";

std::string ensemble(index_t size, const std::string& tables) {
  return top + "[ensemble]\nsize = " + std::to_string(size) + "\n" + tables;
}

std::string error_of(const std::string& text, const ScenarioOverrides& o = {}) {
  try {
    parse_scenario(text, "bad.toml", o);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REJECTED(text, key, problem)                                                    \
  do {                                                                                         \
    const std::string message = error_of(text);                                                \
    EXPECT_EQ(message.rfind("bad.toml: ", 0), 0u) << message;                                  \
    EXPECT_NE(message.find(std::string("key '") + (key) + "'"), std::string::npos) << message; \
    EXPECT_NE(message.find(problem), std::string::npos) << message;                            \
  } while (0)

/// Body i's value of `key` as the scenario gives it.
std::vector<double> value(const Scenario& sc, index_t i, const std::string& key) { return body_value(sc, i, key); }

/// Every body's value of `key` equals `law.draw(seed, i, key)`, bit for bit.
void expect_library_draws(const Scenario& sc, const std::string& key, const Distribution& law, std::uint64_t seed) {
  int differing = 0;
  for (index_t i = 0; i < sc.ensemble_size; ++i) differing += value(sc, i, key) != law.draw(seed, i, key);
  EXPECT_EQ(differing, 0) << key << ": bodies whose value differs from the library's draw";
}

}  // namespace

// ---------------------------------------------------------------- every law, as the library draws it
TEST(ScenarioLaws, ComponentwiseLawsAreTheLibrarysDraws) {
  const Scenario sc = parse_scenario(ensemble(200, R"(
[[ensemble.random]]
key = "model.mass"
distribution = "truncated_normal"
mean = 15.0
stddev = 2.0
low = 12.0
seed = 1
[[ensemble.random]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 150.0, -4.6]
stddev = [1.0, 5.0, 0.0]
seed = 2
[[ensemble.random]]
key = "model.gravity"
distribution = "log_uniform"
low = 1.0
high = [2.0, 3.0, 4.0]
seed = 3
[[ensemble.random]]
key = "model.center_of_mass"
distribution = "log_normal"
mu = 0.0
sigma = 0.1
seed = 4
[[ensemble.random]]
key = "model.body_torque"
distribution = "fixed"
value = [1.0, 2.0, 3.0]
[[ensemble.random]]
key = "model.spatial_torque"
distribution = "uniform"
low = -1.0
high = 1.0
)"), "laws.toml");
  expect_library_draws(sc, "model.mass", Distribution::truncated_normal({15.0}, {2.0}, {12.0}, {INFINITY}), 1);
  expect_library_draws(sc, "initial.omega_body", Distribution::normal({0.0, 150.0, -4.6}, {1.0, 5.0, 0.0}), 2);
  expect_library_draws(sc, "model.gravity", Distribution::log_uniform({1.0}, {2.0, 3.0, 4.0}), 3);
  expect_library_draws(sc, "model.center_of_mass", Distribution::log_normal({0.0}, {0.1}).for_dimension(3), 4);
  expect_library_draws(sc, "model.body_torque", Distribution::fixed({1.0, 2.0, 3.0}), 0);
  expect_library_draws(sc, "model.spatial_torque", Distribution::uniform({-1.0}, {1.0}).for_dimension(3), 0);
  // The truncation holds exactly: no body below the bound (a clipped law would pile bodies on it).
  int at_bound = 0;
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    ASSERT_GE(value(sc, i, "model.mass")[0], 12.0);
    at_bound += value(sc, i, "model.mass")[0] == 12.0;
  }
  EXPECT_EQ(at_bound, 0);
  // The keys that vary are the ones written to /parameters, in the model's order.
  std::vector<std::string> keys;
  for (int k : sc.ensemble_keys) keys.push_back(sc.model_view().keys[k].name);
  EXPECT_EQ(keys, (std::vector<std::string>{"model.mass", "model.center_of_mass", "model.gravity", "model.body_torque",
                                            "model.spatial_torque", "initial.omega_body"}));
}

TEST(ScenarioLaws, ChoiceRotationsAndAxisTimesMagnitude) {
  const Scenario sc = parse_scenario(ensemble(300, R"(
[[ensemble.random]]
key = "model.center_of_mass"
distribution = "choice"
values = [[0.0, 1.0, 0.0], [0.0, 0.5, 0.0]]
weights = [3.0, 1.0]
seed = 5
[[ensemble.random]]
key = "initial.quaternion"
distribution = "rotation_cone"
axis = [0.0, 0.0, 1.0]
half_angle = 0.2
spin = true
seed = 6
[[ensemble.random]]
key = "initial.omega_body"
distribution = "axis_magnitude"
axis = [0.0, 1.0, 0.0]
half_angle = 0.05
magnitude = { distribution = "normal", mean = 150.0, stddev = 10.0 }
seed = 7
)"), "c.toml");
  expect_library_draws(sc, "model.center_of_mass", Distribution::choice({{0.0, 1.0, 0.0}, {0.0, 0.5, 0.0}}, {3.0, 1.0}), 5);
  // The cone's mean orientation defaults to the file's (the identity here).
  expect_library_draws(sc, "initial.quaternion", Distribution::rotation_cone({1, 0, 0, 0}, {0, 0, 1}, 0.2, true), 6);
  expect_library_draws(sc, "initial.omega_body",
                       Distribution::axis_magnitude({{0, 1, 0}, 0.05}, Marginal::normal(150.0, 10.0)), 7);
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    const std::vector<double> q = value(sc, i, "initial.quaternion");
    const Vec3<double> z = rotation_matrix(Vec4<double>(q[0], q[1], q[2], q[3])).col(2);
    ASSERT_LE(std::acos(std::min(1.0, z[2])), 0.2 + 1e-12) << "body " << i << ": body z outside the cone";
    const std::vector<double> w = value(sc, i, "initial.omega_body");
    ASSERT_LE(std::atan2(std::hypot(w[0], w[2]), w[1]), 0.05 + 1e-12) << "body " << i;
  }
  // uniform_rotation: the library's Shoemake draws.
  const Scenario uniform = parse_scenario(ensemble(50, "[[ensemble.random]]\nkey = 'initial.quaternion'\n"
                                                       "distribution = 'uniform_rotation'\nseed = 9\n"),
                                          "u.toml");
  expect_library_draws(uniform, "initial.quaternion", Distribution::uniform_rotation(), 9);
}

TEST(ScenarioLaws, BodyShapesGiveInertiaAndMass) {
  // Boxes of steel (density 7850) with random edges: the inertia and the mass key are the shape's.
  const std::string boxes = R"(
[[ensemble.random]]
key = "model.inertia"
distribution = "body_shape"
shape = "box"
dimensions = { distribution = "uniform", low = [0.01, 0.02, 0.03], high = [0.02, 0.04, 0.06] }
density = { distribution = "fixed", value = 7850.0 }
mass_key = "model.mass"
seed = 11
)";
  const Scenario sc = parse_scenario(ensemble(500, boxes), "box.toml");
  const Distribution law = Distribution::body_shape(
      sampling::Shape::box, {Marginal::uniform(0.01, 0.02), Marginal::uniform(0.02, 0.04), Marginal::uniform(0.03, 0.06)},
      sampling::ShapeAmount::density, Marginal::fixed(7850.0), InvalidPolicy::fail);
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    const sampling::Drawn d = law.sample(11, i, "model.inertia");
    ASSERT_EQ(value(sc, i, "model.inertia"), d.value) << "body " << i;
    ASSERT_EQ(value(sc, i, "model.mass")[0], d.mass) << "body " << i;
    // m between ρ·V_min and ρ·V_max; the moments those of a box: I_x + I_y − I_z = m c²/6 > 0.
    const double m = d.mass;
    ASSERT_GE(m, 7850.0 * 0.01 * 0.02 * 0.03);
    ASSERT_LE(m, 7850.0 * 0.02 * 0.04 * 0.06);
    const double c2 = 6 * (d.value[0] + d.value[1] - d.value[2]) / m;
    ASSERT_GE(c2, 0.03 * 0.03 * (1 - 1e-12));
    ASSERT_LE(c2, 0.06 * 0.06 * (1 + 1e-12));
  }
  // `shape` defaults to "box" (docs/scenario.md): the same table without it draws the same bodies.
  std::string unnamed_text = boxes;
  unnamed_text.erase(unnamed_text.find("shape = \"box\"\n"), 14);
  const Scenario unnamed = parse_scenario(ensemble(500, unnamed_text), "box.toml");
  for (index_t i = 0; i < sc.ensemble_size; ++i) ASSERT_EQ(value(unnamed, i, "model.inertia"), value(sc, i, "model.inertia"));
}

TEST(ScenarioLaws, BodyShapeRecordsAreTheDrawsUnlessOverridden) {
  // /parameters/model.inertia.shape_*: the drawn edges, mass and density; NaN for a body whose
  // inertia an override replaced (those edges did not make it).
  const Scenario sc = parse_scenario(ensemble(20, R"(
[[ensemble.random]]
key = "model.inertia"
distribution = "body_shape"
shape = "cylinder"
dimensions = { distribution = "uniform", low = [0.1, 0.5], high = [0.2, 1.0] }
mass = { distribution = "uniform", low = 1.0, high = 3.0 }
seed = 5

[[ensemble.override]]
body = 7
"model.inertia" = [1.0, 1.0, 0.5]
)"), "cylinder.toml");
  const std::vector<sampling::ShapeRecord> records = sc.plan.shape_records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].name, "model.inertia.shape_dimensions");
  EXPECT_EQ(records[0].size, 2);
  EXPECT_EQ(records[1].name, "model.inertia.shape_mass");
  EXPECT_EQ(records[2].name, "model.inertia.shape_density");
  const Distribution law = Distribution::body_shape(sampling::Shape::cylinder,
                                                    {Marginal::uniform(0.1, 0.2), Marginal::uniform(0.5, 1.0)},
                                                    sampling::ShapeAmount::mass, Marginal::uniform(1.0, 3.0),
                                                    InvalidPolicy::fail);
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    std::vector<sampling::Assignment> shapes;
    body_parameters(sc, i, nullptr, &shapes);
    ASSERT_EQ(shapes.size(), 3u);
    if (i == 7) {
      for (const sampling::Assignment& a : shapes)
        for (double x : a.value) EXPECT_TRUE(std::isnan(x)) << a.key;
      continue;
    }
    const sampling::Drawn d = law.sample(5, i, "model.inertia");
    ASSERT_EQ(shapes[0].value, d.dimensions) << "body " << i;
    ASSERT_EQ(shapes[1].value[0], d.mass) << "body " << i;
    const double radius = d.dimensions[0], height = d.dimensions[1];
    EXPECT_NEAR(shapes[2].value[0], d.mass / (3.14159265358979323846 * radius * radius * height), 1e-12 * d.mass)
        << "body " << i;
    EXPECT_EQ(value(sc, i, "model.inertia"), d.value) << "body " << i;
  }
}

// ---------------------------------------------------------------- physical inertias
TEST(ScenarioInertia, ThinDiscWithNormalSpreadRedrawsOrFailsNamingTheBody) {
  // The issue: the thin disc has J_x + J_z = J_y exactly; a normal spread violates the triangle
  // inequality for about half of the bodies.
  const std::string law = "[[ensemble.random]]\nkey = 'model.inertia'\ndistribution = 'normal'\n"
                          "mean = [0.234375, 0.46875, 0.234375]\nstddev = 0.01\nseed = 3\n";
  const std::string fail = error_of(ensemble(100, law));
  EXPECT_EQ(fail.rfind("bad.toml: body ", 0), 0u) << fail;
  EXPECT_NE(fail.find("key 'model.inertia': drawn moments"), std::string::npos) << fail;
  EXPECT_NE(fail.find("invalid = \"redraw\""), std::string::npos) << "the message says how to keep going: " << fail;

  const Scenario sc = parse_scenario(ensemble(2000, law + "invalid = 'redraw'\n"), "disc.toml");
  EXPECT_TRUE(sc.redraws);
  const Distribution library = Distribution::principal_inertia(
      Distribution::normal({0.234375, 0.46875, 0.234375}, {0.01}), InvalidPolicy::redraw);
  long redraws = 0;
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    int r = -1;
    const std::vector<double> p = body_parameters(sc, i, &r);
    const sampling::Drawn d = library.sample(3, i, "model.inertia");
    ASSERT_EQ(value(sc, i, "model.inertia"), d.value) << "body " << i;
    ASSERT_EQ(r, d.redraws) << "body " << i;
    ASSERT_EQ(validation::principal_moments_problem(d.value), "") << "body " << i;
    redraws += r;
  }
  // Redraws per body are geometric with p = 1/2: mean 1, standard deviation √2; 5σ of the mean.
  EXPECT_NEAR(double(redraws) / 2000, 1.0, 5 * std::sqrt(2.0 / 2000)) << "measured " << double(redraws) / 2000;
}

TEST(ScenarioInertia, LawsThatCanNeverGiveABodyAreErrorsBeforeTheRun) {
  // I_z >= 5 against I_x + I_y <= 2: no body ever.
  EXPECT_REJECTED(ensemble(10, "[[ensemble.random]]\nkey = 'model.inertia'\ndistribution = 'uniform'\n"
                               "low = [0.5, 0.5, 5.0]\nhigh = [1.0, 1.0, 6.0]\ninvalid = 'redraw'\n"),
                  "ensemble.random[0]", "model.inertia: moments 0 + 1 can never reach moment 2");
  // A normal law whose mean is far outside: redraw would (almost) never end.
  EXPECT_REJECTED(ensemble(10, "[[ensemble.random]]\nkey = 'model.inertia'\ndistribution = 'normal'\n"
                               "mean = [1.0, 1.0, 3.0]\nstddev = 0.01\ninvalid = 'redraw'\n"),
                  "ensemble.random[0]", "trial draws are valid bodies");
  EXPECT_REJECTED(ensemble(10, "[[ensemble.random]]\nkey = 'model.inertia'\ndistribution = 'body_shape'\nshape = 'cylinder'\n"
                               "dimensions = { distribution = 'uniform', low = [-2.0, 1.0], high = [-1.0, 2.0] }\n"
                               "mass = { distribution = 'fixed', value = 1.0 }\n"),
                  "ensemble.random[0]", "radius can never be > 0");
}

// ---------------------------------------------------------------- joint designs
TEST(ScenarioDesigns, LatinHypercubeStratifiesEveryCoordinate) {
  constexpr index_t n = 97;
  const Scenario sc = parse_scenario(ensemble(n, R"(
[[ensemble.design]]
type = "latin_hypercube"
seed = 4
[[ensemble.design.keys]]
key = "model.mass"
distribution = "uniform"
low = 10.0
high = 20.0
[[ensemble.design.keys]]
key = "initial.omega_body"
distribution = "uniform"
low = [-1.0, 140.0, -5.0]
high = [1.0, 160.0, -4.0]
)"), "lhs.toml");
  const auto library = sampling::JointDesign::latin_hypercube(
      "design 0",
      {{"model.mass", Distribution::uniform({10.0}, {20.0})},
       {"initial.omega_body", Distribution::uniform({-1.0, 140.0, -5.0}, {1.0, 160.0, -4.0})}},
      n);
  std::vector<std::set<int>> strata(4);
  for (index_t i = 0; i < n; ++i) {
    const std::vector<sampling::Drawn> d = library.sample(4, i);
    ASSERT_EQ(value(sc, i, "model.mass"), d[0].value) << "body " << i;
    ASSERT_EQ(value(sc, i, "initial.omega_body"), d[1].value) << "body " << i;
    const std::vector<double> m = value(sc, i, "model.mass"), w = value(sc, i, "initial.omega_body");
    strata[0].insert(int(std::floor((m[0] - 10.0) / 10.0 * n)));
    strata[1].insert(int(std::floor((w[0] + 1.0) / 2.0 * n)));
    strata[2].insert(int(std::floor((w[1] - 140.0) / 20.0 * n)));
    strata[3].insert(int(std::floor((w[2] + 5.0) / 1.0 * n)));
  }
  for (int j = 0; j < 4; ++j) EXPECT_EQ(strata[j].size(), std::size_t(n)) << "coordinate " << j << ": one body per stratum";
}

TEST(ScenarioDesigns, SobolIsTheLibrarysShiftedSequence) {
  const Scenario sc = parse_scenario(ensemble(64, R"(
[[ensemble.design]]
type = "sobol"
seed = 8
[[ensemble.design.keys]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 150.0, 0.0]
stddev = [1.0, 10.0, 1.0]
)"), "sobol.toml");
  const auto library = sampling::JointDesign::sobol("design 0", {{"initial.omega_body", Distribution::normal({0.0, 150.0, 0.0}, {1.0, 10.0, 1.0})}});
  for (index_t i = 0; i < 64; ++i) ASSERT_EQ(value(sc, i, "initial.omega_body"), library.sample(8, i)[0].value) << i;
}

// ---------------------------------------------------------------- a body selection
TEST(ScenarioSelection, SelectedBodiesAreTheRowsOfTheFullEnsemble) {
  const std::string text = ensemble(5000, R"(
[[ensemble.sweep]]
key = "model.mass"
from = 10.0
to = 20.0
[[ensemble.random]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 150.0, 0.0]
stddev = 3.0
[[ensemble.design]]
type = "latin_hypercube"
[[ensemble.design.keys]]
key = "model.gravity"
distribution = "uniform"
low = -10.0
high = 10.0
[[ensemble.override]]
body = 4242
initial.quaternion = [0.0, 1.0, 0.0, 0.0]
)");
  const Scenario full = parse_scenario(text, "s.toml");
  ScenarioOverrides o;
  o.bodies = {4242, 17, 4999};
  const Scenario some = parse_scenario(text, "s.toml", o);
  EXPECT_EQ(some.ensemble_size, 3);
  EXPECT_EQ(some.declared_size, 5000);
  for (index_t i = 0; i < 3; ++i) EXPECT_EQ(body_parameters(some, i), body_parameters(full, o.bodies[i])) << "body " << i;
  EXPECT_EQ(body_value(some, 0, "initial.quaternion"), (std::vector<double>{0, 1, 0, 0}));
  o.bodies = {17, 5000};
  EXPECT_NE(error_of(text, o).find("body 5000 (--bodies) is not a body index in [0, 5000)"), std::string::npos) << error_of(text, o);
  o.bodies = {17, 17};
  EXPECT_NE(error_of(text, o).find("body 17 (--bodies) is listed twice"), std::string::npos) << error_of(text, o);
}

// ---------------------------------------------------------------- bad law tables
TEST(ScenarioLawsRejected, EachProblemNamesItsKey) {
  const auto random = [](const std::string& body) { return ensemble(4, "[[ensemble.random]]\n" + body); };
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'uniform'\nlow = 1\n"), "ensemble.random[0].high",
                  "missing (required by distribution 'uniform')");
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'normal'\nmean = 1\nstddev = 1\nsigma = 2\n"),
                  "ensemble.random[0].sigma", "not a parameter of distribution 'normal'");
  EXPECT_REJECTED(random("key = 'initial.omega_body'\ndistribution = 'normal'\nmean = [1, 2]\nstddev = 1\n"),
                  "ensemble.random[0].mean", "2 numbers for 3 components");
  EXPECT_REJECTED(random("key = 'initial.omega_body'\ndistribution = 'normal'\nmean = 1\nstddev = [1, -1, 1]\n"),
                  "ensemble.random[0].stddev[1]", "-1, must be >= 0");
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'truncated_normal'\nmean = 0\nstddev = 1\nlow = 50\n"),
                  "ensemble.random[0]", "holds probability");
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'log_uniform'\nlow = 0\nhigh = 1\n"),
                  "ensemble.random[0].low", "0, must be > 0");
  EXPECT_REJECTED(random("key = 'initial.omega_body'\ndistribution = 'choice'\nvalues = [[1, 2, 3], [1, 2]]\n"),
                  "ensemble.random[0].values[1]", "expected an array of 3 numbers, got 2");
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'choice'\nvalues = [1, 2]\nweights = [1, -1]\n"),
                  "ensemble.random[0].weights[1]", "-1, must be finite and >= 0");
  EXPECT_REJECTED(random("key = 'initial.omega_body'\ndistribution = 'body_shape'\nshape = 'box'\n"),
                  "ensemble.random[0].distribution", "\"body_shape\" draws model.inertia only");
  EXPECT_REJECTED(random("key = 'initial.quaternion'\ndistribution = 'rotation_cone'\nhalf_angle = 4\n"),
                  "ensemble.random[0].half_angle", "4, must be in [0, pi]");
  EXPECT_REJECTED(random("key = 'initial.quaternion'\ndistribution = 'rotation_cone'\nhalf_angle = 0.1\nmean = [2, 0, 0, 0]\n"),
                  "ensemble.random[0].mean", "quaternion of norm 2, must be 1");
  EXPECT_REJECTED(random("key = 'initial.omega_body'\ndistribution = 'axis_magnitude'\n"
                         "magnitude = { distribution = 'choice' }\n"),
                  "ensemble.random[0].magnitude.distribution", "\"choice\" is not a scalar law");
  EXPECT_REJECTED(random("key = 'initial.omega_body'\ndistribution = 'axis_magnitude'\n"
                         "magnitude = { distribution = 'normal', mean = 1.0, stdev = 1.0 }\n"),
                  "ensemble.random[0].magnitude.stdev", "unknown key");
  EXPECT_REJECTED(random("key = 'model.inertia'\ndistribution = 'body_shape'\nshape = 'box'\n"
                         "dimensions = { distribution = 'fixed', value = 1.0 }\n"),
                  "ensemble.random[0].mass", "exactly one of mass and density");
  EXPECT_REJECTED(random("key = 'model.inertia'\ndistribution = 'body_shape'\nshape = 'box'\nmass_key = 'model.gravity'\n"
                         "dimensions = { distribution = 'fixed', value = 1.0 }\nmass = { distribution = 'fixed', value = 1.0 }\n"),
                  "ensemble.random[0].mass_key", "'model.gravity' has 3 components");
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'uniform'\nlow = 1\nhigh = 2\ninvalid = 'redraw'\n"),
                  "ensemble.random[0].invalid", "only laws of model.inertia");
  EXPECT_REJECTED(random("key = 'model.inertia'\ndistribution = 'body_shape'\nshape = 'torus'\n"
                         "dimensions = { distribution = 'fixed', value = 1.0 }\nmass = { distribution = 'fixed', value = 1.0 }\n"),
                  "ensemble.random[0].shape", "'torus' is not one of");
  EXPECT_REJECTED(random("key = 'model.inertia'\ndistribution = 'uniform'\nlow = [1, 1, 1]\nhigh = [2, 2, 2]\n"
                         "invalid = 'retry'\n"),
                  "ensemble.random[0].invalid", "'retry' is not one of");
  EXPECT_REJECTED(random("key = 'model.mass'\ndistribution = 'fixed'\nvalue = 1\n[[ensemble.random]]\nkey = 'model.mass'\n"
                         "distribution = 'fixed'\nvalue = 2\n"),
                  "ensemble.random[1].key", "'model.mass' is drawn already by ensemble.random[0].key");
  EXPECT_REJECTED(ensemble(4, "[[ensemble.design]]\ntype = 'sobol'\n"), "ensemble.design[0].keys", "missing (required)");
  EXPECT_REJECTED(ensemble(4, "[[ensemble.design]]\ntype = 'halton'\n"), "ensemble.design[0].type", "'halton' is not one of");
  EXPECT_REJECTED(ensemble(4, "[[ensemble.design]]\ntype = 'sobol'\n[[ensemble.design.keys]]\nkey = 'model.inertia'\n"
                              "distribution = 'normal'\nmean = [1.0, 1.0, 1.0]\nstddev = 0.1\ninvalid = 'redraw'\n"),
                  "ensemble.design[0].keys[0].invalid", "would undo the design's stratification");
  EXPECT_REJECTED(ensemble(4, "[[ensemble.design]]\ntype = 'sobol'\n[[ensemble.design.keys]]\nkey = 'model.mass'\n"
                              "distribution = 'uniform'\nlow = 1\nhigh = 2\nseed = 3\n"),
                  "ensemble.design[0].keys[0].seed", "unknown key");
}
