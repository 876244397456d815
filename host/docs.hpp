// `quatstep docs scenario` and `quatstep docs methods`: documentation printed from the tables the
// parser reads and from the registry.
#pragma once

#include <ostream>

namespace quatstep {

/// The full scenario format (markdown): every table, every key with its default, allowed values and
/// meaning, every model's and method's keys and channels. docs/scenario.md is this output.
void print_scenario_format(std::ostream& out);

/// The integrator table of README.md (markdown): one row per method and per notable configuration.
void print_method_table(std::ostream& out);

}  // namespace quatstep
