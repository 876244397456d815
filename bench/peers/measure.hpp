// The measurement every peer benchmark (CPU and GPU) shares. One benchmark iteration = one run of
// the ensemble from t = 0 to t_end in `steps` steps, split into `checkpoints` equal timed chunks;
// between chunks (untimed) the checked bodies' invariants are compared with their initial values,
// at the end their state with the reference (accuracy.hpp). The iteration time reported
// (UseManualTime) is the stepping alone, as the backend's timer measured it.
// Runner: reset() (back to t = 0), advance(steps), state(i) → RotationState<double> (NaN if failed).
// Timer: timer(callable) runs it and returns Elapsed (wall from the backend's clock; CPU seconds of
// the process where the backend measures them, else 0).
// Counters: body_steps/s (wall), body_steps/cpu_s (CPU backends), h, err_q [rad], err_w,
// drift_E, drift_L (accuracy.hpp); a run with a non-finite figure is reported as an error.
#pragma once

#include <benchmark/benchmark.h>

#include "accuracy.hpp"

namespace quatstep::peers {

struct Elapsed {
  double wall = 0, cpu = 0;
  Elapsed& operator+=(const Elapsed& e) {
    wall += e.wall;
    cpu += e.cpu;
    return *this;
  }
};

template <class Runner, class Timer>
void measure_peer(benchmark::State& state, Runner& runner, const Reference& ref, index_t bodies, index_t steps,
                  int checkpoints, Timer timer) {
  const index_t checked = static_cast<index_t>(ref.bodies.size());
  Accuracy accuracy;
  Elapsed total;
  for (auto _ : state) {
    runner.reset();
    accuracy = {};
    Elapsed run;
    for (int c = 0; c < checkpoints; ++c) {
      run += timer([&] { runner.advance(steps / checkpoints); });
      if (c + 1 < checkpoints)
        for (index_t k = 0; k < checked; ++k) accuracy.add_checkpoint(ref, k, runner.state(ref.bodies[k]));
    }
    for (index_t k = 0; k < checked; ++k) accuracy.add_final(ref, k, runner.state(ref.bodies[k]));
    state.SetIterationTime(run.wall);
    total += run;
  }
  const double body_steps = double(bodies) * double(steps) * double(state.iterations());
  state.counters["body_steps/s"] = body_steps / total.wall;
  if (total.cpu > 0) state.counters["body_steps/cpu_s"] = body_steps / total.cpu;
  state.counters["h"] = ref.t_end / double(steps);
  state.counters["err_q"] = accuracy.orientation_error;
  state.counters["err_w"] = accuracy.omega_error;
  state.counters["drift_E"] = accuracy.energy_drift;
  state.counters["drift_L"] = accuracy.momentum_drift;
  if (!accuracy.finite()) state.SkipWithError("a body failed or diverged: the figures would not measure stepping");
}

}  // namespace quatstep::peers
