// The command line of an instruction-count profile driver; bench/profile.sh runs it under
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qs_profiled_region
// so that only the kernel's repetitions are counted:
//   PROGRAM KERNEL REPS   run KERNEL REPS times inside qs_profiled_region
//   PROGRAM --list        the kernel names
// bench_profile_step (profile_step.cpp) profiles the kernels of step_kernels.hpp; a study passes
// those and its own (studies/simd_lanes/simd_profile_step.cpp).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "step_kernels.hpp"

// The only function callgrind collects (--toggle-collect=qs_profiled_region).
extern "C" __attribute__((noinline)) inline void qs_profiled_region(const quatstep::bench::Kernel<double>& kernel,
                                                                    quatstep::bench::Fixture<double>& f, long reps) {
  for (long i = 0; i < reps; ++i) kernel(f);
}

namespace quatstep::bench {

inline int profile_main(int argc, char** argv, const std::map<std::string, Kernel<double>>& kernels) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, _] : kernels) std::printf("%s\n", name.c_str());
    return 0;
  }
  if (argc != 3 || !kernels.count(argv[1])) {
    std::fprintf(stderr, "usage: %s KERNEL REPS | --list\n", argv[0]);
    return 2;
  }
  Fixture<double> f;
  qs_profiled_region(kernels.at(argv[1]), f, std::atol(argv[2]));
  return 0;
}

}  // namespace quatstep::bench
