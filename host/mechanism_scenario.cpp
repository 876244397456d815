// Mechanism scenarios: TOML → MechanismScenario, every check before any integration, with the key
// tables of mechanism_scenario.hpp read by the single-body scenario's reader (scenario_reader.hpp).
#include "mechanism_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "key_suggestion.hpp"
#include "mechanism_run.hpp"
#include "quatstep/mechanism/adaptive.hpp"
#include "scenario_reader.hpp"

namespace quatstep {

namespace {

using mechanism::JointType;

[[noreturn]] void fail(const std::string& source, const std::string& key, const std::string& problem) {
  throw ScenarioError(source + ": key '" + key + "': " + problem);
}

/// The table `root.name` (an empty one if absent).
const toml::table& section(const std::string& source, const toml::table& root, const char* name) {
  static const toml::table empty;
  const toml::node* n = root.get(name);
  if (!n) return empty;
  if (!n->is_table()) fail(source, name, "expected a table");
  return *n->as_table();
}

std::string indexed(const std::string& list, std::size_t k) { return list + "[" + std::to_string(k) + "]"; }

/// The tables of an array of tables `parent.name` (none if absent), each shown as "shown[k]".
std::vector<const toml::table*> tables_of(const std::string& source, const toml::table& parent, const char* name,
                                          const std::string& shown) {
  std::vector<const toml::table*> out;
  const toml::node* n = parent.get(name);
  if (!n) return out;
  if (!n->is_array()) fail(source, shown, "expected an array of tables ([[" + shown + "]]), got a single value or table");
  const toml::array& a = *n->as_array();
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!a[k].is_table()) fail(source, indexed(shown, k), "expected a table");
    out.push_back(a[k].as_table());
  }
  return out;
}

template <class Spec>
std::vector<Spec> read_list(const std::string& source, const std::vector<const toml::table*>& tables,
                            const std::string& shown) {
  std::vector<Spec> out;
  for (std::size_t k = 0; k < tables.size(); ++k)
    out.push_back(read_spec_table<Spec>(source, *tables[k], indexed(shown, k)));
  return out;
}

/// The index of body `name`, mechanism::ground for "ground", −2 for no such body.
int body_index(const MechanismDescription& d, const std::string& name) {
  if (name == "ground") return mechanism::ground;
  for (std::size_t b = 0; b < d.bodies.size(); ++b)
    if (d.bodies[b].name == name) return int(b);
  return -2;
}

std::string body_list(const MechanismDescription& d) {
  std::string s;
  for (const MechanismBodySpec& b : d.bodies) s += (s.empty() ? "'" : ", '") + b.name + "'";
  return s;
}

/// The key naming of a check: the file's ("mechanism.body[0].mass") or an ensemble member's
/// parameter keys ("body.upper.mass").
using KeyName = std::function<std::string(const char* table, std::size_t index, const std::string& field)>;

/// The checks of the values the ensemble tables can change (the key ranges say the rest for the file).
void check_values(const MechanismDescription& d, const std::string& source, const KeyName& key) {
  for (std::size_t b = 0; b < d.bodies.size(); ++b) {
    const MechanismBodySpec& body = d.bodies[b];
    if (!(body.mass > 0)) fail(source, key("body", b, "mass"), validation::format(body.mass) + ", must be > 0");
    if (std::string p = validation::principal_moments_problem(body.inertia); !p.empty())
      fail(source, key("body", b, "inertia"), p);
    if (std::string p = validation::unit_quaternion_problem(body.quaternion); !p.empty())
      fail(source, key("body", b, "quaternion"), p);
  }
  const auto nonzero = [&](std::size_t j, const char* field, const std::array<double, 3>& v) {
    if (!(Vec3<double>(v[0], v[1], v[2]).norm() > 0)) fail(source, key("joint", j, field), "a zero vector has no direction");
  };
  for (std::size_t j = 0; j < d.joints.size(); ++j) {
    const MechanismJointSpec& jt = d.joints[j];
    if (jt.frame == FrameCoordinates::space) {
      nonzero(j, "axis", jt.axis);
      if (jt.type == JointType::universal) nonzero(j, "axis_j", jt.axis_j);
    } else {
      nonzero(j, "axis_i", jt.axis_i);
      nonzero(j, "axis_j", jt.axis_j);
    }
  }
  for (std::size_t s = 0; s < d.springs.size(); ++s) {
    const MechanismSpringSpec& sp = d.springs[s];
    for (const auto& [field, v] : {std::pair<const char*, double>{"stiffness", sp.stiffness},
                                   {"damping", sp.damping}, {"rest_length", sp.rest_length}})
      if (!(v >= 0)) fail(source, key("spring", s, field), validation::format(v) + ", must be >= 0");
  }
  for (std::size_t l = 0; l < d.loads.size(); ++l)
    if (std::string w = d.loads[l].profile.window_problem(); !w.empty()) fail(source, key("load", l, "end"), w);
}

