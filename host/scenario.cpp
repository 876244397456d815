// Scenario files: TOML → Scenario, every check before any integration. Every table is read against
// a key table (keys.hpp): the registry's for [model], [initial] and [integrator], the describe() of
// the spec structs of scenario.hpp for the rest.
#include "scenario.hpp"
#include "key_suggestion.hpp"
#include "scenario_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <regex>
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

using Values = KeyValues;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const { fail_key(source_, key, problem); }
  const std::string& source() const { return source_; }

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
        if (!node.is_table())
          fail(key, std::string("expected a table, got ") + type_name(node) + " (its keys: " +
                        below(keys, full, lookup) + ")");
        read(*node.as_table(), full, key, keys, out, {}, unknown);
      } else {
        const std::string why = unknown ? unknown(full) : std::string();
        const std::string unknown_name(name.str());
        fail(key, why.empty() ? unknown_key_problem(unknown_name, names_at(keys, lookup, unknown_name, skip)) : why);
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
  /// The names a table at `lookup` may hold, in the form of `name`: its keys and nested tables
  /// ("body_torque_profile"), or for a dotted name (a quoted "body.crank.mass") the keys below it
  /// whole; and the caller's.
  static std::vector<std::string> names_at(const std::vector<KeyInfo>& keys, const std::string& lookup,
                                           const std::string& name, std::initializer_list<std::string_view> skip) {
    const std::string prefix = lookup.empty() ? "" : lookup + ".";
    const bool dotted = name.find('.') != std::string::npos;
    std::vector<std::string> names;
    for (const KeyInfo& k : keys)
      if (k.name.compare(0, prefix.size(), prefix) == 0) {
        const std::size_t end = dotted ? std::string::npos : k.name.find('.', prefix.size());
        names.push_back(k.name.substr(prefix.size(), end == std::string::npos ? end : end - prefix.size()));
      }
    names.insert(names.end(), skip.begin(), skip.end());
    return names;
  }
  /// The first keys below `prefix`, as the table at `lookup` names them: "'body.bob.mass', …".
  static std::string below(const std::vector<KeyInfo>& keys, const std::string& prefix, const std::string& lookup) {
    std::string text;
    int shown = 0;
    for (const KeyInfo& k : keys)
      if (k.name.compare(0, prefix.size() + 1, prefix + ".") == 0 && shown++ < 3)
        text += (text.empty() ? "'" : ", '") + tail(k.name, lookup) + "'";
    return shown > 3 ? text + ", …" : text;
  }
  static std::string tail(const std::string& name, const std::string& lookup) {
    return lookup.empty() ? name : name.substr(lookup.size() + 1);
  }

  std::string source_;
};

// ---------------------------------------------------------------- per-body parameters
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
    r.fail(shown, "'" + name + "' is " + (other.empty() ? "not a numeric key of [model] or [initial]" : other) +
                      did_you_mean_clause(name, key_names(model.keys)));
  }
  return model.keys[k];
}

void assign(std::vector<double>& p, const KeyInfo& k, const std::vector<double>& value) {
  std::copy(value.begin(), value.end(), p.begin() + k.offset);
}

// ---------------------------------------------------------------- laws of [[ensemble.random]] and designs
using sampling::Distribution;
using sampling::Marginal;
using sampling::SamplingError;

bool is_scalar_law(Law law) { return law <= Law::log_uniform; }
const char* law_name(Law law) { return name_of(law_names, law); }

/// The parameters (keys of the law table) each law reads; `required` those it cannot do without.
struct LawParameters {
  std::vector<const char*> allowed, required;
};
LawParameters parameters_of(Law law, bool inertia) {
  LawParameters p;
  switch (law) {
    case Law::fixed: p = {{"value"}, {"value"}}; break;
    case Law::uniform:
    case Law::log_uniform: p = {{"low", "high"}, {"low", "high"}}; break;
    case Law::normal: p = {{"mean", "stddev"}, {"mean", "stddev"}}; break;
    case Law::truncated_normal: p = {{"mean", "stddev", "low", "high"}, {"mean", "stddev"}}; break;
    case Law::log_normal: p = {{"mu", "sigma"}, {"mu", "sigma"}}; break;
    case Law::choice: p = {{"values", "weights"}, {"values"}}; break;
    case Law::uniform_rotation: break;
    case Law::rotation_cone: p = {{"mean", "axis", "half_angle", "spin"}, {"half_angle"}}; break;
    case Law::axis_magnitude: p = {{"axis", "half_angle", "magnitude"}, {"magnitude"}}; break;
    case Law::body_shape: p = {{"shape", "dimensions", "mass", "density", "mass_key", "invalid"}, {"dimensions"}}; break;
  }
  if (inertia && (is_scalar_law(law) || law == Law::choice)) p.allowed.push_back("invalid");
  return p;
}
/// Every parameter name of a law table (the keys a law may or may not read).
const std::vector<std::string>& law_parameter_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const KeyInfo& k : key_table<LawSpec>()) n.push_back(k.name);
    for (const NestedLaw& nested : nested_laws) n.push_back(nested.name);
    return n;
  }();
  return names;
}

