// A load supplied from outside for one step — a DEM code's contact torque and force — held constant
// over the step (zero-order hold): it is added to the constant part of the model's spatial torque
// and, for a body that translates, of its force at the centre of mass. That part acts inside the
// profile's window only, so a model whose own spatial torque (or force) has a window cannot take
// loads from outside (external_load_problem; BatchStepper refuses it): the caller's loads would be
// dropped outside the window. A window of a zero profile is lifted.
#pragma once

#include <cmath>
#include <string>

#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep {

namespace detail {
template <class S>
QS_HD void add_held_load(TimeProfile<S>& profile, const Vec3<S>& load) {
  if (profile.is_zero()) profile.begin = S(-INFINITY), profile.end = S(INFINITY);
  profile.constant += load;
}
/// "" when the caller's load can be added to `profile` (named `field`), else why not.
template <class S>
std::string held_load_problem(const TimeProfile<S>& profile, const char* field) {
  if (profile.is_zero() || (profile.begin == S(-INFINITY) && profile.end == S(INFINITY))) return "";
  return std::string(field) + ": a window [" + validation::format(double(profile.begin)) + ", " +
         validation::format(double(profile.end)) +
         ") of its own, outside which the caller's loads, added to it, would not act (put the window's load into "
         "the caller's loads instead)";
}
}  // namespace detail

/// The heavy top has no translation: a force is the caller's error (batch_stepper.cuh rejects it).
template <class S>
QS_HD HeavyTop<S> with_external_load(HeavyTop<S> m, const Vec3<S>& spatial_torque, const Vec3<S>&) {
  detail::add_held_load(m.loads.spatial_torque, spatial_torque);
  return m;
}

template <class S>
QS_HD FreeRigidBody<S> with_external_load(FreeRigidBody<S> m, const Vec3<S>& spatial_torque, const Vec3<S>& force) {
  detail::add_held_load(m.loads.spatial_torque, spatial_torque);
  detail::add_held_load(m.force_profile, force);
  return m;
}

/// Why a model cannot take loads from outside ("" when it can).
template <class S>
std::string external_load_problem(const HeavyTop<S>& m) {
  return detail::held_load_problem(m.loads.spatial_torque, "loads.spatial_torque");
}
template <class S>
std::string external_load_problem(const FreeRigidBody<S>& m) {
  std::string p = detail::held_load_problem(m.loads.spatial_torque, "loads.spatial_torque");
  return p.empty() ? detail::held_load_problem(m.force_profile, "force_profile") : p;
}

}  // namespace quatstep
