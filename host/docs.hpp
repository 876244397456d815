// `quatstep docs scenario` and `quatstep docs methods`: documentation printed from the tables the
// parser reads and from the registry.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "keys.hpp"

namespace quatstep {

/// The full scenario format (markdown): every table, every key with its default, allowed values and
/// meaning, every model's and method's keys and channels. docs/scenario.md is this output.
void print_scenario_format(std::ostream& out);

/// A markdown table of `keys`: key, default, allowed values, meaning (the tables of the scenario format).
void print_key_table(std::ostream& out, const std::vector<KeyInfo>& keys);
/// `text` for a Markdown table cell: every '|' escaped.
std::string cell(const std::string& text);

/// The mechanism part of the scenario format (host/mechanism_scenario.cpp), which print_scenario_format
/// ends with.
void print_mechanism_format(std::ostream& out);

/// The integrator table of README.md (markdown): one row per method and per notable configuration.
void print_method_table(std::ostream& out);

}  // namespace quatstep
