// quatstep-verify: the program behind `quatstep verify` (companion.hpp, verify.hpp).
//   quatstep-verify [--out DIR] [--fast]
// Exit status 0 when every published figure agrees with its measurement, 2 when one does not, 1 with
// a message on stderr for any error.
#include <CLI/CLI.hpp>

#include <iostream>

#include "quatstep/config.hpp"
#include "verify.hpp"

int main(int argc, char** argv) {
  CLI::App app{"quatstep verify: rerun the papers' benchmark studies, published vs measured figures"};
  app.set_version_flag("--version", std::string("quatstep ") + quatstep::version);
  std::string out = "quatstep_verify";
  bool fast = false;
  app.add_option("--out", out, "Folder for verify.md, verify.csv, the curves and the plots")->capture_default_str();
  app.add_flag("--fast", fast, "Fewer steps in the convergence study (seconds instead of a minute)");
  CLI11_PARSE(app, argc, argv);
  try {
    return quatstep::verify_command(out, fast);
  } catch (const std::exception& e) {
    std::cerr << "quatstep: verify: " << e.what() << "\n";
    return 1;
  }
}
