// A small mechanism as DATA: rigid bodies (Sherif §9 coordinates q_b = (r_b, e_b), 7 per body),
// joints between two bodies or a body and the ground, point-to-point spring–dampers, gravity, and
// body forces and torques given as time profiles switched on over a time window. A new mechanism is
// a new value of this struct, not a new type: the sizes the GPU needs fixed are compile-time
// CAPACITIES (Capacity<…>), the actual counts are runtime members. Build one with MechanismBuilder
// (builder.hpp, host code), which checks the input and numbers the constraint rows.
//
// Joints (frames: an origin and axes x, y, z in body coordinates, or in space for the ground; z is
// the joint axis; "i" is side 0, "j" side 1):
//   spherical    p_i = p_j                                                         3 rows
//   revolute     p_i = p_j, z_i ⟂ x_j, z_i ⟂ y_j                                   5 rows
//                (+ driver: x_j at the angle θ(t) from x_i about z_i)             +1 row
//   universal    p_i = p_j, z_i ⟂ z_j (the cross's two arms)                        4 rows
//   cylindrical  z_i ⟂ x_j, z_i ⟂ y_j, x_i·(p_j − p_i) = y_i·(p_j − p_i) = 0         4 rows
//   prismatic    cylindrical + x_i ⟂ y_j (no rotation about z)                     5 rows
//   fixed        p_i = p_j, z_i ⟂ x_j, z_i ⟂ y_j, x_i ⟂ y_j                         6 rows
// (the classical Euler-parameter joint library: Nikravesh's spherical, dot-1 and dot-2 constraints;
// joints.hpp evaluates them). Each body adds its Euler-parameter constraint eᵀe − 1 = 0 (Sherif
// eq. 5), which the solvers keep with the body.
#pragma once

#include <limits>

#include "quatstep/math/trig.hpp"
#include "quatstep/models/free_rigid_body.hpp"

namespace quatstep::mechanism {

/// The body index of the ground in a joint or spring.
inline constexpr int ground = -1;

/// Compile-time capacities of a mechanism type: the most bodies, joints, joint constraint rows,
/// springs and timed loads its values may hold.
template <int Bodies, int Joints, int Rows, int Springs, int Loads>
struct Capacity {
  static constexpr int bodies = Bodies;
  static constexpr int joints = Joints;
  static constexpr int rows = Rows;
  static constexpr int springs = Springs;
  static constexpr int loads = Loads;
};

/// Up to 4 bodies: pendulums, slider-cranks, four-bars.
using SmallCapacity = Capacity<4, 8, 24, 4, 8>;
/// Up to 17 bodies and 104 joint rows: an inline-four or a V8 crank drive (Sherif §10.2).
using LargeCapacity = Capacity<17, 26, 104, 8, 24>;

enum class JointType : int { spherical, revolute, universal, prismatic, cylindrical, fixed };

inline const char* to_string(JointType t) {
  switch (t) {
    case JointType::spherical: return "spherical";
    case JointType::revolute: return "revolute";
    case JointType::universal: return "universal";
    case JointType::prismatic: return "prismatic";
    case JointType::cylindrical: return "cylindrical";
    case JointType::fixed: return "fixed";
  }
  return "unknown";
}

/// Constraint rows of a joint (the list above).
QS_HD constexpr int joint_rows(JointType t, bool driven) {
  switch (t) {
    case JointType::spherical: return 3;
    case JointType::revolute: return driven ? 6 : 5;
    case JointType::universal: return 4;
    case JointType::prismatic: return 5;
    case JointType::cylindrical: return 4;
    case JointType::fixed: return 6;
  }
  return 0;
}
/// The most rows a joint has.
inline constexpr int max_joint_rows = 6;

/// A joint frame on one side: origin and axes (columns x, y, z, orthonormal) in body coordinates
/// (in space for the ground).
template <class S>
struct JointFrame {
  Vec3<S> origin = Vec3<S>::Zero();
  Mat3<S> axes = Mat3<S>::Identity();
  QS_HD Vec3<S> x() const { return axes.col(0); }
  QS_HD Vec3<S> y() const { return axes.col(1); }
  QS_HD Vec3<S> z() const { return axes.col(2); }
};

template <class S>
struct Joint {
  JointType type = JointType::spherical;
  int body[2] = {ground, ground};  ///< side i, side j; `ground` for the ground
  JointFrame<S> frame[2];
  bool driven = false;    ///< revolute only: the angle of x_j from x_i about z_i is prescribed
  TimeProfile<S> angle;   ///< θ(t) = angle(t).x(): constant + ramp·t + amplitude·sin(ωt + φ) [rad]
  int rows = 0;           ///< constraint rows (joint_rows)
  int offset = 0;         ///< first row in the mechanism's joint rows

