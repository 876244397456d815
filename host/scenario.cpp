// Scenario files: TOML → Scenario, every check before any integration. Every table is read against
// a key table (keys.hpp): the registry's for [model], [initial] and [integrator], the describe() of
// the spec structs of scenario.hpp for the rest.
#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <toml++/toml.h>

namespace quatstep {

namespace {

template <class E, std::size_t N>
std::vector<std::string> choice_names(const keys::Choice<E> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& c : table) names.push_back(c.name);
  return names;
}

template <class E, std::size_t N>
E parse_choice(const keys::Choice<E> (&table)[N], const std::string& name) {
  try {
    return table[index_of(choice_names(table), name)].value;
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(e.what());
  }
}
template <class E, std::size_t N>
const char* name_of(const keys::Choice<E> (&table)[N], E value) {
  for (const auto& c : table)
    if (c.value == value) return c.name;
  return "unknown";
}

std::string format(double x) { return validation::format(x); }

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date/time";
  }
}

std::string join(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

/// "component 2 is -1, must be > 0" / "-1, must be > 0" when a value is outside its key's range.
std::optional<std::string> range_problem(const KeyInfo& k, const double* v, int size) {
  for (int c = 0; c < size; ++c) {
    if (k.range.contains(v[c])) continue;
    const std::string what = std::isfinite(v[c]) ? format(v[c]) + ", must be " + k.range.text : "not finite";
    return size > 1 || k.size > 1 ? "component " + std::to_string(c) + " is " + what : what;
  }
  return std::nullopt;
}

/// The values of a key table read from TOML: per key the numbers (booleans 0/1, choice indices) or
/// texts, and whether the file gave it.
struct Values {
  std::vector<std::vector<double>> numbers;
  std::vector<std::vector<std::string>> texts;
  std::vector<bool> given;
};

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw ScenarioError(source_ + ": key '" + key + "': " + problem);
  }

  /// The sub-table `name` of `parent` (an empty one if absent).
  const toml::table& table(const toml::table& parent, const std::string& name, const std::string& shown) const {
    static const toml::table empty;
    const toml::node* n = parent.get(name);
    if (!n) return empty;
    if (!n->is_table()) fail(shown, std::string("expected a table, got ") + type_name(*n));
    return *n->as_table();
  }

  const toml::table& table_of(const toml::node& n, const std::string& shown) const {
    if (!n.is_table()) fail(shown, std::string("expected a table, got ") + type_name(n));
    return *n.as_table();
  }

  const toml::array& array_of_tables(const toml::node& n, const std::string& shown) const {
    if (!n.is_array()) fail(shown, std::string("expected an array of tables, got ") + type_name(n));
    return *n.as_array();
  }

  const toml::node& required(const toml::table& t, std::string_view name, const std::string& shown) const {
    const toml::node* n = t.get(name);
    if (!n) fail(shown, "missing (required)");
    return *n;
  }

  double number(const toml::node& n, const std::string& key) const {
    double x;
    if (auto i = n.as_integer()) x = static_cast<double>(i->get());
    else if (auto f = n.as_floating_point()) x = f->get();
    else fail(key, std::string("expected a number, got ") + type_name(n));
    if (!std::isfinite(x)) fail(key, "not a finite number (" + format(x) + ")");
    return x;
  }

  /// `size` numbers: an array of that length, a bare number for size 1, or (broadcast) one number
  /// standing for every component.
  std::vector<double> numbers(const toml::node& n, const std::string& key, int size, bool broadcast) const {
    if (!n.is_array()) {
      if (size == 1 || (broadcast && (n.is_integer() || n.is_floating_point())))
        return std::vector<double>(size, number(n, key));
      fail(key, "expected an array of " + std::to_string(size) + " numbers, got " + type_name(n));
    }
    const toml::array& a = *n.as_array();
    if (static_cast<int>(a.size()) != size)
      fail(key, "expected an array of " + std::to_string(size) + " numbers, got " + std::to_string(a.size()));
    std::vector<double> v;
    for (std::size_t c = 0; c < a.size(); ++c) v.push_back(number(a[c], key + "[" + std::to_string(c) + "]"));
    return v;
  }

  std::int64_t integer(const toml::node& n, const std::string& key) const {
    if (auto i = n.as_integer()) return i->get();
    fail(key, std::string("expected an integer, got ") + type_name(n));
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (auto s = n.as_string()) return s->get();
    fail(key, std::string("expected a string, got ") + type_name(n));
  }

  /// One key's value from its node, checked against the key's kind and range. `size` is the number
  /// of components of a `numbers` key (0: any array length, for keys read before their size is known).
  void value(const KeyInfo& k, const toml::node& n, const std::string& shown, Values& out, std::size_t slot,
             int size = 0) const {
    std::vector<double>& v = out.numbers[slot];
    switch (k.kind) {
      case KeyInfo::Kind::number:
        v = numbers(n, shown, k.size, false);
        if (auto p = range_problem(k, v.data(), k.size)) fail(shown, *p);
        break;
      case KeyInfo::Kind::numbers:
        if (size > 0) {
          v = numbers(n, shown, size, true);
        } else {
          v.clear();
          if (!n.is_array()) v.push_back(number(n, shown));
          else
            for (std::size_t c = 0; c < n.as_array()->size(); ++c)
              v.push_back(number((*n.as_array())[c], shown + "[" + std::to_string(c) + "]"));
        }
        break;
      case KeyInfo::Kind::integer: {
        const double x = double(integer(n, shown));
        if (!k.range.contains(x)) fail(shown, format(x) + ", must be " + k.range.text);
        v = {x};
        break;
      }
      case KeyInfo::Kind::boolean:
        if (auto b = n.as_boolean()) v = {b->get() ? 1.0 : 0.0};
        else fail(shown, std::string("expected a boolean, got ") + type_name(n));
        break;
      case KeyInfo::Kind::choice:
        try {
          v = {double(index_of(k.choices, string(n, shown)))};
        } catch (const std::invalid_argument& e) {
          fail(shown, e.what());
        }
        break;
      case KeyInfo::Kind::text:
        out.texts[slot] = {string(n, shown)};
        break;
      case KeyInfo::Kind::text_list: {
        if (!n.is_array()) fail(shown, std::string("expected an array of strings, got ") + type_name(n));
        std::vector<std::string> texts;
        for (std::size_t c = 0; c < n.as_array()->size(); ++c)
          texts.push_back(string((*n.as_array())[c], shown + "[" + std::to_string(c) + "]"));
        out.texts[slot] = texts;
        break;
      }
    }
    out.given[slot] = true;
  }

  /// Every key of `t` read against `keys`: the key named join(lookup, name) for each entry, nested
  /// tables followed where a key's name continues below them ("model.body_torque_profile.ramp");
  /// entries in `skip` are the caller's; anything else is "unknown key". `unknown` may explain an
  /// unknown key better (e.g. "not used by method 'hht'").
  void read(const toml::table& t, const std::string& lookup, const std::string& shown, const std::vector<KeyInfo>& keys,
            Values& out, std::initializer_list<std::string_view> skip = {},
            const std::function<std::string(const std::string&)>& unknown = {}) const {
    for (auto&& [name, node] : t) {
      if (std::find(skip.begin(), skip.end(), name.str()) != skip.end()) continue;
      const std::string full = join(lookup, name.str()), key = join(shown, name.str());
      if (const int k = find_key(keys, full); k >= 0) {
        value(keys[k], node, key, out, std::size_t(k));
      } else if (continues_below(keys, full)) {
        if (!node.is_table()) fail(key, std::string("expected a table, got ") + type_name(node));
        read(*node.as_table(), full, key, keys, out, {}, unknown);
      } else {
        const std::string why = unknown ? unknown(full) : std::string();
        fail(key, why.empty() ? "unknown key" : why);
      }
    }
  }

  /// Values of `keys` with their defaults, required ones demanded, then what `t` gives.
  Values read_all(const toml::table& t, const std::string& lookup, const std::string& shown,
                  const std::vector<KeyInfo>& keys, std::initializer_list<std::string_view> skip = {},
                  const std::function<std::string(const std::string&)>& unknown = {}) const {
    Values v{std::vector<std::vector<double>>(keys.size()), std::vector<std::vector<std::string>>(keys.size()),
             std::vector<bool>(keys.size(), false)};
    for (std::size_t k = 0; k < keys.size(); ++k) {
      v.numbers[k] = keys[k].value;
      v.texts[k] = keys[k].kind == KeyInfo::Kind::text ? std::vector<std::string>{keys[k].text} : keys[k].texts;
    }
    read(t, lookup, shown, keys, v, skip, unknown);
    for (std::size_t k = 0; k < keys.size(); ++k)
      if (keys[k].required && !v.given[k]) fail(join(shown, tail(keys[k].name, lookup)), "missing (required)");
    return v;
  }

  /// A describe()d spec struct read from table `t`.
  template <class Spec>
  Spec read_spec(const toml::table& t, const std::string& shown, std::initializer_list<std::string_view> skip = {}) const {
    Spec spec{};
    const std::vector<KeyInfo> keys = key_table<Spec>();
    const Values v = read_all(t, "", shown, keys, skip);
    KeyAssigner assign(v.numbers, v.texts);
    spec.describe(assign);
    return spec;
  }

 private:
  static bool continues_below(const std::vector<KeyInfo>& keys, const std::string& prefix) {
    for (const KeyInfo& k : keys)
      if (k.name.compare(0, prefix.size() + 1, prefix + ".") == 0) return true;
    return false;
  }
  static std::string tail(const std::string& name, const std::string& lookup) {
    return lookup.empty() ? name : name.substr(lookup.size() + 1);
  }

  std::string source_;
};

