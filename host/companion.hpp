// quatstep's companion programs: subcommands whose code is compiled into a program of their own,
// beside the `quatstep` executable (build/quatstep-verify next to build/quatstep; bin/ when
// installed), so that building `quatstep` alone does not compile them. `quatstep verify` is one:
// its studies instantiate a dozen integrators that `quatstep run` reaches through the ensembles.
#pragma once

#include <string>
#include <vector>

namespace quatstep {

/// Replaces this process by the companion program `name` (found in the executable's folder) with
/// `args`, so that its output and exit status are the command's own. Throws std::runtime_error when
/// the program is not there (saying how to build it) or cannot be started.
[[noreturn]] void exec_companion(const std::string& name, const std::vector<std::string>& args);

}  // namespace quatstep
