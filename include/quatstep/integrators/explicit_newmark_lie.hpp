// Krysl's explicit Newmark for rotations (Krysl 2005, §3; docs/errata.md R1, R3):
//   Φ_h  (explicit midpoint Lie variant 2): impulse h T_t at the start of the step,
//        (1/h) I Ψ = exp[−skew(Ψ/2)](Π_t + h T_t),  Π_{t+h} = exp[−skew Ψ](Π_t + h T_t);
//   Φ*_h (variant 1, the adjoint): impulse h T_{t+h} at the end of the step,
//        (1/h) I Ψ = exp[−skew(Ψ/2)] Π_t,  Π_{t+h} = exp[−skew Ψ] Π_t + h T_{t+h}   (docs/errata.md R1);
//   Ξ_h = Φ*_{h/2} ∘ Φ_{h/2}, second order, explicit in the torque.
// Both maps set R_{t+h} = R_t exp[skew Ψ], i.e. q_{t+h} = q_t ∘ exp((0, Ψ/2)); Ψ is a 3-unknown
// Newton solve (incremental_rotation.hpp). The end torque of Φ* is the start torque of the next
// Φ, so Ξ evaluates the torque once per step (it is kept in the state).
// Translation (free bodies) uses the vector-space pair of Krysl §2, whose composition is the
// explicit Newmark (velocity Verlet, γ = 1/2, β = 0).
#pragma once

#include "quatstep/integrators/incremental_rotation.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/state_components.hpp"

namespace quatstep {

/// The system for Ψ of Krysl's Φ_h on (q, Π) given T_t = T(q, t): b = Π_t + h T_t (Krysl §3).
template <class Model, class S = typename Model::Scalar>
QS_HD IncrementalRotation<Model> lie_phi_system(const Model& model, const Vec4<S>& e, const Vec3<S>& Pi,
                                                const Vec3<S>& torque_t, S t, S h) {
  return IncrementalRotation<Model>(model, e, Vec3<S>(Pi + h * torque_t), h, false, t);
}

/// Φ_h's end point from the solution Ψ of its system: R_{t+h} = R_t exp[skew Ψ],
/// Π_{t+h} = exp[−skew Ψ](Π_t + h T_t).
template <class Model, class S = typename Model::Scalar>
QS_HD void lie_phi_end(const IncrementalRotation<Model>& sys, const Vec3<S>& psi, Vec4<S>& e, Vec3<S>& Pi) {
  e = stored_orientation(sys.orientation(psi));
  Pi = rotate_back(psi, sys.b);
}

/// Φ*_h's end point from the solution Ψ of its system (b = Π_t); T_{t+h} = T(q_{t+h}, t+h) into torque_end.
template <class Model, class S = typename Model::Scalar>
QS_HD void lie_phi_adjoint_end(const Model& model, const IncrementalRotation<Model>& sys, const Vec3<S>& psi,
                               Vec4<S>& e, Vec3<S>& Pi, Vec3<S>& torque_end, S t, S h) {
  e = stored_orientation(sys.orientation(psi));
  torque_end = model.body_torque(e, t + h);
  Pi = rotate_back(psi, sys.b) + h * torque_end;  // docs/errata.md R1: the end impulse is not rotated back
}

/// Krysl Φ_h on (q, Π) given T_t = T(q, t). On failure q, Π are left as they were.
template <class Model, class S = typename Model::Scalar>
QS_HD NewtonOutcome lie_phi(const Model& model, const NewtonSettings<S>& newton, Vec4<S>& e, Vec3<S>& Pi,
                            const Vec3<S>& torque_t, S t, S h) {
  const IncrementalRotation<Model> sys = lie_phi_system(model, e, Pi, torque_t, t, h);
  Vec3<S> psi = sys.psi_pred;
  const NewtonOutcome out = newton_solve<S, 3>(sys, psi, newton);
  if (out.status == Status::ok) lie_phi_end(sys, psi, e, Pi);
  return out;
}

/// Krysl Φ*_h on (q, Π); returns T_{t+h} = T(q_{t+h}, t+h) in torque_end. On failure nothing changes.
template <class Model, class S = typename Model::Scalar>
QS_HD NewtonOutcome lie_phi_adjoint(const Model& model, const NewtonSettings<S>& newton, Vec4<S>& e, Vec3<S>& Pi,
                                    Vec3<S>& torque_end, S t, S h) {
  const IncrementalRotation<Model> sys(model, e, Pi, h, false, t);
  Vec3<S> psi = sys.psi_pred;
  const NewtonOutcome out = newton_solve<S, 3>(sys, psi, newton);
  if (out.status == Status::ok) lie_phi_adjoint_end(model, sys, psi, e, Pi, torque_end, t, h);
  return out;
}

template <class S>
struct LieGroupSettings {
  NewtonSettings<S> newton{};  ///< for the 3-unknown solve of the incremental rotation

