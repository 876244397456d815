// quatstep — command-line tool.
//   quatstep run SCENARIO [--backend auto|cuda|cpu] [--precision double|float] [--threads N]
//                         [--output FILE] [--quiet] [--progress] [--t-end T] [--bodies I,J,…]
//   quatstep docs scenario|methods    the scenario format / the integrator table, from the tables the
//                                     parser reads
//   quatstep --version
// Exit status 0 when the run completes (failed bodies are reported in the summary and the file),
// non-zero with a message on stderr for any error.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>

#include "docs.hpp"
#include "quatstep/config.hpp"
#include "run.hpp"
#include "scenario.hpp"

int main(int argc, char** argv) {
  CLI::App app{"quatstep: batched rigid-body rotation integrators"};
  app.set_version_flag("--version", std::string("quatstep ") + quatstep::version);
  app.require_subcommand(1);

  CLI::App* run = app.add_subcommand("run", "Integrate the ensemble of a TOML scenario and write an HDF5 file");
  std::string scenario_path;
  quatstep::RunOptions options;
  bool quiet = false, progress = false;
  quatstep::ScenarioOverrides overrides;
  std::string backend, precision;
  run->add_option("scenario", scenario_path, "Scenario file (TOML)")->required();
  run->add_option("--threads", options.threads, "OpenMP threads (default: OpenMP's choice)")
      ->check(CLI::PositiveNumber);
  run->add_option("--output", options.output, "Output file (overrides [output] file)");
  run->add_flag("--quiet", quiet, "No progress bar and no summary");
  run->add_flag("--progress", progress, "Show the progress bar even when stderr is not a terminal");
  run->add_option("--t-end", overrides.t_end, "Replace [time] t_end (e.g. for a short trial run)");
  run->add_option("--backend", backend, "Replace [run] backend: auto (GPU if usable), cuda, cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  run->add_option("--precision", precision, "Replace [run] precision: double, float")
      ->check(CLI::IsMember({"double", "float"}));
  run->add_option("--bodies", overrides.bodies,
                  "Run these bodies of the ensemble alone (indices, comma-separated): the same values as their rows of "
                  "the full run")
      ->delimiter(',');

  CLI::App* docs = app.add_subcommand("docs", "Print documentation generated from the parser's own tables");
  std::string topic;
  docs->add_option("topic", topic, "scenario: the full scenario format; methods: the integrator table")
      ->required()
      ->check(CLI::IsMember({"scenario", "methods"}));

  CLI11_PARSE(app, argc, argv);
  if (docs->parsed()) {
    if (topic == "scenario") quatstep::print_scenario_format(std::cout);
    else quatstep::print_method_table(std::cout);
    return 0;
  }
  try {
    if (!backend.empty()) overrides.backend = quatstep::parse_backend(backend);
    if (!precision.empty()) overrides.precision = quatstep::parse_precision(precision);
    const quatstep::Scenario scenario = quatstep::load_scenario(scenario_path, overrides);
    options.progress = quiet ? quatstep::ProgressMode::never
                             : progress ? quatstep::ProgressMode::always : quatstep::ProgressMode::automatic;
    const quatstep::RunResult result = quatstep::run_scenario(scenario, options);
    if (!quiet) quatstep::print_summary(std::cout, scenario, result);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "quatstep: error: " << e.what() << "\n";
    return 1;
  }
}
