// Floating-point operations per call of each step kernel (step_kernels.hpp), counted by running the
// core's templates with the counting scalar (counting_scalar.hpp). Prints a Markdown table.
//   bench_flop_count [REPS]   (default 100; whole steps are averaged over REPS consecutive steps)
#include <cstdio>
#include <cstdlib>

#include "counting_scalar.hpp"
#include "step_kernels.hpp"

int main(int argc, char** argv) {
  using namespace quatstep::bench;
  const long reps = argc > 1 ? std::atol(argv[1]) : 100;
  const auto kernels = quatstep::bench::kernels<Counted>();
  Fixture<Counted> f;
  std::printf("| kernel | flops per call | add/sub | mul | div | sqrt | sin/cos/atan2 |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& [name, kernel] : kernels) {
    flop_counts = {};
    for (long i = 0; i < reps; ++i) kernel(f);
    const FlopCounts& c = flop_counts;
    const double r = double(reps);
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", name.c_str(), c.flops() / r, c.add / r,
                c.mul / r, c.div / r, c.sqrt / r, c.transcendental / r);
  }
  return 0;
}