// ---------------------------------------------------------------- per-body parameters
/// The first problem of one body's flat parameters: each key in its range, then the model's rules.
std::optional<validation::Problem> body_problem(const ModelView& model, const std::vector<double>& p) {
  for (const KeyInfo& k : model.keys)
    if (auto problem = range_problem(k, p.data() + k.offset, k.size)) return validation::Problem{k.name, *problem};
  return model.check(p);
}

/// "not a key of a heavy_top model" for a key of another model, "" (an unknown key) otherwise.
std::string other_models_key(const ModelView& model, const std::string& name) {
  for (const ModelView& other : model_views())
    if (find_key(other.keys, name) >= 0) return "not a key of a " + std::string(model.info.name) + " model";
  return {};
}

const KeyInfo& parameter_key(const Reader& r, const ModelView& model, const std::string& name, const std::string& shown) {
  const int k = find_key(model.keys, name);
  if (k < 0) {
    const std::string other = other_models_key(model, name);
    r.fail(shown, "'" + name + "' is " + (other.empty() ? "not a numeric key of [model] or [initial]" : other));
  }
  return model.keys[k];
}

void assign(std::vector<double>& p, const KeyInfo& k, const std::vector<double>& value) {
  std::copy(value.begin(), value.end(), p.begin() + k.offset);
}