/// The frame keys each `frame` reads; a key of the other is an error.
const std::set<std::string> space_keys = {"origin", "axis", "x_axis"};
const std::set<std::string> body_keys = {"origin_i", "origin_j", "axis_i", "axis_j", "x_axis_i", "x_axis_j"};

/// The checks of the file's structure: unique names, known bodies, frame keys, drivers.
void check_structure(const MechanismDescription& d, const std::vector<const toml::table*>& joint_tables,
                     const std::string& source) {
  if (d.bodies.empty()) fail(source, "mechanism.body", "a mechanism needs at least one [[mechanism.body]]");
  const auto unique = [&](const auto& list, const char* table, bool bodies) {
    std::set<std::string> seen;
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string key = indexed(std::string("mechanism.") + table, k) + ".name";
      if (!seen.insert(list[k].name).second) fail(source, key, "'" + list[k].name + "' is used twice");
      if (bodies && list[k].name == "ground") fail(source, key, "\"ground\" names the ground, not a body");
    }
  };
  unique(d.bodies, "body", true);
  unique(d.joints, "joint", false);
  unique(d.springs, "spring", false);
  const auto known = [&](const std::string& key, const std::string& name) {
    if (body_index(d, name) == -2)
      fail(source, key, "'" + name + "' is not a body (the bodies: " + body_list(d) + "; or \"ground\")");
  };
  for (std::size_t j = 0; j < d.joints.size(); ++j) {
    const MechanismJointSpec& jt = d.joints[j];
    const std::string shown = indexed("mechanism.joint", j);
    known(shown + ".body_i", jt.body_i);
    known(shown + ".body_j", jt.body_j);
    if (jt.body_i == jt.body_j) fail(source, shown + ".body_j", "'" + jt.body_j + "' is also body_i");
    const bool space = jt.frame == FrameCoordinates::space;
    const bool universal = jt.type == JointType::universal;
    for (auto&& [name, node] : *joint_tables[j]) {
      const std::string key(name.str());
      const bool space_arm = space && universal && (key == "axis_j" || key == "x_axis_j");
      if ((space && body_keys.count(key) && !space_arm) || (!space && space_keys.count(key)))
        fail(source, shown + "." + key, std::string("not used with frame = \"") + (space ? "space" : "body") + "\"");
    }
    if (space && universal && !joint_tables[j]->get("axis_j"))
      fail(source, shown + ".axis_j", "missing: a universal joint given in space needs the arm on body j (axis_j)");
    if (joint_tables[j]->get("driver") && jt.type != JointType::revolute)
      fail(source, shown + ".driver", "only a revolute joint can be driven");
  }
  for (std::size_t s = 0; s < d.springs.size(); ++s) {
    const std::string shown = indexed("mechanism.spring", s);
    known(shown + ".body_i", d.springs[s].body_i);
    known(shown + ".body_j", d.springs[s].body_j);
    if (d.springs[s].body_i == d.springs[s].body_j) fail(source, shown + ".body_j", "both ends on one body");
  }
  for (std::size_t l = 0; l < d.loads.size(); ++l) {
    const std::string key = indexed("mechanism.load", l) + ".body";
    known(key, d.loads[l].body);
    if (d.loads[l].body == "ground") fail(source, key, "a load acts on a body, not on the ground");
  }
}

