// Driver for instruction-count profiles of the step code (bench/profile.sh runs it under
// valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qs_profiled_region).
//   bench_profile_step KERNEL REPS   run KERNEL (step_kernels.hpp) REPS times inside qs_profiled_region
//   bench_profile_step --list        the kernel names
#include <cstdio>
#include <cstdlib>

#include "step_kernels.hpp"

using quatstep::bench::Fixture;
using quatstep::bench::Kernel;

// The only function callgrind collects (--toggle-collect=qs_profiled_region).
extern "C" __attribute__((noinline)) void qs_profiled_region(const Kernel<double>& kernel, Fixture<double>& f,
                                                             long reps) {
  for (long i = 0; i < reps; ++i) kernel(f);
}

int main(int argc, char** argv) {
  const auto k = quatstep::bench::kernels<double>();
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