// ---------------------------------------------------------------- random draws
std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ULL;
  return h;
}

/// Uniform in [0, 1) from (seed, body, key, stream) alone, so a body's draw does not depend on the
/// ensemble size or on the other bodies.
double unit_draw(std::uint64_t seed, index_t body, const std::string& key, int stream) {
  std::uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ fnv1a(key));
  h = splitmix64(h ^ static_cast<std::uint64_t>(body));
  h = splitmix64(h ^ static_cast<std::uint64_t>(stream));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

std::vector<double> draw(const RandomDraw& r, index_t body) {
  const std::uint64_t seed = static_cast<std::uint64_t>(r.seed);
  if (r.distribution == Distribution::uniform_rotation) {  // Shoemake's subgroup algorithm
    const double u1 = unit_draw(seed, body, r.key, 0), u2 = unit_draw(seed, body, r.key, 1),
                 u3 = unit_draw(seed, body, r.key, 2);
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return {a * std::cos(2 * M_PI * u2), a * std::sin(2 * M_PI * u2), b * std::cos(2 * M_PI * u3),
            b * std::sin(2 * M_PI * u3)};
  }
  const bool uniform = r.distribution == Distribution::uniform;
  const std::vector<double>& first = uniform ? r.low : r.mean;
  const std::vector<double>& second = uniform ? r.high : r.stddev;
  std::vector<double> v(first.size());
  for (std::size_t c = 0; c < v.size(); ++c) {
    const int stream = 2 * static_cast<int>(c);
    const double u1 = unit_draw(seed, body, r.key, stream);
    if (uniform) {
      v[c] = first[c] + (second[c] - first[c]) * u1;
    } else {  // Box–Muller; 1 − u1 ∈ (0, 1]
      const double u2 = unit_draw(seed, body, r.key, stream + 1);
      const double z = std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * M_PI * u2);
      v[c] = first[c] + second[c] * z;
    }
  }
  return v;
}

