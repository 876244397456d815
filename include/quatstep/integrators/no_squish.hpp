// NO_SQUISH (Miller, Eleftheriou, Pattnaik, Ndirango, Newns & Martyna, J. Chem. Phys. 116, 8649
// (2002); the rotation scheme of LAMMPS' fix rigid/nve): explicit, symplectic, time-reversible.
// Between half kicks (rigid_body_splitting.hpp) the free rotor is the symmetric product of the
// exact rotations R_k(t) about the principal axes, the flows of L_k²/(2 I_k) (free_rotation_flows.hpp):
//   D_h = R₀(h/2) ∘ R₁(h/2) ∘ R₂(h) ∘ R₁(h/2) ∘ R₀(h/2)   (second order, symmetric).
//
// Axis order (order_axes): outermost the axis of the smallest principal moment, innermost the
// largest; equal moments ordered by the initial |L_k|, larger outside. The order changes the error
// by up to 10⁴×. Measured (bench/symplectic.md, "Axis orders": 200 torque-free bodies per set,
// order 2, h = 0.01, t = 1, error over the best of the six orders for that body; share of bodies
// where the rule is the best, geometric mean, worst):
//   moments uniform in [1, 3]:    the rule 62 %, 1.19, 5.9; largest |Ω_k| outermost 25 %, 2.11, 23;
//                                 largest L_k²/I_k outermost 23 %, 2.04, 56; largest moment 9 %, 1.92, 20
//   moments uniform in [0.1, 3]:  61 %, 1.18, 9.1; 22 %, 2.37, 83; 19 %, 2.35, 184; 13 %, 2.06, 27
//   near-symmetric bodies:        1.35 and 1.40, against 1.47–2.48 for the others.
// Sherif's top (moments 15.23, 0.469, 15.23, spin 150 rad/s about the small one), order 4, h = 1e-3:
// 2.5e-8 rad with the rule, 5.7e-5 with the spin axis in the middle (tests/symplectic_structure_test.cpp).
#pragma once

#include "quatstep/integrators/rigid_body_splitting.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

struct NoSquishFlow {
  /// Whether axis i goes outside axis j: smaller moment, or equal moments and larger |L|.
  template <class S>
  QS_HD static bool outside(const Vec3<S>& moments, const Vec3<S>& momentum, int i, int j) {
    using std::abs;
    const S mi = component(moments, i), mj = component(moments, j);
    return mi < mj || (mi == mj && abs(component(momentum, i)) > abs(component(momentum, j)));
  }

  QS_HD static void swap(int& i, int& j) {
    const int k = i;
    i = j;
    j = k;
  }

  template <class S>
  QS_HD static void order_axes(const Vec3<S>& moments, const Vec3<S>& momentum, int order[3]) {
    int a = 0, b = 1, c = 2;  // sorted by three compare-exchanges, on scalars (registers on the GPU)
    if (outside(moments, momentum, b, a)) swap(a, b);
    if (outside(moments, momentum, c, b)) swap(b, c);
    if (outside(moments, momentum, b, a)) swap(a, b);
    order[0] = a, order[1] = b, order[2] = c;
  }

  /// r − 1 of R₀(t/2) ∘ R₁(t/2) ∘ R₂(t) ∘ R₁(t/2) ∘ R₀(t/2) from body momentum L, with R_k the flow
  /// of ½ L_k²/I_k.
  template <class S>
  QS_HD static Vec4<S> rotation(const Vec3<S>& inverse_moments, S t, Vec3<S> L) {
    const S half = S(0.5) * t;
    Vec4<S> d = Vec4<S>::Zero();
    axis_flow<0>(inverse_moments[0], half, L, d);
    axis_flow<1>(inverse_moments[1], half, L, d);
    axis_flow<2>(inverse_moments[2], t, L, d);
    axis_flow<1>(inverse_moments[1], half, L, d);
    axis_flow<0>(inverse_moments[0], half, L, d);
    return d;
  }
};

template <class S>
using NoSquishSettings = SplittingSettings<S>;
template <class Model>
using NoSquish = RigidBodySplitting<Model, NoSquishFlow>;

// ---------------------------------------------------------------- registry entry
struct NoSquishMethod {
  static constexpr MethodInfo info{"no_squish", "NoSquish<Model>", "no_squish.hpp",
                                   "Miller, Eleftheriou, Pattnaik, Ndirango, Newns & Martyna, J. Chem. Phys. 116, 8649 (2002): "
                                   "exact principal-axis rotations between torque kicks; Yoshida's triple jump",
                                   "4 (order = 2 and 6 below)",
                                   "symplectic, reversible; unit length and torque-free spatial "
                                   "angular momentum to round-off"};
  static constexpr const auto& configurations = splitting_configurations;
  template <class Model, int>
  using Integrator = NoSquish<Model>;
};

}  // namespace quatstep