/// The key of the inertia whose laws are kept physical (invalid = ...) and which body shapes draw.
constexpr const char* inertia_key = "model.inertia";
bool is_quaternion_key(const KeyInfo& k) {
  const std::string suffix = "quaternion";
  return k.size == 4 && k.name.size() >= suffix.size() && k.name.compare(k.name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Reads the law tables of one scenario: a SamplingError of the sampling library becomes a
/// ScenarioError naming the table's key of the parameter ("ensemble.random[0].stddev").
class LawReader {
 public:
  LawReader(const Reader& r, const DrawTarget& target) : r_(r), target_(target) {}

  /// Runs f, turning a SamplingError "param[c]: problem" into "key 'shown.param[c]': problem".
  template <class F>
  auto named(const std::string& shown, F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const SamplingError& e) {
      const std::string what = e.what();
      static const std::regex parameter(R"(^([a-z_]+(\[[0-9]+\])?): (.*)$)");
      std::smatch m;
      if (std::regex_match(what, m, parameter) && is_parameter(m[1].str()))
        r_.fail(shown + "." + m[1].str(), m[3].str());
      r_.fail(shown, what);
    }
  }

  /// The law of table `t` (read as `spec`) for model key `k`, with the key's dimension.
  Distribution law(const toml::table& t, const std::string& shown, const LawSpec& spec, const KeyInfo& k) const {
    const Law kind = spec.law.distribution;
    const bool inertia = target_.is_inertia(k);
    if ((kind == Law::uniform_rotation || kind == Law::rotation_cone) && !is_quaternion_key(k))
      r_.fail(shown + ".distribution", "\"" + std::string(law_name(kind)) + "\" draws quaternion keys only, not '" + k.name + "'");
    if (kind == Law::body_shape && !inertia)
      r_.fail(shown + ".distribution", "\"body_shape\" draws " + target_.inertia_keys + " only, not '" + k.name + "'");
    check_parameters(t, shown, kind, inertia);
    return named(shown, [&] {
      Distribution d = whole_law(t, shown, spec, k);
      if (inertia && kind != Law::body_shape) d = Distribution::principal_inertia(d, spec.invalid);
      return d.for_dimension(k.size);
    });
  }

  /// The marginals of a scalar law for `n` components (one parameter value for all, or one each).
  std::vector<Marginal> marginals(const toml::table& t, const std::string& shown, const ScalarLawSpec& s, int n) const {
    const auto given = [&](const char* name) { return t.get(name) != nullptr; };
    const std::vector<double> minus_inf{-std::numeric_limits<double>::infinity()}, plus_inf{std::numeric_limits<double>::infinity()};
    const std::vector<std::pair<const char*, const std::vector<double>*>> all = {
        {"value", &s.value}, {"low", given("low") ? &s.low : &minus_inf}, {"high", given("high") ? &s.high : &plus_inf},
        {"mean", &s.mean}, {"stddev", &s.stddev}, {"mu", &s.mu}, {"sigma", &s.sigma}};
    for (const auto& [name, values] : all)
      if (given(name) && values->size() != 1 && int(values->size()) != n)
        r_.fail(shown + "." + name, std::to_string(values->size()) + " numbers for " + std::to_string(n) +
                                       " components: give one number per component, or one for all");
    return named(shown, [&] {
      std::vector<Marginal> m;
      for (int c = 0; c < n; ++c) {
        const auto at = [&](const std::vector<double>& p) { return p.size() == 1 ? p[0] : p.at(std::size_t(c)); };
        const int component = n == 1 ? -1 : c;
        switch (s.distribution) {
          case Law::fixed: m.push_back(Marginal::fixed(at(s.value), component)); break;
          case Law::uniform: m.push_back(Marginal::uniform(at(s.low), at(s.high), component)); break;
          case Law::normal: m.push_back(Marginal::normal(at(s.mean), at(s.stddev), component)); break;
          case Law::truncated_normal:
            m.push_back(Marginal::truncated_normal(at(s.mean), at(s.stddev), at(*all[1].second), at(*all[2].second), component));
            break;
          case Law::log_normal: m.push_back(Marginal::log_normal(at(s.mu), at(s.sigma), component)); break;
          case Law::log_uniform: m.push_back(Marginal::log_uniform(at(s.low), at(s.high), component)); break;
          default: r_.fail(shown + ".distribution", "not a scalar law");
        }
      }
      return m;
    });
  }

 private:
  static bool is_parameter(const std::string& name) {
    const std::string base = name.substr(0, name.find('['));
    const auto& names = law_parameter_names();
    return std::find(names.begin(), names.end(), base) != names.end();
  }

  /// A parameter the law does not read is an error (whoever wrote it expects it to act), and so is
  /// a missing one it needs.
  void check_parameters(const toml::table& t, const std::string& shown, Law kind, bool inertia) const {
    const LawParameters p = parameters_of(kind, inertia);
    const auto listed = [](const std::vector<const char*>& list, const std::string& name) {
      return std::any_of(list.begin(), list.end(), [&](const char* n) { return name == n; });
    };
    for (const std::string& name : law_parameter_names()) {
      if (name == "distribution" || !t.get(name) || listed(p.allowed, name)) continue;
      if (name == "invalid" && !inertia)
        r_.fail(shown + ".invalid", "only laws of " + target_.inertia_keys + " can draw invalid bodies");
      r_.fail(shown + "." + name, "not a parameter of distribution '" + std::string(law_name(kind)) + "'");
    }
    for (const char* name : p.required)
      if (!t.get(name)) r_.fail(shown + "." + name, "missing (required by distribution '" + std::string(law_name(kind)) + "')");
    if (kind == Law::body_shape && !t.get("mass") == !t.get("density"))
      r_.fail(shown + ".mass", "body_shape needs exactly one of mass and density");
  }

  /// A nested scalar law table of a law table (magnitude, dimensions, mass, density).
  std::vector<Marginal> nested(const toml::table& t, const std::string& shown, const char* name, int n) const {
    const std::string key = shown + "." + name;
    const toml::table& sub = r_.table_of(*t.get(name), key);
    const ScalarLawSpec s = r_.read_spec<ScalarLawSpec>(sub, key);
    if (!is_scalar_law(s.distribution))
      r_.fail(key + ".distribution", "\"" + std::string(law_name(s.distribution)) +
                                         "\" is not a scalar law (fixed, uniform, normal, truncated_normal, log_normal, "
                                         "log_uniform)");
    check_parameters(sub, key, s.distribution, false);
    return marginals(sub, key, s, n);
  }

  /// The choice's list: an array of numbers (a scalar key) or of arrays of `size` numbers.
  std::vector<std::vector<double>> choice_values(const toml::table& t, const std::string& shown, int size) const {
    const toml::node& n = *t.get("values");
    const std::string key = shown + ".values";
    if (!n.is_array() || n.as_array()->empty()) r_.fail(key, "expected a nonempty array of values");
    std::vector<std::vector<double>> values;
    for (std::size_t i = 0; i < n.as_array()->size(); ++i)
      values.push_back(r_.numbers((*n.as_array())[i], key + "[" + std::to_string(i) + "]", size, false));
    return values;
  }

  Distribution whole_law(const toml::table& t, const std::string& shown, const LawSpec& spec, const KeyInfo& k) const {
    const int n = k.size;
    switch (spec.law.distribution) {
      case Law::choice:
        return Distribution::choice(choice_values(t, shown, n), spec.weights);
      case Law::uniform_rotation:
        return Distribution::uniform_rotation();
      case Law::rotation_cone: {
        std::vector<double> mean = spec.law.mean;
        if (!t.get("mean")) mean = target_.value(k);
        if (mean.size() != 4) r_.fail(shown + ".mean", "expected 4 numbers (a quaternion), got " + std::to_string(mean.size()));
        return Distribution::rotation_cone({mean[0], mean[1], mean[2], mean[3]}, spec.axis, spec.half_angle, spec.spin);
      }
      case Law::axis_magnitude:
        return Distribution::axis_magnitude({spec.axis, spec.half_angle}, nested(t, shown, "magnitude", 1)[0]);
      case Law::body_shape: {
        const bool by_mass = t.get("mass") != nullptr;
        return Distribution::body_shape(spec.shape, nested(t, shown, "dimensions", sampling::dimension_count(spec.shape)),
                                        by_mass ? sampling::ShapeAmount::mass : sampling::ShapeAmount::density,
                                        nested(t, shown, by_mass ? "mass" : "density", 1)[0], spec.invalid);
      }
      default:
        return Distribution::componentwise(marginals(t, shown, spec.law, n));
    }
  }

  const Reader& r_;
  const DrawTarget& target_;
};

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
  const std::string method = r.string(r.required(t, "method", "integrator.method"), "integrator.method");
  const toml::node* variant = t.get("variant");
  IntegratorSpec& in = sc.integrator;
  in = integrator_named(r.source(), sc.model, method,
                        variant ? std::optional(r.string(*variant, "integrator.variant")) : std::nullopt, sc.precision);
  std::vector<KeyInfo> keys = in.view().keys;  // with the defaults of the run's precision
  for (std::size_t k = 0; k < keys.size(); ++k) keys[k].value = in.settings[k];
  // A key the method does not read is an error: whoever wrote it expects it to act.
  in.settings = r.read_all(t, "", "integrator", keys, {"method", "variant"},
                           [&](const std::string& key) { return unused_setting(method, key); })
                    .numbers;
  check_settings(r.source(), in);
}