/// Overrides are kept sorted by body (stable: file order within a body) for a binary search.
struct ByBody {
  bool operator()(const Override& a, const Override& b) const { return a.body < b.body; }
  bool operator()(const Override& a, index_t b) const { return a.body < b; }
  bool operator()(index_t a, const Override& b) const { return a < b.body; }
};

// ---------------------------------------------------------------- the sections
void parse_model(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& model = r.table(root, "model", "model");
  try {
    sc.model = index_of(names_of(model_views()), r.string(r.required(model, "type", "model.type"), "model.type"));
  } catch (const std::invalid_argument& e) {
    r.fail("model.type", e.what());
  }
  const ModelView& view = sc.model_view();
  // [model] and [initial] hold the model's keys "model.*" and "initial.*".
  const auto unknown = [&](const std::string& name) { return other_models_key(view, name); };
  const Values mv = r.read_all(model, "model", "model", view.keys, {"type"}, unknown);
  Values all = mv;
  r.read(r.table(root, "initial", "initial"), "initial", "initial", view.keys, all, {}, unknown);
  sc.base = view.defaults;
  for (std::size_t k = 0; k < view.keys.size(); ++k)
    if (all.given[k]) assign(sc.base, view.keys[k], all.numbers[k]);
  if (auto p = view.check(sc.base)) r.fail(p->key, p->message);
}

void parse_run(const Reader& r, const toml::table& root, Scenario& sc) {
  const RunSpec run = r.read_spec<RunSpec>(r.table(root, "run", "run"), "run");
  sc.backend = run.backend;
  sc.precision = run.precision;
}

void parse_integrator(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "integrator", "integrator");
  IntegratorSpec& in = sc.integrator;
  const std::string method = r.string(r.required(t, "method", "integrator.method"), "integrator.method");
  try {
    in.method = index_of(names_of(method_views()), method);
  } catch (const std::invalid_argument& e) {
    r.fail("integrator.method", e.what());
  }
  const MethodView& view = in.view();
  const std::string model = sc.model_view().info.name;
  if (!view.applies_to(sc.model)) r.fail("integrator.method", "'" + method + "' does not run on a " + model + " model");

  // A key the method does not read is an error: whoever wrote it expects it to act.
  const auto methods_with = [](const std::string& key) {
    std::vector<std::string> names;
    for (const MethodView& m : method_views())
      if ((key == "variant" && m.has_variants()) || find_key(m.keys, key) >= 0) names.push_back(m.info.name);
    return names;
  };
  const auto unknown = [&](const std::string& key) -> std::string {
    const std::vector<std::string> users = methods_with(key);
    if (users.empty()) return {};
    std::string list;
    for (const std::string& u : users) list += (list.empty() ? "" : ", ") + u;
    return "not used by method '" + method + "' (only by " + list + ")";
  };
  if (const toml::node* v = t.get("variant")) {
    if (!view.has_variants()) r.fail("integrator.variant", unknown("variant"));
    try {
      in.variant = index_of(names_of(view.variants), r.string(*v, "integrator.variant"));
    } catch (const std::invalid_argument& e) {
      r.fail("integrator.variant", e.what());
    }
    if (!view.applies[sc.model][in.variant])
      r.fail("integrator.variant", "'" + std::string(view.variants[in.variant].name) + "' does not run on a " + model +
                                       " model");
  }
  // Defaults in the run's precision (the Newton tolerance differs).
  std::vector<KeyInfo> keys = view.keys;
  if (sc.precision == Precision::single_precision)
    for (std::size_t k = 0; k < keys.size(); ++k) keys[k].value = view.float_defaults[k];
  in.settings = r.read_all(t, "", "integrator", keys, {"method", "variant"}, unknown).numbers;
  try {
    view.check_settings(in.settings);  // the rules a single key's range cannot say
  } catch (const keys::KeyError& e) {
    r.fail(e.key, e.problem);
  }
}

