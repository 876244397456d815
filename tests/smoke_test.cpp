#include <gtest/gtest.h>
#include <cstdio>
#include "quatstep/quatstep.hpp"
using namespace quatstep;
TEST(Smoke, HeavyTop) {
  auto top = HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0, {0, 1, 0}, {0, 0, -9.81});
  RigidBodyKinematics<double> k; k.omega_body = {0, 150, -4.61538};
  for (int variant = 0; variant < 4; ++variant) {
    HhtSettings<double> st; st.alpha = -0.2; st.inertia_shift = variant % 2;
    double h = 1e-4;
    long it = 0; int fails = 0;
    RigidBodyKinematics<double> kk;
    if (variant < 2) {
      ModifiedHht<HeavyTop<double>> in(st); ModifiedHht<HeavyTop<double>>::State s;
      in.initialize(top, k, 0, s);
      for (int i = 0; i < 10000; ++i) { auto o = in.step(top, s, i*h, h); it += o.iterations; fails += o.status != Status::ok; }
      kk = in.kinematics(top, s);
    } else {
      Hht<HeavyTop<double>> in(st); Hht<HeavyTop<double>>::State s;
      in.initialize(top, k, 0, s);
      for (int i = 0; i < 10000; ++i) { auto o = in.step(top, s, i*h, h); it += o.iterations; fails += o.status != Status::ok; }
      kk = in.kinematics(top, s);
    }
    std::printf("variant %d iters/step %.3f fails %d w=(%.10f %.10f %.10f)\n", variant, it/1e4, fails, kk.omega_body[0], kk.omega_body[1], kk.omega_body[2]);
  }
  SimoVuQuocSettings<double> ss; ss.alpha = -0.2;
  SimoVuQuoc<HeavyTop<double>> sv(ss); SimoVuQuoc<HeavyTop<double>>::State s;
  sv.initialize(top, k, 0, s); long it=0;
  for (int i = 0; i < 10000; ++i) { auto o = sv.step(top, s, i*1e-4, 1e-4); it += o.iterations; }
  std::printf("svq iters/step %.3f w=(%.10f %.10f %.10f)\n", it/1e4, s.w[0], s.w[1], s.w[2]);
}
