// The C++ half of bench/python_overhead.py (figures in bench/python.md): BodyEnsemble::advance(100)
// on 10⁴ heavy tops (modified HHT, the heavy top of Sherif §10.1 with spins spread over the bodies),
// the very call quatstep.Ensemble.advance makes from Python. Prints the median and the minimum of
// `repetitions` calls in seconds, and the median of 1000 calls of advance(0) (the fixed cost of a
// call), as JSON.
//
//   build/bench/bench_python_overhead [repetitions] [bodies] [steps]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "session.hpp"

int main(int argc, char** argv) {
  using namespace quatstep;
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : 30;
  const index_t bodies = argc > 2 ? std::atol(argv[2]) : 10000;
  const index_t steps = argc > 3 ? std::atol(argv[3]) : 100;

  const ModelView& top = model_views().at(index_of(names_of(model_views()), "heavy_top"));
  BodyEnsembleSpec spec;
  spec.model = "heavy_top";
  spec.method = "modified_hht";
  spec.dt = 1e-4;
  spec.bodies = bodies;
  const std::vector<std::pair<const char*, std::vector<double>>> values = {
      {"model.inertia", {0.234375, 0.46875, 0.234375}}, {"model.mass", {15.0}}, {"model.center_of_mass", {0, 1, 0}},
      {"model.gravity", {0, 0, -9.81}}, {"initial.omega_body", {0, 150, -4.61538}}};
  for (index_t i = 0; i < bodies; ++i) {
    std::vector<double> row = top.defaults;
    for (const auto& [key, v] : values) std::copy(v.begin(), v.end(), row.begin() + top.keys[find_key(top.keys, key)].offset);
    row[top.keys[find_key(top.keys, "initial.omega_body")].offset + 1] = 100.0 + 100.0 * double(i) / double(bodies);
    spec.parameters.insert(spec.parameters.end(), row.begin(), row.end());
  }
  for (const auto& [key, v] : values) spec.given.push_back(key);

  const auto ensemble = make_body_ensemble(spec);
  const SampleView<double> none{nullptr, bodies, 0, 0, 1, 0};
  ensemble->advance(steps, none);  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ensemble->advance(steps, none);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  // The fixed cost of a call: advance(0) (an OpenMP loop over the bodies that takes no step).
  std::vector<double> call;
  for (int r = 0; r < 1000; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ensemble->advance(0, none);
    call.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(call.begin(), call.end());
  std::printf("{\"bodies\": %lld, \"steps\": %lld, \"repetitions\": %d, \"median_s\": %.6e, \"min_s\": %.6e, "
              "\"call_median_s\": %.6e}\n",
              static_cast<long long>(bodies), static_cast<long long>(steps), repetitions, seconds[seconds.size() / 2],
              seconds.front(), call[call.size() / 2]);
  return 0;
}