void parse_time(const Reader& r, const toml::table& root, std::optional<double> t_end, Scenario& sc) {
  TimeSpec& ts = sc.time;
  ts = r.read_spec<TimeSpec>(r.table(root, "time", "time"), "time");
  if (t_end) ts.t_end = *t_end;
  if (!(ts.t_end > ts.t_start)) r.fail("time.t_end", format(ts.t_end) + ", must be > t_start (" + format(ts.t_start) + ")");
  const double n = (ts.t_end - ts.t_start) / ts.dt;
  if (!(n < 1e15)) r.fail("time.dt", "too many steps ((t_end - t_start)/dt = " + format(n) + ")");
  ts.steps = std::llround(n);
  if (ts.steps < 1 || std::abs(n - double(ts.steps)) > 1e-9 * n) {
    std::ostringstream os;
    os.precision(17);
    os << "(t_end - t_start)/dt = " << n << " is not an integer number of steps";
    r.fail("time.dt", os.str());
  }
}

void parse_sweeps(const Reader& r, const toml::node& list, Scenario& sc) {
  const toml::array& a = r.array_of_tables(list, "ensemble.sweep");
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.sweep[" + std::to_string(j) + "]";
    Sweep s = r.read_spec<Sweep>(r.table_of(a[j], shown), shown);
    const KeyInfo& k = parameter_key(r, sc.model_view(), s.key, shown + ".key");
    const toml::table& t = *a[j].as_table();
    s.from = r.numbers(*t.get("from"), shown + ".from", k.size, true);
    s.to = r.numbers(*t.get("to"), shown + ".to", k.size, true);
    sc.sweeps.push_back(std::move(s));
  }
}

void parse_randoms(const Reader& r, const toml::node& list, Scenario& sc) {
  const toml::array& a = r.array_of_tables(list, "ensemble.random");
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.random[" + std::to_string(j) + "]";
    const toml::table& t = r.table_of(a[j], shown);
    RandomDraw d = r.read_spec<RandomDraw>(t, shown);
    const KeyInfo& k = parameter_key(r, sc.model_view(), d.key, shown + ".key");
    // Each distribution reads its own parameters, sized to the key (one number stands for all).
    using P = std::vector<double> RandomDraw::*;
    std::vector<std::pair<const char*, P>> params;
    if (d.distribution == Distribution::uniform) params = {{"low", &RandomDraw::low}, {"high", &RandomDraw::high}};
    if (d.distribution == Distribution::normal) params = {{"mean", &RandomDraw::mean}, {"stddev", &RandomDraw::stddev}};
    if (d.distribution == Distribution::uniform_rotation && k.name != "initial.quaternion")
      r.fail(shown + ".distribution", "\"uniform_rotation\" draws only initial.quaternion");
    for (const char* name : {"low", "high", "mean", "stddev"}) {
      const bool used = std::any_of(params.begin(), params.end(), [&](const auto& p) { return std::string(p.first) == name; });
      if (t.get(name) && !used)
        r.fail(shown + "." + name, "not a parameter of distribution '" + std::string(name_of(distribution_names, d.distribution)) + "'");
    }
    for (const auto& [name, member] : params)
      d.*member = r.numbers(r.required(t, name, shown + "." + name), shown + "." + name, k.size, true);
    for (int c = 0; c < k.size; ++c) {
      if (d.distribution == Distribution::uniform && d.low[c] > d.high[c])
        r.fail(shown + ".high", "component " + std::to_string(c) + " is below low");
      if (d.distribution == Distribution::normal && d.stddev[c] < 0)
        r.fail(shown + ".stddev", "component " + std::to_string(c) + " is " + format(d.stddev[c]) + ", must be >= 0");
    }
    sc.randoms.push_back(std::move(d));
  }
}

