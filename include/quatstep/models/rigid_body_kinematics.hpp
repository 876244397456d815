// What every integrator can tell about a rigid body, whatever its own state layout: the
// orientation, body angular velocity, and (for free bodies) position and velocity.
// The sampled channels are computed from this, so they mean the same thing for every method.
#pragma once

#include "quatstep/channels.hpp"
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

/// The channels of the rigid-body models (HeavyTop, FreeRigidBody declare which of them they have).
namespace rigid_body_channels {
inline constexpr Channel quaternion{"quaternion", 4, "orientation e0..e3, scalar first (body to space)", false};
inline constexpr Channel omega_body{"omega_body", 3, "angular velocity in body axes [rad/s]", false};
inline constexpr Channel position{"position", 3, "centre of mass, spatial axes [m]", false};
inline constexpr Channel velocity{"velocity", 3, "velocity of the centre of mass, spatial axes [m/s]", false};
inline constexpr Channel energy{"energy", 1, "kinetic + gravitational potential energy [J]", false};
inline constexpr Channel angular_momentum{
    "angular_momentum", 3, "spatial angular momentum about the fixed point (free body: the origin) [kg m^2/s]", false};
inline constexpr Channel constraint_violation{"constraint_violation", 1, "| |e|^2 - 1 |", false};
}  // namespace rigid_body_channels

}  // namespace quatstep