/// Method `method` (in method_views()) as the [time] table needs it.
StepControlMethod step_control_method(int method) {
  std::vector<std::string> adaptive;
  for (const MethodView& m : method_views())
    if (m.adaptive) adaptive.push_back(m.info.name);
  const MethodView& view = method_views().at(method);
  return {view.info.name, view.adaptive, adaptive};
}

/// adaptive_steps_problem of a method known by its name and whether it takes adaptive steps.
std::optional<validation::Problem> adaptive_steps_problem(const AdaptiveSettings<double>& control,
                                                          const StepControlMethod& method) {
  if (!method.adaptive)
    return validation::Problem{"time.adaptive", "method '" + method.name +
                                                    "' takes fixed steps only; adaptive steps run with the HHT family: " +
                                                    quoted(method.adaptive_methods)};
  try {
    control.validate();
  } catch (const keys::KeyError& e) {
    return validation::Problem{"time." + e.key, e.problem};
  }
  return std::nullopt;
}

/// [time] adaptive = true: an adaptive method (the integrator is parsed first) and step-control
/// values that pass AdaptiveSettings::validate(); without it, a step-control key is an error
/// (whoever wrote it expects it to act).
void parse_step_control(const Reader& r, const toml::table& t, const TimeSpec& ts, const StepControlMethod& method) {
  if (!ts.adaptive) {
    for (const KeyInfo& k : key_table<AdaptiveSettings<double>>())
      if (t.get(k.name)) r.fail("time." + k.name, "read only with adaptive = true");
    return;
  }
  if (auto problem = adaptive_steps_problem(ts.step_control, method)) r.fail(problem->key, problem->message);
}

TimeSpec parse_time(const Reader& r, const toml::table& root, std::optional<double> t_end, const StepControlMethod& method) {
  const toml::table& t = r.table(root, "time", "time");
  TimeSpec ts = r.read_spec<TimeSpec>(t, "time");
  parse_step_control(r, t, ts, method);
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
  return ts;
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

/// A law table (RandomDraw, DesignKey): the keys its describe() does not read itself are LawReader's.
template <class Spec>
Spec read_law_table(const Reader& r, const toml::table& t, const std::string& shown) {
  return r.read_spec<Spec>(t, shown, {"values", "magnitude", "dimensions", "mass", "density"});
}

/// Registers the model keys an entry draws (the key and a mass key), each drawn by one table only.
class DrawnKeys {
 public:
  explicit DrawnKeys(const Reader& r) : r_(r) {}
  void add(const std::string& key, const std::string& shown) {
    const auto [at, fresh] = tables_.emplace(key, shown);
    if (!fresh) r_.fail(shown, "'" + key + "' is drawn already by " + at->second);
  }

 private:
  const Reader& r_;
  std::map<std::string, std::string> tables_;  // key → the table that draws it
};

/// The mass key of a body_shape (a scalar key of the model), or "".
std::string mass_key_of(const Reader& r, const DrawTarget& target, const LawSpec& spec, const std::string& shown) {
  if (spec.mass_key.empty()) return {};
  const KeyInfo& m = target.key(spec.mass_key, shown + ".mass_key");
  if (m.size != 1) r.fail(shown + ".mass_key", "'" + m.name + "' has " + std::to_string(m.size) + " components, a mass has 1");
  return m.name;
}

/// Before any integration: a law that can (almost) never give a valid body is an error.
void check_law(const Reader& r, const Distribution& law, std::uint64_t seed, const std::string& key, const std::string& shown) {
  try {
    law.check(seed, key);
  } catch (const SamplingError& e) {
    r.fail(shown, e.what());
  }
}

void parse_randoms(const Reader& r, const toml::node& list, const DrawTarget& target, DrawnKeys& drawn) {
  const toml::array& a = r.array_of_tables(list, "ensemble.random");
  const LawReader laws(r, target);
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.random[" + std::to_string(j) + "]";
    const toml::table& t = r.table_of(a[j], shown);
    const RandomDraw d = read_law_table<RandomDraw>(r, t, shown);
    const KeyInfo& k = target.key(d.key, shown + ".key");
    const Distribution law = laws.law(t, shown, d.law, k);
    const std::string mass_key = mass_key_of(r, target, d.law, shown);
    drawn.add(k.name, shown + ".key");
    if (!mass_key.empty()) drawn.add(mass_key, shown + ".mass_key");
    check_law(r, law, std::uint64_t(d.seed), k.name, shown);
    target.redraws |= law.redraws_invalid();
    target.plan.add(k.name, law, std::uint64_t(d.seed), mass_key);
  }
}