MechanismDescription parse_description(const std::string& source, const toml::table& root) {
  const toml::table& t = section(source, root, "mechanism");
  MechanismDescription d;
  d.spec = read_spec_table<MechanismSpec>(source, t, "mechanism", {"body", "joint", "spring", "load"});
  d.bodies = read_list<MechanismBodySpec>(source, tables_of(source, t, "body", "mechanism.body"), "mechanism.body");
  const std::vector<const toml::table*> joint_tables = tables_of(source, t, "joint", "mechanism.joint");
  d.joints = read_list<MechanismJointSpec>(source, joint_tables, "mechanism.joint");
  for (std::size_t j = 0; j < d.joints.size(); ++j) d.joints[j].driven = joint_tables[j]->contains("driver");
  d.springs = read_list<MechanismSpringSpec>(source, tables_of(source, t, "spring", "mechanism.spring"), "mechanism.spring");
  d.loads = read_list<MechanismLoadSpec>(source, tables_of(source, t, "load", "mechanism.load"), "mechanism.load");
  check_structure(d, joint_tables, source);
  check_values(d, source, [](const char* table, std::size_t k, const std::string& field) {
    return indexed(std::string("mechanism.") + table, k) + "." + field;
  });
  return d;
}

void parse_integrator(const std::string& source, const toml::table& root, MechanismScenario& sc) {
  const toml::table& t = section(source, root, "integrator");
  const toml::node* method = t.get("method");
  if (!method) fail(source, "integrator.method", "missing (required)");
  const std::string name = method->value_or(std::string());
  const std::vector<std::string> mechanism_methods = names_of(mechanism_method_views());
  const auto found = std::find(mechanism_methods.begin(), mechanism_methods.end(), name);
  if (found == mechanism_methods.end()) {
    const std::vector<std::string> all = names_of(method_views());
    const bool single_body = std::find(all.begin(), all.end(), name) != all.end();
    fail(source, "integrator.method",
         (single_body ? "method '" + name + "' does not run on mechanisms; they run "
                      : "'" + name + "' is not a method; mechanisms run ") +
             quoted(mechanism_methods) + " (hht and modified_hht with inertia_shift = true for the second-order variant)");
  }
  sc.method = int(found - mechanism_methods.begin());
  sc.settings = read_key_table(source, t, "integrator", sc.method_view().keys, {"method"}).numbers;
}

/// The message for a name that is not one of the mechanism's numeric keys: the nearest of them, or
/// their form.
std::string not_a_key(const std::string& name, const std::vector<std::pair<std::string, int>>& keys) {
  const std::string hint = did_you_mean(name, key_names(keys));
  return "'" + name + "' is not a numeric key of this mechanism (" +
         (hint.empty() ? "e.g. \"" + keys.front().first +
                             "\"; body.<name>.<key>, joint.<name>.<key>, spring.<name>.<key>, load.<index>.<key>, gravity"
                       : hint) +
         ")";
}