  template <class Keys>
  void describe(Keys& k) {
    newton.describe(k);
  }
};

template <class Model>
class ExplicitNewmarkLie {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;

  /// What a step evolves, then the loads held for the next step (state_components.hpp).
  struct State {
    Vec4<S> e;
    Vec3<S> Pi;      // body-frame angular momentum I Ω
    Vec3<S> r, v;    // translation (free bodies)
    Vec3<S> torque;  // T(e, t), the start impulse of the next Φ
    Vec3<S> a;       // F(t)/m (free bodies)
    static constexpr int translation = Model::translates ? 6 : 0;
    static constexpr int held_loads_from = 7 + translation;
    static constexpr int size = held_loads_from + 3 + translation / 2;
    QS_HD S& operator[](int i) {
      if (i < 4) return e[i];
      if (i < 7) return Pi[i - 4];
      if (i < held_loads_from) return i < 10 ? r[i - 7] : v[i - 10];
      return i < held_loads_from + 3 ? torque[i - held_loads_from] : a[i - held_loads_from - 3];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  using Step = IncrementalRotation<Model>;  ///< the Newton system of each half step

  LieGroupSettings<S> settings;

  QS_HD explicit ExplicitNewmarkLie(const LieGroupSettings<S>& s = {}) : settings(s) {}
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S t, State& s) const {
    if (Lu<S, 3>(model.inertia).singular) return failed_start(s, Status::singular_jacobian);
    s.e = k.quaternion;
    s.Pi = model.inertia * k.omega_body;
    s.r = k.position;
    s.v = k.velocity;
    s.a = Vec3<S>::Zero();
    hold_loads(model, s, t);
    return Status::ok;
  }

  /// The loads the next step starts with, T(e, t) (and F(t)/m): initialize and every step set them
  /// (ensemble.hpp, step_body_with_loads, when the model changes between steps).
  QS_HD void hold_loads(const Model& model, State& s, S t) const {
    s.torque = model.body_torque(s.e, t);
    if constexpr (Model::translates) s.a = model.translational_force(t) / model.mass;
  }

  /// The last step's end impulse, (h_previous/2)·T_{t} of Φ* (Krysl §3; the velocity's (h_previous/2)·F/m),
  /// redone with the loads s holds instead of those `before` held (ensemble.hpp,
  /// step_body_with_loads: loads given at the step's start).
  QS_HD void redo_end_impulse(const State& before, State& s, S h_previous) const {
    const S hh = S(0.5) * h_previous;
    s.Pi += hh * (s.torque - before.torque);
    if constexpr (Model::translates) s.v += hh * (s.a - before.a);
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model& model, const State& s) const {
    return RigidBodyKinematics<S>::of(s.e, Vec3<S>(Lu<S, 3>(model.inertia).solve(s.Pi)), s.r, s.v);
  }

  QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    const S hh = S(0.5) * h;
    State next = s;
    NewtonOutcome out = lie_phi(model, settings.newton, next.e, next.Pi, next.torque, t, hh);  // Φ_{h/2}
    if (out.status != Status::ok) return out;
    const NewtonOutcome second = lie_phi_adjoint(model, settings.newton, next.e, next.Pi, next.torque, t + hh, hh);
    out.iterations += second.iterations;
    out.status = second.status;
    if (out.status != Status::ok) return out;
    translate(model, s, next, t, h);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    s = next;
    return out;
  }

  /// The translation of a step from s into next (free bodies; step's, or the lane step's:
  /// simd/lane_lie_group.hpp).
  QS_HD void translate(const Model& model, const State& s, State& next, S t, S h) const {
    if constexpr (Model::translates) {
      // Krysl §2, Ξ = Φ*_{h/2} ∘ Φ_{h/2}: v_{1/2} = v + (h/2) a_t, r += h v_{1/2}, v = v_{1/2} + (h/2) a_{t+h}
      const S hh = S(0.5) * h;
      const Vec3<S> v_half = s.v + hh * s.a;
      next.r = s.r + h * v_half;
      next.a = model.translational_force(t + h) / model.mass;
      next.v = v_half + hh * next.a;
    }
  }
};

struct ExplicitNewmarkLieMethod {
  static constexpr MethodInfo info{"explicit_newmark_lie", "ExplicitNewmarkLie<Model>", "explicit_newmark_lie.hpp",
                                   "Krysl Φ ∘ Φ* (docs/errata.md R1)", "2",
                                   "spatial angular momentum (torque-free)"};
  template <class Model, int>
  using Integrator = ExplicitNewmarkLie<Model>;
};

}  // namespace quatstep