  /// θ, θ̇, θ̈ of the driver at t.
  QS_HD Vec3<S> driver_angle(S t) const {
    using math::cos;
    using math::sin;
    const S phase = angle.frequency * t + angle.phase;
    const S amp = angle.amplitude[0], w = angle.frequency;
    const S s = amp != S(0) ? sin(phase) : S(0), c = amp != S(0) ? cos(phase) : S(0);
    return Vec3<S>(angle.constant[0] + angle.ramp[0] * t + amp * s, angle.ramp[0] + amp * w * c, -amp * w * w * s);
  }
};

/// A linear spring and damper between two points: tension f = k (L − L₀) + c L̇ along the line
/// (L = |p_j − p_i|, which must stay > 0), potential ½ k (L − L₀)².
template <class S>
struct SpringDamper {
  int body[2] = {ground, ground};
  Vec3<S> point[2] = {Vec3<S>::Zero(), Vec3<S>::Zero()};  ///< in body coordinates (in space for the ground)
  S stiffness = S(0), damping = S(0), rest_length = S(0);
};

enum class LoadKind : int { force, body_torque, spatial_torque };

/// A force at a body's centre of mass (spatial axes) or a torque (body or spatial axes), given as a
/// time profile, acting in its window (TimeProfile::begin ≤ t < end). Several loads on one body add up.
template <class S>
struct TimedLoad {
  int body = 0;
  LoadKind kind = LoadKind::force;
  TimeProfile<S> profile;
};

/// One joint side on a body (the incidence list the solvers walk).
struct JointSide {
  int joint = 0, side = 0;
};

template <class S, class Cap>
struct Mechanism {
  using Scalar = S;
  using CapacityType = Cap;
  static constexpr int max_bodies = Cap::bodies;
  static constexpr int max_joints = Cap::joints;
  static constexpr int max_rows = Cap::rows;
  static constexpr int max_springs = Cap::springs;
  static constexpr int max_loads = Cap::loads;
  static constexpr int n_max = 7 * max_bodies;  ///< coordinates at capacity

  int n_bodies = 0, n_joints = 0, n_rows = 0, n_springs = 0, n_loads = 0;
  /// Mass, principal inertia about the centre of mass (diagonal), gravity; their force and torque
  /// profiles stay zero here: the timed loads fill them per step (bodies_at).
  FreeRigidBody<S> bodies[max_bodies];
  Joint<S> joints[max_joints];
  SpringDamper<S> springs[max_springs];
  TimedLoad<S> loads[max_loads];
  /// A length typical of the mechanism (largest joint or spring offset from a centre of mass): it
  /// converts translational accelerations into the angular units of the Newton norm.
  S length_scale = S(1);
  int n_incident[max_bodies] = {};
  JointSide incident[max_bodies][max_joints] = {};

  /// The bodies with their loads held at their values at t: an implicit step evaluates the loads
  /// of t_{n+1} once (Sherif eq. 20, docs/errata.md S8) and those of t_n once.
  struct Bodies {
    FreeRigidBody<S> body[max_bodies];
  };
  /// The longest step from t that respects every load's window (TimeProfile::step_limit; +∞
  /// without windows): adaptive steps keep to it.
  QS_HD S load_step_limit(S t) const {
    S limit = std::numeric_limits<S>::infinity();
    for (int l = 0; l < n_loads; ++l) {
      const S s = loads[l].profile.step_limit(t);
      limit = s < limit ? s : limit;
    }
    return limit;
  }
  QS_HD Bodies bodies_at(S t) const {
    Bodies held;
    for (int b = 0; b < n_bodies; ++b) held.body[b] = bodies[b];
    for (int l = 0; l < n_loads; ++l) {
      const TimedLoad<S>& load = loads[l];
      if (!load.profile.active(t)) continue;
      FreeRigidBody<S>& body = held.body[load.body];
      const Vec3<S> value = load.profile(t);
      switch (load.kind) {
        case LoadKind::force: body.force_profile.constant += value; break;
        case LoadKind::body_torque: body.loads.body_torque.constant += value; break;
        case LoadKind::spatial_torque: body.loads.spatial_torque.constant += value; break;
      }
    }
    return held;
  }
};

}  // namespace quatstep::mechanism
