// The per-body numbers of the rigid-body models as a scenario gives them ([model] and [initial]):
// plain doubles, so that a scenario's ensemble tables can sweep, draw and override any of them by
// key, each declared once with its key, one-line doc and allowed range by a describe() of the shape
// of settings_keys.hpp (`k(key, member, doc, range)`, `k.required(...)` for keys without a default).
// What the two models share is here; each model's own parameters and its registry entry are next to
// the model (heavy_top.hpp, free_rigid_body.hpp).
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/models/rigid_body_loads.hpp"
#include "quatstep/models/validation.hpp"
#include "quatstep/settings_keys.hpp"

namespace quatstep {

/// The time-dependent part of a TimeProfile (torque_profile.hpp); its constant is the load's own key.
struct ProfileParameters {
  std::array<double, 3> ramp{};
  std::array<double, 3> amplitude{};
  double frequency = 0;
  double phase = 0;
  double begin = -keys::infinity, end = keys::infinity;

  /// Every key under `key` ("model.body_torque_profile.ramp", … ".begin", ".end").
  template <class Keys>
  void describe(Keys& k, const std::string& key) {
    describe_shape(k, key);
    describe_window(k, key + ".begin", key + ".end");
  }
  template <class Keys>
  void describe_shape(Keys& k, const std::string& key) {
    k(key + ".ramp", ramp, "value(t) = constant + ramp*t + amplitude*sin(frequency*t + phase): ramp per second");
    k(key + ".amplitude", amplitude, "amplitude of the sinusoid");
    k(key + ".frequency", frequency, "angular frequency of the sinusoid [rad/s]");
    k(key + ".phase", phase, "phase of the sinusoid [rad]");
  }
  /// The window begin <= t < end outside which the value is 0 (a pulse; see torque_profile.hpp for
  /// the smooth one).
  template <class Keys>
  void describe_window(Keys& k, const std::string& begin_key, const std::string& end_key) {
    // A file's number is finite (the reader's rule); the defaults are the unbounded window.
    constexpr keys::Range time{-keys::infinity, keys::infinity, true, true, "a time"};
    k(begin_key, begin, "acts from this time on (default: always)", time);
    k(end_key, end, "until this time, excluded (default: never stops); >= begin", time);
  }
  /// The window's rule (begin <= end), or "".
  std::string window_problem() const {
    return begin <= end ? std::string() : validation::format(end) + ", must be >= begin (" + validation::format(begin) + ")";
  }
};

/// Gravity and the prescribed torques, shared by every rigid-body model.
struct RotationLoadParameters {
  std::array<double, 3> gravity{};
  std::array<double, 3> body_torque{};
  std::array<double, 3> spatial_torque{};
  ProfileParameters body_torque_profile, spatial_torque_profile;

  template <class Keys>
  void describe(Keys& k) {
    k("model.gravity", gravity, "acceleration of gravity, spatial axes [m/s^2]");
    k("model.body_torque", body_torque, "constant torque in body axes [N m] (the constant of its profile)");
    k("model.spatial_torque", spatial_torque, "constant torque in spatial axes [N m] (the constant of its profile)");
    body_torque_profile.describe(k, "model.body_torque_profile");
    spatial_torque_profile.describe(k, "model.spatial_torque_profile");
  }
  /// The rule across the torque profiles' keys (begin <= end).
  std::optional<validation::Problem> problem() const {
    if (std::string w = body_torque_profile.window_problem(); !w.empty())
      return validation::Problem{"model.body_torque_profile.end", w};
    if (std::string w = spatial_torque_profile.window_problem(); !w.empty())
      return validation::Problem{"model.spatial_torque_profile.end", w};
    return std::nullopt;
  }
};

/// The initial orientation and rate of every rigid-body model.
struct RotationInitialParameters {
  std::array<double, 4> quaternion{1, 0, 0, 0};
  std::array<double, 3> omega_body{};

  template <class Keys>
  void describe(Keys& k) {
    k("initial.quaternion", quaternion, "orientation, scalar first; within 1e-6 of unit norm (then normalised)");
    k("initial.omega_body", omega_body, "body angular velocity [rad/s]");
  }
  /// The scenario's rule on the initial orientation (models/validation.hpp).
  std::optional<validation::Problem> problem() const {
    if (std::string p = validation::unit_quaternion_problem(quaternion); !p.empty())
      return validation::Problem{"initial.quaternion", p};
    return std::nullopt;
  }
};

template <class S>
Vec3<S> vec3(const std::array<double, 3>& a) {
  return Vec3<S>(S(a[0]), S(a[1]), S(a[2]));
}

template <class S>
TimeProfile<S> time_profile(const std::array<double, 3>& constant, const ProfileParameters& p) {
  TimeProfile<S> f;
  f.constant = vec3<S>(constant);
  f.ramp = vec3<S>(p.ramp);
  f.amplitude = vec3<S>(p.amplitude);
  f.frequency = S(p.frequency);
  f.phase = S(p.phase);
  f.begin = S(p.begin);
  f.end = S(p.end);
  return f;
}

/// The torques of `p` into `loads` (gravity is the model's: HeavyTop acts it at the lever,
/// FreeRigidBody at the centre of mass).
template <class S>
void set_torques(const RotationLoadParameters& p, RigidBodyLoads<S>& loads) {
  loads.body_torque = time_profile<S>(p.body_torque, p.body_torque_profile);
  loads.spatial_torque = time_profile<S>(p.spatial_torque, p.spatial_torque_profile);
}

/// Initial kinematics with the quaternion normalised (the scenario accepts |‖q‖ − 1| ≤ 1e-6).
template <class S>
RigidBodyKinematics<S> initial_kinematics(const RotationInitialParameters& p, const std::array<double, 3>& position = {},
                                          const std::array<double, 3>& velocity = {}) {
  double norm2 = 0;
  for (double c : p.quaternion) norm2 += c * c;
  const double norm = std::sqrt(norm2);
  const Vec4<S> q(S(p.quaternion[0] / norm), S(p.quaternion[1] / norm), S(p.quaternion[2] / norm), S(p.quaternion[3] / norm));
  return RigidBodyKinematics<S>::of(q, vec3<S>(p.omega_body), vec3<S>(position), vec3<S>(velocity));
}

/// The library-path check of an initial state (host/body_validation.hpp).
template <class S>
std::string kinematics_problem(const RigidBodyKinematics<S>& k) {
  if (!validation::all_finite(k.quaternion)) return "quaternion: not finite";
  if (std::string p = validation::unit_quaternion_problem(k.quaternion); !p.empty()) return "quaternion: " + p;
  if (!validation::all_finite(k.omega_body)) return "omega_body: not finite";
  if (!validation::all_finite(k.position)) return "position: not finite";
  if (!validation::all_finite(k.velocity)) return "velocity: not finite";
  return {};
}

}  // namespace quatstep
