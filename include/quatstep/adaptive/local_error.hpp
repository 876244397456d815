// The local error of one step of the HHT family, estimated from the two states of the step
// (Negrut et al. §3.1.1; docs/errata.md N1, N4, N6).
//
// From an exact state at t_n the Newmark position update (Negrut eq. 17a) leaves the local error
//   δ = q_{n+1} − q̃(t_{n+1}) = βh² x − (h³/6) q⃛_n + O(h⁴),   x = q̈_{n+1} − q̈_n,        (Negrut eq. 20)
// for every method of the family (the modified velocity update, Sherif eq. 34, does not enter the
// positions of one step). x is known after the corrector; h q⃛_n is estimated from it, and how
// depends on what the method's acceleration approximates:
//   - a coordinate with a constant mass (a translation): x = (1+α) h q⃛ + O(h²) (Negrut eq. 23), so
//     δ = [β − 1/(6(1+α))] h² x, Negrut eq. (25);
//   - an Euler-parameter block of the classical method with its inertia shift: the same, eq. (25)
//     (the shifted inertia [(1+α)M_{n+1} − αM_n] ë_{n+1} makes the block behave as a constant mass);
//   - an Euler-parameter block of the modified method with its inertia shift: only the body
//     angular acceleration ω̇ = 2Gë is time-shifted by (1+α), the centripetal part of ë is not, and
//     eq. (25) underestimates δ (docs/errata.md N4: 0.78 at α = −0.2). The split estimate of
//     docs/errata.md N6,
//       δ = (β − 1/6) h² P₁ x + α/(6(1+α)) h² ½ G₁ᵀ(ω̇_{n+1} − ω̇_n),   P₁ = I₄ − e₁e₁ᵀ,
//     is unbiased;
//   - the plain methods (no inertia shift, α ≠ 0): their accelerations carry the O(h) bias of
//     docs/errata.md S3, the force α(M(e_n, e_{n+1}) − M(e_{n+1}, e_{n+1}))ë_{n+1} by which the plain
//     inertia term differs from the shifted one. The N6 estimate applied to their x is biased too
//     (measured 1.01–1.03 on the heavy top, 1.03–1.18 on a torque-free body); it is applied to
//     x + Δ instead, Δ the response of the accelerations to that force under the constraints,
//     [M C_qᵀ; C_q 0](Δ, μ) = (f, 0) (HhtFamily::constrained_mass), one extra solve per step.
//     The classical method's x agrees with the modified one's to O(h²) from an exact state, so both
//     plain methods use this form.
// Measured estimate/true ratios: tests/adaptive_local_error_test.cpp (0.9992–1.0011). In a running
// simulation the start's accelerations lag by αh, and on rows that lag the estimate is conservative by
// [β − 1/(6(1+α))]/(α/2 + β − 1/6) (1.37–1.74 for the classical method with its shift): more steps,
// not less accuracy.
//
// In every form the estimate is written δ = βh² x − (h²/6) D, D ≈ h q⃛_n; on an Euler-parameter
// block it is projected on the tangent space at e_{n+1} (both e_{n+1} and the exact e have unit
// length, so δ is tangent to O(h⁶)). On a mechanism the same per body (local_error_from), projected
// on the joint constraints too (mechanism/adaptive.hpp).
#pragma once

#include "quatstep/adaptive/euler_parameter_blocks.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/linalg/lu.hpp"
#include "quatstep/math/choose.hpp"

namespace quatstep {

/// The estimate of the file comment from the accelerations' change x = q̈_{n+1} − q̈_n and its
/// inertia-shifted form x_shifted (x itself unless the method is plain at α ≠ 0), for any member of
/// the HHT family (rigid body or mechanism: EulerParameterBlocks).
template <VelocityUpdate Update, class Model, class State, class VecN, class S>
QS_HD VecN local_error_from(const Model& model, const HhtParameters<S>& p, bool inertia_shift, const State& s0,
                            const State& s1, const VecN& x, const VecN& x_shifted, S h) {
  using Blocks = EulerParameterBlocks<Model>;
  const S alpha = p.alpha, beta = p.beta, c = S(1) / (S(1) + alpha), h2 = h * h;
  VecN d = beta * h2 * x - h2 / S(6) * c * x_shifted;  // Negrut eq. (25) on every coordinate
  const bool split = Update == VelocityUpdate::modified || !inertia_shift;
  QS_UNROLL_UP_TO(Blocks::capacity) for (int b = 0; b < Blocks::count(model); ++b) {
    const int o = Blocks::offset(b);
    const Vec4<S> e0 = s0.q.template segment<4>(o), e1 = s1.q.template segment<4>(o);
    const Vec4<S> a0 = s0.a.template segment<4>(o), xb = x.template segment<4>(o);
    const Vec4<S> xs = x_shifted.template segment<4>(o);
    Vec4<S> D = c * xs;
    if (split) {
      // docs/errata.md N6: D = P₁x − α/(1+α) · ½G₁ᵀ(ω̇_{n+1} − ω̇_n), ω̇ = 2Gë
      const Vec4<S> a1 = a0 + xs;
      D = xs - alpha * c * (G(e1).transpose() * (G(e1) * a1 - G(e0) * a0));
    }
    const Vec4<S> db = beta * h2 * xb - h2 / S(6) * D;
    d.template segment<4>(o) = db - e1 * e1.dot(db);  // P₁ δ
  }
  return d;
}

/// The estimated local error δ (per coordinate) of the step s0 → s1 of size h taken by `hht`, ending
/// at t1 (unused: a rigid body's constraints do not depend on time; a mechanism's do,
/// mechanism/adaptive.hpp).
template <class Model, VelocityUpdate Update>
QS_HD Vec<typename Model::Scalar, Model::n> local_error(const HhtFamily<Model, Update>& hht, const Model& model,
                                                        const typename HhtFamily<Model, Update>::State& s0,
                                                        const typename HhtFamily<Model, Update>::State& s1,
                                                        typename Model::Scalar /*t1*/, typename Model::Scalar h) {
  using Hht = HhtFamily<Model, Update>;
  using S = typename Model::Scalar;
  using VecN = Vec<S, Model::n>;
  constexpr int nr = Hht::nr, K = Hht::K;
  const S alpha = hht.p.alpha;
  const VecN x = s1.a - s0.a;
  VecN x_shifted = x;  // the x of the inertia-shifted method to O(h²): x + Δ for the plain methods
  if (!hht.settings.inertia_shift && alpha != S(0)) {
    const VecN f = alpha * (model.mass_times(s0.q, s1.q, s1.a) - model.mass_times(s1.q, s1.q, s1.a));
    Vec<S, K> rhs = Vec<S, K>::Zero();
    rhs.template head<nr>() = f.template tail<nr>();
    const Lu<S, K> lu(Hht::constrained_mass(model, s1.q));
    using Rows = Vec<S, nr>;
    const Rows plain = x_shifted.template tail<nr>();
    using math::choose;
    x_shifted.template tail<nr>() = choose(
        lu.solvable(), [&] { return Rows(plain + lu.solve(rhs).template head<nr>()); }, [&] { return plain; });
  }
  return local_error_from<Update>(model, hht.p, hht.settings.inertia_shift, s0, s1, x, x_shifted, h);
}

}  // namespace quatstep
