// Translation of a free body's centre of mass in the conserving schemes: with a constant mass
// matrix the Livens and Hamiltonian midpoint/EM schemes all reduce to (Kinon eq. 85)
//   m(v¹ − v⁰) = h F(t^{n+½}),  r¹ − r⁰ = h(v⁰ + v¹)/2,
// F = m g + f(t); the gravity potential −m g·r is linear, so its discrete gradient is exact and
// ½m|v|² − m g·r is conserved to round-off when f = 0.
#pragma once

#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep {

/// Rigid-body models carry n_quaternions; the Livens/Hamiltonian schemes treat their rotation.
template <class Model, class = void>
struct is_rigid_body_model : std::false_type {};
template <class Model>
struct is_rigid_body_model<Model, std::void_t<decltype(Model::n_quaternions)>> : std::true_type {};

/// Whether a model has a translating centre of mass (FreeRigidBody).
template <class Model>
QS_HD constexpr bool model_translates() {
  if constexpr (is_rigid_body_model<Model>::value) return Model::translates;
  else return false;
}

template <class Model, class S>
QS_HD void midpoint_translation(const Model& model, Vec3<S>& r, Vec3<S>& v, S t, S h) {
  const Vec3<S> v1 = v + (h / model.mass) * model.translational_force(t + S(0.5) * h);
  r += S(0.5) * h * (v + v1);
  v = v1;
}

/// ½m|v|² − m g·r.
template <class Model, class S>
QS_HD S translational_energy(const Model& model, const Vec3<S>& r, const Vec3<S>& v) {
  return S(0.5) * model.mass * v.squaredNorm() - model.mass * model.gravity.dot(r);
}

}  // namespace quatstep
