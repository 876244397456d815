// FreeRigidBody: translation of the centre of mass plus rotation about it. Gravity and a force
// profile act at the centre of mass; torques as in HeavyTop (no gravity moment).
//
// DAE form: q = (r, e) ∈ R⁷ (Sherif §9 ordering r, e), n = 7, one constraint C = eᵀe − 1.
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
struct FreeRigidBody {
  using Scalar = S;
  static constexpr int n = 7;
  static constexpr int m = 1;
  static constexpr int n_quaternions = 1;
  static constexpr bool translates = true;
  static constexpr int quat = 3;  ///< offset of e in q
  QS_HD static constexpr int quaternion_offset(int) { return quat; }
  using VecN = Vec<S, 7>;
  using MatN = Mat<S, 7, 7>;

  Mat3<S> inertia = Mat3<S>::Identity();  ///< about the centre of mass, body axes
  S mass = S(1);
  Vec3<S> gravity = Vec3<S>::Zero();
  TimeProfile<S> force_profile;  ///< spatial force at the centre of mass
  RigidBodyLoads<S> loads;       ///< torques only (lever = 0)

  /// A body with no loads of its own, only inertia and mass: a DEM particle, whose torques and
  /// forces all come from the coupled step (coupled_step.hpp reads these two from arrays of their
  /// own instead of the whole model).
  QS_HD static FreeRigidBody unloaded(const Mat3<S>& inertia, S mass) {
    FreeRigidBody m;
    m.inertia = inertia;
    m.mass = mass;
    return m;
  }
  /// Whether this body is anything but `unloaded(inertia, mass)`, bit for bit (gravity, a force or
  /// torque profile, even a zero one with a window of its own).
  bool has_own_loads() const {
    static_assert(sizeof(FreeRigidBody) % sizeof(S) == 0, "scalars only, no padding: compared as bytes");
    const FreeRigidBody bare = unloaded(inertia, mass);
    return std::memcmp(this, &bare, sizeof(FreeRigidBody)) != 0;
  }

  /// This body with its time-dependent force and torques held at their values at t (see HeavyTop).
  QS_HD FreeRigidBody held_at(S t) const {
    FreeRigidBody m = *this;
    m.force_profile = force_profile.held_at(t);
    m.loads = loads.held_at(t);
    return m;
  }
  /// The longest step from t that respects the loads' windows (TimeProfile::step_limit; +∞ without
  /// windows): adaptive steps keep to it.
  QS_HD S load_step_limit(S t) const {
    const S f = force_profile.step_limit(t), l = loads.step_limit(t);
    return f < l ? f : l;
  }

  // ---------------------------------------------------------------- Lie-group interface
  QS_HD Vec3<S> body_torque(const Vec4<S>& e, S t) const { return loads.torque(e, t); }
  QS_HD Mat3<S> body_torque_dphi(const Vec4<S>& e, S t) const {
    return loads.torque_dphi(e, t);
  }
  QS_HD Vec3<S> translational_force(S t) const { return mass * gravity + force_profile(t); }

  // ---------------------------------------------------------------- DAE interface
  QS_HD static Vec4<S> e_of(const VecN& q) { return q.template segment<4>(quat); }