void parse_designs(const Reader& r, const toml::node& list, const DrawTarget& target, DrawnKeys& drawn) {
  const toml::array& a = r.array_of_tables(list, "ensemble.design");
  const LawReader laws(r, target);
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.design[" + std::to_string(j) + "]";
    const toml::table& t = r.table_of(a[j], shown);
    const DesignSpec design = r.read_spec<DesignSpec>(t, shown, {"keys"});
    const toml::node* keys = t.get("keys");
    if (!keys) r.fail(shown + ".keys", "missing (required): the [[" + shown.substr(0, shown.find('[')) + ".keys]] to draw");
    const toml::array& entries = r.array_of_tables(*keys, shown + ".keys");
    if (entries.empty()) r.fail(shown + ".keys", "no key");
    std::vector<sampling::DesignEntry> design_entries;
    for (std::size_t m = 0; m < entries.size(); ++m) {
      const std::string entry = shown + ".keys[" + std::to_string(m) + "]";
      const toml::table& e = r.table_of(entries[m], entry);
      const DesignKey d = read_law_table<DesignKey>(r, e, entry);
      const KeyInfo& k = target.key(d.key, entry + ".key");
      const Distribution law = laws.law(e, entry, d.law, k);
      if (law.redraws_invalid())
        r.fail(entry + ".invalid", "\"redraw\" would undo the design's stratification: use \"fail\" or a body_shape "
                                   "whose laws cannot give invalid bodies");
      const std::string mass_key = mass_key_of(r, target, d.law, entry);
      drawn.add(k.name, entry + ".key");
      if (!mass_key.empty()) drawn.add(mass_key, entry + ".mass_key");
      check_law(r, law, std::uint64_t(design.seed), k.name, entry);
      design_entries.push_back({k.name, law, mass_key});
    }
    const std::string name = "design " + std::to_string(j);  // keys the design's streams
    laws.named(shown, [&] {
      target.plan.add(design.type == DesignKind::latin_hypercube
                      ? sampling::JointDesign::latin_hypercube(name, std::move(design_entries), target.declared_size)
                      : sampling::JointDesign::sobol(name, std::move(design_entries)),
                  std::uint64_t(design.seed));
      return 0;
    });
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
    if (o.body < 0 || o.body >= sc.declared_size)
      r.fail(shown + ".body", std::to_string(o.body) + " is not a body index in [0, " + std::to_string(sc.declared_size) + ")");
    Values v{std::vector<std::vector<double>>(view.keys.size()), std::vector<std::vector<std::string>>(view.keys.size()),
             std::vector<bool>(view.keys.size(), false)};
    r.read(t, "", shown, view.keys, v, {"body"}, [&](const std::string& name) { return other_models_key(view, name); });
    for (std::size_t k = 0; k < view.keys.size(); ++k)
      if (v.given[k]) o.values.emplace_back(int(k), v.numbers[k]);
    sc.overrides.push_back(std::move(o));
  }
  std::stable_sort(sc.overrides.begin(), sc.overrides.end(), ByBody{});
}

/// The bodies of a selection (--bodies): indices of the declared ensemble, none twice.
void select_bodies(const Reader& r, const std::vector<index_t>& bodies, Scenario& sc) {
  std::set<index_t> seen;
  for (index_t b : bodies) {
    if (b < 0 || b >= sc.declared_size)
      r.fail("ensemble.size", "body " + std::to_string(b) + " (--bodies) is not a body index in [0, " +
                                  std::to_string(sc.declared_size) + ")");
    if (!seen.insert(b).second) r.fail("ensemble.size", "body " + std::to_string(b) + " (--bodies) is listed twice");
  }
  sc.selection = bodies;
  sc.ensemble_size = index_t(bodies.size());
}

void parse_ensemble(const Reader& r, const toml::table& root, const std::vector<index_t>& bodies, Scenario& sc) {
  const toml::table& t = r.table(root, "ensemble", "ensemble");
  sc.declared_size = sc.ensemble_size =
      r.read_spec<EnsembleSpec>(t, "ensemble", {"sweep", "random", "design", "override"}).size;
  if (!bodies.empty()) select_bodies(r, bodies, sc);
  if (const toml::node* n = t.get("sweep")) parse_sweeps(r, *n, sc);
  const DrawTarget target{
      [&](const std::string& name, const std::string& shown) -> const KeyInfo& {
        return parameter_key(r, sc.model_view(), name, shown);
      },
      [&](const KeyInfo& k) { return sc.value(k.name); }, [](const KeyInfo& k) { return k.name == inertia_key; },
      inertia_key, sc.declared_size, sc.plan, sc.redraws};
  read_draws(r.source(), t, target);
  if (const toml::node* n = t.get("override")) parse_overrides(r, *n, sc);
  // The keys that vary between bodies, for /parameters.
  const ModelView& view = sc.model_view();
  std::set<int> keys;
  for (const Sweep& s : sc.sweeps) keys.insert(find_key(view.keys, s.key));
  for (const std::string& key : sc.plan.keys()) keys.insert(find_key(view.keys, key));
  for (const Override& o : sc.overrides)
    for (const auto& [key, value] : o.values) keys.insert(key);
  sc.ensemble_keys.assign(keys.begin(), keys.end());
}

