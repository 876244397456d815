// The command line of `quatstep verify` (main.cpp) and of quatstep-verify, the program it runs
// (verify_main.cpp, companion.hpp): declared once, so that both say and accept the same.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace quatstep {

inline constexpr const char* verify_description = "Rerun the papers' benchmark studies: published vs measured figures";

struct VerifyOptions {
  std::string out = "quatstep_verify";
  bool fast = false;

  /// The options on quatstep-verify's command line.
  std::vector<std::string> arguments() const {
    std::vector<std::string> args = {"--out", out};
    if (fast) args.push_back("--fast");
    return args;
  }
};

inline void add_verify_options(CLI::App& app, VerifyOptions& o) {
  app.add_option("--out", o.out, "Folder for verify.md, verify.csv, the curves and the plots")->capture_default_str();
  app.add_flag("--fast", o.fast, "Fewer steps in the heavy-top convergence study and a coarser four-bar reference");
}

}  // namespace quatstep
