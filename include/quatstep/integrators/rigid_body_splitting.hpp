// Explicit symplectic splitting integrators for a rigid body (HeavyTop, FreeRigidBody), the shared
// part: state, kicks, translation, composition to order 2/4/6. The free flow (the drift) is the
// template parameter: NoSquish (no_squish.hpp), SymmetricSplitting (symmetric_splitting.hpp) or
// ExactFreeSplitting (exact_free_flow.hpp, whose settings may also choose the near-integrable method
// of composition.hpp).
//
// Coordinates: q ∈ R⁴ the quaternion of the body's principal frame (principal_axes.hpp: q = q_body ∘ c,
// the axes in the order the free flow wants them), p ∈ R⁴ its conjugate momentum, L = ½ G(q) p the
// angular momentum in principal axes (free_rotation_flows.hpp). The Hamiltonian
//   H(q, p) = Σ_k L_k²/(2 I_k) + U(q)
// is split into the kinetic energy, whose exact flow (or a symmetric product of exact sub-flows) is
// the drift, and the potential, whose flow is the kick p += dt·F(q):
//   F(q) = −∇U(q) = (2/|q|²) G(q)ᵀ τ(q/|q|),   i.e. ΔL = τ dt exactly,
// where τ is the model's body torque (in principal axes) and U(q) = Ũ(q/|q|) extends the potential
// of the orientation to R⁴ \ {0} as a function of the direction of q: on |q| = 1 the perturbation
// δq = ½ G(q)ᵀ δθ does the work τ·δθ, and U is constant along q, so ∇U = −(2/|q|²) G(q)ᵀ τ. With
// this F the kick is the exact flow of U on all of R⁸ (not only on |q| = 1), so a step is a
// symplectic map of R⁸ whenever the torque derives from a potential (gravity):
// tests/symplectic_structure_test.cpp checks the one-step Jacobian. Torques without one (body- or
// space-fixed, time-dependent) are held at the stage times (time advances in the drifts); the
// step keeps its order but is no longer symplectic.
// The state keeps τ at its (q, t) for the next kick (composition.hpp), so a step of s stages
// evaluates the torque s times; a step with another model (per-step external loads) evaluates it
// once more first (hold_loads). |q| and pᵀq are conserved by every sub-step (the drifts multiply
// q and p by unit quaternions, F ⊥ q); initialize gives |q| = |q_body| and pᵀq = 0.
// Round-off: nothing is renormalised. The rotations are applied as increments
// (free_rotation_flows.hpp), so a rounded cos does not scale q and L the same way every step, and a
// step's kicks and rotations are summed apart from the state, which takes their sum once at its end
// (Stages): rounded into q and p after each, their rounding errors repeated from step to step in a
// slowly turning state and added up. Float against double after 2¹⁶ steps of 2⁻¹⁶ s (rotations of
// ≤ 3e-4 rad a step), worst of 32 bodies, torque-free / under a constant body torque: NoSquish
// 9.5e-4 / 3.8e-3 → 1.0e-4 / 9.1e-5 rad, SymmetricSplitting 6.1e-3 / 8.2e-3 → 7.5e-5 / 6.4e-5
// (tests/symplectic_structure_test.cpp). What the rounding leaves in |q| − 1, the energy and the
// spatial momentum is a random walk, ≈ ε√N: over 10⁶ steps of the exactly integrated free
// symmetric top ≤ 3e-13 in double, ≤ 2e-4 in float. Renormalising each step, q/|q| with p·|q| (canonical) or
// with p/|q|, was measured 50× worse: |ΔE/E| after 10⁶ steps of a free top with J = diag(2, 2, 0.5)
// 1.3e-11 against 2.5e-13 in double, 7e-3 against 1.2e-4 in float (the normalisation's own rounding,
// the same every step of a steady spin); so stored_orientation is not used.
// Translation (FreeRigidBody): the same composition of velocity Verlet, kick v += dt·F(t)/m, drift
// r += dt·v; a force that depends on time only gives it the composition's order.
#pragma once

#include "quatstep/integrators/composition.hpp"
#include "quatstep/integrators/free_rotation_flows.hpp"
#include "quatstep/integrators/principal_axes.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/settings_keys.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/status.hpp"

namespace quatstep {

template <class S>
struct SplittingSettings {
  int order = 4;  ///< of the composition: 2, 4 or 6 (composition.hpp)

