// Per-body adaptive steps for mechanisms: AdaptiveHht (adaptive/adaptive_hht.hpp) over
// MechanismHht and MechanismModifiedHht (hht.hpp). Everything of the rigid-body case carries over,
// per body where it is per block: the extrapolating predictor over all the Newton unknowns, the
// accuracy test (Negrut eq. 34) and the step-size rule (37) over every body's coordinates, the lag
// correction and the dense output on each body's Euler-parameter block (EulerParameterBlocks). The
// local error estimate is the HHT family's (adaptive/local_error.hpp):
//   - each body's translation rows by Negrut eq. (25): a constant mass, and the joint forces enter
//     their accelerations as every other force does, weighted by (1 + α) and −α (Sherif eq. 62);
//   - each body's Euler-parameter rows by eq. (25) for the classical method with its inertia shift,
//     by the split estimate of docs/errata.md N6 otherwise;
//   - for the plain methods at α ≠ 0, x + Δ with Δ the constrained mechanism's response,
//     [M C_qᵀ; C_q 0](Δ, μ) = (f, 0), f = α(M(e_n, e_{n+1}) − M(e_{n+1}, e_{n+1}))ë_{n+1} per body: one
//     structured solve with the exact mass blocks at q_{n+1}, t_{n+1} (consistent_state.hpp).
// Measured estimate/true ratios and the tolerance sweeps: tests/mechanism_adaptive_test.cpp.
#pragma once

#include <type_traits>

#include "quatstep/adaptive/adaptive_hht.hpp"
#include "quatstep/mechanism/consistent_state.hpp"
#include "quatstep/mechanism/hht.hpp"

namespace quatstep::mechanism {

/// The estimated local error δ (per coordinate) of the step s0 → s1 of size h taken by `hht` on
/// the mechanism m, ending at t1.
template <class Mech, VelocityUpdate Update>
QS_HD typename Dae<Mech>::VecN local_error(const MechanismHhtFamily<Mech, Update>& hht, const Mech& m,
                                           const typename MechanismHhtFamily<Mech, Update>::State& s0,
                                           const typename MechanismHhtFamily<Mech, Update>::State& s1,
                                           typename Mech::Scalar t1, typename Mech::Scalar h) {
  using S = typename Mech::Scalar;
  using VecN = typename Dae<Mech>::VecN;
  using Kkt = StructuredKkt<S, typename Mech::CapacityType>;
  using math::any;
  using math::select;
  const S alpha = hht.p.alpha;
  Kkt kkt;  // the mass system [M C_qᵀ; C_q 0] at q_{n+1}, t_{n+1}
  const typename Mech::Bodies bodies = m.bodies_at(t1);
  fill_mass_system(m, bodies, s1.q, t1, kkt);
  kkt.factorize(m);
  const auto solvable = kkt.solvable();  // the solves below change only where it holds
  const VecN x = s1.a - s0.a;
  VecN x_shifted = x;
  if (!hht.settings.inertia_shift && alpha != S(0) && any(solvable)) {
    typename Kkt::Rhs rhs = Kkt::Rhs::Zero();
    for (int b = 0; b < m.n_bodies; ++b) {
      const Vec<S, 7> q0 = s0.q.template segment<7>(7 * b), q1 = s1.q.template segment<7>(7 * b),
                      a1 = s1.a.template segment<7>(7 * b);
      rhs.template segment<7>(Kkt::body_index(b)) =
          alpha * (bodies.body[b].mass_times(q0, q1, a1) - bodies.body[b].mass_times(q1, q1, a1));
    }
    const typename Kkt::Rhs delta = kkt.solve(rhs);
    for (int b = 0; b < m.n_bodies; ++b)
      for (int i = 0; i < 7; ++i)
        x_shifted[7 * b + i] = select(solvable, S(x_shifted[7 * b + i] + delta[Kkt::body_index(b) + i]), x_shifted[7 * b + i]);
  }
  VecN d = local_error_from<Update>(m, hht.p, hht.settings.inertia_shift, s0, s1, x, x_shifted, h);
  if (!any(solvable)) return d;
  // Both q_{n+1} and the exact solution satisfy the joint constraints: δ lies in their tangent space.
  // The estimate, as for a free body, does not; what separates them is a constraint reaction, M⁻¹C_qᵀμ,
  // so δ ← δ + ε with [M C_qᵀ; C_q 0](ε, μ) = (0, −C_q δ): the mass-orthogonal projection (on an
  // Euler-parameter row, where M e = 0, it is local_error_from's P₁ itself).
  typename Kkt::Rhs rhs = Kkt::Rhs::Zero();
  const VecN zero = VecN::Zero();
  for (int k = 0; k < m.n_joints; ++k) {
    const JointState<S> js = joint_at(m, k, s1.q, zero, t1);
    for (int r = 0; r < js.rows(); ++r) {
      S rate = S(0);
      for (int side = 0; side < 2; ++side)
        if (m.joints[k].body[side] != ground)
          rate += js.gradient(r, side).dot(d.template segment<7>(7 * m.joints[k].body[side]));
      rhs[Kkt::joint_index() + m.joints[k].offset + r] = -rate;
    }
  }
  const typename Kkt::Rhs correction = kkt.solve(rhs);
  for (int b = 0; b < m.n_bodies; ++b)
    for (int i = 0; i < 7; ++i) d[7 * b + i] = select(solvable, S(d[7 * b + i] + correction[Kkt::body_index(b) + i]), d[7 * b + i]);
  return d;
}

}  // namespace quatstep::mechanism

namespace quatstep {

template <class Mech, VelocityUpdate Update>
struct takes_adaptive_steps<mechanism::MechanismHhtFamily<Mech, Update>> : std::true_type {};

}  // namespace quatstep