void parse_overrides(const Reader& r, const toml::node& list, Scenario& sc) {
  const toml::array& a = r.array_of_tables(list, "ensemble.override");
  const ModelView& view = sc.model_view();
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.override[" + std::to_string(j) + "]";
    const toml::table& t = r.table_of(a[j], shown);
    Override o;
    o.body = r.integer(r.required(t, "body", shown + ".body"), shown + ".body");
    if (o.body < 0 || o.body >= sc.ensemble_size)
      r.fail(shown + ".body", std::to_string(o.body) + " is not a body index in [0, " + std::to_string(sc.ensemble_size) + ")");
    Values v{std::vector<std::vector<double>>(view.keys.size()), std::vector<std::vector<std::string>>(view.keys.size()),
             std::vector<bool>(view.keys.size(), false)};
    r.read(t, "", shown, view.keys, v, {"body"}, [&](const std::string& name) { return other_models_key(view, name); });
    for (std::size_t k = 0; k < view.keys.size(); ++k)
      if (v.given[k]) o.values.emplace_back(int(k), v.numbers[k]);
    sc.overrides.push_back(std::move(o));
  }
  std::stable_sort(sc.overrides.begin(), sc.overrides.end(), ByBody{});
}

void parse_ensemble(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "ensemble", "ensemble");
  sc.ensemble_size = r.read_spec<EnsembleSpec>(t, "ensemble", {"sweep", "random", "override"}).size;
  if (const toml::node* n = t.get("sweep")) parse_sweeps(r, *n, sc);
  if (const toml::node* n = t.get("random")) parse_randoms(r, *n, sc);
  if (const toml::node* n = t.get("override")) parse_overrides(r, *n, sc);
}

void parse_output(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "output", "output");
  const OutputSpec out = r.read_spec<OutputSpec>(t, "output");
  sc.output_file = out.file.empty() ? std::filesystem::path(sc.source).stem().string() + ".h5" : out.file;
  if (t.get("file") && out.file.empty()) r.fail("output.file", "empty file name");
  sc.stride = out.stride;
  const std::vector<Channel> channels = sample_channels(sc);
  if (!t.get("channels")) {
    for (const Channel& c : channels)
      if (!c.optional) sc.channels.push_back(c.name);
    return;
  }
  std::vector<std::string> names;
  for (const Channel& c : channels) names.push_back(c.name);
  for (const std::string& name : out.channels) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      r.fail("output.channels", "'" + name + "' is not a channel of a " + std::string(sc.model_view().info.name) +
                                    " model with method '" + sc.integrator.view().info.name + "' (its channels: " +
                                    quoted(names) + ")");
    if (std::count(out.channels.begin(), out.channels.end(), name) > 1)
      r.fail("output.channels", "'" + name + "' is listed twice");
  }
  for (const std::string& name : names)  // in sample order
    if (std::find(out.channels.begin(), out.channels.end(), name) != out.channels.end()) sc.channels.push_back(name);
}

/// Every body after the ensemble tables; the first bad one is reported with its index.
void check_bodies(const Scenario& sc) {
  if (sc.sweeps.empty() && sc.randoms.empty() && sc.overrides.empty()) return;  // all bodies are the base
  for (index_t i = 0; i < sc.ensemble_size; ++i)
    if (auto p = body_problem(sc.model_view(), body_parameters(sc, i)))
      throw ScenarioError(sc.source + ": body " + std::to_string(i) + ": key '" + p->key + "': " + p->message);
}

}  // namespace

