// Krysl's implicit midpoint Lie rule LIEMID[I] (Krysl 2005, §3; docs/errata.md R2):
//   (1/h) I Ψ = exp[−skew(Ψ/2)] Π_t + (h/2) T_mid,   T_mid = T(q_t ∘ exp(Ψ/4), t + h/2),
//   q_{t+h} = q_t ∘ exp((0, Ψ/2)),
//   Π_{t+h} = exp[−skew Ψ] Π_t + h exp[−skew(Ψ/2)] T_mid
// (the midpoint impulse h T_mid, given in the midpoint frame, seen from the frame at t + h).
// Translation (free bodies): the vector-space midpoint rule of Krysl §2 with the force at t + h/2.
#pragma once

#include "quatstep/integrators/explicit_newmark_lie.hpp"

namespace quatstep {

template <class Model>
class MidpointLie {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;

  struct State {
    Vec4<S> e;
    Vec3<S> Pi;  // body-frame angular momentum I Ω
    Vec3<S> r, v;
    static constexpr int size = Model::translates ? 13 : 7;
    QS_HD S& operator[](int i) { return i < 4 ? e[i] : i < 7 ? Pi[i - 4] : i < 10 ? r[i - 7] : v[i - 10]; }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  using Step = IncrementalRotation<Model>;  ///< with midpoint_torque = true

  LieGroupSettings<S> settings;

  QS_HD explicit MidpointLie(const LieGroupSettings<S>& s = {}) : settings(s) {}
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S, State& s) const {
    if (Lu<S, 3>(model.inertia).singular) return failed_start(s, Status::singular_jacobian);
    s.e = k.quaternion;
    s.Pi = model.inertia * k.omega_body;
    s.r = k.position;
    s.v = k.velocity;
    return Status::ok;
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model& model, const State& s) const {
    return RigidBodyKinematics<S>::of(s.e, Vec3<S>(Lu<S, 3>(model.inertia).solve(s.Pi)), s.r, s.v);
  }

  QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    const Step sys(model, s.e, s.Pi, h, true, t);
    Vec3<S> psi = sys.psi_pred;
    const NewtonOutcome out = newton_solve<S, 3>(sys, psi, settings.newton);
    if (out.status != Status::ok) return out;
    const State next = end_point(model, s, sys, psi, h);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    s = next;
    return out;
  }

  /// The state at t + h from the solution Ψ of the step's system, unchecked (step's, or the lane
  /// step's per body: simd/lane_lie_group.hpp).
  QS_HD State end_point(const Model& model, const State& s, const Step& sys, const Vec3<S>& psi, S h) const {
    State next = s;
    const Vec3<S> half = S(0.5) * psi;
    const Vec3<S> torque_mid = model.body_torque(sys.orientation(psi, S(0.5)), sys.t_mid);
    next.e = stored_orientation(sys.orientation(psi));
    next.Pi = rotate_back(psi, s.Pi) + h * rotate_back(half, torque_mid);  // docs/errata.md R2
    if constexpr (Model::translates) {
      // Krysl §2 midpoint: p_{t+h} = p_t + h f(t + h/2), u_{t+h} = u_t + h (v_t + v_{t+h})/2
      next.v = s.v + h * model.translational_force(sys.t_mid) / model.mass;
      next.r = s.r + S(0.5) * h * (s.v + next.v);
    }
    return next;
  }
};

struct MidpointLieMethod {
  static constexpr MethodInfo info{"midpoint_lie", "MidpointLie<Model>", "midpoint_lie.hpp",
                                   "Krysl LIEMID[I] (docs/errata.md R2)", "2", "spatial angular momentum (torque-free)"};
  template <class Model, int>
  using Integrator = MidpointLie<Model>;
};

}  // namespace quatstep