/// The channels statistics can read: the sample's, and the Newton iterations of an implicit method.
statistics::ChannelLayout statistics_layout(const Scenario& sc) {
  std::vector<statistics::Channel> channels = statistics::ChannelLayout::of(sample_channels(sc)).channels();
  if (find_key(sc.integrator.view().keys, "newton_tolerance") >= 0)
    channels.push_back({newton_iterations_channel, channel_scalars(sample_channels(sc)), 1});
  return statistics::ChannelLayout(channels);
}

/// One [[output.statistics.observable]] table.
statistics::ObservableSpec observable_of(const Reader& r, const ObservableTable& o, const toml::table& t,
                                         const std::string& shown, const std::vector<statistics::Observable>& standard) {
  using statistics::Observable;
  const auto need_channel = [&] {
    if (o.channel.empty()) r.fail(shown + ".channel", "missing (required by kind '" + std::string(name_of(observable_kind_names, o.kind)) + "')");
  };
  for (const char* key : {"channel", "component", "body_axis", "spatial_axis"}) {
    const bool used = (o.kind == ObservableKind::component && (std::string(key) == "channel" || std::string(key) == "component")) ||
                      ((o.kind == ObservableKind::norm || o.kind == ObservableKind::relative_drift) && std::string(key) == "channel") ||
                      (o.kind == ObservableKind::nutation && (std::string(key) == "body_axis" || std::string(key) == "spatial_axis"));
    if (t.get(key) && !used) r.fail(shown + "." + key, "not read by kind '" + std::string(name_of(observable_kind_names, o.kind)) + "'");
  }
  statistics::ObservableSpec spec{standard.front(), std::nullopt};
  try {
    switch (o.kind) {
      case ObservableKind::standard: {
        std::vector<std::string> names;
        for (const Observable& s : standard) names.push_back(s.name());
        const auto at = std::find(names.begin(), names.end(), o.name);
        if (at == names.end())
          r.fail(shown + ".name", "'" + o.name + "' is not a standard observable (" + quoted(names) + ")" +
                                      did_you_mean_clause(o.name, names) + ": give its kind");
        spec.observable = standard[std::size_t(at - names.begin())];
        break;
      }
      case ObservableKind::component: need_channel(), spec.observable = Observable::component(o.name, o.channel, int(o.component)); break;
      case ObservableKind::norm: need_channel(), spec.observable = Observable::norm(o.name, o.channel); break;
      case ObservableKind::relative_drift: need_channel(), spec.observable = Observable::relative_drift(o.name, o.channel); break;
      case ObservableKind::nutation: spec.observable = Observable::nutation(o.name, o.body_axis, o.spatial_axis); break;
      case ObservableKind::newton_iterations: spec.observable = Observable::component(o.name, newton_iterations_channel); break;
    }
  } catch (const statistics::StatisticsError& e) {
    r.fail(shown, e.what());
  }
  if (o.bins == 0 && (t.get("low") || t.get("high"))) r.fail(shown + ".bins", "missing: low and high are a histogram's edges");
  if (o.bins > 0)
    for (const char* edge : {"low", "high"})
      if (!t.get(edge)) r.fail(shown + "." + edge, "missing (required with bins: the histogram's edges)");
  if (o.bins > 0) {
    if (o.bins > 1000000) r.fail(shown + ".bins", std::to_string(o.bins) + ", must be <= 1000000");
    try {
      spec.bins = statistics::Bins(o.low, o.high, int(o.bins));
    } catch (const statistics::StatisticsError& e) {
      r.fail(shown + ".high", e.what());
    }
  }
  return spec;
}

/// [output.statistics]: the observables (checked against the channels of `layout`; `standard` are
/// those the file may name alone) and the quantile levels.
statistics::StatisticsSpec statistics_spec(const Reader& r, const toml::table& t, const statistics::ChannelLayout& layout,
                                           const std::vector<statistics::Observable>& standard_list) {
  const StatisticsTable table = r.read_spec<StatisticsTable>(t, "output.statistics", {"observable"});
  statistics::StatisticsSpec spec;
  for (std::size_t q = 0; q < table.quantiles.size(); ++q)
    if (!(table.quantiles[q] >= 0 && table.quantiles[q] <= 1))
      r.fail("output.statistics.quantiles", "component " + std::to_string(q) + " is " + format(table.quantiles[q]) + ", must be in [0, 1]");
  spec.quantile_levels = table.quantiles;
  const auto binds = [&](const statistics::Observable& o) {
    try {
      o.bind(layout);
      return true;
    } catch (const statistics::StatisticsError&) {
      return false;
    }
  };
  std::vector<std::string> standard;
  for (const statistics::Observable& o : standard_list) standard.push_back(o.name());
  if (t.get("observables")) {
    for (const std::string& name : table.observables) {
      const auto at = std::find(standard.begin(), standard.end(), name);
      if (at == standard.end())
        r.fail("output.statistics.observables", "'" + name + "' is not a standard observable (" + quoted(standard) + ")" +
                                                    did_you_mean_clause(name, standard) +
                                                    ": define it in an [[output.statistics.observable]] table");
      for (const statistics::ObservableSpec& o : spec.observables)
        if (o.observable.name() == name) r.fail("output.statistics.observables", "'" + name + "' is listed twice");
      const statistics::Observable o = standard_list[std::size_t(at - standard.begin())];
      try {
        o.bind(layout);
      } catch (const statistics::StatisticsError& e) {
        r.fail("output.statistics.observables", e.what());
      }
      spec.observables.push_back({o, std::nullopt});
    }
  } else {
    for (const statistics::Observable& o : standard_list)
      if (binds(o)) spec.observables.push_back({o, std::nullopt});
  }
  if (const toml::node* list = t.get("observable")) {
    const toml::array& a = r.array_of_tables(*list, "output.statistics.observable");
    std::set<std::string> tables;
    for (std::size_t j = 0; j < a.size(); ++j) {
      const std::string shown = "output.statistics.observable[" + std::to_string(j) + "]";
      const toml::table& ot = r.table_of(a[j], shown);
      const ObservableTable table_j = r.read_spec<ObservableTable>(ot, shown);
      if (!tables.insert(table_j.name).second) r.fail(shown + ".name", "'" + table_j.name + "' is defined twice");
      statistics::ObservableSpec o = observable_of(r, table_j, ot, shown, standard_list);
      try {
        o.observable.bind(layout);
      } catch (const statistics::StatisticsError& e) {
        r.fail(shown, e.what());
      }
      const auto same = std::find_if(spec.observables.begin(), spec.observables.end(),
                                     [&](const statistics::ObservableSpec& x) { return x.observable.name() == o.observable.name(); });
      if (same != spec.observables.end()) *same = std::move(o);
      else spec.observables.push_back(std::move(o));
    }
  }
  if (spec.observables.empty()) r.fail("output.statistics.observables", "no observable");
  return spec;
}

