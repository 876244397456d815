// The scenario parser's reading machinery (host/scenario.cpp), for the other sections that a
// scenario file may hold (the [mechanism] of host/mechanism_scenario.cpp): a TOML text parsed with
// its syntax errors reported at file:line:column, a table read against a key table (keys.hpp) with
// unknown keys rejected and every problem a ScenarioError naming the file and the key, and [time].
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "keys.hpp"
#include "scenario.hpp"

namespace quatstep {

/// The values of a key table read from TOML: per key the numbers (booleans 0/1, choice indices) or
/// texts, and whether the file gave it.
struct KeyValues {
  std::vector<std::vector<double>> numbers;
  std::vector<std::vector<std::string>> texts;
  std::vector<bool> given;
};

/// The text of the scenario file `path` (a ScenarioError "path: cannot open the scenario file").
std::string read_scenario_text(const std::string& path);

/// `text` as TOML (a ScenarioError "source:line:column: TOML syntax error: …" if it is not).
toml::table parse_toml(const std::string& text, const std::string& source);

/// Every entry of `t` read against `keys` (shown in messages as "shown.name"; entries in `skip` are
/// the caller's): defaults, then the file's values, required keys demanded, anything else "unknown key".
KeyValues read_key_table(const std::string& source, const toml::table& t, const std::string& shown,
                         const std::vector<KeyInfo>& keys, std::initializer_list<std::string_view> skip = {});

/// A describe()d spec struct read from `t` (read_key_table with key_table<Spec>()).
template <class Spec>
Spec read_spec_table(const std::string& source, const toml::table& t, const std::string& shown,
                     std::initializer_list<std::string_view> skip = {}) {
  Spec spec{};
  const KeyValues v = read_key_table(source, t, shown, key_table<Spec>(), skip);
  KeyAssigner assign(v.numbers, v.texts);
  spec.describe(assign);
  return spec;
}

/// An [output.statistics] table `t` (its observables bound to `layout`'s channels; `standard`: the
/// observables it may name alone, the default set those of them that bind), with the messages of
/// the single-body format.
statistics::StatisticsSpec read_statistics_table(const std::string& source, const toml::table& t,
                                                 const statistics::ChannelLayout& layout,
                                                 const std::vector<statistics::Observable>& standard);

/// What the [[ensemble.random]] and [[ensemble.design]] tables draw into: a single-body scenario's
/// model keys or a mechanism's numeric keys, and the plan they fill.
struct DrawTarget {
  /// The key named `name`, or a ScenarioError at key `shown` saying why there is none.
  std::function<const KeyInfo&(const std::string& name, const std::string& shown)> key;
  /// A key's value in the file (the default mean of a rotation cone).
  std::function<std::vector<double>(const KeyInfo&)> value;
  /// Whether a key holds principal moments of inertia: its laws are kept physical (invalid = …) and
  /// body_shape draws it.
  std::function<bool(const KeyInfo&)> is_inertia;
  std::string inertia_keys;  ///< those keys in messages ("model.inertia")
  index_t declared_size;     ///< the ensemble's size (a Latin hypercube's strata)
  sampling::SamplingPlan& plan;
  bool& redraws;  ///< set when a law draws invalid bodies again
};

/// The [[ensemble.random]] and [[ensemble.design]] tables of the [ensemble] table `ensemble` into
/// target.plan: every law read and checked, no key drawn twice, the plan validated; a ScenarioError
/// naming the file and the table's key otherwise.
void read_draws(const std::string& source, const toml::table& ensemble, const DrawTarget& target);

/// [output] trajectories and the keys that go with each choice (trajectory_bodies only with "list",
/// trajectory_every with "every", max_trajectory_bytes with "auto"), as `out` read them from `t`:
/// the listed members of an ensemble of `size` ("<member> index" in messages) checked to be
/// integers in range, each once, and returned sorted (empty for the other choices).
std::vector<index_t> read_trajectory_list(const std::string& source, const toml::table& t, const OutputSpec& out,
                                         index_t size, const std::string& member);

/// [output] channels as `out` read them from `t`, of a sample's `channels` (of `what`, in messages):
/// the listed names in sample order, each a channel and listed once; without the key every channel
/// not marked optional.
std::vector<std::string> read_written_channels(const std::string& source, const toml::table& t, const OutputSpec& out,
                                               const std::vector<Channel>& channels, const std::string& what);

/// The integrator a [time] table is read for: adaptive = true needs one that takes adaptive steps.
struct StepControlMethod {
  std::string name;
  bool adaptive = false;                      ///< takes adaptive steps (takes_adaptive_steps)
  std::vector<std::string> adaptive_methods;  ///< those that do, for the message
};

/// Why adaptive steps cannot run with these step-control values and `method` (in method_views()): a
/// method that takes fixed steps ("time.adaptive") or a value AdaptiveSettings::validate() refuses
/// ("time.<key>"); none when they can.
std::optional<validation::Problem> adaptive_steps_problem(const AdaptiveSettings<double>& control, int method);

/// [time] of `root` with its checks (t_end > t_start, an integer number of steps; with adaptive =
/// true an adaptive `method` and valid step-control keys); `t_end` replaces the file's.
TimeSpec read_time_table(const std::string& source, const toml::table& root, std::optional<double> t_end,
                         const StepControlMethod& method);

}  // namespace quatstep
