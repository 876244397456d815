// Driver for instruction-count profiles of the step code (bench/profile.sh runs it under
// valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qs_profiled_region).
//   bench_profile_step KERNEL REPS   run KERNEL (step_kernels.hpp) REPS times inside qs_profiled_region
//   bench_profile_step --list        the kernel names
#include <cstdio>
#include <cstdlib>

#include "lane_ensemble.hpp"
#include "step_kernels.hpp"

using namespace quatstep;
using namespace quatstep::bench;

namespace {

/// One step of a block of W bodies with lane_step (simd_step.hpp): W body-steps per call, including
/// the block's load and store (from the same warm-up as step/…).
template <int W, VelocityUpdate U>
Kernel<double> lane_block_step(bool inertia_shift) {
  const HhtFamily<HeavyTop<double>, U> integrator(hht_settings<double>(inertia_shift));
  auto e = std::make_shared<LaneEnsemble<W, U>>(integrator, std::vector<HeavyTop<double>>(W, sherif_top<double>()),
                                                0.0, step_size);
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < W; ++i) initial.push_back(sherif_initial<double>(i));
  e->initialize(initial);
  e->advance(warmup_steps);
  return [e, k = index_t(warmup_steps)](Fixture<double>&) mutable { e->advance_block(0, k++, 1); };
}

std::map<std::string, Kernel<double>> all_kernels() {
  auto k = kernels<double>();
  k["lanes2/step/ModifiedHht+shift"] = lane_block_step<2, VelocityUpdate::modified>(true);
  k["lanes4/step/ModifiedHht+shift"] = lane_block_step<4, VelocityUpdate::modified>(true);
  k["lanes4/step/ModifiedHht"] = lane_block_step<4, VelocityUpdate::modified>(false);
  k["lanes4/step/Hht"] = lane_block_step<4, VelocityUpdate::classical>(false);
  return k;
}

}  // namespace

// The only function callgrind collects (--toggle-collect=qs_profiled_region).
extern "C" __attribute__((noinline)) void qs_profiled_region(const Kernel<double>& kernel, Fixture<double>& f,
                                                             long reps) {
  for (long i = 0; i < reps; ++i) kernel(f);
}

int main(int argc, char** argv) {
  const auto k = all_kernels();
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, _] : k) std::printf("%s\n", name.c_str());
    return 0;
  }
  if (argc != 3 || !k.count(argv[1])) {
    std::fprintf(stderr, "usage: %s KERNEL REPS | --list\n", argv[0]);
    return 2;
  }
  Fixture<double> f;
  qs_profiled_region(k.at(argv[1]), f, std::atol(argv[2]));
  return 0;
}