  template <class Keys>
  void describe(Keys& k) {
    k("order", order,
      "order of the composition: 2 (one kick-drift-kick), 4 (Yoshida's triple jump, 3 stages), 6 (Kahan-Li, 9 "
      "stages)",
      keys::between(2, 6, "2, 4 or 6"));
  }
  /// The rule the range cannot say: an even order (keys::check, the scenario parser).
  void validate() const {
    if (!is_composition_order(order)) throw keys::KeyError::of("integrator.order", order, "2, 4 or 6");
  }
};

/// One step of the composition of settings.order (composition.hpp).
template <class S, class Stages>
QS_HD void compose(const SplittingSettings<S>& settings, S t, S h, Stages& stages) {
  compose_kick_drift_kick(settings.order, t, h, stages);
}

/// Weight, in h, of the kick that ends a step (redo_end_impulse): that of the kick–drift–kick composition.
template <class S>
QS_HD S end_kick_weight(const SplittingSettings<S>& settings) {
  return end_kick_weight<S>(settings.order);
}

/// The notable settings of every splitting's registry entry (README rows, CPU/GPU test cases): the
/// default is order 4.
inline constexpr Configuration splitting_configurations[] = {
    {"order2", "order = 2", "the second-order splitting alone", "2", "the same"},
    {"order6", "order = 6", "Kahan & Li's 9-stage composition", "6", "the same"}};

/// The splitting integrator with the free flow FreeFlow, which provides
///   order_axes(moments, L, order[3]):  the order of the principal axes it wants (moments and the
///                                      initial angular momentum L given in the eigenvector frame);
///   rotation(inverse_moments, t, L):   r − 1, where (q, p) ← (q ∘ r, p ∘ r) is its approximation of
///                                      the free flow over t from body momentum L (ordered axes);
/// and the settings Settings<S>, SplittingSettings<S> or one derived from it with its own
/// compose(settings, t, h, stages) overload.
template <class Model, class FreeFlow, template <class> class Settings = SplittingSettings>
class RigidBodySplitting {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;

  /// Components by how long they live (state_components.hpp): what a step evolves, then the loads
  /// held for the next kick (evaluated anew by hold_loads before a coupled step), then the
  /// constants set by initialize.
  struct State {
    Vec4<S> q;                // orientation of the ordered principal frame, q_body ∘ c
    Vec4<S> p;                // its conjugate momentum, 2 G(q)ᵀ L
    Vec3<S> r, v;             // translation (free bodies)
    Vec3<S> torque;           // τ(q/|q|, t)/|q|², principal axes: what the next kick applies
                              // (compose_drift_kick_drift evaluates it anew before each kick)
    Vec3<S> a;                // F(t)/m: what the next translational kick applies (free bodies)
    Vec4<S> frame;            // c (principal_axes.hpp), constant
    Vec3<S> inverse_moments;  // 1/I_k, constant
    static constexpr int translation = Model::translates ? 6 : 0;
    static constexpr int held_loads_from = 8 + translation;
    static constexpr int constants_from = held_loads_from + 3 + translation / 2;
    static constexpr int size = constants_from + 7;
    QS_HD S& operator[](int i) {
      if (i < 4) return q[i];
      if (i < 8) return p[i - 4];
      if (i < 8 + translation) return i < 11 ? r[i - 8] : v[i - 11];
      if (i < held_loads_from + 3) return torque[i - held_loads_from];
      if (i < constants_from) return a[i - held_loads_from - 3];
      return i < constants_from + 4 ? frame[i - constants_from] : inverse_moments[i - constants_from - 4];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  Settings<S> settings;

  QS_HD explicit RigidBodySplitting(const Settings<S>& s = {}) : settings(s) {}

  /// The principal frame from the inertia (invalid_input unless it is positive definite), then
  /// q = q_body ∘ c, p = 2 G(q)ᵀ L / |q|² (so that ½ G(q) p = L for any |q|), the loads at t.
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S t, State& s) const {
    const PrincipalAxes<S> axes = principal_axes(model.inertia);
    if (!((axes.moments.array() > S(0)).all() && (axes.moments.array() < S(INFINITY)).all()))  // false for NaN
      return failed_start(s, Status::invalid_input);
    const Vec3<S> momentum = model.inertia * k.omega_body;  // body axes
    int order[3];
    FreeFlow::order_axes(axes.moments, Vec3<S>(axes.axes.transpose() * momentum), order);
    const PrincipalFrame<S> f = principal_frame(axes, order);
    s.frame = f.frame;
    s.inverse_moments = f.inverse_moments;
    s.q = quat_mul(k.quaternion, s.frame);
    s.p = (S(2) / s.q.squaredNorm()) * quat_mul(s.q, pure(to_body(s.frame, momentum)));
    s.r = k.position;
    s.v = k.velocity;
    s.a = Vec3<S>::Zero();
    hold_loads(model, s, t);
    return Status::ok;
  }

