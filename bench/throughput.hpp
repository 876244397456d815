// The timing loop every throughput benchmark shares. One benchmark iteration = steps_per_iteration
// steps of every body; initialisation is outside the timed region. Counters:
//   body_steps/s          bodies·steps per wall-clock second (all threads together)
//   body_steps/s/thread   the same divided by the thread count
//   body_steps/cpu_s      bodies·steps per CPU-second of the process (all threads): the per-core
//                         rate, much less disturbed than wall-clock time on a shared machine
//   newton_it/step        Newton iterations per body-step
//   failed                bodies whose status is not ok at the end (must be 0 for a valid figure)
#pragma once

#include <benchmark/benchmark.h>

#include <omp.h>

#include <time.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <string>

#include "quatstep/ensemble.hpp"

namespace quatstep::bench {

inline constexpr index_t steps_per_iteration = 100;
/// The ensemble restarts from t = 0 (untimed) after this many steps, so that every run averages
/// the same window t ∈ [0, 0.1 s] whatever the iteration count the library picks.
inline constexpr index_t steps_per_window = 1000;

/// Time advance(steps_per_iteration) on `ensemble` (any type with steps_done(), status() and
/// newton_iterations() as CpuEnsemble); initialize() restarts it from t = 0.
/// CPU time of the whole process (every thread), in seconds.
inline double process_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

template <class Ensemble, class Initialize, class Advance>
void measure_throughput(benchmark::State& state, const Ensemble& ensemble, int threads, Initialize initialize,
                        Advance advance) {
  initialize();
  const auto iterations_so_far = [&] {
    const auto& it = ensemble.newton_iterations();
    return std::accumulate(it.begin(), it.end(), index_t(0));
  };
  index_t newton = 0;
  double cpu_seconds = 0;
  for (auto _ : state) {
    if (ensemble.steps_done() == steps_per_window) {
      state.PauseTiming();
      newton += iterations_so_far();
      initialize();
      state.ResumeTiming();
    }
    const double start = process_cpu_seconds();
    advance(steps_per_iteration);
    cpu_seconds += process_cpu_seconds() - start;
  }
  newton += iterations_so_far();

  const auto& status = ensemble.status();
  const auto failed = std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
  const double body_steps = double(status.size()) * double(steps_per_iteration) * double(state.iterations());
  state.counters["body_steps/s"] = benchmark::Counter(body_steps, benchmark::Counter::kIsRate);
  state.counters["body_steps/s/thread"] = benchmark::Counter(body_steps / threads, benchmark::Counter::kIsRate);
  state.counters["body_steps/cpu_s"] = body_steps / cpu_seconds;
  state.counters["newton_it/step"] = double(newton) / body_steps;
  state.counters["failed"] = double(failed);
  if (failed > 0) state.SkipWithError("some bodies failed: the figure would not measure stepping");
}

/// CPU model, compiler and OpenMP threads in the JSON context, for json_to_table.py.
inline void add_machine_context() {
  std::string model = "unknown";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
#if defined(__clang__)
  const char* compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  const char* compiler = "g++ " __VERSION__;
#else
  const char* compiler = "unknown";
#endif
  benchmark::AddCustomContext("cpu_model", model);
  benchmark::AddCustomContext("compiler", compiler);
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext("steps_per_iteration", std::to_string(steps_per_iteration));
}

}  // namespace quatstep::bench
