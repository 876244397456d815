// quatstep — command-line tool.
//   quatstep run SCENARIO [--backend auto|cuda|cpu] [--precision double|float] [--threads N]
//                         [--output FILE] [--quiet] [--progress] [--t-end T] [--stride N] [--bodies I,J,…]
//   quatstep run --resume FILE [--backend …] [--threads N] [--quiet] [--progress]
//                                     continue an interrupted run in its own file
//   quatstep run SCENARIO --shard I/K [options as above]
//                                     run shard I of K (contiguous bodies, or mechanisms) into a shard file
//   quatstep merge OUT.h5 SHARD.h5 …  join shard files into the single run's file (merge.hpp)
//   mpirun -np K quatstep run SCENARIO …  K ranks, one shard each, one result file (mpi_run.hpp; a
//                                     build with MPI, QUATSTEP_MPI)
//   quatstep plot RESULT.h5 [--out DIR] [--bodies I,J,…] [--observables A,B,…]
//                                     PNGs of a result file (python/quatstep/plot.py)
//   quatstep verify [--out DIR] [--fast]  rerun the papers' benchmark studies: a table of published
//                                     vs measured figures and plots (exit status 2 if one disagrees);
//                                     runs the program quatstep-verify beside this one (verify.hpp)
//   quatstep docs scenario|methods    the scenario format / the integrator table, from the tables the
//                                     parser reads
//   quatstep --version
// Exit status 0 when the run (or merge) completes (failed bodies are reported in the summary and the file),
// 3 when SIGINT or SIGTERM stopped it (after writing the chunk in flight and a checkpoint: the file
// is valid, with complete = 0; --resume continues it), 4 when a merge wrote a file with bodies missing
// (a shard absent or incomplete; the message and the file name them), 1 with a message on stderr for
// any error.
#include <CLI/CLI.hpp>

#include <signal.h>
#include <time.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "companion.hpp"
#include "docs.hpp"
#include "hdf5_output.hpp"
#include "mechanism_run.hpp"
#include "merge.hpp"
#ifdef QUATSTEP_WITH_MPI
#include "mpi_run.hpp"
#endif
#include "shard.hpp"
#include "verify_options.hpp"
#include "plot_command.hpp"
#include "quatstep/config.hpp"
#include "run.hpp"
#include "scenario.hpp"

namespace {

constexpr int exit_interrupted = 3;
constexpr int exit_bodies_missing = 4;
volatile std::sig_atomic_t interrupted = 0;
volatile std::sig_atomic_t first_signal_second = 0;  // CLOCK_MONOTONIC, whole seconds

/// Whole seconds of CLOCK_MONOTONIC (clock_gettime is async-signal-safe).
std::sig_atomic_t monotonic_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return std::sig_atomic_t(now.tv_sec);
}