  /// The loads the next kick applies: τ (and F/m) at the state's q and time t. initialize and every
  /// stage set them; call it after changing q by hand, and before a step whose model differs from
  /// the last step's (ensemble.hpp, step_body_with_loads: the coupled-step API's loads).
  QS_HD void hold_loads(const Model& model, State& s, S t) const { Stages{model, s}.update_forces(t); }

  /// The last step's end kick, of end_kick_weight(settings)·h_previous, redone with the loads s holds
  /// instead of those `before` held (ensemble.hpp, step_body_with_loads: loads given at the step's
  /// start). At fixed q the kick is linear in the loads, so their difference is kicked.
  QS_HD void redo_end_impulse(const State& before, State& s, S h_previous) const {
    const S dt = end_kick_weight(settings) * h_previous;
    s.p += (S(2) * dt) * quat_mul(s.q, pure(Vec3<S>(s.torque - before.torque)));
    if constexpr (Model::translates) s.v += dt * (s.a - before.a);
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model&, const State& s) const {
    const Vec3<S> omega = s.inverse_moments.cwiseProduct(body_momentum(s.q, s.p));  // principal axes
    return RigidBodyKinematics<S>::of(quat_mul(s.q, quat_conj(s.frame)), Vec3<S>(rotation_matrix(s.frame) * omega),
                                      s.r, s.v);
  }

  /// One step of the composition the settings choose; iterations = 0 (explicit).
  QS_FLATTEN QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    State next = s;
    compose_step(model, next, t, h);
    if (!all_finite(next)) return {Status::non_finite, 0};
    s = next;
    return {Status::ok, 0};
  }

  /// The step's composition on s, with no check of the result (step's, or the lane step's per body:
  /// simd/lane_splitting.hpp).
  QS_HD void compose_step(const Model& model, State& s, S t, S h) const {
    Stages stages{model, s};
    compose(settings, t, h, stages);
    stages.commit();
  }

 private:
  /// The sub-steps the compositions call. They move q, p (and r, v) by increments summed apart from
  /// the state, which takes their sum once at the step's end (commit): a step rounds q, p, r and v
  /// once, not once per kick and drift (see "Round-off" above).
  struct Stages {
    const Model& model;
    State& s;
    Vec4<S> dq = Vec4<S>::Zero(), dp = Vec4<S>::Zero();  // since the step's start
    Vec3<S> dr = Vec3<S>::Zero(), dv = Vec3<S>::Zero();

    QS_HD Vec4<S> q() const { return s.q + dq; }
    QS_HD void kick(S dt) {
      dp += (S(2) * dt) * quat_mul(q(), pure(s.torque));  // p += dt (2/|q|²) G(q)ᵀ τ, 1/|q|² held in s.torque
      if constexpr (Model::translates) dv += dt * s.a;
    }
    /// (q, p) ← (q ∘ r, p ∘ r), r the free flow's rotation over dt from L = ½ G(q) p.
    QS_HD void drift(S dt) {
      const Vec4<S> q_now = q(), p_now = s.p + dp;
      const Vec4<S> r_minus_one = FreeFlow::rotation(s.inverse_moments, dt, body_momentum(q_now, p_now));
      dq += quat_mul(q_now, r_minus_one);
      dp += quat_mul(p_now, r_minus_one);
      if constexpr (Model::translates) dr += dt * (s.v + dv);
    }
    /// τ at the direction of q in principal axes, Cᵀ τ_body(q/|q| ∘ c*, t), over |q|² (the kick's factor).
    QS_HD void update_forces(S t) {
      using std::sqrt;
      const Vec4<S> q_now = q();
      const S inverse_norm = S(1) / sqrt(q_now.squaredNorm());
      const Vec4<S> direction = inverse_norm * q_now;
      s.torque = (inverse_norm * inverse_norm) *
                 to_body(s.frame, model.body_torque(quat_mul(direction, quat_conj(s.frame)), t));
      if constexpr (Model::translates) s.a = model.translational_force(t) / model.mass;
    }
    QS_HD void commit() {
      s.q += dq;
      s.p += dp;
      if constexpr (Model::translates) s.r += dr, s.v += dv;
    }
  };
};

}  // namespace quatstep
