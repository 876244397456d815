// "unknown key" with a hint, so that a scenario's typo is fixed from the message alone: the key of
// the same table that a misspelt name most likely meant ("did you mean 'stddev'?"), or, when none is
// close, the keys that table has.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "keys.hpp"

namespace quatstep {

/// Insertions, deletions, substitutions and swaps of neighbouring letters that turn `a` into `b`
/// (the optimal-string-alignment distance: "inertai" is one from "inertia").
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The names of `keys`, in their order: the candidates of a key table, or of a mechanism's numeric
/// keys (name, components).
inline std::vector<std::string> key_names(const std::vector<KeyInfo>& keys) {
  std::vector<std::string> names;
  for (const KeyInfo& k : keys) names.push_back(k.name);
  return names;
}
inline std::vector<std::string> key_names(const std::vector<std::pair<std::string, int>>& keys) {
  std::vector<std::string> names;
  for (const auto& k : keys) names.push_back(k.first);
  return names;
}

/// "did you mean 'x'?" naming the keys of `known` nearest to `name` — within two edits and fewer
/// than half the name's letters, or beginning with the name ("omega" for "omega_body") — or "" when
/// none is that close.
inline std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const auto score = [&](const std::string& key) {  // edits; a key that begins with the name counts as 1
    if (name.size() >= 3 && key.compare(0, name.size(), name) == 0) return std::size_t(1);
    return edit_distance(name, key);
  };
  std::size_t best = 3;
  for (const std::string& key : known)
    if (const std::size_t s = score(key); s < best && 2 * s < name.size()) best = s;
  std::string text;
  for (std::size_t i = 0; i < known.size(); ++i)
    if (best < 3 && score(known[i]) == best && std::find(known.begin(), known.begin() + i, known[i]) == known.begin() + i)
      text += (text.empty() ? "did you mean '" : " or '") + known[i] + "'";
  return text.empty() ? text : text + "?";
}

/// did_you_mean's hint in parentheses after a space, for the end of a message; "" when there is none.
inline std::string did_you_mean_clause(const std::string& name, const std::vector<std::string>& known) {
  const std::string hint = did_you_mean(name, known);
  return hint.empty() ? hint : " (" + hint + ")";
}

/// The problem of a key `name` that a table with the keys `known` does not have: "unknown key (did
/// you mean 'x'?)", else "unknown key (this table's keys: 'a', 'b', …)" for a table of at most 16
/// keys, else "unknown key".
inline std::string unknown_key_problem(const std::string& name, const std::vector<std::string>& known) {
  if (const std::string hint = did_you_mean(name, known); !hint.empty()) return "unknown key (" + hint + ")";
  std::vector<std::string> listed;
  for (const std::string& key : known)
    if (std::find(listed.begin(), listed.end(), key) == listed.end()) listed.push_back(key);
  if (listed.empty() || listed.size() > 16) return "unknown key";
  std::string text;
  for (const std::string& key : listed) text += (text.empty() ? "'" : ", '") + key + "'";
  return "unknown key (this table's keys: " + text + ")";
}

}  // namespace quatstep
