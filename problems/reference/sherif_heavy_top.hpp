// The heavy top of Sherif et al. 2019 §10.1, with the corrections of docs/errata.md S1–S2: J about the
// centre of mass diag(0.234375, 0.46875, 0.234375), m = 15, x_cm = (0, 1, 0), g = (0, 0, −9.81),
// hence J about the fixed point diag(15.234375, 0.46875, 15.234375); ω(0) = (0, 150, −4.61538),
// q(0) = identity, t ∈ [0, 1].
#pragma once

#include "quatstep/models/heavy_top.hpp"

namespace quatstep::reference {

inline HeavyTop<double> sherif_heavy_top() {
  return HeavyTop<double>::from_center_of_mass({0.234375, 0.46875, 0.234375}, 15.0, {0, 1, 0}, {0, 0, -9.81});
}

inline RigidBodyKinematics<double> sherif_heavy_top_initial() {
  RigidBodyKinematics<double> k;  // identity quaternion
  k.omega_body = {0, 150, -4.61538};
  return k;
}

inline constexpr double sherif_heavy_top_end_time = 1.0;

/// Step of the RK4 reference for this problem. It divides every step the tests use (1e-3 … 1e-5,
/// 2.5e-5), and heavy_top_reference_test checks that halving it changes ω by ≤ 1e-10.
inline constexpr double sherif_heavy_top_reference_step = 5e-6;

}  // namespace quatstep::reference