void parse_statistics(const Reader& r, const toml::table& t, Scenario& sc) {
  sc.statistics = statistics_spec(r, t, statistics_layout(sc), standard_observables());
}

void parse_output(const Reader& r, const toml::table& root, std::optional<index_t> stride, Scenario& sc) {
  const toml::table& t = r.table(root, "output", "output");
  const OutputSpec out = r.read_spec<OutputSpec>(t, "output", {"statistics"});
  sc.output_file = out.file.empty() ? std::filesystem::path(sc.source).stem().string() + ".h5" : out.file;
  if (t.get("file") && out.file.empty()) r.fail("output.file", "empty file name");
  sc.stride = stride.value_or(out.stride);
  if (const std::string p = stride_problem(sc.time, sc.stride); !p.empty()) r.fail("output.stride", p);
  sc.trajectories = out.trajectories;
  sc.trajectory_every = out.trajectory_every;
  sc.max_trajectory_bytes = out.max_trajectory_bytes;
  sc.trajectory_bodies = read_trajectory_list(sc.source, t, out, sc.declared_size, "body");
  if (t.get("statistics")) parse_statistics(r, r.table(t, "statistics", "output.statistics"), sc);
  sc.channels = read_written_channels(sc.source, t, out, sample_channels(sc),
                                      "a " + std::string(sc.model_view().info.name) + " model with method '" +
                                          sc.integrator.view().info.name + "'");
}

/// Every body after the ensemble tables; the first bad one (in body order) is reported with its
/// index. Bodies are drawn in parallel (each draw depends on its body alone).
void check_bodies(const Scenario& sc) {
  if (sc.sweeps.empty() && sc.plan.empty() && sc.overrides.empty()) return;  // all bodies are the base
  const index_t n = sc.ensemble_size;
  index_t first_bad = n;
  std::string message;
  std::set<std::string> varied;  // the keys swept or drawn (not those an override sets)
  for (const Sweep& s : sc.sweeps) varied.insert(s.key);
  for (const std::string& key : sc.plan.keys()) varied.insert(key);
#pragma omp parallel
  {
    index_t mine = n;
    std::string my_message;
#pragma omp for schedule(dynamic, 256)
    for (index_t i = 0; i < n; ++i) {
      if (i > mine) continue;
      const std::string body = sc.source + ": body " + std::to_string(sc.body_index(i)) + ": ";
      try {
        if (auto p = body_problem(sc.model_view(), body_parameters(sc, i))) {
          mine = i, my_message = body + "key '" + p->key + "': " + p->message;
          if (p->message.rfind("not a unit quaternion", 0) == 0 && varied.count(p->key))
            my_message += " (a sweep or a law drawn component by component does not keep a quaternion unit: "
                          "distribution = \"uniform_rotation\" or \"rotation_cone\" draws orientations)";
        }
      } catch (const SamplingError& e) {  // "model.inertia: body 17: drawn moments …" (invalid = "fail")
        const std::string what = e.what(), marker = ": body " + std::to_string(sc.body_index(i)) + ": ";
        const std::size_t at = what.find(marker);
        const std::string key = at == std::string::npos ? "ensemble" : what.substr(0, at);
        mine = i, my_message = body + "key '" + key + "': " + (at == std::string::npos ? what : what.substr(at + marker.size()));
        if (key == inertia_key) my_message += " (invalid = \"redraw\" draws such bodies again)";
      }
    }
#pragma omp critical
    if (mine < first_bad) first_bad = mine, message = my_message;
  }
  if (first_bad < n) throw ScenarioError(message);
}

}  // namespace

std::string stride_problem(const TimeSpec& time, std::int64_t stride) {
  if (stride < 1) return std::to_string(stride) + ", must be >= 1";
  if (time.steps % stride == 0) return {};
  const std::int64_t below = time.steps / stride * stride;
  return std::to_string(stride) + " does not divide the " + std::to_string(time.steps) +
         " steps of (t_end - t_start)/dt: the last sample would be step " + std::to_string(below) +
         ", not the state at t_end; choose a stride that divides " + std::to_string(time.steps) +
         " ([output] stride, or --stride) or another t_end";
}

std::vector<statistics::Observable> standard_observables() {
  std::vector<statistics::Observable> all = statistics::rigid_body_observables();
  all.push_back(statistics::Observable::component("newton_iterations", newton_iterations_channel));
  return all;
}

const char* to_string(Backend backend) { return name_of(backend_names, backend); }
const char* to_string(Precision precision) { return name_of(precision_names, precision); }
Backend parse_backend(const std::string& name) { return parse_choice(backend_names, name); }
Precision parse_precision(const std::string& name) { return parse_choice(precision_names, name); }

