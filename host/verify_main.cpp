// quatstep-verify: the program behind `quatstep verify` (companion.hpp, verify.hpp).
//   quatstep-verify [--out DIR] [--fast]
// Exit status 0 when every published figure agrees with its measurement, 2 when one does not, 1 with
// a message on stderr for any error.
#include <CLI/CLI.hpp>

#include <iostream>

#include "quatstep/config.hpp"
#include "verify.hpp"
#include "verify_options.hpp"

int main(int argc, char** argv) {
  CLI::App app{std::string("quatstep verify: ") + quatstep::verify_description};
  app.set_version_flag("--version", std::string("quatstep ") + quatstep::version);
  quatstep::VerifyOptions options;
  quatstep::add_verify_options(app, options);
  CLI11_PARSE(app, argc, argv);
  try {
    return quatstep::verify_command(options.out, options.fast);
  } catch (const std::exception& e) {
    std::cerr << "quatstep: verify: " << e.what() << "\n";
    return 1;
  }
}