/// [[ensemble.random]] and [[ensemble.design]] over the mechanism's numeric keys (scenario_reader.hpp's
/// read_draws, the single-body tables): a body's inertia (body.<name>.inertia) is kept physical as
/// model.inertia is, and body_shape may draw it with its mass (mass_key = "body.<name>.mass").
void parse_draws(const std::string& source, const toml::table& t, MechanismScenario& sc,
                 const std::vector<std::pair<std::string, int>>& keys) {
  std::vector<KeyInfo> infos;
  for (const auto& [name, size] : keys) {
    KeyInfo k;
    k.name = name;
    k.size = size;
    infos.push_back(k);
  }
  const auto is_inertia = [](const KeyInfo& k) {
    const std::string suffix = ".inertia";
    return k.name.rfind("body.", 0) == 0 && k.name.size() > suffix.size() &&
           k.name.compare(k.name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  const DrawTarget target{
      [&](const std::string& name, const std::string& shown) -> const KeyInfo& {
        const auto k = std::find_if(infos.begin(), infos.end(), [&](const KeyInfo& i) { return i.name == name; });
        if (k == infos.end()) fail(source, shown, not_a_key(name, keys));
        return *k;
      },
      [&](const KeyInfo& k) {
        std::vector<double> value;
        MechanismDescription d = sc.mechanism;
        for_each_parameter(d, [&](const std::string& key, double* v, int size) {
          if (key == k.name) value.assign(v, v + size);
        });
        return value;
      },
      is_inertia, "body.<name>.inertia", sc.ensemble_size, sc.plan, sc.redraws};
  read_draws(source, t, target);
}

void parse_ensemble(const std::string& source, const toml::table& root, MechanismScenario& sc) {
  const toml::table& t = section(source, root, "ensemble");
  const std::set<std::string_view> tables{"sweep", "random", "design", "override"};
  for (auto&& [name, value] : t)
    if (name.str() != "size" && !tables.count(name.str()))
      fail(source, "ensemble." + std::string(name.str()),
           "not available for mechanisms (an ensemble of mechanisms has size, [[ensemble.sweep]], "
           "[[ensemble.random]], [[ensemble.design]] and [[ensemble.override]])");
  sc.ensemble_size = read_spec_table<EnsembleSpec>(source, t, "ensemble", {"sweep", "random", "design", "override"}).size;
  const std::vector<std::pair<std::string, int>> keys = parameter_keys(sc.mechanism);
  const std::vector<const toml::table*> sweeps = tables_of(source, t, "sweep", "ensemble.sweep");
  for (std::size_t k = 0; k < sweeps.size(); ++k) {
    const std::string shown = indexed("ensemble.sweep", k);
    Sweep s = read_spec_table<Sweep>(source, *sweeps[k], shown);
    const auto key = std::find_if(keys.begin(), keys.end(), [&](const auto& p) { return p.first == s.key; });
    if (key == keys.end()) fail(source, shown + ".key", not_a_key(s.key, keys));
    for (std::vector<double>* v : {&s.from, &s.to}) {
      if (v->size() == 1) v->assign(std::size_t(key->second), v->front());
      if (int(v->size()) != key->second)
        fail(source, shown + (v == &s.from ? ".from" : ".to"),
             "expected " + std::to_string(key->second) + " numbers (or one for all), got " + std::to_string(v->size()));
    }
    sc.sweeps.push_back(std::move(s));
  }
  parse_draws(source, t, sc, keys);
  // [[ensemble.override]]: `mechanism` and any numeric keys, read against a key table made of them.
  std::vector<KeyInfo> override_keys(1);
  override_keys[0].name = "mechanism";
  override_keys[0].kind = KeyInfo::Kind::integer;
  override_keys[0].range = keys::non_negative;
  override_keys[0].required = true;
  override_keys[0].value = {0};
  for (const auto& [name, size] : keys) {
    KeyInfo k;
    k.name = name;
    k.size = size;
    k.value.assign(std::size_t(size), 0.0);
    override_keys.push_back(k);
  }
  const std::vector<const toml::table*> overrides = tables_of(source, t, "override", "ensemble.override");
  for (std::size_t o = 0; o < overrides.size(); ++o) {
    const std::string shown = indexed("ensemble.override", o);
    const KeyValues v = read_key_table(source, *overrides[o], shown, override_keys);
    MechanismScenario::Override entry;
    entry.mechanism = index_t(v.numbers[0][0]);
    if (entry.mechanism >= sc.ensemble_size)
      fail(source, shown + ".mechanism",
           std::to_string(entry.mechanism) + " is not a mechanism of the ensemble (size " +
               std::to_string(sc.ensemble_size) + ")");
    for (std::size_t k = 1; k < override_keys.size(); ++k)
      if (v.given[k]) entry.values.emplace_back(override_keys[k].name, v.numbers[k]);
    sc.overrides.push_back(std::move(entry));
  }
}

void parse_output(const std::string& source, const toml::table& root, std::optional<index_t> stride,
                  MechanismScenario& sc) {
  const toml::table& t = section(source, root, "output");
  const OutputSpec out = read_spec_table<OutputSpec>(source, t, "output", {"statistics"});
  std::vector<std::string> docs;
  const std::vector<Channel> channels = mechanism_channels(sc.mechanism, docs, sc.method_view());
  sc.channels = read_written_channels(source, t, out, channels, "a mechanism with method '" +
                                                                     std::string(sc.method_view().info.name) + "'");
  sc.trajectories = {out.trajectories, read_trajectory_list(source, t, out, sc.ensemble_size, "mechanism"),
                     out.trajectory_every, out.max_trajectory_bytes};
  if (const toml::node* statistics = t.get("statistics")) {
    if (!statistics->is_table()) fail(source, "output.statistics", "expected a table");
    sc.statistics = read_statistics_table(source, *statistics->as_table(),
                                          statistics::ChannelLayout::of(channels), mechanism_observables());
  }
  if (t.get("file") && out.file.empty()) fail(source, "output.file", "empty file name");
  sc.output_file = out.file.empty() ? std::filesystem::path(source).stem().string() + ".h5" : out.file;
  sc.stride = stride.value_or(out.stride);
  if (const std::string p = stride_problem(sc.time, sc.stride); !p.empty()) fail(source, "output.stride", p);
}

/// Every member of the ensemble built once (a swept value can break a body, a frame or the
/// capacity): the first bad one is reported with its index.
void check_members(const MechanismScenario& sc) {
  const bool small = fits_small_capacity(sc.mechanism);
  const bool varied = !sc.sweeps.empty() || !sc.plan.empty() || !sc.overrides.empty();
  for (index_t i = 0; i < (varied ? sc.ensemble_size : 1); ++i) {
    const std::string source = sc.ensemble_size > 1 ? sc.source + ": mechanism " + std::to_string(i) : sc.source;
    MechanismDescription d;
    try {
      d = mechanism_description(sc, i);
    } catch (const sampling::SamplingError& e) {  // a draw with invalid = "fail"
      throw ScenarioError(source + ": " + e.what());
    }
    if (varied) check_mechanism_values(d, source);
    if (small) build_mechanism<mechanism::SmallCapacity>(d, source + ": ");
    else build_mechanism<mechanism::LargeCapacity>(d, source + ": ");
  }
}

}  // namespace

void check_mechanism_values(const MechanismDescription& d, const std::string& source) {
  check_values(d, source, [&d](const char* table, std::size_t k, const std::string& field) {
    const std::string t(table);
    const std::string name = t == "body" ? d.bodies[k].name
                             : t == "joint" ? d.joints[k].name
                             : t == "spring" ? d.springs[k].name
                             : std::to_string(k);
    return t + "." + name + "." + field;
  });
}

const std::vector<MechanismMethodView>& mechanism_method_views() {
  static const std::vector<MechanismMethodView> views = [] {
    std::vector<MechanismMethodView> v;
    for_each_type(mechanism::MechanismMethods{}, [&](auto tag, int index) {
      using Entry = tag_type<decltype(tag)>;
      using Integrator = typename Entry::template Integrator<mechanism::Mechanism<double, mechanism::SmallCapacity>>;
      MechanismMethodView view{index, Entry::info, key_table<typename Entry::Settings>(), {},
                               takes_adaptive_steps<Integrator>::value};
      if constexpr (has_integrator_channels<Integrator>::value)
        view.channels.assign(Integrator::channels.begin(), Integrator::channels.end());
      v.push_back(std::move(view));
    });
    return v;
  }();
  return views;
}

namespace {

/// f(prefix + key, value, size) for each numeric (double) key of a describe()d spec that `keep` keeps.
template <class Spec, class Keep>
void numeric_keys(Spec& spec, const std::string& prefix, Keep keep,
                  const std::function<void(const std::string&, double*, int)>& f) {
  KeyCollector collector(&spec);
  spec.describe(collector);
  for (const KeyInfo& k : collector.keys())
    if (k.offset >= 0 && keep(k.name))
      f(prefix + k.name, reinterpret_cast<double*>(reinterpret_cast<char*>(&spec) + k.offset * sizeof(double)), k.size);
}

}  // namespace

void for_each_parameter(MechanismDescription& d, const std::function<void(const std::string&, double*, int)>& f) {
  const auto all = [](const std::string&) { return true; };
  numeric_keys(d.spec, "", [](const std::string& key) { return key == "gravity"; }, f);
  for (MechanismBodySpec& b : d.bodies) numeric_keys(b, "body." + b.name + ".", all, f);
  for (MechanismJointSpec& j : d.joints) {
    // The frame keys of its frame kind (check_structure) and the driver's keys if it has one.
    const bool space = j.frame == FrameCoordinates::space, universal_arm = space && j.type == JointType::universal;
    numeric_keys(j, "joint." + j.name + ".", [&](const std::string& key) {
      if (key.compare(0, 7, "driver.") == 0) return j.driven;
      if (universal_arm && (key == "axis_j" || key == "x_axis_j")) return true;
      return space ? !body_keys.count(key) : !space_keys.count(key);
    }, f);
  }
  for (MechanismSpringSpec& s : d.springs) numeric_keys(s, "spring." + s.name + ".", all, f);
  for (std::size_t l = 0; l < d.loads.size(); ++l) numeric_keys(d.loads[l], "load." + std::to_string(l) + ".", all, f);
}

std::vector<std::pair<std::string, int>> parameter_keys(const MechanismDescription& d) {
  MechanismDescription copy = d;
  std::vector<std::pair<std::string, int>> keys;
  for_each_parameter(copy, [&](const std::string& key, double*, int size) { keys.emplace_back(key, size); });
  return keys;
}

bool fits_small_capacity(const MechanismDescription& d) {
  using Cap = mechanism::SmallCapacity;
  int rows = 0;
  for (const MechanismJointSpec& j : d.joints) rows += mechanism::joint_rows(j.type, j.driven);
  return int(d.bodies.size()) <= Cap::bodies && int(d.joints.size()) <= Cap::joints && rows <= Cap::rows &&
         int(d.springs.size()) <= Cap::springs && int(d.loads.size()) <= Cap::loads;
}

std::vector<statistics::Observable> mechanism_observables() {
  using statistics::Observable;
  std::vector<Observable> o{Observable::component("energy", "energy"),
                            Observable::relative_drift("energy_drift", "energy")};
  for (const char* p : {"linear_momentum", "angular_momentum"}) {
    for (int c = 0; c < 3; ++c) o.push_back(Observable::component(std::string(p) + "_" + "xyz"[c], p, c));
    o.push_back(Observable::norm(std::string(p) + "_norm", p));
    o.push_back(Observable::relative_drift(std::string(p) + "_drift", p));
  }
  for (const char* c : {"position_residual", "velocity_residual", "sample_newton_iterations", "generalized_energy"})
    o.push_back(Observable::component(c, c));
  o.push_back(Observable::relative_drift("generalized_energy_drift", "generalized_energy"));
  return o;
}

std::string small_capacity_limits() {
  using Cap = mechanism::SmallCapacity;
  return std::to_string(Cap::bodies) + " bodies, " + std::to_string(Cap::joints) + " joints, " +
         std::to_string(Cap::rows) + " joint rows, " + std::to_string(Cap::springs) + " springs and " +
         std::to_string(Cap::loads) + " loads";
}

std::vector<std::pair<std::string, int>> varied_keys(const MechanismScenario& sc) {
  std::vector<std::pair<std::string, int>> keys;
  const auto add = [&](const std::string& key, int size) {
    if (std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == key; }) == keys.end())
      keys.emplace_back(key, size);
  };
  for (const Sweep& s : sc.sweeps) add(s.key, int(s.from.size()));
  const std::vector<std::pair<std::string, int>> all = parameter_keys(sc.mechanism);
  for (const std::string& key : sc.plan.keys())
    add(key, std::find_if(all.begin(), all.end(), [&](const auto& k) { return k.first == key; })->second);
  for (const MechanismScenario::Override& o : sc.overrides)
    for (const auto& [key, value] : o.values) add(key, int(value.size()));
  return keys;
}

