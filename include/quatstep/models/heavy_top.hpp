// HeavyTop: a rigid body rotating about a fixed point (Sherif §10.1, Kinon §5.4), with gravity at
// a body-fixed centre of mass and optional body-frame / spatial torques given as time profiles.
// With a zero lever it is a torque-driven body about its centre of mass (Sherif §3–7 spin-up).
//
// DAE form (Sherif eq. 57): q = e ∈ R⁴, n = 4, one constraint C = eᵀe − 1 (Sherif eq. 5).
#pragma once

#include <array>
#include <cstring>

#include "quatstep/models/euler_parameter_block.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/models/rigid_body_loads.hpp"
#include "quatstep/models/rigid_body_parameters.hpp"
#include "quatstep/models/rotational_force.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

template <class S>
struct HeavyTop {
  using Scalar = S;
  static constexpr int n = 4;  ///< coordinates
  static constexpr int m = 1;  ///< constraints
  static constexpr int n_quaternions = 1;
  static constexpr bool translates = false;
  QS_HD static constexpr int quaternion_offset(int) { return 0; }

  Mat3<S> inertia = Mat3<S>::Identity();  ///< about the fixed point, body axes
  RigidBodyLoads<S> loads;                ///< loads.lever = centre of mass in body axes

  /// Principal inertia about the centre of mass shifted to the fixed point (parallel axes;
  /// docs/errata.md S2): J_O = J_cm + m(|x|² I − x xᵀ).
  QS_HD static HeavyTop from_center_of_mass(const Vec3<S>& principal_inertia_cm, S mass,
                                            const Vec3<S>& center_of_mass, const Vec3<S>& gravity) {
    HeavyTop t;
    t.inertia = principal_inertia_cm.asDiagonal();
    t.inertia += mass * (center_of_mass.squaredNorm() * Mat3<S>::Identity() -
                         center_of_mass * center_of_mass.transpose());
    t.loads.mass = mass;
    t.loads.lever = center_of_mass;
    t.loads.gravity = gravity;
    return t;
  }

  /// A body with no loads of its own about its centre of mass (no lever, no gravity): a DEM
  /// particle whose orientation alone is integrated, all of its torques from the coupled step
  /// (coupled_step.hpp reads only its inertia from an array of its own). The mass is kept as given;
  /// without gravity it acts on nothing.
  QS_HD static HeavyTop unloaded(const Mat3<S>& inertia, S mass) {
    HeavyTop t;
    t.inertia = inertia;
    t.loads.mass = mass;
    return t;
  }
  /// Whether this top is anything but `unloaded(inertia, loads.mass)`, bit for bit (a lever,
  /// gravity, a torque profile, even a zero one with a window of its own).
  bool has_own_loads() const {
    static_assert(sizeof(HeavyTop) % sizeof(S) == 0, "scalars only, no padding: compared as bytes");
    const HeavyTop bare = unloaded(inertia, loads.mass);
    return std::memcmp(this, &bare, sizeof(HeavyTop)) != 0;
  }

  /// This top with its time-dependent loads held at their values at t: what an implicit step's
  /// Newton iterations at t_{n+1} evaluate (profiles once per step, and fewer live registers).
  QS_HD HeavyTop held_at(S t) const {
    HeavyTop m = *this;
    m.loads = loads.held_at(t);
    return m;
  }
  /// The longest step from t that respects the loads' windows (TimeProfile::step_limit; +∞ without
  /// windows): adaptive steps keep to it.
  QS_HD S load_step_limit(S t) const { return loads.step_limit(t); }

  // ---------------------------------------------------------------- Lie-group interface
  QS_HD Vec3<S> body_torque(const Vec4<S>& e, S t) const { return loads.torque(e, t); }
  /// ∂τ/∂φ for the body-frame perturbation e ∘ exp((0, φ/2)): δe = ½ G(e)ᵀ δφ.
  QS_HD Mat3<S> body_torque_dphi(const Vec4<S>& e, S t) const {
    return loads.torque_dphi(e, t);
  }

