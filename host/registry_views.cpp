// The runtime tables of the registry, built once from its type lists.
#include "registry_views.hpp"

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "key_suggestion.hpp"
#include "quatstep/adaptive/adaptive_hht.hpp"
#include "quatstep/registry.hpp"

namespace quatstep {
namespace {

template <class E, class = void>
struct has_configurations : std::false_type {};
template <class E>
struct has_configurations<E, std::void_t<decltype(E::configurations)>> : std::true_type {};
template <class E, class = void>
struct has_variants : std::false_type {};
template <class E>
struct has_variants<E, std::void_t<decltype(E::variants)>> : std::true_type {};

/// The settings struct of an integrator (HhtSettings<S>, LivensSettings<S>, …).
template <class Integrator>
using SettingsOf = std::remove_cv_t<decltype(Integrator::settings)>;

/// f(TypeTag<Model<S>>) for the first model M runs on (its settings struct's defaults are read
/// there; they do not depend on the model).
template <class M, class S, class F>
void with_first_model(F&& f) {
  bool done = false;
  for_each_type(Models{}, [&](auto tag, int) {
    using Model = typename tag_type<decltype(tag)>::template Model<S>;
    if constexpr (method_applies<M, Model, 0>::value) {
      if (!done) f(TypeTag<Model>{});
      done = true;
    }
  });
  if (!done) throw std::logic_error(std::string("registry: method '") + M::info.name + "' runs on no model");
}

template <class M, class ModelEntry, int... V>
std::vector<bool> applies_row(std::integer_sequence<int, V...>) {
  using Model = typename ModelEntry::template Model<double>;
  return {method_applies<M, Model, V>::value...};
}

template <class M>
MethodView method_view(int index) {
  MethodView v{index, M::info};
  if constexpr (has_variants<M>::value) v.variants.assign(std::begin(M::variants), std::end(M::variants));
  else v.variants = {VariantInfo{"", ""}};
  if constexpr (has_configurations<M>::value)
    v.configurations.assign(std::begin(M::configurations), std::end(M::configurations));
  with_first_model<M, double>([&](auto tag) {
    using I = IntegratorOf<M, tag_type<decltype(tag)>>;
    v.keys = key_table<SettingsOf<I>>();
    v.adaptive = takes_adaptive_steps<I>::value;
    v.check_settings = [](const std::vector<std::vector<double>>& values) {
      SettingsOf<I> s;
      KeyAssigner assign(values);
      s.describe(assign);
      keys::check(s);
    };
    if constexpr (has_integrator_channels<I>::value) v.channels.assign(std::begin(I::channels), std::end(I::channels));
  });
  with_first_model<M, float>([&](auto tag) {
    for (const KeyInfo& k : key_table<SettingsOf<IntegratorOf<M, tag_type<decltype(tag)>>>>())
      v.float_defaults.push_back(k.value);
  });
  for_each_type(Models{}, [&](auto model_tag, int) {
    using ModelEntry = tag_type<decltype(model_tag)>;
    v.applies.push_back(applies_row<M, ModelEntry>(std::make_integer_sequence<int, method_variant_count<M>::value>{}));
  });
  return v;
}

template <class E>
ModelView model_view(int index) {
  using P = typename E::Parameters;
  static_assert(std::is_trivially_copyable_v<P> && sizeof(P) % sizeof(double) == 0,
                "a model's Parameters are plain doubles (models/rigid_body_parameters.hpp)");
  ModelView v{index, E::info};
  const P defaults{};
  v.defaults.resize(sizeof(P) / sizeof(double));
  std::memcpy(v.defaults.data(), &defaults, sizeof(P));
  v.keys = key_table<P>();
  int covered = 0;
  for (const KeyInfo& k : v.keys) covered += k.size;
  if (covered != int(v.defaults.size()))
    throw std::logic_error(std::string("registry: the keys of model '") + E::info.name +
                           "' do not cover its Parameters exactly (describe() misses a member)");
  using Model = typename E::template Model<double>;
  v.channels.assign(std::begin(Model::channels), std::end(Model::channels));
  v.check = [](const std::vector<double>& values) {
    P p;
    std::memcpy(&p, values.data(), sizeof(P));
    return E::check(p);
  };
  return v;
}

}  // namespace

bool MethodView::applies_to(int model) const {
  for (bool a : applies.at(model))
    if (a) return true;
  return false;
}

const std::vector<MethodView>& method_views() {
  static const std::vector<MethodView> views = [] {
    std::vector<MethodView> v;
    for_each_type(Methods{}, [&](auto tag, int index) { v.push_back(method_view<tag_type<decltype(tag)>>(index)); });
    return v;
  }();
  return views;
}

const std::vector<ModelView>& model_views() {
  static const std::vector<ModelView> views = [] {
    std::vector<ModelView> v;
    for_each_type(Models{}, [&](auto tag, int index) { v.push_back(model_view<tag_type<decltype(tag)>>(index)); });
    return v;
  }();
  return views;
}

std::vector<IntegratorCase> integrator_cases() {
  std::vector<IntegratorCase> cases;
  for (const MethodView& m : method_views()) {
    const std::string name = m.info.name;
    for (std::size_t v = 0; v < m.variants.size(); ++v)
      cases.push_back({m.has_variants() ? name + "_" + m.variants[v].name : name, m.index, int(v),
                       v > 0 ? "variant = \"" + std::string(m.variants[v].name) + "\"\n" : ""});
    for (const Configuration& c : m.configurations)
      cases.push_back({name + "_" + c.name, m.index, 0, std::string(c.settings) + "\n"});
  }
  return cases;
}

std::string quoted(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
  return list;
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return int(k);
  throw std::invalid_argument("'" + name + "' is not one of " + quoted(names) + did_you_mean_clause(name, names));
}

std::string settings_summary(const std::vector<KeyInfo>& keys, const std::vector<std::vector<double>>& values) {
  std::ostringstream os;
  int newton_tolerance = -1;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const KeyInfo& key = keys[k];
    if (key.name == "newton_tolerance") newton_tolerance = int(k);
    if (key.name.rfind("newton_", 0) == 0) continue;
    os << (os.tellp() > 0 ? ", " : "") << key.name << " ";
    const double v = values.at(k).at(0);
    if (key.kind == KeyInfo::Kind::boolean) os << (v != 0 ? "true" : "false");
    else if (key.kind == KeyInfo::Kind::choice) os << key.choices.at(std::size_t(v));
    else os << v;
  }
  if (newton_tolerance >= 0)
    os << (os.tellp() > 0 ? ", " : "") << "Newton tolerance " << values.at(std::size_t(newton_tolerance)).at(0);
  return os.str();
}

}  // namespace quatstep