  QS_HD MatN mass_matrix_block(const Mat4<S>& rot) const {
    MatN M = MatN::Zero();
    M.template topLeftCorner<3, 3>() = mass * Mat3<S>::Identity();
    M.template bottomRightCorner<4, 4>() = rot;
    return M;
  }
  /// diag(m I₃, 4 G(e_l)ᵀ J G(e_r)), bilinear in the Euler parameters as HeavyTop's.
  QS_HD MatN bilinear_mass_matrix(const VecN& ql, const VecN& qr) const {
    return mass_matrix_block(euler_parameters::mass(inertia, e_of(ql), e_of(qr)));
  }
  QS_HD VecN mass_times(const VecN& ql, const VecN& qr, const VecN& a) const {
    VecN r;
    r.template head<3>() = mass * a.template head<3>();
    r.template tail<4>() = euler_parameters::mass_times(inertia, e_of(ql), e_of(qr), e_of(a));
    return r;
  }
  /// ∂(M(ql, qr) a) along (δql, δqr, δa).
  QS_HD VecN mass_times_derivative(const VecN& ql, const VecN& qr, const VecN& a, const VecN& dql, const VecN& dqr,
                                   const VecN& da) const {
    VecN r;
    r.template head<3>() = mass * da.template head<3>();
    r.template tail<4>() =
        euler_parameters::mass_times_derivative(inertia, e_of(ql), e_of(qr), e_of(a), e_of(dql), e_of(dqr), e_of(da));
    return r;
  }
  /// Q(q, q̇, t) linearised: `.value`, and Q_q δq + Q_q̇ δq̇ as the sum of
  /// `.derivative_term<T>(δq, δq̇)` over T < terms (RotationalForce; the force at the centre of
  /// mass depends on neither).
  struct LinearizedForce {
    RotationalForce<S> rotation;
    VecN value;
    static constexpr int terms = RotationalForce<S>::terms;
    template <int T>
    QS_HD VecN derivative_term(const VecN& dq, const VecN& dv) const {
      VecN d;
      d.template head<3>().setZero();
      d.template tail<4>() = rotation.template derivative_term<T>(e_of(dq), e_of(dv));
      return d;
    }
  };
  QS_HD LinearizedForce linearized_force(const VecN& q, const VecN& v, S t) const {
    LinearizedForce f{RotationalForce<S>(inertia, loads, e_of(q), e_of(v), t), VecN()};
    f.value.template head<3>() = translational_force(t);
    f.value.template tail<4>() = f.rotation.value;
    return f;
  }
  QS_HD VecN force(const VecN& q, const VecN& v, S t) const { return linearized_force(q, v, t).value; }
  QS_HD Vec<S, 1> constraint(const VecN& q) const { return Vec<S, 1>(e_of(q).squaredNorm() - S(1)); }
  QS_HD Mat<S, 1, 7> constraint_jacobian(const VecN& q) const {
    Mat<S, 1, 7> c = Mat<S, 1, 7>::Zero();
    c.template tail<4>() = S(2) * e_of(q).transpose();
    return c;
  }
  /// ∂(C_qᵀ λ)/∂q δq.
  QS_HD VecN constraint_force_derivative(const VecN&, const Vec<S, 1>& lambda, const VecN& dq) const {
    VecN d;
    d.template head<3>().setZero();
    d.template tail<4>() = S(2) * lambda[0] * e_of(dq);
    return d;
  }
  QS_HD Vec<S, 1> constraint_acceleration_rhs(const VecN&, const VecN& v) const {
    return Vec<S, 1>(S(-2) * e_of(v).squaredNorm());
  }

  // ---------------------------------------------------------------- kinematics and invariants
  QS_HD RigidBodyKinematics<S> kinematics_from_dae(const VecN& q, const VecN& v) const {
    RigidBodyKinematics<S> k;
    k.quaternion = e_of(q);
    k.omega_body = euler_parameters::body_rate(k.quaternion, e_of(v));
    k.position = q.template head<3>();
    k.velocity = v.template head<3>();
    return k;
  }
  QS_HD void dae_from_kinematics(const RigidBodyKinematics<S>& k, VecN& q, VecN& v) const {
    q.template head<3>() = k.position;
    q.template tail<4>() = k.quaternion;
    v.template head<3>() = k.velocity;
    v.template tail<4>() = euler_parameters::rate_from_body(k.quaternion, k.omega_body);
  }
  QS_HD RigidBodyObservables<S> observables(const RigidBodyKinematics<S>& k) const {
    RigidBodyObservables<S> o;
    const Vec3<S> Jw = inertia * k.omega_body;
    o.energy = S(0.5) * k.omega_body.dot(Jw) + S(0.5) * mass * k.velocity.squaredNorm() -
               mass * gravity.dot(k.position);
    o.angular_momentum = rotation_matrix(k.quaternion) * Jw + mass * k.position.cross(k.velocity);
    o.constraint_violation = Eigen::numext::abs(k.quaternion.squaredNorm() - S(1));
    return o;
  }

