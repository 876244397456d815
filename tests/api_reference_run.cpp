// The C++ API's run of a small heavy-top ensemble, for python/tests/test_run.py: quatstep.run of the
// same scenario must give these numbers bit for bit. Header-only API, no scenario file: 17 tops
// (examples/library_example.cpp's) with spin ω_y = 150 + i rad/s (a sweep from 150 to 166 gives
// exactly these), the second-order modified HHT, dt 1e-3, 200 steps, every 20th state sampled.
//   api_reference_run OUT   writes to OUT, native byte order: the samples [sample][scalar][body]
//                           (double), then per body status (int32), Newton iterations (int64) and
//                           failed step (int64)
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cpu_ensemble.hpp"
#include "quatstep/quatstep.hpp"

int main(int argc, char** argv) {
  using namespace quatstep;
  if (argc != 2) {
    std::fprintf(stderr, "usage: api_reference_run OUT\n");
    return 2;
  }
  constexpr index_t n = 17, steps = 200, stride = 20, samples = steps / stride + 1;
  std::vector<HeavyTop<double>> tops(n, HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0,
                                                                              {0, 1, 0}, {0, 0, -9.81}));
  std::vector<RigidBodyKinematics<double>> initial(n);  // identity orientation
  for (index_t i = 0; i < n; ++i) initial[i].omega_body = {0.0, 150.0 + double(i), -4.61538};
  HhtSettings<double> s;
  s.alpha = -0.2;
  s.inertia_shift = true;
  using Integrator = ModifiedHht<HeavyTop<double>>;
  CpuEnsemble<Integrator> ensemble(Integrator(s), tops, 0.0, 1e-3);
  constexpr int scalars = sample_scalars<Integrator>();
  std::vector<double> buffer(std::size_t(samples * scalars * n));
  const SampleView<double> out{buffer.data(), n, 0, samples, stride, scalars};
  ensemble.initialize(initial, out);
  ensemble.advance(steps, out);

  std::FILE* f = std::fopen(argv[1], "wb");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  std::fwrite(buffer.data(), sizeof(double), buffer.size(), f);
  std::fwrite(ensemble.status().data(), sizeof(Status), std::size_t(n), f);
  std::fwrite(ensemble.newton_iterations().data(), sizeof(index_t), std::size_t(n), f);
  std::fwrite(ensemble.failed_step().data(), sizeof(index_t), std::size_t(n), f);
  return std::fclose(f) == 0 ? 0 : 1;
}
