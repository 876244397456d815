// Scenario files: TOML → Scenario, every check before any integration (format in scenario.hpp).
#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <toml++/toml.h>

#include "methods.hpp"
#include "quatstep/integrators/hht_parameters.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "quatstep/newton.hpp"

namespace quatstep {

const char* to_string(ModelKind kind) {
  switch (kind) {
    case ModelKind::heavy_top: return "heavy_top";
    case ModelKind::free_rigid_body: return "free_rigid_body";
  }
  return "unknown";
}

namespace {

/// The [integrator] method names and the method-specific keys each reads.
struct MethodEntry {
  Method method;
  const char* name;
  MethodKeys keys;  // alpha, inertia_shift, variant
};
constexpr MethodEntry method_table[] = {
    {Method::hht, "hht", {true, true, false}},
    {Method::modified_hht, "modified_hht", {true, true, false}},
    {Method::simo_vu_quoc, "simo_vu_quoc", {true, false, false}},
    {Method::zupan3, "zupan3", {false, false, false}},
    {Method::explicit_newmark_lie, "explicit_newmark_lie", {false, false, false}},
    {Method::midpoint_lie, "midpoint_lie", {false, false, false}},
    {Method::livens_em, "livens_em", {false, false, true}},
    {Method::livens_midpoint, "livens_midpoint", {false, false, false}},
    {Method::livens_hamiltonian_em, "livens_hamiltonian_em", {false, false, false}},
    {Method::hamiltonian_midpoint, "hamiltonian_midpoint", {false, false, false}},
};

constexpr std::pair<LivensVariant, const char*> variant_table[] = {
    {LivensVariant::reduced, "reml"}, {LivensVariant::full, "full"}, {LivensVariant::nullspace, "nullspace"}};

/// The default-constructed settings of the method's integrator (models share them).
template <Method M>
using DefaultSettings = SettingsOf<IntegratorFor<M, HeavyTop<double>>>;

template <Method M, class S>
using DefaultSettingsIn = SettingsOf<IntegratorFor<M, HeavyTop<S>>>;

/// The method's default Newton settings in the run's precision (tolerances differ per scalar).
NewtonSettings<double> default_newton(Method m, Precision p) {
  return with_method(m, [p](auto tag) {
    if (p == Precision::single_precision) {
      const NewtonSettings<float> f = DefaultSettingsIn<decltype(tag)::value, float>{}.newton;
      return NewtonSettings<double>{f.tolerance, f.max_iterations, f.jacobian_reuse_below};
    }
    return DefaultSettingsIn<decltype(tag)::value, double>{}.newton;
  });
}

constexpr std::pair<Backend, const char*> backend_table[] = {
    {Backend::automatic, "auto"}, {Backend::cuda, "cuda"}, {Backend::cpu, "cpu"}};
constexpr std::pair<Precision, const char*> precision_table[] = {
    {Precision::double_precision, "double"}, {Precision::single_precision, "float"}};

/// The entry of `table` named `name`, or a ScenarioError whose message lists the names.
template <class E, std::size_t N>
E parse_name(const std::pair<E, const char*> (&table)[N], const std::string& name) {
  std::string names;
  for (const auto& [value, n] : table) {
    if (name == n) return value;
    names += (names.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  }
  throw ScenarioError("'" + name + "' is not one of " + names);
}
template <class E, std::size_t N>
const char* name_of(const std::pair<E, const char*> (&table)[N], E value) {
  for (const auto& [v, n] : table)
    if (v == value) return n;
  return "unknown";
}

/// "a, b, c": the methods for which `has` holds.
template <class Has>
std::string methods_where(Has has) {
  std::string list;
  for (const MethodEntry& e : method_table)
    if (has(e.method)) list += (list.empty() ? "" : ", ") + std::string(e.name);
  return list;
}

}  // namespace

const char* to_string(Method method) {
  for (const MethodEntry& e : method_table)
    if (e.method == method) return e.name;
  return "unknown";
}

const char* to_string(Backend backend) { return name_of(backend_table, backend); }
const char* to_string(Precision precision) { return name_of(precision_table, precision); }
Backend parse_backend(const std::string& name) { return parse_name(backend_table, name); }
Precision parse_precision(const std::string& name) { return parse_name(precision_table, name); }

const char* to_string(LivensVariant variant) {
  for (const auto& [v, name] : variant_table)
    if (v == variant) return name;
  return "unknown";
}

MethodKeys method_keys(Method method) {
  for (const MethodEntry& e : method_table)
    if (e.method == method) return e.keys;
  throw std::logic_error("unknown integrator method");
}

bool provides_local_error(Method m) {
  return with_method(m, [](auto tag) { return has_local_error<IntegratorFor<decltype(tag)::value, HeavyTop<double>>>::value; });
}

bool provides_generalized_energy(Method m) {
  return with_method(
      m, [](auto tag) { return has_generalized_energy<IntegratorFor<decltype(tag)::value, HeavyTop<double>>>::value; });
}

namespace {

// ---------------------------------------------------------------- the numeric per-body keys
enum class Scope { any, heavy_top, free_rigid_body };

struct NumericKey {
  std::string name;
  int size;
  std::function<double*(BodyParameters&)> field;
  Scope scope;
};

std::vector<NumericKey> make_numeric_keys() {
  using P = BodyParameters;
  std::vector<NumericKey> keys = {
      {"model.inertia", 3, [](P& p) { return p.inertia.data(); }, Scope::any},
      {"model.mass", 1, [](P& p) { return &p.mass; }, Scope::any},
      {"model.center_of_mass", 3, [](P& p) { return p.center_of_mass.data(); }, Scope::heavy_top},
      {"model.gravity", 3, [](P& p) { return p.gravity.data(); }, Scope::any},
      {"model.body_torque", 3, [](P& p) { return p.body_torque.data(); }, Scope::any},
      {"model.spatial_torque", 3, [](P& p) { return p.spatial_torque.data(); }, Scope::any},
      {"model.force", 3, [](P& p) { return p.force.data(); }, Scope::free_rigid_body},
      {"initial.quaternion", 4, [](P& p) { return p.quaternion.data(); }, Scope::any},
      {"initial.omega_body", 3, [](P& p) { return p.omega_body.data(); }, Scope::any},
      {"initial.position", 3, [](P& p) { return p.position.data(); }, Scope::free_rigid_body},
      {"initial.velocity", 3, [](P& p) { return p.velocity.data(); }, Scope::free_rigid_body},
  };
  const std::pair<const char*, ProfileParameters P::*> profiles[] = {
      {"body_torque_profile", &P::body_torque_profile},
      {"spatial_torque_profile", &P::spatial_torque_profile},
      {"force_profile", &P::force_profile}};
  for (const auto& [name, member] : profiles) {
    const std::string prefix = std::string("model.") + name + ".";
    const Scope scope = member == &P::force_profile ? Scope::free_rigid_body : Scope::any;
    keys.push_back({prefix + "ramp", 3, [m = member](P& p) { return (p.*m).ramp.data(); }, scope});
    keys.push_back({prefix + "amplitude", 3, [m = member](P& p) { return (p.*m).amplitude.data(); }, scope});
    keys.push_back({prefix + "frequency", 1, [m = member](P& p) { return &(p.*m).frequency; }, scope});
    keys.push_back({prefix + "phase", 1, [m = member](P& p) { return &(p.*m).phase; }, scope});
  }
  return keys;
}

const std::vector<NumericKey>& numeric_keys() {
  static const std::vector<NumericKey> keys = make_numeric_keys();
  return keys;
}

const NumericKey* find_numeric_key(const std::string& name) {
  for (const NumericKey& k : numeric_keys())
    if (k.name == name) return &k;
  return nullptr;
}

bool is_key_prefix(const std::string& prefix) {
  for (const NumericKey& k : numeric_keys())
    if (k.name.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

bool in_scope(Scope scope, ModelKind kind) {
  return scope == Scope::any || (scope == Scope::heavy_top) == (kind == ModelKind::heavy_top);
}

void assign(BodyParameters& p, const std::string& key, const std::vector<double>& value) {
  std::copy(value.begin(), value.end(), find_numeric_key(key)->field(p));
}

std::string format(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// ---------------------------------------------------------------- per-body checks
struct Problem {
  std::string key, message;
};

/// The first problem of one body's parameters, if any (values are finite by construction except
/// for overflow in a sweep).
std::optional<Problem> body_problem(BodyParameters p, ModelKind kind) {
  for (const NumericKey& k : numeric_keys()) {
    const double* v = k.field(p);
    for (int c = 0; c < k.size; ++c)
      if (!std::isfinite(v[c])) return Problem{k.name, "component " + std::to_string(c) + " is not finite"};
  }
  for (int c = 0; c < 3; ++c)
    if (!(p.inertia[c] > 0))
      return Problem{"model.inertia", "component " + std::to_string(c) + " is " + format(p.inertia[c]) + ", must be > 0"};
  // Principal moments of a real body satisfy I1 + I2 ≥ I3 (same relative slack as models/validation.hpp).
  const auto& I = p.inertia;
  for (int c = 0; c < 3; ++c)
    if (I[(c + 1) % 3] + I[(c + 2) % 3] < I[c] * (1 - 1e-12))
      return Problem{"model.inertia", "moments (" + format(I[0]) + ", " + format(I[1]) + ", " + format(I[2]) +
                                          ") violate the triangle inequality I1 + I2 >= I3 (no real body has them)"};
  const bool lever = p.center_of_mass != std::array<double, 3>{};
  if (kind == ModelKind::free_rigid_body && !(p.mass > 0))
    return Problem{"model.mass", format(p.mass) + ", must be > 0"};
  if (kind == ModelKind::heavy_top && !(p.mass >= 0)) return Problem{"model.mass", format(p.mass) + ", must be >= 0"};
  if (kind == ModelKind::heavy_top && lever && !(p.mass > 0))
    return Problem{"model.mass", format(p.mass) + ", must be > 0 when model.center_of_mass is not zero"};
  double norm2 = 0;
  for (double q : p.quaternion) norm2 += q * q;
  if (!(std::abs(std::sqrt(norm2) - 1) <= 1e-6))
    return Problem{"initial.quaternion", "not a unit quaternion (norm " + format(std::sqrt(norm2)) + ")"};
  return std::nullopt;
}

void normalize_quaternion(BodyParameters& p) {
  double norm2 = 0;
  for (double q : p.quaternion) norm2 += q * q;
  const double norm = std::sqrt(norm2);
  for (double& q : p.quaternion) q /= norm;
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
  if (r.distribution == Distribution::uniform_rotation) {  // Shoemake's subgroup algorithm
    const double u1 = unit_draw(r.seed, body, r.key, 0), u2 = unit_draw(r.seed, body, r.key, 1),
                 u3 = unit_draw(r.seed, body, r.key, 2);
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return {a * std::cos(2 * M_PI * u2), a * std::sin(2 * M_PI * u2), b * std::cos(2 * M_PI * u3),
            b * std::sin(2 * M_PI * u3)};
  }
  std::vector<double> v(r.first.size());
  for (std::size_t c = 0; c < v.size(); ++c) {
    const int stream = 2 * static_cast<int>(c);
    const double u1 = unit_draw(r.seed, body, r.key, stream);
    if (r.distribution == Distribution::uniform) {
      v[c] = r.first[c] + (r.second[c] - r.first[c]) * u1;
    } else {  // Box–Muller; 1 − u1 ∈ (0, 1]
      const double u2 = unit_draw(r.seed, body, r.key, stream + 1);
      const double z = std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * M_PI * u2);
      v[c] = r.first[c] + r.second[c] * z;
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

/// Body i before normalisation: file values, sweeps, random draws, overrides.
BodyParameters raw_body_parameters(const Scenario& sc, index_t i) {
  BodyParameters p = sc.base;
  for (const Sweep& s : sc.sweeps) {
    std::vector<double> v(s.from.size());
    const double f = sc.ensemble_size > 1 ? double(i) / double(sc.ensemble_size - 1) : 0.0;
    for (std::size_t c = 0; c < v.size(); ++c) v[c] = s.from[c] + (s.to[c] - s.from[c]) * f;
    assign(p, s.key, v);
  }
  for (const RandomDraw& r : sc.randoms) assign(p, r.key, draw(r, i));
  const auto [first, last] = std::equal_range(sc.overrides.begin(), sc.overrides.end(), i, ByBody{});
  for (auto o = first; o != last; ++o)
    for (const auto& [key, value] : o->values) assign(p, key, value);
  return p;
}

// ---------------------------------------------------------------- reading TOML
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

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw ScenarioError(source_ + ": key '" + key + "': " + problem);
  }

  /// The sub-table `name` of `parent` (an empty one if absent), its keys checked against `allowed`.
  const toml::table& table(const toml::table& parent, const std::string& name, const std::string& shown,
                           std::initializer_list<std::string_view> allowed) const {
    static const toml::table empty;
    const toml::node* n = parent.get(name);
    if (!n) return empty;
    if (!n->is_table()) fail(shown, std::string("expected a table, got ") + type_name(*n));
    check_keys(*n->as_table(), shown, allowed);
    return *n->as_table();
  }

  void check_keys(const toml::table& t, const std::string& shown, std::initializer_list<std::string_view> allowed) const {
    if (allowed.size() == 0) return;  // checked by the caller
    for (auto&& [k, v] : t)
      if (std::find(allowed.begin(), allowed.end(), k.str()) == allowed.end()) fail(join(shown, k.str()), "unknown key");
  }

  static std::string join(const std::string& prefix, std::string_view name) {
    return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
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

  double number_or(const toml::table& t, std::string_view name, const std::string& shown, double fallback) const {
    const toml::node* n = t.get(name);
    return n ? number(*n, shown) : fallback;
  }

  std::int64_t integer(const toml::node& n, const std::string& key) const {
    if (auto i = n.as_integer()) return i->get();
    fail(key, std::string("expected an integer, got ") + type_name(n));
  }

  std::int64_t integer_or(const toml::table& t, std::string_view name, const std::string& shown, std::int64_t fallback) const {
    const toml::node* n = t.get(name);
    return n ? integer(*n, shown) : fallback;
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (auto s = n.as_string()) return s->get();
    fail(key, std::string("expected a string, got ") + type_name(n));
  }

  bool boolean(const toml::node& n, const std::string& key) const {
    if (auto b = n.as_boolean()) return b->get();
    fail(key, std::string("expected a boolean, got ") + type_name(n));
  }

  /// A per-body numeric key of this model type, by name.
  const NumericKey& numeric_key(const std::string& name, ModelKind kind, const std::string& shown) const {
    const NumericKey* k = find_numeric_key(name);
    if (!k) fail(shown, "'" + name + "' is not a numeric key of [model] or [initial]");
    if (!in_scope(k->scope, kind)) fail(shown, "'" + name + "' is not a key of a " + std::string(to_string(kind)) + " model");
    return *k;
  }

  /// Every numeric key under `t` (path `lookup`, shown as `shown`), passed to `store`; `skip` is
  /// read by the caller.
  void numeric_table(const toml::table& t, const std::string& lookup, const std::string& shown, ModelKind kind,
                     const std::function<void(const std::string&, std::vector<double>)>& store,
                     std::initializer_list<std::string_view> skip) const {
    for (auto&& [k, node] : t) {
      if (std::find(skip.begin(), skip.end(), k.str()) != skip.end()) continue;
      const std::string name = join(lookup, k.str()), key = join(shown, k.str());
      if (find_numeric_key(name)) {
        store(numeric_key(name, kind, key).name, numbers(node, key, find_numeric_key(name)->size, false));
      } else if (is_key_prefix(name + ".")) {
        if (!node.is_table()) fail(key, std::string("expected a table, got ") + type_name(node));
        numeric_table(*node.as_table(), name, key, kind, store, {});
      } else {
        fail(key, "unknown key");
      }
    }
  }

 private:
  std::string source_;
};

ModelKind parse_model_kind(const Reader& r, const toml::table& model) {
  const std::string type = r.string(r.required(model, "type", "model.type"), "model.type");
  if (type == "heavy_top") return ModelKind::heavy_top;
  if (type == "free_rigid_body") return ModelKind::free_rigid_body;
  r.fail("model.type", "'" + type + "' is not one of \"heavy_top\", \"free_rigid_body\"");
}

void parse_body(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& model = r.table(root, "model", "model", {});
  sc.model = parse_model_kind(r, model);
  sc.base.mass = sc.model == ModelKind::free_rigid_body ? 1.0 : 0.0;
  r.required(model, "inertia", "model.inertia");
  const auto store = [&](const std::string& key, std::vector<double> v) { assign(sc.base, key, v); };
  r.numeric_table(model, "model", "model", sc.model, store, {"type"});
  r.numeric_table(r.table(root, "initial", "initial", {}), "initial", "initial", sc.model, store, {});
  if (auto p = body_problem(sc.base, sc.model)) r.fail(p->key, p->message);
}

void parse_run(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "run", "run", {"backend", "precision"});
  const auto parse = [&](const char* key, const char* shown, auto parse_value, auto& field) {
    const toml::node* n = t.get(key);
    if (!n) return;
    try {
      field = parse_value(r.string(*n, shown));
    } catch (const ScenarioError& e) {
      r.fail(shown, e.what());
    }
  };
  parse("backend", "run.backend", parse_backend, sc.backend);
  parse("precision", "run.precision", parse_precision, sc.precision);
}

void parse_integrator(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "integrator", "integrator",
                                 {"method", "alpha", "inertia_shift", "variant", "newton_tolerance", "newton_max_iterations"});
  IntegratorSpec& in = sc.integrator;
  const std::string method = r.string(r.required(t, "method", "integrator.method"), "integrator.method");
  const MethodEntry* entry = nullptr;
  for (const MethodEntry& e : method_table)
    if (method == e.name) entry = &e;
  if (!entry) {
    std::string names;
    for (const MethodEntry& e : method_table) names += (names.empty() ? "\"" : ", \"") + std::string(e.name) + "\"";
    r.fail("integrator.method", "'" + method + "' is not one of " + names);
  }
  in.method = entry->method;

  // A key the method does not read is an error: whoever wrote it expects it to act.
  const auto used = [&](const char* key, bool MethodKeys::*flag) {
    if (!t.get(key)) return false;
    if (!(entry->keys.*flag))
      r.fail(std::string("integrator.") + key, "not used by method '" + method + "' (only by " +
                                                   methods_where([&](Method m) { return method_keys(m).*flag; }) + ")");
    return true;
  };
  if (entry->keys.alpha) in.alpha = HhtSettings<double>{}.alpha;
  if (used("alpha", &MethodKeys::alpha)) {
    in.alpha = r.number(*t.get("alpha"), "integrator.alpha");
    if (!alpha_in_range(in.alpha)) r.fail("integrator.alpha", format(in.alpha) + " is outside [-1/3, 0]");
  }
  if (used("inertia_shift", &MethodKeys::inertia_shift)) in.inertia_shift = r.boolean(*t.get("inertia_shift"), "integrator.inertia_shift");
  if (used("variant", &MethodKeys::variant)) {
    const std::string variant = r.string(*t.get("variant"), "integrator.variant");
    std::string names;
    bool found = false;
    for (const auto& [v, name] : variant_table) {
      if (variant == name) in.variant = v, found = true;
      names += (names.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    if (!found) r.fail("integrator.variant", "'" + variant + "' is not one of " + names);
  }
  const NewtonSettings<double> newton = default_newton(in.method, sc.precision);
  in.newton_tolerance = r.number_or(t, "newton_tolerance", "integrator.newton_tolerance", newton.tolerance);
  if (!(in.newton_tolerance > 0)) r.fail("integrator.newton_tolerance", format(in.newton_tolerance) + ", must be > 0");
  const std::int64_t it = r.integer_or(t, "newton_max_iterations", "integrator.newton_max_iterations", newton.max_iterations);
  if (it < 1 || it > 1000) r.fail("integrator.newton_max_iterations", std::to_string(it) + ", must be in [1, 1000]");
  in.newton_max_iterations = static_cast<int>(it);
}

void parse_time(const Reader& r, const toml::table& root, std::optional<double> t_end, Scenario& sc) {
  const toml::table& t = r.table(root, "time", "time", {"dt", "t_end", "t_start"});
  TimeSpec& ts = sc.time;
  ts.dt = r.number(r.required(t, "dt", "time.dt"), "time.dt");
  ts.t_end = r.number(r.required(t, "t_end", "time.t_end"), "time.t_end");
  if (t_end) ts.t_end = *t_end;
  ts.t_start = r.number_or(t, "t_start", "time.t_start", 0.0);
  if (!(ts.dt > 0)) r.fail("time.dt", format(ts.dt) + ", must be > 0");
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
  if (!list.is_array()) r.fail("ensemble.sweep", std::string("expected an array of tables, got ") + type_name(list));
  const toml::array& a = *list.as_array();
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.sweep[" + std::to_string(j) + "]";
    if (!a[j].is_table()) r.fail(shown, std::string("expected a table, got ") + type_name(a[j]));
    const toml::table& t = *a[j].as_table();
    r.check_keys(t, shown, {"key", "from", "to"});
    Sweep s;
    const NumericKey& k = r.numeric_key(r.string(r.required(t, "key", shown + ".key"), shown + ".key"), sc.model, shown + ".key");
    s.key = k.name;
    s.from = r.numbers(r.required(t, "from", shown + ".from"), shown + ".from", k.size, true);
    s.to = r.numbers(r.required(t, "to", shown + ".to"), shown + ".to", k.size, true);
    sc.sweeps.push_back(std::move(s));
  }
}

void parse_seed(const Reader& r, const toml::table& t, const std::string& shown, RandomDraw& d) {
  const std::int64_t seed = r.integer_or(t, "seed", shown + ".seed", 0);
  if (seed < 0) r.fail(shown + ".seed", std::to_string(seed) + ", must be >= 0");
  d.seed = static_cast<std::uint64_t>(seed);
}

void parse_randoms(const Reader& r, const toml::node& list, Scenario& sc) {
  if (!list.is_array()) r.fail("ensemble.random", std::string("expected an array of tables, got ") + type_name(list));
  const toml::array& a = *list.as_array();
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.random[" + std::to_string(j) + "]";
    if (!a[j].is_table()) r.fail(shown, std::string("expected a table, got ") + type_name(a[j]));
    const toml::table& t = *a[j].as_table();
    RandomDraw d;
    const NumericKey& k = r.numeric_key(r.string(r.required(t, "key", shown + ".key"), shown + ".key"), sc.model, shown + ".key");
    d.key = k.name;
    const std::string dist = r.string(r.required(t, "distribution", shown + ".distribution"), shown + ".distribution");
    const char *a_name, *b_name;
    if (dist == "uniform") {
      d.distribution = Distribution::uniform, a_name = "low", b_name = "high";
      r.check_keys(t, shown, {"key", "distribution", "seed", "low", "high"});
    } else if (dist == "normal") {
      d.distribution = Distribution::normal, a_name = "mean", b_name = "stddev";
      r.check_keys(t, shown, {"key", "distribution", "seed", "mean", "stddev"});
    } else if (dist == "uniform_rotation") {
      if (k.name != "initial.quaternion") r.fail(shown + ".distribution", "\"uniform_rotation\" draws only initial.quaternion");
      r.check_keys(t, shown, {"key", "distribution", "seed"});
      d.distribution = Distribution::uniform_rotation;
      parse_seed(r, t, shown, d);
      sc.randoms.push_back(std::move(d));
      continue;
    } else {
      r.fail(shown + ".distribution", "'" + dist + "' is not one of \"uniform\", \"normal\", \"uniform_rotation\"");
    }
    d.first = r.numbers(r.required(t, a_name, shown + "." + a_name), shown + "." + a_name, k.size, true);
    d.second = r.numbers(r.required(t, b_name, shown + "." + b_name), shown + "." + b_name, k.size, true);
    for (int c = 0; c < k.size; ++c) {
      if (d.distribution == Distribution::uniform && d.first[c] > d.second[c])
        r.fail(shown + ".high", "component " + std::to_string(c) + " is below low");
      if (d.distribution == Distribution::normal && d.second[c] < 0)
        r.fail(shown + ".stddev", "component " + std::to_string(c) + " is " + format(d.second[c]) + ", must be >= 0");
    }
    parse_seed(r, t, shown, d);
    sc.randoms.push_back(std::move(d));
  }
}

void parse_overrides(const Reader& r, const toml::node& list, Scenario& sc) {
  if (!list.is_array()) r.fail("ensemble.override", std::string("expected an array of tables, got ") + type_name(list));
  const toml::array& a = *list.as_array();
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string shown = "ensemble.override[" + std::to_string(j) + "]";
    if (!a[j].is_table()) r.fail(shown, std::string("expected a table, got ") + type_name(a[j]));
    const toml::table& t = *a[j].as_table();
    Override o;
    o.body = r.integer(r.required(t, "body", shown + ".body"), shown + ".body");
    if (o.body < 0 || o.body >= sc.ensemble_size)
      r.fail(shown + ".body", std::to_string(o.body) + " is not a body index in [0, " + std::to_string(sc.ensemble_size) + ")");
    r.numeric_table(t, "", shown, sc.model,
                    [&](const std::string& key, std::vector<double> v) { o.values.emplace_back(key, std::move(v)); },
                    {"body"});
    sc.overrides.push_back(std::move(o));
  }
  std::stable_sort(sc.overrides.begin(), sc.overrides.end(), ByBody{});
}

void parse_ensemble(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "ensemble", "ensemble", {"size", "sweep", "random", "override"});
  sc.ensemble_size = r.integer_or(t, "size", "ensemble.size", 1);
  if (sc.ensemble_size < 1) r.fail("ensemble.size", std::to_string(sc.ensemble_size) + ", must be >= 1");
  if (const toml::node* n = t.get("sweep")) parse_sweeps(r, *n, sc);
  if (const toml::node* n = t.get("random")) parse_randoms(r, *n, sc);
  if (const toml::node* n = t.get("override")) parse_overrides(r, *n, sc);
}

void parse_output(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table& t = r.table(root, "output", "output", {"file", "stride", "local_error"});
  sc.output_file = std::filesystem::path(sc.source).stem().string() + ".h5";
  if (const toml::node* n = t.get("file")) sc.output_file = r.string(*n, "output.file");
  if (sc.output_file.empty()) r.fail("output.file", "empty file name");
  sc.stride = r.integer_or(t, "stride", "output.stride", 1);
  if (sc.stride < 1) r.fail("output.stride", std::to_string(sc.stride) + ", must be >= 1");
  if (const toml::node* n = t.get("local_error")) sc.local_error = r.boolean(*n, "output.local_error");
  if (sc.local_error && !provides_local_error(sc.integrator.method))
    r.fail("output.local_error", std::string("method '") + to_string(sc.integrator.method) +
                                     "' has no local error estimate (only " + methods_where(provides_local_error) + ")");
}

/// Every body after the ensemble tables; the first bad one is reported with its index.
void check_bodies(const Scenario& sc) {
  if (sc.sweeps.empty() && sc.randoms.empty() && sc.overrides.empty()) return;  // all bodies are the base
  for (index_t i = 0; i < sc.ensemble_size; ++i)
    if (auto p = body_problem(raw_body_parameters(sc, i), sc.model))
      throw ScenarioError(sc.source + ": body " + std::to_string(i) + ": key '" + p->key + "': " + p->message);
}

}  // namespace

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
  r.check_keys(root, "", {"model", "initial", "integrator", "run", "time", "ensemble", "output"});
  parse_body(r, root, sc);
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

BodyParameters body_parameters(const Scenario& scenario, index_t i) {
  BodyParameters p = raw_body_parameters(scenario, i);
  normalize_quaternion(p);
  return p;
}

}  // namespace quatstep
