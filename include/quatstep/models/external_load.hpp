// A load supplied from outside for one step — a DEM code's contact torque and force — held constant
// over the step (zero-order hold): it is added to the constant part of the model's spatial torque
// and, for a body that translates, of its force at the centre of mass.
#pragma once

#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep {

/// The heavy top has no translation: a force is the caller's error (batch_stepper.cuh rejects it).
template <class S>
QS_HD HeavyTop<S> with_external_load(HeavyTop<S> m, const Vec3<S>& spatial_torque, const Vec3<S>&) {
  m.loads.spatial_torque.constant += spatial_torque;
  return m;
}

template <class S>
QS_HD FreeRigidBody<S> with_external_load(FreeRigidBody<S> m, const Vec3<S>& spatial_torque, const Vec3<S>& force) {
  m.loads.spatial_torque.constant += spatial_torque;
  m.force_profile.constant += force;
  return m;
}

}  // namespace quatstep
