// Linking quatstep as a library: an ensemble of heavy tops advanced by the second-order modified
// HHT on the CPU, samples read straight from the struct-of-arrays buffer. Built as
// build/examples/library_example; README.md quotes it.
#include <cstdio>
#include <vector>

#include "cpu_ensemble.hpp"
#include "quatstep/quatstep.hpp"

int main() {
  using namespace quatstep;
  const index_t n = 1000;
  std::vector<HeavyTop<double>> tops(n, HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0,
                                                                              {0, 1, 0}, {0, 0, -9.81}));
  std::vector<RigidBodyKinematics<double>> init(n);  // identity orientation
  for (index_t i = 0; i < n; ++i) init[i].omega_body = {0.0, 150.0 + 0.01 * i, -4.61538};

  HhtSettings<double> s;
  s.alpha = -0.2;
  s.inertia_shift = true;
  using Integrator = ModifiedHht<HeavyTop<double>>;
  CpuEnsemble<Integrator> ens(Integrator(s), tops, 0.0, 1e-4);
  constexpr int scalars = sample_scalars<Integrator>();  // the model's channels, then the method's (channels.hpp)
  std::vector<double> samples(2 * scalars * n);          // [sample][scalar][body]
  const SampleView<double> out{samples.data(), n, 0, 2, 10000, scalars};  // samples 0 and 1 (after 10^4 steps)
  ens.initialize(init, out);  // throws std::invalid_argument naming bad bodies and fields
  ens.advance(10000, out);    // OpenMP over bodies; bitwise independent of the thread count

  const int omega = sample_offset<Integrator>("omega_body"), energy = sample_offset<Integrator>("energy");
  std::printf("body 0 at t = 1: omega_y = %.6f, energy drift = %.3e, status %s\n", out(1, omega + 1, 0),
              out(1, energy, 0) - out(0, energy, 0), to_string(ens.status()[0]));
  return ens.status()[0] == Status::ok ? 0 : 1;
}