  // ---------------------------------------------------------------- sampled channels (channels.hpp)
  static constexpr std::array channels{rigid_body_channels::quaternion,       rigid_body_channels::omega_body,
                                         rigid_body_channels::position,         rigid_body_channels::velocity,
                                         rigid_body_channels::energy,           rigid_body_channels::angular_momentum,
                                         rigid_body_channels::constraint_violation};
  /// The values of `channels`, in order, to w.
  template <class W>
  QS_HD void observe(const RigidBodyKinematics<S>& k, W& w) const {
    const RigidBodyObservables<S> o = observables(k);
    w(k.quaternion), w(k.omega_body), w(k.position), w(k.velocity), w(o.energy), w(o.angular_momentum),
        w(o.constraint_violation);
  }
};

/// The library-path check of a body built in code (host/body_validation.hpp): "field: problem" or "".
template <class S>
std::string model_problem(const FreeRigidBody<S>& m) {
  if (!(m.mass > S(0)) || !std::isfinite(double(m.mass))) return "mass: must be finite and > 0";
  if (!validation::all_finite(m.gravity)) return "gravity: not finite";
  if (std::string p = validation::inertia_problem(m.inertia); !p.empty()) return "inertia: " + p;
  if (std::string p = validation::profile_problem(m.loads.body_torque); !p.empty()) return "loads.body_torque: " + p;
  if (std::string p = validation::profile_problem(m.loads.spatial_torque); !p.empty())
    return "loads.spatial_torque: " + p;
  if (std::string p = validation::profile_problem(m.force_profile); !p.empty()) return "force_profile: " + p;
  return {};
}

// ---------------------------------------------------------------- registry entry
/// A free rigid body's numbers in a scenario.
struct FreeRigidBodyParameters {
  std::array<double, 3> inertia{};
  double mass = 1;
  std::array<double, 3> force{};
  ProfileParameters force_profile;
  RotationLoadParameters loads;
  RotationInitialParameters initial;
  std::array<double, 3> position{};
  std::array<double, 3> velocity{};

  template <class Keys>
  void describe(Keys& k) {
    k.required("model.inertia", inertia, "principal moments of inertia about the centre of mass, body axes [kg m^2]",
               keys::positive);
    k("model.mass", mass, "mass [kg]", keys::positive);
    k("model.force", force, "constant spatial force at the centre of mass [N] (the constant of its profile)");
    force_profile.describe(k, "model.force_profile");
    loads.describe(k);
    initial.describe(k);
    k("initial.position", position, "centre of mass, spatial axes [m]");
    k("initial.velocity", velocity, "velocity of the centre of mass, spatial axes [m/s]");
  }
};

/// [model] type = "free_rigid_body".
struct FreeRigidBodyModel {
  static constexpr ModelInfo info{"free_rigid_body", "FreeRigidBody<S>", "free_rigid_body.hpp",
                                  "translation of the centre of mass and rotation about it; gravity and a force "
                                  "profile at the centre of mass, torques as for heavy_top",
                                  "gravity = [0.0, 0.0, -9.81]\nforce = [0.1, 0.0, 0.0]\n"};
  template <class S>
  using Model = FreeRigidBody<S>;
  using Parameters = FreeRigidBodyParameters;

  /// The rules across keys (each key's own range is checked from describe()).
  static std::optional<validation::Problem> check(const Parameters& p) {
    if (std::string m = validation::principal_moments_problem(p.inertia); !m.empty())
      return validation::Problem{"model.inertia", m};
    if (std::string w = p.force_profile.window_problem(); !w.empty())
      return validation::Problem{"model.force_profile.end", w};
    if (auto w = p.loads.problem()) return w;
    return p.initial.problem();
  }
  template <class S>
  static FreeRigidBody<S> build(const Parameters& p) {
    FreeRigidBody<S> m;
    m.inertia = vec3<S>(p.inertia).asDiagonal();
    m.mass = S(p.mass);
    m.gravity = vec3<S>(p.loads.gravity);
    m.force_profile = time_profile<S>(p.force, p.force_profile);
    set_torques(p.loads, m.loads);
    return m;
  }
  template <class S>
  static RigidBodyKinematics<S> initial(const Parameters& p) {
    return initial_kinematics<S>(p.initial, p.position, p.velocity);
  }
};

}  // namespace quatstep