void fail_key(const std::string& source, const std::string& key, const std::string& problem) {
  throw ScenarioError(source + ": key '" + key + "': " + problem);
}

std::optional<std::string> range_problem(const KeyInfo& k, const double* v, int size) {
  for (int c = 0; c < size; ++c) {
    if (k.range.contains(v[c])) continue;
    const std::string what = std::isfinite(v[c]) ? format(v[c]) + ", must be " + k.range.text : "not finite";
    return size > 1 || k.size > 1 ? "component " + std::to_string(c) + " is " + what : what;
  }
  return std::nullopt;
}

std::optional<validation::Problem> body_problem(const ModelView& model, const std::vector<double>& p) {
  for (const KeyInfo& k : model.keys)
    if (auto problem = range_problem(k, p.data() + k.offset, k.size)) return validation::Problem{k.name, *problem};
  return model.check(p);
}

IntegratorSpec integrator_named(const std::string& source, int model, const std::string& method,
                                const std::optional<std::string>& variant, Precision precision) {
  IntegratorSpec in;
  try {
    in.method = index_of(names_of(method_views()), method);
  } catch (const std::invalid_argument& e) {
    fail_key(source, "integrator.method", e.what());
  }
  const MethodView& view = in.view();
  const std::string model_name = model_views().at(model).info.name;
  if (!view.applies_to(model))
    fail_key(source, "integrator.method", "'" + method + "' does not run on a " + model_name + " model");
  if (variant) {
    if (!view.has_variants()) fail_key(source, "integrator.variant", unused_setting(method, "variant"));
    try {
      in.variant = index_of(names_of(view.variants), *variant);
    } catch (const std::invalid_argument& e) {
      fail_key(source, "integrator.variant", e.what());
    }
    if (!view.applies[model][in.variant])
      fail_key(source, "integrator.variant", "'" + *variant + "' does not run on a " + model_name + " model");
  }
  for (std::size_t k = 0; k < view.keys.size(); ++k)
    in.settings.push_back(precision == Precision::single_precision ? view.float_defaults[k] : view.keys[k].value);
  return in;
}

std::string unused_setting(const std::string& method, const std::string& key) {
  std::string users;
  for (const MethodView& m : method_views())
    if ((key == "variant" && m.has_variants()) || find_key(m.keys, key) >= 0)
      users += (users.empty() ? "" : ", ") + std::string(m.info.name);
  return users.empty() ? std::string() : "not used by method '" + method + "' (only by " + users + ")";
}

void check_settings(const std::string& source, const IntegratorSpec& in) {
  try {
    in.view().check_settings(in.settings);
  } catch (const keys::KeyError& e) {
    fail_key(source, e.key, e.problem);
  }
}

std::optional<validation::Problem> adaptive_steps_problem(const AdaptiveSettings<double>& control, int method) {
  return adaptive_steps_problem(control, step_control_method(method));
}

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
  const toml::table root = parse_toml(text, source);
  const Reader r(source);
  const std::vector<std::string> tables{"model", "initial", "integrator", "run", "time", "ensemble", "output"};
  for (auto&& [name, node] : root)
    if (std::find(tables.begin(), tables.end(), name.str()) == tables.end())
      r.fail(std::string(name.str()), name.str() == "mechanism"
                                          ? "a mechanism scenario: `quatstep run` runs it (host/mechanism_run.hpp), "
                                            "this entry point runs single bodies"
                                          : unknown_key_problem(std::string(name.str()), tables));
  parse_model(r, root, sc);
  parse_run(r, root, sc);  // before [integrator]: the Newton defaults depend on the precision
  if (overrides.backend) sc.backend = *overrides.backend;
  if (overrides.precision) sc.precision = *overrides.precision;
  parse_integrator(r, root, sc);
  sc.time = parse_time(r, root, overrides.t_end, step_control_method(sc.integrator.method));
  parse_ensemble(r, root, overrides.bodies, sc);
  parse_output(r, root, overrides.stride, sc);
  check_bodies(sc);
  return sc;
}

toml::table parse_toml(const std::string& text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw ScenarioError(source + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                        ": TOML syntax error: " + std::string(e.description()));
  }
}

KeyValues read_key_table(const std::string& source, const toml::table& t, const std::string& shown,
                         const std::vector<KeyInfo>& keys, std::initializer_list<std::string_view> skip) {
  return Reader(source).read_all(t, "", shown, keys, skip);
}

void read_draws(const std::string& source, const toml::table& ensemble, const DrawTarget& target) {
  const Reader r(source);
  DrawnKeys drawn(r);
  if (const toml::node* n = ensemble.get("random")) parse_randoms(r, *n, target, drawn);
  if (const toml::node* n = ensemble.get("design")) parse_designs(r, *n, target, drawn);
  try {
    target.plan.validate();  // the streams of different entries are independent
  } catch (const SamplingError& e) {
    r.fail("ensemble", e.what());
  }
}

statistics::StatisticsSpec read_statistics_table(const std::string& source, const toml::table& t,
                                                 const statistics::ChannelLayout& layout,
                                                 const std::vector<statistics::Observable>& standard) {
  return statistics_spec(Reader(source), t, layout, standard);
}

std::vector<index_t> read_trajectory_list(const std::string& source, const toml::table& t, const OutputSpec& out,
                                         index_t size, const std::string& member) {
  const Reader r(source);
  const auto only_with = [&](const char* key, Trajectories choice) {
    if (t.get(key) && out.trajectories != choice)
      r.fail(std::string("output.") + key, std::string("only with trajectories = \"") + name_of(trajectory_names, choice) + "\"");
  };
  only_with("trajectory_bodies", Trajectories::list);
  only_with("trajectory_every", Trajectories::every);
  only_with("max_trajectory_bytes", Trajectories::automatic);
  if (out.trajectories != Trajectories::list) return {};
  if (out.trajectory_bodies.empty()) r.fail("output.trajectory_bodies", "missing (required by trajectories = \"list\")");
  std::set<index_t> listed;
  for (double b : out.trajectory_bodies) {
    if (!(b >= 0 && b < double(size) && b == std::floor(b)))
      r.fail("output.trajectory_bodies", format(b) + " is not a " + member + " index in [0, " + std::to_string(size) + ")");
    if (!listed.insert(index_t(b)).second) r.fail("output.trajectory_bodies", format(b) + " is listed twice");
  }
  return {listed.begin(), listed.end()};
}

