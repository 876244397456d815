// What every integrator can tell about a rigid body, whatever its own state layout: the
// orientation, body angular velocity, and (for free bodies) position and velocity.
// The HDF5 observables are computed from this, so they mean the same thing for every method.
#pragma once

#include "quatstep/config.hpp"

namespace quatstep {

template <class S>
struct RigidBodyKinematics {
  Vec4<S> quaternion = Vec4<S>(S(1), S(0), S(0), S(0));
  Vec3<S> omega_body = Vec3<S>::Zero();
  Vec3<S> position = Vec3<S>::Zero();
  Vec3<S> velocity = Vec3<S>::Zero();

  QS_HD static RigidBodyKinematics of(const Vec4<S>& e, const Vec3<S>& w, const Vec3<S>& r, const Vec3<S>& v) {
    RigidBodyKinematics k;
    k.quaternion = e;
    k.omega_body = w;
    k.position = r;
    k.velocity = v;
    return k;
  }
};

template <class S>
struct RigidBodyObservables {
  S energy;                  ///< kinetic + gravitational potential
  Vec3<S> angular_momentum;  ///< spatial, about the fixed point (or the origin for free bodies)
  S constraint_violation;    ///< |eᵀe − 1|
};

}  // namespace quatstep
