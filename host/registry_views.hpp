// The registry (include/quatstep/registry.hpp) as runtime tables: what the scenario parser, the
// output and `quatstep docs` need to know of each method and model — names, settings and parameter
// keys with their defaults and checks, variants, channels, which method runs on which model —
// derived from the type lists once, at first use. The templates themselves are reached through
// with_registered_integrator (registry_dispatch.hpp) with the indices these tables give.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "keys.hpp"
#include "quatstep/channels.hpp"
#include "quatstep/models/validation.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

struct MethodView {
  int index;  ///< in Methods
  MethodInfo info;
  std::vector<VariantInfo> variants;  ///< {"", ""} alone for a method without a compile-time choice
  std::vector<Configuration> configurations;
  std::vector<KeyInfo> keys;          ///< settings keys, defaults in double precision
  std::vector<std::vector<double>> float_defaults;  ///< the defaults in float precision, per key
  std::vector<Channel> channels;      ///< the integrator's own (after the model's in a sample)
  std::vector<std::vector<bool>> applies;  ///< [model][variant]: whether the pair is instantiated
  /// Values of `keys` (in double) through the settings struct's ranges and own rules: keys::KeyError.
  void (*check_settings)(const std::vector<std::vector<double>>& values);
  /// Takes per-body adaptive steps, [time] adaptive = true (takes_adaptive_steps: the HHT family).
  bool adaptive = false;

  bool has_variants() const { return variants.size() > 1; }
  bool applies_to(int model) const;  ///< in any variant
};

struct ModelView {
  int index;  ///< in Models
  ModelInfo info;
  std::vector<KeyInfo> keys;     ///< per-body parameter keys, each with its offset in `defaults`
  std::vector<double> defaults;  ///< the flat parameters of a default body
  std::vector<Channel> channels;
  /// The rules across keys of one body's flat parameters (the entry's check()).
  std::optional<validation::Problem> (*check)(const std::vector<double>& values);
};

const std::vector<MethodView>& method_views();
const std::vector<ModelView>& model_views();

/// An integrator the registry builds: a method in one of its variants with its default settings,
/// or one of its notable configurations — what the CPU/GPU agreement tests and the GPU benchmark walk.
struct IntegratorCase {
  std::string name;  ///< "modified_hht", "livens_em_full", "modified_hht_shift"
  int method;        ///< in method_views()
  int variant;       ///< in the method's variants
  std::string keys;  ///< [integrator] lines beyond `method`: the variant or the configuration
};
/// Every method × variant, then every method's configurations.
std::vector<IntegratorCase> integrator_cases();

/// The names of a list of views (methods, models) or variants.
template <class View>
std::vector<std::string> names_of(const std::vector<View>& views) {
  std::vector<std::string> names;
  for (const View& v : views) {
    if constexpr (std::is_same_v<View, VariantInfo>) names.push_back(v.name);
    else names.push_back(v.info.name);
  }
  return names;
}

/// The one name → index lookup: the position of `name` in `names`, or std::invalid_argument with
/// "'x' is not one of "a", "b", "c"".
int index_of(const std::vector<std::string>& names, const std::string& name);
/// "\"a\", \"b\", \"c\"".
std::string quoted(const std::vector<std::string>& names);

}  // namespace quatstep