/// SIGINT, SIGTERM: ask the run to stop after the chunk in flight. A second signal at least two
/// seconds later acts as usual (ends the process); one sooner is the same request delivered twice:
/// `timeout -s INT` and batch schedulers signal the process and then its group, and a handler that
/// reset itself on the first let the copy kill the run before it closed its file.
extern "C" void request_stop(int signal_number) {
  const std::sig_atomic_t now = monotonic_seconds();
  if (!interrupted) {
    interrupted = 1;
    first_signal_second = now;
  } else if (now - first_signal_second >= 2) {
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
}

/// A count option's check (--stride, --threads): a whole number ≥ 1, said so when it is not
/// (CLI::PositiveNumber's message named a range up to the largest double).
const CLI::Validator whole_number_at_least_one(
    [](std::string& text) {
      std::size_t used = 0;
      long long value = 0;
      try {
        value = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      const bool whole = used == text.size() && used > 0 && value >= 1;
      return whole ? std::string() : "'" + text + "': must be a whole number >= 1";
    },
    "N >= 1");

void stop_on_signals() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  action.sa_flags = 0;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

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
  std::string resume;
  CLI::Option* scenario_option = run->add_option("scenario", scenario_path, "Scenario file (TOML)");
  CLI::Option* resume_option =
      run->add_option("--resume", resume, "Continue the interrupted run of this result file (exit status 3 marked it)");
  scenario_option->excludes(resume_option);
  run->add_option("-j,--threads", options.threads, "OpenMP threads (default: OpenMP's choice)")
      ->check(whole_number_at_least_one);
  run->add_option("-o,--output", options.output, "Output file (overrides [output] file)");
  run->add_flag("-q,--quiet", quiet, "No progress bar and no summary");
  run->add_flag("--progress", progress, "Show the progress bar even when stderr is not a terminal");
  CLI::Option* t_end = run->add_option("--t-end", overrides.t_end, "Replace [time] t_end (e.g. for a short trial run)");
  CLI::Option* stride_option =
      run->add_option("--stride", overrides.stride, "Replace [output] stride (it must divide the steps: e.g. with --t-end)")
          ->check(whole_number_at_least_one);
  run->add_option("--backend", backend, "Replace [run] backend: auto (GPU if usable), cuda, cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  CLI::Option* precision_option = run->add_option("--precision", precision, "Replace [run] precision: double, float")
      ->check(CLI::IsMember({"double", "float"}));
  CLI::Option* bodies = run->add_option("--bodies", overrides.bodies,
                  "Run these bodies of the ensemble alone (indices, comma-separated): the same values as their rows of "
                  "the full run, each one's trajectory written whatever [output] trajectories says")
      ->delimiter(',')
      ->check([](const std::string& index) { return index.empty() ? std::string("an empty body index") : std::string(); });
  std::string shard;
  CLI::Option* shard_option = run->add_option("--shard", shard,
                  "Run shard I/K of the ensemble (bodies, or mechanisms, floor(I*N/K) .. floor((I+1)*N/K) - 1) into a shard file for "
                  "`quatstep merge` (default file: [output] file with .shard-I-of-K; --output names the shard file itself)");
  shard_option->excludes(bodies);
  CLI::Option* output_option = run->get_option("--output");
  for (CLI::Option* o : {t_end, stride_option, precision_option, bodies, output_option, shard_option})
    resume_option->excludes(o);

  CLI::App* merge = app.add_subcommand("merge", "Join shard files (run --shard) into the single run's result file");
  std::string merge_output;
  std::vector<std::string> merge_inputs;
  merge->add_option("output", merge_output, "The result file to write")->required();
  merge->add_option("shards", merge_inputs, "The shard files")->required();

  CLI::App* plot = app.add_subcommand("plot", "PNG plots of a result file (python3 with matplotlib, h5py, numpy)");
  std::string plot_file, plot_out, plot_bodies, plot_observables;
  plot->add_option("result", plot_file, "HDF5 result file")->required();
  plot->add_option("-o,--out", plot_out, "Folder for the PNGs (default: RESULT without .h5, plus _plots)");
  plot->add_option("--bodies", plot_bodies,
                   "Bodies whose trajectories are drawn, ensemble indices, e.g. 17,4242 (default: the first three "
                   "with trajectories)");
  plot->add_option("--observables", plot_observables, "Comma-separated observables to plot (default: all)");

  CLI::App* verify = app.add_subcommand("verify", quatstep::verify_description);
  quatstep::VerifyOptions verify_options;
  quatstep::add_verify_options(*verify, verify_options);

  CLI::App* docs = app.add_subcommand("docs", "Print documentation generated from the parser's own tables");
  std::string topic;
  docs->add_option("topic", topic, "scenario: the full scenario format; methods: the integrator table")
      ->required()
      ->check(CLI::IsMember({"scenario", "methods"}));

  if (argc > 1 && argv[1][0] != '-') {  // CLI11 would only say that a subcommand is required
    std::string commands;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "quatstep: unknown command '" << argv[1] << "' (the commands: " << commands << "; --help)\n";
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help, --version: 0; a usage error: 1, as every other error
  }
  if (docs->parsed()) {
    if (topic == "scenario") quatstep::print_scenario_format(std::cout);
    else quatstep::print_method_table(std::cout);
    return 0;
  }
  if (plot->parsed() || verify->parsed()) {
    try {
      if (verify->parsed()) quatstep::exec_companion("quatstep-verify", verify_options.arguments());
      std::vector<std::string> args = {plot_file};
      if (!plot_out.empty()) args.insert(args.end(), {"--out", plot_out});
      if (!plot_bodies.empty()) args.insert(args.end(), {"--bodies", plot_bodies});
      if (!plot_observables.empty()) args.insert(args.end(), {"--observables", plot_observables});
      return quatstep::run_plot_script(args);
    } catch (const std::exception& e) {
      std::cerr << "quatstep: error: " << e.what() << "\n";
      return 1;
    }
  }
  if (merge->parsed()) {
    try {
      const quatstep::MergeResult result = quatstep::merge_shards(merge_output, merge_inputs);
      quatstep::print_merge_summary(result.missing.empty() ? std::cout : std::cerr, merge_output, result);
      return result.missing.empty() ? 0 : exit_bodies_missing;
    } catch (const std::exception& e) {
      std::cerr << "quatstep: merge: " << e.what() << "\n";
      return 1;
    }
  }
  try {
    if (scenario_path.empty() && resume.empty()) throw std::invalid_argument("run: a scenario file or --resume FILE is needed");
    quatstep::simd_lanes_available();  // a bad QUATSTEP_SIMD is refused before any file is opened
    if (!backend.empty()) overrides.backend = quatstep::parse_backend(backend);
    if (!precision.empty()) overrides.precision = quatstep::parse_precision(precision);
    options.progress = quiet ? quatstep::ProgressMode::never
                             : progress ? quatstep::ProgressMode::always : quatstep::ProgressMode::automatic;
    options.interrupt = &interrupted;
    if (!resume.empty()) options.output = resume, options.resume = true;
    const auto stopped = [](quatstep::index_t step, quatstep::index_t steps, const std::string& file, quatstep::index_t samples) {
      std::cerr << "quatstep: interrupted after step " << step << " of " << steps << ": " << file << " holds samples 0 .. "
                << samples - 1 << " and a checkpoint; continue with: quatstep run --resume " << file << "\n";
      return exit_interrupted;
    };
    const auto shard_of = [&](quatstep::index_t size) {  // --shard I/K of an ensemble of `size`
#ifdef QUATSTEP_WITH_MPI
      if (quatstep::launched_by_mpi()) throw std::invalid_argument("--shard under mpirun: the ranks are the shards (drop --shard)");
#endif
      return quatstep::parse_shard(shard, size);
    };
    // The output may be any file but the scenario itself (an HDF5 file written over its own TOML).
    const auto refuse_scenario_as_output = [&](const std::string& output) {
      std::error_code ec;
      if (!scenario_path.empty() && std::filesystem::equivalent(output, scenario_path, ec))
        throw std::invalid_argument("output " + output + " is the scenario file " + scenario_path +
                                    ": the run would write over it (choose another --output or [output] file)");
    };
    const bool mechanism_run = resume.empty() ? quatstep::is_mechanism_scenario(scenario_path)
                                              : quatstep::is_mechanism_text(quatstep::read_stored_run(resume).scenario, resume);
    if (mechanism_run) {  // host/mechanism_run.hpp
      quatstep::MechanismScenario mechanisms =
          resume.empty() ? quatstep::load_mechanism_scenario(scenario_path, overrides)
                         : quatstep::load_interrupted_mechanism_scenario(resume, overrides.backend);
      if (!shard.empty()) {
        const quatstep::ShardRange range = shard_of(mechanisms.ensemble_size);
        if (options.output.empty()) options.output = quatstep::shard_file_name(mechanisms.output_file, range);
        mechanisms = quatstep::shard_scenario(mechanisms, range);
      }
      refuse_scenario_as_output(options.output.empty() ? mechanisms.output_file : options.output);
      stop_on_signals();
#ifdef QUATSTEP_WITH_MPI
      if (quatstep::launched_by_mpi() && shard.empty() && resume.empty())  // mpirun -np K: K shards, one file
        return quatstep::run_mpi_ranks(mechanisms, options, quiet);
#endif
      const quatstep::MechanismRunResult result = quatstep::run_mechanism_scenario(mechanisms, options);
      if (!quiet) quatstep::print_mechanism_summary(std::cout, mechanisms, result);
      return result.interrupted ? stopped(result.steps_done, result.steps, result.output_file, result.samples_written) : 0;
    }
    quatstep::Scenario scenario = resume.empty() ? quatstep::load_scenario(scenario_path, overrides)
                                                 : quatstep::load_interrupted_scenario(resume, overrides.backend);
    for (const std::string& warning : quatstep::scenario_warnings(scenario)) std::cerr << "quatstep: warning: " << warning << "\n";
    if (!shard.empty()) {
      const quatstep::ShardRange range = shard_of(scenario.ensemble_size);
      if (options.output.empty()) options.output = quatstep::shard_file_name(scenario.output_file, range);
      scenario = quatstep::shard_scenario(scenario, range);
    }
    refuse_scenario_as_output(options.output.empty() ? scenario.output_file : options.output);
    stop_on_signals();
#ifdef QUATSTEP_WITH_MPI
    if (quatstep::launched_by_mpi() && shard.empty() && resume.empty())  // mpirun -np K: K shards, one file
      return quatstep::run_mpi_ranks(scenario, options, quiet);
#endif
    const quatstep::RunResult result = quatstep::run_scenario(scenario, options);
    if (!quiet) quatstep::print_summary(std::cout, scenario, result);
    return result.interrupted ? stopped(result.steps_done, result.steps, result.output_file, result.samples_written) : 0;
  } catch (const std::exception& e) {
    std::cerr << "quatstep: error: " << e.what() << "\n";
    return 1;
  }
}
