// The symmetric-top splitting of the free rigid body (Fassò, J. Comput. Phys. 189 (2003); Celledoni,
// Fassò, Säfström & Zanna, SIAM J. Sci. Comput. 30 (2008)): with a the spherical axis, b the
// remainder axis and s the symmetry axis of the ordered principal frame (axes 0, 1, 2),
//   T = |L|²/(2 I_a) + ½ (1/I_s − 1/I_a) L_s²   +   ½ (1/I_b − 1/I_a) L_b²
//       (a symmetric top: its exact flow)           (the asymmetric remainder: an exact rotation)
// The symmetric top's two terms commute (|L|² is a Casimir), and its flow is the rotation about the
// angular momentum by |L| t/I_a followed by the rotation about the symmetry axis by (1/I_s − 1/I_a) L_s t
// (free_rotation_flows.hpp). The drift between the half kicks (rigid_body_splitting.hpp) is
//   D_h = B(h/2) ∘ Top(h) ∘ B(h/2),   B the remainder's flow,
// so a symmetric body (I_a = I_b, B the identity) has its free motion, the fast spin included, exact
// at any step; the step error of a Lagrange top (centre of mass on the symmetry axis) comes from the
// gravity splitting alone. The other symmetric order, Top(h/2) ∘ B(h) ∘ Top(h/2), costs a second
// rotation about L per stage (for a symmetric body twice the work).
//
// Axes (order_axes): the (s, a, b) of the six with the least error_estimate, Strang's leading error
// term with the Poisson brackets taken as 1; a symmetric body gets its symmetry axis as s. Measured
// (bench/symplectic.md, "Axis orders": 200 torque-free bodies per set, order 2, h = 0.01, t = 1,
// error over the best of the six choices for that body, geometric mean / worst):
//   moments uniform in [1, 3]:    1.20 / 5.0; s outside the closest inverse moments 1.89 / 24;
//                                 s outside the closest moments 2.17 / 24; s the smallest moment 1.46 / 16
//   moments uniform in [0.1, 3]:  1.23 / 7.8; 1.87 / 30; 2.20 / 31; 1.49 / 9.0
//   near-oblate (a, a(1 + d), fa), d ≤ 0.1:   1.05 / 2.8; 2.29 / 12; 2.29 / 12; 1.05 / 2.8
//   near-prolate (a, a(1 + d), a/f):          1.08 / 6.0; 1.79 / 5.5 for the three others.
// (In a near-symmetric body the symmetry axis is not the best s: the Strang error is twice as
// large with the larger non-commuting coefficient inside, in Top, as outside, in B.)
// Against NoSquish with its rule the error at equal step is 50–480× smaller on these sets.
#pragma once

#include "quatstep/integrators/rigid_body_splitting.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

struct SymmetricSplittingFlow {
  /// The leading error of B(h/2) ∘ Top(h) ∘ B(h/2) for the choice (s, a, b): with c_s = |1/I_s − 1/I_a|
  /// and c_b = |1/I_b − 1/I_a| the non-commuting coefficients of Top and B, Strang's error term
  /// h³(−[B,[B,T]]/24 + [T,[T,B]]/12) scales as c_b² c_s/24 + c_s² c_b/12 (brackets taken as 1).
  template <class S>
  QS_HD static S error_estimate(S inverse_s, S inverse_a, S inverse_b) {
    using std::abs;
    const S cs = abs(inverse_s - inverse_a), cb = abs(inverse_b - inverse_a);
    return cb * cs * (cb / S(24) + cs / S(12));
  }

  /// The (s, a, b) of least error_estimate among the six; ties go to the smaller remainder c_b
  /// (a symmetric body: its symmetry axis as s, B the identity).
  template <class S>
  QS_HD static void order_axes(const Vec3<S>& moments, const Vec3<S>&, int order[3]) {
    using std::abs;
    const Vec3<S> inverse = moments.cwiseInverse();
    S best = S(INFINITY), best_cb = S(INFINITY);
    order[0] = 0, order[1] = 1, order[2] = 2;
    QS_UNROLL for (int choice = 0; choice < 6; ++choice) {
      const int s = choice % 3, a = choice < 3 ? (s + 1) % 3 : (s + 2) % 3, b = 3 - s - a;
      const S is = component(inverse, s), ia = component(inverse, a), ib = component(inverse, b);
      const S estimate = error_estimate(is, ia, ib), cb = abs(ib - ia);
      if (estimate < best || (estimate == best && cb < best_cb)) {
        best = estimate, best_cb = cb;
        order[0] = a, order[1] = b, order[2] = s;
      }
    }
  }

  /// r − 1 of B(t/2) ∘ Top(t) ∘ B(t/2) from body momentum L.
  template <class S>
  QS_HD static Vec4<S> rotation(const Vec3<S>& inverse_moments, S t, Vec3<S> L) {
    const S half = S(0.5) * t;
    const S remainder = inverse_moments[1] - inverse_moments[0];  // 1/I_b − 1/I_a
    Vec4<S> d = Vec4<S>::Zero();
    axis_flow<1>(remainder, half, L, d);
    spherical_flow(inverse_moments[0], t, L, d);
    axis_flow<2>(inverse_moments[2] - inverse_moments[0], t, L, d);
    axis_flow<1>(remainder, half, L, d);
    return d;
  }
};

template <class S>
using SymmetricSplittingSettings = SplittingSettings<S>;
template <class Model>
using SymmetricSplitting = RigidBodySplitting<Model, SymmetricSplittingFlow>;

// ---------------------------------------------------------------- registry entry
struct SymmetricSplittingMethod {
  static constexpr MethodInfo info{"symmetric_splitting", "SymmetricSplitting<Model>", "symmetric_splitting.hpp",
                                   "exact flow of the symmetric part of the kinetic energy, the asymmetric "
                                   "remainder as axis rotations, torque kicks; Yoshida's triple jump",
                                   "4 (order = 2 and 6 below)",
                                   "as no_squish; a symmetric top's spin about its "
                                   "axis exactly"};
  static constexpr const auto& configurations = splitting_configurations;
  template <class Model, int>
  using Integrator = SymmetricSplitting<Model>;
};

}  // namespace quatstep
