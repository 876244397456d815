// Running a scenario: build the ensemble, advance it in chunks, stream the samples to HDF5, show
// progress, summarise. The library entry point of the `quatstep run` command.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "quatstep/ensemble.hpp"
#include "scenario.hpp"

namespace quatstep {

enum class ProgressMode {
  automatic,  ///< on stderr if it is a terminal and the run is estimated to last more than ~2 s
  always,
  never,
};

struct RunOptions {
  int threads = 0;     ///< OpenMP threads; 0 keeps the OpenMP default. Default: 0.
  std::string output;  ///< output file; empty: the scenario's [output] file. Default: empty.
  ProgressMode progress = ProgressMode::automatic;
};

struct RunResult {
  index_t bodies = 0, steps = 0, samples = 0;
  int threads = 0;
  BackendChoice backend;           ///< what ran the bodies
  double wall_seconds = 0;         ///< setup, integration and output
  index_t newton_iterations = 0;   ///< all bodies, all steps
  std::vector<Status> status;      ///< per body
  std::vector<index_t> failed_step;  ///< per body, −1 if none
  std::string output_file;

  index_t failures() const;
};

/// Run a validated scenario to its end and write the HDF5 file. Throws std::runtime_error (file
/// problems) before any integration where it can; failed bodies are results, not errors.
RunResult run_scenario(const Scenario& scenario, const RunOptions& options);

/// Bodies, steps, wall time, body-steps per second, Newton iterations per step, failures (count and
/// the first few bodies), output file.
void print_summary(std::ostream& out, const Scenario& scenario, const RunResult& result);

}  // namespace quatstep