  // ---------------------------------------------------------------- DAE interface (Sherif eq. 57)
  /// M(q_l, q_r) = 4 G(q_l)ᵀ J G(q_r), bilinear (M(q, q) is the mass matrix; the second-order HHT
  /// shifts the left factor). Not the one-argument mass_matrix(q) of the generic Livens models.
  QS_HD Mat4<S> bilinear_mass_matrix(const Vec4<S>& ql, const Vec4<S>& qr) const {
    return euler_parameters::mass(inertia, ql, qr);
  }
  QS_HD Vec4<S> mass_times(const Vec4<S>& ql, const Vec4<S>& qr, const Vec4<S>& a) const {
    return euler_parameters::mass_times(inertia, ql, qr, a);
  }
  /// ∂(M(ql, qr) a) along (δql, δqr, δa).
  QS_HD Vec4<S> mass_times_derivative(const Vec4<S>& ql, const Vec4<S>& qr, const Vec4<S>& a, const Vec4<S>& dql,
                                      const Vec4<S>& dqr, const Vec4<S>& da) const {
    return euler_parameters::mass_times_derivative(inertia, ql, qr, a, dql, dqr, da);
  }
  /// Q(q, q̇, t) linearised: `.value`, and Q_q δq + Q_q̇ δq̇ as the sum of
  /// `.derivative_term<T>(δq, δq̇)` over T < terms (RotationalForce).
  QS_HD RotationalForce<S> linearized_force(const Vec4<S>& q, const Vec4<S>& v, S t) const {
    return RotationalForce<S>(inertia, loads, q, v, t);
  }
  QS_HD Vec4<S> force(const Vec4<S>& q, const Vec4<S>& v, S t) const { return linearized_force(q, v, t).value; }
  QS_HD Vec<S, 1> constraint(const Vec4<S>& q) const { return Vec<S, 1>(q.squaredNorm() - S(1)); }
  QS_HD Mat<S, 1, 4> constraint_jacobian(const Vec4<S>& q) const { return S(2) * q.transpose(); }
  /// ∂(C_qᵀ λ)/∂q δq.
  QS_HD Vec4<S> constraint_force_derivative(const Vec4<S>&, const Vec<S, 1>& lambda, const Vec4<S>& dq) const {
    return S(2) * lambda[0] * dq;
  }
  /// −(C_q q̇)_q q̇: right-hand side of the acceleration-level constraint.
  QS_HD Vec<S, 1> constraint_acceleration_rhs(const Vec4<S>&, const Vec4<S>& v) const {
    return Vec<S, 1>(S(-2) * v.squaredNorm());
  }

  // ---------------------------------------------------------------- kinematics and invariants
  QS_HD RigidBodyKinematics<S> kinematics_from_dae(const Vec4<S>& q, const Vec4<S>& v) const {
    RigidBodyKinematics<S> k;
    k.quaternion = q;
    k.omega_body = euler_parameters::body_rate(q, v);
    return k;
  }
  /// Coordinates and velocities of the DAE form from kinematics (ė on the velocity constraint).
  QS_HD void dae_from_kinematics(const RigidBodyKinematics<S>& k, Vec4<S>& q, Vec4<S>& v) const {
    q = k.quaternion;
    v = euler_parameters::rate_from_body(q, k.omega_body);
  }
  QS_HD RigidBodyObservables<S> observables(const RigidBodyKinematics<S>& k) const {
    RigidBodyObservables<S> o;
    const Vec3<S> Jw = inertia * k.omega_body;
    o.energy = S(0.5) * k.omega_body.dot(Jw) + loads.potential(k.quaternion);
    o.angular_momentum = rotation_matrix(k.quaternion) * Jw;
    o.constraint_violation = Eigen::numext::abs(k.quaternion.squaredNorm() - S(1));
    return o;
  }