const char* to_string(Backend backend) { return name_of(backend_names, backend); }
const char* to_string(Precision precision) { return name_of(precision_names, precision); }
Backend parse_backend(const std::string& name) { return parse_choice(backend_names, name); }
Precision parse_precision(const std::string& name) { return parse_choice(precision_names, name); }

double IntegratorSpec::value(const std::string& key) const {
  const int k = find_key(view().keys, key);
  if (k < 0) throw std::invalid_argument("method '" + std::string(view().info.name) + "' has no setting '" + key + "'");
  return settings.at(k).at(0);
}

std::vector<double> Scenario::value(const std::string& key) const {
  const ModelView& view = model_view();
  const int k = find_key(view.keys, key);
  if (k < 0) throw std::invalid_argument("model '" + std::string(view.info.name) + "' has no key '" + key + "'");
  return std::vector<double>(base.begin() + view.keys[k].offset, base.begin() + view.keys[k].offset + view.keys[k].size);
}

std::vector<Channel> sample_channels(const Scenario& sc) {
  std::vector<Channel> channels = sc.model_view().channels;
  const std::vector<Channel>& own = sc.integrator.view().channels;
  channels.insert(channels.end(), own.begin(), own.end());
  return channels;
}

Scenario parse_scenario(const std::string& text, const std::string& source, const ScenarioOverrides& overrides) {
  Scenario sc;
  sc.source = source;
  sc.text = text;
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw ScenarioError(source + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                        ": TOML syntax error: " + std::string(e.description()));
  }
  const Reader r(source);
  for (auto&& [name, node] : root)
    if (!std::set<std::string_view>{"model", "initial", "integrator", "run", "time", "ensemble", "output"}.count(name.str()))
      r.fail(std::string(name.str()), "unknown key");
  parse_model(r, root, sc);
  parse_run(r, root, sc);  // before [integrator]: the Newton defaults depend on the precision
  if (overrides.backend) sc.backend = *overrides.backend;
  if (overrides.precision) sc.precision = *overrides.precision;
  parse_integrator(r, root, sc);
  parse_time(r, root, overrides.t_end, sc);
  parse_ensemble(r, root, sc);
  parse_output(r, root, sc);
  check_bodies(sc);
  return sc;
}

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path + ": cannot open the scenario file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scenario(text.str(), path, overrides);
}

std::vector<double> body_parameters(const Scenario& sc, index_t i) {
  const ModelView& view = sc.model_view();
  std::vector<double> p = sc.base;
  for (const Sweep& s : sc.sweeps) {
    std::vector<double> v(s.from.size());
    const double f = sc.ensemble_size > 1 ? double(i) / double(sc.ensemble_size - 1) : 0.0;
    for (std::size_t c = 0; c < v.size(); ++c) v[c] = s.from[c] + (s.to[c] - s.from[c]) * f;
    assign(p, view.keys[find_key(view.keys, s.key)], v);
  }
  for (const RandomDraw& d : sc.randoms) assign(p, view.keys[find_key(view.keys, d.key)], draw(d, i));
  const auto [first, last] = std::equal_range(sc.overrides.begin(), sc.overrides.end(), i, ByBody{});
  for (auto o = first; o != last; ++o)
    for (const auto& [key, value] : o->values) assign(p, view.keys[key], value);
  return p;
}

std::vector<double> body_value(const Scenario& sc, index_t i, const std::string& key) {
  const ModelView& view = sc.model_view();
  const int k = find_key(view.keys, key);
  if (k < 0) throw std::invalid_argument("model '" + std::string(view.info.name) + "' has no key '" + key + "'");
  const std::vector<double> p = body_parameters(sc, i);
  return std::vector<double>(p.begin() + view.keys[k].offset, p.begin() + view.keys[k].offset + view.keys[k].size);
}

}  // namespace quatstep
