// Kinon & Betsch 2024 §5.3: free rotation, J₀ = diag(6, 8, 3), Ω⁰ = (10, 20, 20), h = 0.05.
#include <gtest/gtest.h>

#include "cpu_ensemble.hpp"
#include "livens_run.hpp"
#include "livens_scenarios.hpp"
#include "quatstep/integrators/hamiltonian_em.hpp"
#include "quatstep/integrators/hamiltonian_midpoint.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/models/free_rigid_body.hpp"

using namespace quatstep;
using livens_testing::Run;
using livens_testing::max_difference;

namespace {
using Body = HeavyTop<double>;
constexpr double h = 0.05;
const scenarios::FreeRotation problem;

template <class I>
Run<I> run(double t_end, bool project = true) {
  LivensSettings<double> s;
  s.project_normal_components = project;
  return Run<I>(I(s), problem.model(), problem.initial(), h, std::lround(t_end / h));
}

class FreeRotation : public ::testing::TestWithParam<std::tuple<LivensVariant, double>> {};

// Measured (reduced / full / nullspace), t ∈ [0, 100]: energy increments 2.6e-15 / 1.5e-15 / 3.6e-15
// relative, unity 4.4e-16 / 4.4e-16 / 8.4e-15, momentum drift 1.5e-14 / 8.8e-15 / 2.4e-14 relative,
// 4.2 / 4.3 / 4.0 Newton iterations per step.
TEST_P(FreeRotation, EmlConservesEnergyMomentumAndUnity) {
  const auto [variant, t_end] = GetParam();
  with_livens_variant(variant, [t_end = t_end](auto v) {
    const auto r = run<LivensEm<Body, decltype(v)::value>>(t_end);
    ASSERT_EQ(r.status, Status::ok) << "failed at step " << r.failed_step;
    EXPECT_LE(r.relative_energy_increment(), 1e-12);
    EXPECT_LE(r.max_unity, 1e-13);
    EXPECT_LE(r.relative_momentum_drift(), 1e-12);
    EXPECT_LE(r.iterations_per_step(), 5.0);
    std::printf("variant %d, t_end %g: dE %.2e, unity %.2e, dL %.2e, %.2f iterations/step\n", int(v()), t_end,
                r.relative_energy_increment(), r.max_unity, r.relative_momentum_drift(), r.iterations_per_step());
  });
}

INSTANTIATE_TEST_SUITE_P(Variants, FreeRotation,
                         ::testing::Combine(::testing::Values(LivensVariant::reduced, LivensVariant::full,
                                                              LivensVariant::nullspace),
                                            ::testing::Values(2.0, 100.0)));

// MPL (eq. 132) conserves momentum and unity but not energy: measured max |E − E⁰|/E⁰ = 7.7e-2 on
// t ∈ [0, 2] (EML: 2.9e-15).
TEST(FreeRotation, MidpointHasEnergyErrorThatEmlHasNot) {
  const auto mpl = run<LivensMidpoint<Body>>(2.0);
  const auto eml = run<LivensEm<Body>>(2.0);
  ASSERT_EQ(mpl.status, Status::ok);
  EXPECT_GE(mpl.relative_energy_drift(), 1e-2);
  EXPECT_LE(eml.relative_energy_drift(), 1e-13);
  EXPECT_LE(mpl.relative_momentum_drift(), 1e-12);
  std::printf("energy drift: MPL %.3e, EML %.3e\n", mpl.relative_energy_drift(), eml.relative_energy_drift());
}

// All three forms solve the same equations: measured max |q_full − q_reml| = 2.6e-14 on [0, 2] and
// 1.9e-11 on [0, 100] (Newton tolerance 1e-12 amplified by the tumbling motion); nullspace 5.9e-14, 2.1e-11.
TEST(FreeRotation, VariantsAgree) {
  for (double t_end : {2.0, 100.0}) {
    const auto reduced = run<LivensEm<Body>>(t_end);
    const auto full = run<LivensEm<Body, LivensVariant::full>>(t_end);
    const auto nullspace = run<LivensEm<Body, LivensVariant::nullspace>>(t_end);
    EXPECT_LE(max_difference(reduced, full), 1e-10) << t_end;
    EXPECT_LE(max_difference(reduced, nullspace), 1e-10) << t_end;
    std::printf("t_end %g: |full − reduced| %.2e, |nullspace − reduced| %.2e\n", t_end,
                max_difference(reduced, full), max_difference(reduced, nullspace));
  }
}

// Why project_normal_components exists: the literal scheme lets ν = q·v drift (Remark 4.8); measured
// |ν| = 34 at step 163 and no converged step 164 (t = 8.2). With the projection |ν| stays at round-off.
TEST(FreeRotation, LiteralSchemeLosesTheStepWhenNormalVelocityDrifts) {
  const auto literal = run<LivensEm<Body>>(100.0, false);
  EXPECT_NE(literal.status, Status::ok);
  EXPECT_GE(literal.max_normal_velocity, 10.0);
  const auto projected = run<LivensEm<Body>>(100.0, true);
  EXPECT_LE(projected.max_normal_velocity, 1e-10);
  std::printf("literal: failed at step %ld, max |q·v| %.2f; projected: max |q·v| %.2e\n", literal.failed_step,
              literal.max_normal_velocity, projected.max_normal_velocity);
}

// The Hamiltonian reference schemes (App. D, B) on t ∈ [0, 100]: EMH conserves H, L and unity
// (measured 7.3e-16, 4.6e-15, 4.4e-16; 5.0 iterations/step), MPH conserves L and unity but not H
// (1.5e-2 increments).
TEST(FreeRotation, HamiltonianSchemes) {
  const auto emh = livens_testing::Run<HamiltonianEm<Body>>(HamiltonianEm<Body>(), problem.model(), problem.initial(), h, 2000);
  const auto mph =
      livens_testing::Run<HamiltonianMidpoint<Body>>(HamiltonianMidpoint<Body>(), problem.model(), problem.initial(), h, 2000);
  ASSERT_EQ(emh.status, Status::ok);
  ASSERT_EQ(mph.status, Status::ok);
  EXPECT_LE(emh.relative_energy_increment(), 1e-12);
  EXPECT_LE(emh.relative_momentum_drift(), 1e-12);
  EXPECT_LE(emh.max_unity, 1e-13);
  EXPECT_GE(mph.relative_energy_increment(), 1e-3);
  EXPECT_LE(mph.relative_momentum_drift(), 1e-12);
  std::printf("EMH: dH %.2e, dL %.2e, unity %.2e, %.2f it/step; MPH: dH %.2e, dL %.2e\n",
              emh.relative_energy_increment(), emh.relative_momentum_drift(), emh.max_unity,
              emh.iterations_per_step(), mph.relative_energy_increment(), mph.relative_momentum_drift());
}

// A translating free body under gravity (FreeRigidBody): rotation by EML/EMH, the centre of mass by
// the midpoint rule. Measured over t ∈ [0, 2]: energy increments 1.6e-15 (EML) / 3.6e-16 (EMH)
// relative, vertical angular momentum about the origin drift 2.3e-15 / 3.2e-16 relative.
template <class I>
void check_free_body(const I& integrator) {
  FreeRigidBody<double> body;
  body.inertia = Vec3<double>(6, 8, 3).asDiagonal();
  body.mass = 2;
  body.gravity = {0, 0, -9.81};
  RigidBodyKinematics<double> k = problem.initial();
  k.position = {1, -2, 0.5};
  k.velocity = {1, 2, 3};
  const livens_testing::Run<I> r(integrator, body, k, h, 40);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_LE(r.relative_energy_increment(), 1e-12);
  EXPECT_LE(r.max_momentum_drift[2] / r.momentum0.norm(), 1e-12);
  std::printf("dE %.2e, dL3 %.2e\n", r.relative_energy_increment(), r.max_momentum_drift[2] / r.momentum0.norm());
}

TEST(FreeRotation, TranslatingFreeBody) {
  check_free_body(LivensEm<FreeRigidBody<double>>());
  check_free_body(HamiltonianEm<FreeRigidBody<double>>());
}

// LivensEm plugs into CpuEnsemble unchanged and gives the bits of direct stepping.
TEST(FreeRotation, EnsembleMatchesDirectStepping) {
  const LivensEm<Body> in;
  CpuEnsemble<LivensEm<Body>> ensemble(in, std::vector<Body>(3, problem.model()), 0.0, h);
  const SampleView<double> none{nullptr, 3, 0, 0, 1};
  ensemble.initialize(std::vector<RigidBodyKinematics<double>>(3, problem.initial()), none);
  ensemble.advance(40, none);
  const livens_testing::Run<LivensEm<Body>> direct(in, problem.model(), problem.initial(), h, 40);
  for (index_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ensemble.status()[i], Status::ok);
    for (int c = 0; c < LivensEm<Body>::State::size; ++c) EXPECT_EQ(ensemble.state(i)[c], direct.state[c]);
  }
}

}  // namespace
