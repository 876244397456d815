// The RK4 reference of the Sherif §10.1 heavy top (problems/reference/heavy_top_reference.hpp) checked
// on its own: step-halving agreement, unit length of q without renormalisation, and the three
// exact invariants of this (Lagrange) top.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reference/heavy_top_reference.hpp"
#include "reference/sherif_heavy_top.hpp"

namespace quatstep::reference {
namespace {

HeavyTopReference sherif_reference(double h) {
  return HeavyTopReference(sherif_heavy_top(), sherif_heavy_top_initial(), h,
                           std::lround(sherif_heavy_top_end_time / h));
}

TEST(HeavyTopReference, HalvingTheStepChangesOmegaByAtMost1e10) {
  const double h = sherif_heavy_top_reference_step;
  const HeavyTopReference coarse = sherif_reference(h), fine = sherif_reference(0.5 * h);
  double difference = 0.0;
  for (long k = 0; k <= coarse.steps(); ++k)
    difference = std::max(difference, (coarse.omega(k) - fine.omega(2 * k)).lpNorm<Eigen::Infinity>());
  std::printf("RK4 h = %.1e vs h/2: max |Δω| = %.2e; max |‖q‖−1| = %.1e, %.1e\n", h, difference,
              coarse.max_norm_drift(), fine.max_norm_drift());
  EXPECT_LE(difference, 1e-10) << "measured 1.37e-12 (at h = 2e-5: 4.0e-10, at 1e-5: 2.5e-11; ratio 16, fourth order)";
  EXPECT_LE(coarse.max_norm_drift(), 1e-13) << "measured 1.8e-14";
  EXPECT_LE(fine.max_norm_drift(), 1e-13) << "measured 1.9e-14";
}

// J_x = J_z and x_cm on the y axis: energy, the vertical spatial angular momentum and the spin ω_y
// are exact invariants. A wrong sign or frame in the reference's torque would break the first two.
TEST(HeavyTopReference, KeepsTheInvariantsOfTheLagrangeTop) {
  const HeavyTop<double> top = sherif_heavy_top();
  const HeavyTopReference ref = sherif_reference(sherif_heavy_top_reference_step);
  auto observe = [&](long k) {
    RigidBodyKinematics<double> s;
    s.quaternion = ref.quaternion(k);
    s.omega_body = ref.omega(k);
    return top.observables(s);
  };
  const RigidBodyObservables<double> start = observe(0);
  double energy = 0.0, momentum = 0.0, spin = 0.0;
  for (long k = 1; k <= ref.steps(); ++k) {
    const RigidBodyObservables<double> o = observe(k);
    energy = std::max(energy, std::abs(o.energy / start.energy - 1.0));
    momentum = std::max(momentum, std::abs(o.angular_momentum[2] / start.angular_momentum[2] - 1.0));
    spin = std::max(spin, std::abs(ref.omega(k)[1] / ref.omega(0)[1] - 1.0));
  }
  std::printf("RK4 reference relative drift over [0, 1]: energy %.1e, L_z %.1e, ω_y %.1e\n", energy, momentum,
              spin);
  EXPECT_LE(energy, 1e-12) << "measured " << energy;       // measured 1.8e-15
  EXPECT_LE(momentum, 1e-12) << "measured " << momentum;   // measured 1.2e-13
  EXPECT_LE(spin, 1e-12) << "measured " << spin;           // measured 0 (exact)
}

}  // namespace
}  // namespace quatstep::reference