  // ---------------------------------------------------------------- sampled channels (channels.hpp)
  static constexpr std::array channels{rigid_body_channels::quaternion, rigid_body_channels::omega_body,
                                         rigid_body_channels::energy, rigid_body_channels::angular_momentum,
                                         rigid_body_channels::constraint_violation};
  /// The values of `channels`, in order, to w.
  template <class W>
  QS_HD void observe(const RigidBodyKinematics<S>& k, W& w) const {
    const RigidBodyObservables<S> o = observables(k);
    w(k.quaternion), w(k.omega_body), w(o.energy), w(o.angular_momentum), w(o.constraint_violation);
  }
};

/// The library-path check of a top built in code (host/body_validation.hpp): "field: problem" or "",
/// the field as the C++ member (loads.lever, the scenario's center_of_mass).
template <class S>
std::string model_problem(const HeavyTop<S>& m) {
  if (!(m.loads.mass >= S(0)) || !std::isfinite(double(m.loads.mass))) return "loads.mass: must be finite and >= 0";
  if (!validation::all_finite(m.loads.lever)) return "loads.lever (the centre of mass): not finite";
  if (!validation::all_finite(m.loads.gravity)) return "loads.gravity: not finite";
  if (m.loads.mass == S(0) && m.loads.lever != Vec3<S>::Zero() && m.loads.gravity != Vec3<S>::Zero())
    return "loads.mass: 0 with the centre of mass (loads.lever) off the fixed point: gravity would not act";
  if (std::string p = validation::inertia_problem(m.inertia); !p.empty()) return "inertia: " + p;
  if (std::string p = validation::profile_problem(m.loads.body_torque); !p.empty()) return "loads.body_torque: " + p;
  if (std::string p = validation::profile_problem(m.loads.spatial_torque); !p.empty())
    return "loads.spatial_torque: " + p;
  return {};
}

// ---------------------------------------------------------------- registry entry
/// A heavy top's numbers in a scenario.
struct HeavyTopParameters {
  std::array<double, 3> inertia{};
  double mass = 0;
  std::array<double, 3> center_of_mass{};
  RotationLoadParameters loads;
  RotationInitialParameters initial;

  template <class Keys>
  void describe(Keys& k) {
    k.required("model.inertia", inertia, "principal moments of inertia about the centre of mass, body axes [kg m^2]",
               keys::positive);
    k("model.mass", mass, "mass [kg]; > 0 when center_of_mass is not zero", keys::non_negative);
    k("model.center_of_mass", center_of_mass, "fixed point -> centre of mass, body axes [m]");
    loads.describe(k);
    initial.describe(k);
  }
};

/// [model] type = "heavy_top".
struct HeavyTopModel {
  static constexpr ModelInfo info{"heavy_top", "HeavyTop<S>", "heavy_top.hpp",
                                  "rigid body about a fixed point, gravity at the centre of mass (Sherif §10.1, "
                                  "Kinon §5.4); with a zero lever a torque-driven body about its centre of mass",
                                  "center_of_mass = [0.0, 0.0, 0.3]\ngravity = [0.0, 0.0, -9.81]\n"};
  template <class S>
  using Model = HeavyTop<S>;
  using Parameters = HeavyTopParameters;

  /// The rules across keys (each key's own range is checked from describe()).
  static std::optional<validation::Problem> check(const Parameters& p) {
    if (std::string m = validation::principal_moments_problem(p.inertia); !m.empty())
      return validation::Problem{"model.inertia", m};
    if (p.center_of_mass != std::array<double, 3>{} && !(p.mass > 0))
      return validation::Problem{"model.mass", validation::format(p.mass) + ", must be > 0 when model.center_of_mass is not zero"};
    if (auto w = p.loads.problem()) return w;
    return p.initial.problem();
  }
  /// The inertia in the file is about the centre of mass; the model's about the fixed point.
  template <class S>
  static HeavyTop<S> build(const Parameters& p) {
    auto m = HeavyTop<S>::from_center_of_mass(vec3<S>(p.inertia), S(p.mass), vec3<S>(p.center_of_mass),
                                              vec3<S>(p.loads.gravity));
    set_torques(p.loads, m.loads);
    return m;
  }
  template <class S>
  static RigidBodyKinematics<S> initial(const Parameters& p) {
    return initial_kinematics<S>(p.initial);
  }
};

}  // namespace quatstep
