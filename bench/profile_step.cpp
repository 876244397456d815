// Instructions per call of the step-code kernels (step_kernels.hpp) under callgrind (bench/profile.sh).
//   bench_profile_step KERNEL REPS   run KERNEL (step_kernels.hpp) REPS times inside qs_profiled_region
//   bench_profile_step --list        the kernel names
#include "profile_driver.hpp"

int main(int argc, char** argv) {
  return quatstep::bench::profile_main(argc, argv, quatstep::bench::kernels<double>());
}