MechanismDescription mechanism_description(const MechanismScenario& sc, index_t i, int* redraws) {
  MechanismDescription d = sc.mechanism;
  if (redraws) *redraws = 0;
  if (sc.sweeps.empty() && sc.plan.empty() && sc.overrides.empty()) return d;
  const double f = sc.ensemble_size > 1 ? double(i) / double(sc.ensemble_size - 1) : 0.0;
  const sampling::BodyDraw drawn = sc.plan.empty() ? sampling::BodyDraw{} : sc.plan.draw(i);
  if (redraws) *redraws = drawn.redraws;
  for_each_parameter(d, [&](const std::string& key, double* value, int size) {
    for (const Sweep& s : sc.sweeps)
      if (s.key == key)
        for (int c = 0; c < size; ++c) value[c] = s.from[c] + (s.to[c] - s.from[c]) * f;
    for (const sampling::Assignment& a : drawn.values)
      if (a.key == key) std::copy(a.value.begin(), a.value.end(), value);
    for (const MechanismScenario::Override& o : sc.overrides)
      if (o.mechanism == i)
        for (const auto& [k, v] : o.values)
          if (k == key) std::copy(v.begin(), v.end(), value);
  });
  return d;
}

template <class Cap>
BuiltMechanism<Cap> build_mechanism(const MechanismDescription& d, const std::string& where) {
  using mechanism::JointFrame;
  BuiltMechanism<Cap> out;
  mechanism::MechanismBuilder<double>& b = out.builder;
  b.name_elements_by_scenario_keys(true);  // its messages say "mechanism.joint[0] 'pivot'", as the file's keys
  const auto vec3 = [](const std::array<double, 3>& a) { return Vec3<double>(a[0], a[1], a[2]); };
  std::vector<RigidBodyKinematics<double>> poses;
  for (const MechanismBodySpec& body : d.bodies) {
    b.add_body(body.name, body.mass, vec3(body.inertia));
    const std::array<double, 4>& q = body.quaternion;
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const Vec4<double> e(q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm);
    poses.push_back(RigidBodyKinematics<double>::of(e, rotation_matrix(e).transpose() * vec3(body.omega),
                                                    vec3(body.position), vec3(body.velocity)));
  }
  // A frame given in space, seen from side s (the ground keeps it in space).
  const auto seen_from = [&](int body, const JointFrame<double>& spatial) {
    return body == mechanism::ground ? spatial : mechanism::frame_in_body(poses[std::size_t(body)], spatial);
  };
  for (const MechanismJointSpec& j : d.joints) {
    const int bi = body_index(d, j.body_i), bj = body_index(d, j.body_j);
    JointFrame<double> fi, fj;
    if (j.frame == FrameCoordinates::space) {
      const JointFrame<double> spatial = mechanism::frame_with_axis(vec3(j.origin), vec3(j.axis), vec3(j.x_axis));
      fi = seen_from(bi, spatial);
      fj = seen_from(bj, j.type == JointType::universal
                             ? mechanism::frame_with_axis(vec3(j.origin), vec3(j.axis_j), vec3(j.x_axis_j))
                             : spatial);
    } else {
      fi = mechanism::frame_with_axis(vec3(j.origin_i), vec3(j.axis_i), vec3(j.x_axis_i));
      fj = mechanism::frame_with_axis(vec3(j.origin_j), vec3(j.axis_j), vec3(j.x_axis_j));
    }
    const int k = b.add_joint(j.name, j.type, bi, fi, bj, fj);
    if (j.driven) {
      TimeProfile<double> angle;
      angle.constant[0] = j.driver.constant;
      angle.ramp[0] = j.driver.ramp;
      angle.amplitude[0] = j.driver.amplitude;
      angle.frequency = j.driver.frequency;
      angle.phase = j.driver.phase;
      b.drive(k, angle);
    }
  }
  for (const MechanismSpringSpec& s : d.springs)
    b.add_spring(s.name, body_index(d, s.body_i), vec3(s.point_i), body_index(d, s.body_j), vec3(s.point_j),
                 s.stiffness, s.damping, s.rest_length);
  for (const MechanismLoadSpec& l : d.loads)
    b.add_load(body_index(d, l.body), l.kind, time_profile<double>(l.value, l.profile));
  b.set_gravity(vec3(d.spec.gravity));
  try {
    out.mech = b.template build<Cap>();
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(where + e.what());
  }
  for (std::size_t k = 0; k < poses.size(); ++k) out.initial.body[k] = poses[k];
  return out;
}
template BuiltMechanism<mechanism::SmallCapacity> build_mechanism(const MechanismDescription&, const std::string&);
template BuiltMechanism<mechanism::LargeCapacity> build_mechanism(const MechanismDescription&, const std::string&);

