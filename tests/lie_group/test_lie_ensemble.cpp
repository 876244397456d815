// The Lie-group schemes plug into CpuEnsemble/advance_body unchanged (same bits as a plain step
// loop, whatever the thread count), and their translational parts for free bodies have the
// orders of their rotational parts.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cpu_ensemble.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "free_body_motion.hpp"

using namespace quatstep;
using namespace quatstep::testing;

namespace {

/// Same bits from CpuEnsemble (4 bodies, 200 steps, samples every 50) as from a direct loop.
template <class I>
void expect_ensemble_matches_direct_loop(const I& integrator) {
  const int n = 4, steps = 200, stride = 50;
  const double h = 0.01;
  std::vector<FreeRigidBody<double>> models;
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < n; ++i) models.push_back(shaken_body(i)), initial.push_back(shaken_body_start(i));
  CpuEnsemble<I> ens(integrator, models, 0.0, h);
  constexpr int scalars = sample_scalars<I>();
  std::vector<double> buf((steps / stride + 1) * scalars * n);
  const SampleView<double> out{buf.data(), n, 0, steps / stride + 1, stride, scalars};
  ens.initialize(initial, out);
  ens.advance(steps, out);
  for (int i = 0; i < n; ++i) {
    typename I::State s;
    ASSERT_EQ(integrator.initialize(models[i], initial[i], 0.0, s), Status::ok);
    for (int k = 0; k < steps; ++k) ASSERT_EQ(integrator.step(models[i], s, k * h, h).status, Status::ok);
    EXPECT_EQ(ens.status()[i], Status::ok);
    const auto e = ens.state(i);
    for (int c = 0; c < I::State::size; ++c) EXPECT_EQ(e[c], s[c]) << "body " << i << " component " << c;
    EXPECT_EQ(out(steps / stride, sample_offset<I>("quaternion"), i), s.e[0]);
  }
}

TEST(LieEnsemble, CpuEnsembleGivesTheBitsOfADirectLoop) {
  expect_ensemble_matches_direct_loop(Zupan3<FreeRigidBody<double>>());
  expect_ensemble_matches_direct_loop(ExplicitNewmarkLie<FreeRigidBody<double>>());
  expect_ensemble_matches_direct_loop(MidpointLie<FreeRigidBody<double>>());
}

TEST(LieEnsemble, FreeBodyTranslationOrders) {
  using B = FreeRigidBody<double>;
  const double pz = translation_order(Zupan3<B>()), px = translation_order(ExplicitNewmarkLie<B>()),
               pm = translation_order(MidpointLie<B>());
  // measured: Zupan3 2.97, Ξ 2.00, LIEMID[I] 2.00
  EXPECT_NEAR(pz, 3.0, 0.1) << "Zupan3 translation order " << pz;
  EXPECT_NEAR(px, 2.0, 0.1) << "Ξ translation order " << px;
  EXPECT_NEAR(pm, 2.0, 0.1) << "LIEMID[I] translation order " << pm;
  // Under constant gravity alone every scheme is exact (quadratic trajectory).
  const double ez = position_error(Zupan3<B>(), 0.1, false), ex = position_error(ExplicitNewmarkLie<B>(), 0.1, false),
               em = position_error(MidpointLie<B>(), 0.1, false);
  // measured: 2.2e-14, 4.3e-14, 2.2e-14 (T = 3, h = 0.1)
  EXPECT_LT(std::max({ez, ex, em}), 1e-12) << "constant gravity: " << ez << ", " << ex << ", " << em;
}

}  // namespace
