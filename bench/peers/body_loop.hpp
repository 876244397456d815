// A peer body's life in one pass, as quatstep's advance_body (ensemble.hpp): load (q, ω) and the
// parameters from struct-of-arrays, loop the steps in registers, store. The CPU walks the bodies
// with OpenMP, the GPU with one thread per body; the per-body code is this one function.
// Layout (quatstep::SoaView): state components q0..q3, ω1..ω3 (7), parameters J1..J3, τ1..τ3 (6).
#pragma once

#include "quatstep/ensemble.hpp"
#include "rotation_ode.hpp"

namespace quatstep::peers {

inline constexpr int state_components = 7;
inline constexpr int param_components = 6;

template <class S>
QS_HD RotationState<S> load_state(const SoaView<S>& x, index_t i) {
  return {Vec4<S>(x(0, i), x(1, i), x(2, i), x(3, i)), Vec3<S>(x(4, i), x(5, i), x(6, i))};
}

template <class S>
QS_HD void store_state(const SoaView<S>& x, index_t i, const RotationState<S>& s) {
  for (int c = 0; c < 4; ++c) x(c, i) = s.q[c];
  for (int c = 0; c < 3; ++c) x(4 + c, i) = s.w[c];
}

template <class S>
QS_HD RotationParams<S> load_params(const SoaView<S>& p, index_t i) {
  return {Vec3<S>(p(0, i), p(1, i), p(2, i)), Vec3<S>(p(3, i), p(4, i), p(5, i))};
}

template <class S>
QS_HD void store_params(const SoaView<S>& p, index_t i, const RotationParams<S>& r) {
  for (int c = 0; c < 3; ++c) p(c, i) = r.inertia[c];
  for (int c = 0; c < 3; ++c) p(3 + c, i) = r.torque[c];
}

/// `steps` steps of size h of body i with the per-body step `step` (Rk4Step, SemiImplicitEulerStep).
template <class Step, class S>
QS_HD void advance_peer_body(const Step& step, const SoaView<S>& x, const SoaView<S>& p, index_t i, S h,
                             index_t steps) {
  const RotationParams<S> params = load_params(p, i);
  RotationState<S> s = load_state(x, i);
  for (index_t k = 0; k < steps; ++k) step(params, s, h);
  store_state(x, i, s);
}

}  // namespace quatstep::peers
