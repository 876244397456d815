// The scenario parser's reading machinery (host/scenario.cpp), for the other sections that a
// scenario file may hold (the [mechanism] of host/mechanism_scenario.cpp): a TOML text parsed with
// its syntax errors reported at file:line:column, a table read against a key table (keys.hpp) with
// unknown keys rejected and every problem a ScenarioError naming the file and the key, and [time].
#pragma once

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

/// The integrator a [time] table is read for: adaptive = true needs one that takes adaptive steps.
struct StepControlMethod {
  std::string name;
  bool adaptive = false;                      ///< takes adaptive steps (takes_adaptive_steps)
  std::vector<std::string> adaptive_methods;  ///< those that do, for the message
};

/// [time] of `root` with its checks (t_end > t_start, an integer number of steps; with adaptive =
/// true an adaptive `method` and valid step-control keys); `t_end` replaces the file's.
TimeSpec read_time_table(const std::string& source, const toml::table& root, std::optional<double> t_end,
                         const StepControlMethod& method);

}  // namespace quatstep