std::vector<std::string> read_written_channels(const std::string& source, const toml::table& t, const OutputSpec& out,
                                               const std::vector<Channel>& channels, const std::string& what) {
  std::vector<std::string> names, written;
  for (const Channel& c : channels) names.push_back(c.name);
  if (!t.get("channels")) {
    for (const Channel& c : channels)
      if (!c.optional) written.push_back(c.name);
    return written;
  }
  const Reader r(source);
  for (const std::string& name : out.channels) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      r.fail("output.channels", "'" + name + "' is not a channel of " + what + " (its channels: " + quoted(names) + ")");
    if (std::count(out.channels.begin(), out.channels.end(), name) > 1)
      r.fail("output.channels", "'" + name + "' is listed twice");
  }
  for (const std::string& name : names)  // in sample order
    if (std::find(out.channels.begin(), out.channels.end(), name) != out.channels.end()) written.push_back(name);
  return written;
}

TimeSpec read_time_table(const std::string& source, const toml::table& root, std::optional<double> t_end,
                         const StepControlMethod& method) {
  return parse_time(Reader(source), root, t_end, method);
}

std::string read_scenario_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ScenarioError(path + ": a directory, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path + ": cannot open the scenario file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  return parse_scenario(read_scenario_text(path), path, overrides);
}

std::vector<std::string> scenario_warnings(const Scenario& sc) {
  if (sc.precision != Precision::single_precision || !sc.time.adaptive) return {};
  const ModelView& view = sc.model_view();
  const int omega = find_key(view.keys, "initial.omega_body");
  if (omega < 0) return {};
  double fastest = 0;  // the largest initial |ω| of the run's bodies, and which body
  index_t body = 0;
  for (index_t i = 0; i < sc.ensemble_size; ++i) {
    const std::vector<double> p = body_parameters(sc, i);
    const double* w = p.data() + view.keys[omega].offset;
    const double rate = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (rate > fastest) fastest = rate, body = sc.body_index(i);
  }
  const AdaptiveSettings<double>& c = sc.time.step_control;
  const double eps = double(std::numeric_limits<float>::epsilon());
  const bool per_time = c.control == ErrorControl::per_unit_step;
  const double floor = per_time ? eps * fastest : eps;
  if (!(c.rotation_atol < floor)) return {};
  return {sc.source + ": key 'time.rotation_atol': " + format(c.rotation_atol) + " is below float's round-off floor " +
          format(floor) + (per_time ? " per unit time (float epsilon x the fastest initial spin, " + format(fastest) +
                                          " rad/s of body " + std::to_string(body) + ")"
                                    : " per step (float epsilon)") +
          ": the bodies that fast cannot meet it and may fail with step_size_too_small; raise the tolerance or run "
          "in double (bench/adaptive.md)"};
}

std::vector<double> body_parameters(const Scenario& sc, index_t i, int* redraws,
                                    std::vector<sampling::Assignment>* shapes) {
  const ModelView& view = sc.model_view();
  if (!sc.rows.empty()) {
    const auto row = sc.rows.begin() + std::ptrdiff_t(std::size_t(i) * view.defaults.size());
    if (redraws) *redraws = 0;
    return std::vector<double>(row, row + std::ptrdiff_t(view.defaults.size()));
  }
  const index_t body = sc.body_index(i);
  std::vector<double> p = sc.base;
  for (const Sweep& s : sc.sweeps) {
    std::vector<double> v(s.from.size());
    const double f = sc.declared_size > 1 ? double(body) / double(sc.declared_size - 1) : 0.0;
    for (std::size_t c = 0; c < v.size(); ++c) v[c] = s.from[c] + (s.to[c] - s.from[c]) * f;
    assign(p, view.keys[find_key(view.keys, s.key)], v);
  }
  if (!sc.plan.empty()) {
    const sampling::BodyDraw drawn = sc.plan.draw(body);
    for (const sampling::Assignment& a : drawn.values) assign(p, view.keys[find_key(view.keys, a.key)], a.value);
    if (redraws) *redraws = drawn.redraws;
    if (shapes) *shapes = drawn.shapes;
  } else if (redraws) {
    *redraws = 0;
  }
  const auto [first, last] = std::equal_range(sc.overrides.begin(), sc.overrides.end(), body, ByBody{});
  for (auto o = first; o != last; ++o)
    for (const auto& [key, value] : o->values) {
      assign(p, view.keys[key], value);
      if (shapes)  // the shape no longer made this body's key
        for (sampling::Assignment& s : *shapes)
          if (s.key.compare(0, view.keys[key].name.size() + 7, view.keys[key].name + ".shape_") == 0)
            std::fill(s.value.begin(), s.value.end(), std::numeric_limits<double>::quiet_NaN());
    }
  return p;
}

std::vector<double> body_table(const Scenario& sc) {
  const std::size_t p = sc.model_view().defaults.size();
  const index_t n = sc.ensemble_size;
  std::vector<double> table(std::size_t(n) * p);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < n; ++i) {
    const std::vector<double> body = body_parameters(sc, i);
    std::copy(body.begin(), body.end(), table.begin() + std::ptrdiff_t(std::size_t(i) * p));
  }
  return table;
}

std::vector<double> body_value(const Scenario& sc, index_t i, const std::string& key) {
  const ModelView& view = sc.model_view();
  const int k = find_key(view.keys, key);
  if (k < 0) throw std::invalid_argument("model '" + std::string(view.info.name) + "' has no key '" + key + "'");
  const std::vector<double> p = body_parameters(sc, i);
  return std::vector<double>(p.begin() + view.keys[k].offset, p.begin() + view.keys[k].offset + view.keys[k].size);
}

}  // namespace quatstep