bool is_mechanism_scenario(const std::string& path) {
  if (!std::ifstream(path)) return false;
  return is_mechanism_text(read_scenario_text(path), path);
}

bool is_mechanism_text(const std::string& text, const std::string& source) {
  return parse_toml(text, source).contains("mechanism");
}

MechanismScenario parse_mechanism_scenario(const std::string& text, const std::string& source,
                                           const ScenarioOverrides& overrides) {
  MechanismScenario sc;
  sc.source = source;
  sc.text = text;
  const toml::table root = parse_toml(text, source);
  const std::vector<std::string> tables{"mechanism", "integrator", "run", "time", "ensemble", "output"};
  for (auto&& [name, node] : root)
    if (std::find(tables.begin(), tables.end(), name.str()) == tables.end())
      fail(source, std::string(name.str()),
           name.str() == "model" || name.str() == "initial"
               ? "a mechanism scenario describes its bodies in [[mechanism.body]], not in [model] or [initial]"
               : unknown_key_problem(std::string(name.str()), tables));
  sc.mechanism = parse_description(source, root);
  const RunSpec run = read_spec_table<RunSpec>(source, section(source, root, "run"), "run");
  sc.backend = overrides.backend.value_or(run.backend);
  if (overrides.precision.value_or(run.precision) != Precision::double_precision)
    fail(source, "run.precision", "mechanisms run in double precision only");
  parse_integrator(source, root, sc);
  std::vector<std::string> adaptive;
  for (const MechanismMethodView& m : mechanism_method_views())
    if (m.adaptive) adaptive.push_back(m.info.name);
  sc.time = read_time_table(source, root, overrides.t_end,
                            {sc.method_view().info.name, sc.method_view().adaptive, adaptive});
  parse_ensemble(source, root, sc);
  std::set<index_t> seen;
  for (index_t i : overrides.bodies) {
    if (i < 0 || i >= sc.ensemble_size)
      fail(source, "ensemble.size", "mechanism " + std::to_string(i) + " (--bodies) is not a mechanism index in [0, " +
                                        std::to_string(sc.ensemble_size) + ")");
    if (!seen.insert(i).second) fail(source, "ensemble.size", "mechanism " + std::to_string(i) + " (--bodies) is listed twice");
  }
  sc.selection = overrides.bodies;
  parse_output(source, root, overrides.stride, sc);
  check_members(sc);
  return sc;
}

MechanismScenario load_mechanism_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  return parse_mechanism_scenario(read_scenario_text(path), path, overrides);
}

}  // namespace quatstep
