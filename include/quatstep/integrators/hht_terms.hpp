// The per-block formulas of the HHT family on Euler parameters, shared by the single-body
// integrator (hht.hpp) and the mechanism integrator (mechanism/hht.hpp):
//   - the modified velocity update of one quaternion block, Sherif eq. (34), and its derivative
//     along δë, eq. (69) applied to a direction;
//   - the inertia term M̃ q̈ of eq. (62) with the optional time shift of docs/second_order_hht.md, and its
//     derivative along δq̈ (the M̃ δq̈ + (M̃q̈)_q J₀ δq̈ of eq. 65);
//   - the velocity-constraint drift test of one quaternion block (docs/errata.md S4).
// A model here is anything with mass_times(q_l, q_r, a) and mass_times_derivative(q_l, q_r, a, δq_l,
// δq_r, δa) over its coordinate vector (HeavyTop, FreeRigidBody).
#pragma once

#include <limits>

#include "quatstep/integrators/hht_parameters.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

enum class VelocityUpdate { classical, modified };

namespace hht {

/// Sherif eq. (34): ė_{n+1} = G(e_{n+1})ᵀ w + hγ (I − e eᵀ) ë_{n+1}, with
/// w = G_n ė_n + h(1−γ) G_n ë_n (eq. 70) fixed over the step.
template <class S>
QS_HD Vec4<S> modified_rate(const Vec4<S>& e, const Vec3<S>& w, const Vec4<S>& a, S gh) {
  return G(e).transpose() * w + gh * (a - e * e.dot(a));
}

/// The derivative of eq. (34) along δë, which moves e_{n+1} by δe = βh² δë (eq. 33), i.e. eq. (69)
/// applied to δë:  G(δe)ᵀ w + hγ (δë − δe (eᵀë) − e (δeᵀë + eᵀδë)).
template <class S>
QS_HD Vec4<S> modified_rate_derivative(const Vec4<S>& e, const Vec3<S>& w, const Vec4<S>& a, const Vec4<S>& de,
                                       const Vec4<S>& da, S gh) {
  return G(de).transpose() * w + gh * (da - de * e.dot(a) - e * (de.dot(a) + e.dot(da)));
}

/// ẽ = (1+α) q_{n+1} − α q_n, the time-shifted left factor of docs/second_order_hht.md.
template <class S, class V>
QS_HD V shifted(const HhtParameters<S>& p, const V& q0, const V& q1) {
  return (S(1) + p.alpha) * q1 - p.alpha * q0;
}

/// The inertia term M̃ q̈ of the residual, M̃ = M(q_{n+1}) or its time-shifted form:
///   modified + shift:  4 G(ẽ)ᵀ J G(e_{n+1}) ë  (docs/second_order_hht.md)
///   classical + shift: [(1+α) M(e_{n+1}) − α M(e_n)] ë
template <VelocityUpdate Update, class Model, class S, class V>
QS_HD V inertia_force(const Model& model, const HhtParameters<S>& p, bool shift, const V& q0, const V& q1,
                      const V& a) {
  const S alpha = p.alpha;
  if (!shift) return model.mass_times(q1, q1, a);
  if constexpr (Update == VelocityUpdate::modified) {
    return model.mass_times(shifted(p, q0, q1), q1, a);
  } else {
    return (S(1) + alpha) * model.mass_times(q1, q1, a) - alpha * model.mass_times(q0, q0, a);
  }
}

/// Its derivative along δq̈, which moves q_{n+1} by δq = J₀ δq̈ = βh² δq̈ (Sherif eq. 66).
template <VelocityUpdate Update, class Model, class S, class V>
QS_HD V inertia_force_derivative(const Model& model, const HhtParameters<S>& p, bool shift, const V& q0,
                                 const V& q1, const V& a, const V& da, const V& dq) {
  const S alpha = p.alpha;
  if (!shift) return model.mass_times_derivative(q1, q1, a, dq, dq, da);
  if constexpr (Update == VelocityUpdate::modified) {
    return model.mass_times_derivative(shifted(p, q0, q1), q1, a, V((S(1) + alpha) * dq), dq, da);
  } else {
    return (S(1) + alpha) * model.mass_times_derivative(q1, q1, a, dq, dq, da) - alpha * model.mass_times(q0, q0, da);
  }
}

/// Whether a quaternion block has lost its velocity-level constraint (docs/errata.md S4):
/// |eᵀė| > tolerance·|ė| + 16ε/h. The floor is what rounding alone gives eᵀė: one ulp of |e|² in
/// e_{n+1} is ε/(βh²) in ë_{n+1} and (γ/β)ε/h ≈ 2ε/h in ė_{n+1} (Sherif eqs. 59–60), and for α < 0
/// the scheme damps these into a walk whose largest |eᵀė| over 2·10⁴ float steps of a free body
/// measured 4–9 ε/h (α = −1/3 … −0.1); without it a slow body in float (|ė| ≈ 0.25 at 0.5 rad/s)
/// failed within ten steps at h = 1e-3. Compared multiplied by h: a division here cost the GPU
/// kernels 16 B of spills per step (nvcc 13.0, sm_90, HHT on a free body in double). A condition of
/// math/choose.hpp: a lane mask for a lane type.
template <class S>
QS_HD auto quaternion_drifted(const Vec4<S>& e, const Vec4<S>& ed, S tolerance, S h) {
  using math::is_less;  // unqualified below: a lane type's overload is found by argument
  using std::abs;
  return is_less(h * (tolerance * ed.norm()) + S(16) * std::numeric_limits<S>::epsilon(), h * abs(e.dot(ed)));
}

}  // namespace hht
}  // namespace quatstep
