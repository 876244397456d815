// The Hamiltonian comparison schemes of Kinon & Betsch 2024 App. D / App. B for Euler parameters,
// with the regular augmented mass matrix M₄ = 4Q_l(q)J₄Q_l(q)ᵀ, J₄ = diag(½ tr J, J) (eq. 139):
//   T*(q, p) = ⅛ t·J₄⁻¹t,  t = Q_l(q)ᵀp = (q·p, G(q)p)                       (eqs. 138, 145)
//   q¹ − q⁰ = (h/4) Q_l(q^{n+½}) J₄⁻¹ t̄
//   p¹ − p⁰ = −(h/4) P(p^{n+½}) J₄⁻¹ t̄ − h∇̄V − hλ q^{n+½} + hF,  P(p) = [p  −G(p)ᵀ]
//   g(q¹) = ½(q¹·q¹ − 1) = 0
// with t̄ = ½(t⁰ + t¹) (EMH, Betsch & Siebert, eq. 146, conserves H, L, g) or t̄ = t(q^{n+½}, p^{n+½})
// (MPH, eq. 133). Q_l(a)b = a∘b and P(p)b = p∘b̄. Unknowns (q¹, p¹, λ); gravity and torques as in
// rigid_body_forces.hpp; the centre of mass of a free body by midpoint_translation.hpp.
#pragma once

#include <algorithm>
#include <array>

#include <limits>

#include "quatstep/integrators/livens_system.hpp"
#include "quatstep/integrators/midpoint_translation.hpp"
#include "quatstep/integrators/rigid_body_forces.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/state_components.hpp"

namespace quatstep {

template <class S>
struct HamiltonianSettings {
  NewtonSettings<S> newton{};  ///< the NewtonSettings defaults, as in LivensSettings (1e-12 in double).

  template <class Keys>
  void describe(Keys& k) {
    newton.describe(k);
  }
};

namespace hamiltonian {

/// t = Q_l(q)ᵀp (eq. 145).
template <class S>
QS_HD Vec4<S> invariant(const Vec4<S>& q, const Vec4<S>& p) {
  Vec4<S> t;
  t[0] = q.dot(p);
  t.template tail<3>() = G(q) * p;
  return t;
}
/// P(p) = [p  −G(p)ᵀ] (eq. 146).
template <class S>
QS_HD Mat4<S> momentum_matrix(const Vec4<S>& p) {
  Mat4<S> m;
  m.col(0) = p;
  m.template rightCols<3>() = -G(p).transpose();
  return m;
}

template <class S, LivensRule Rule>
struct Step {
  static constexpr int K = 9;  ///< q¹, p¹, λ
  Vec4<S> q0, p0, t0;
  S h;
  Mat4<S> a;  ///< J₄⁻¹
  livens::RigidBodyForces<S> forces;
  S p_scale;

  template <class Model>
  QS_HD Step(const Model& model, const Vec4<S>& q, const Vec4<S>& p, S t, S hh)
      : Step(model, q, p, hh, livens::RigidBodyForces<S>(model.loads, t + S(0.5) * hh)) {}
  /// With the forces at t^{n+½} given (a block of bodies in SIMD lanes decides their flags per body,
  /// simd/lane_hamiltonian.hpp).
  template <class Model>
  QS_HD Step(const Model& model, const Vec4<S>& q, const Vec4<S>& p, S hh, const livens::RigidBodyForces<S>& f)
      : q0(q), p0(p), t0(invariant(q, p)), h(hh), forces(f) {
    const Mat3<S>& J = model.inertia;
    a.setZero();
    a(0, 0) = S(2) / J.trace();
    a.template bottomRightCorner<3, 3>() = J.inverse();
    p_scale = S(1) / (p.template lpNorm<Eigen::Infinity>() + std::numeric_limits<S>::min());
  }

  QS_HD void evaluate(const Vec<S, K>& x, Vec<S, K>& R, Eigen::Matrix<S, K, K>& J) const {
    const Vec4<S> q1 = x.template head<4>(), p1 = x.template segment<4>(4);
    const S lambda = x[8];
    const Vec4<S> qm = S(0.5) * (q0 + q1), pm = S(0.5) * (p0 + p1);
    Vec4<S> tb;
    Eigen::Matrix<S, 4, 4> tb_q, tb_p;  // ∂t̄/∂q¹, ∂t̄/∂p¹
    const Vec4<S>& tq = Rule == LivensRule::energy_momentum ? q1 : qm;  // where ∂t/∂p is taken
    const Vec4<S>& tp = Rule == LivensRule::energy_momentum ? p1 : pm;  // where ∂t/∂q is taken
    if constexpr (Rule == LivensRule::energy_momentum) tb = S(0.5) * (t0 + invariant(q1, p1));  // eq. (146)
    else tb = invariant(qm, pm);                                                                // eq. (133)
    tb_q.row(0) = S(0.5) * tp.transpose();
    tb_q.template bottomRows<3>() = S(-0.5) * G(tp);
    tb_p.row(0) = S(0.5) * tq.transpose();
    tb_p.template bottomRows<3>() = S(0.5) * G(tq);
    const Vec4<S> at = a * tb;
    const Mat4<S> ql = quat_left(qm), pp = momentum_matrix(pm);
    const S c = S(0.25) * h;
    R.template head<4>() = q1 - q0 - c * (ql * at);
    R.template segment<4>(4) = p1 - p0 + c * (pp * at) + h * lambda * qm - h * forces.force(qm);
    R[8] = S(0.5) * (q1.squaredNorm() - S(1));
    J.setZero();
    const Mat4<S> I = Mat4<S>::Identity();
    J.template block<4, 4>(0, 0) = I - c * (S(0.5) * quat_right(at) + ql * a * tb_q);
    J.template block<4, 4>(0, 4) = -c * (ql * a * tb_p);
    J.template block<4, 4>(4, 0) = c * (pp * a * tb_q) + (S(0.5) * h * lambda) * I - h * forces.force_dq1();
    J.template block<4, 4>(4, 4) = I + c * (S(0.5) * quat_right(quat_conj(at)) + pp * a * tb_p);
    J.template block<4, 1>(4, 8) = h * qm;
    J.template block<1, 4>(8, 0) = q1.transpose();
  }

  /// Position correction, and momentum correction relative to |p⁰|∞.
  QS_HD S correction_norm(const Vec<S, K>& dx, const Vec<S, K>& /*x: position scale is fixed*/) const {
    const S dq = dx.template head<4>().template lpNorm<Eigen::Infinity>();
    const S dp = dx.template segment<4>(4).template lpNorm<Eigen::Infinity>() * p_scale;
    using std::max;  // dp < dq ? dq : dp; a lane type's own max (lane by lane) by argument-dependent lookup
    return max(dp, dq);
  }

  /// The correction that rounding alone makes (newton.hpp, the round-off stall), in
  /// correction_norm's units. The constraint row g = ½|q¹|² − 1/2 resolves ½|q¹|² to about two
  /// units in its last place, ε|q¹|². Its λ-column is hq^{n+½} and λ reaches g through p¹ and
  /// t̄₀ = ½q¹·p¹ + …: ∂g/∂λ ≈ −h²a₀₀/8, so that residual moves λ by 8ε|q¹|²/(h²a₀₀) and p¹ by h
  /// times that, 8ε|q¹|²/(ha₀₀) = 4 tr(J) ε|q¹|²/h. A body spinning steadily about a principal
  /// axis starts Newton from its solution (the constant-rate predictor), and its corrections two-cycle
  /// on that floor, which the rate rule never certifies: 6.7e-13 of |p| for J = 2·I, |Ω| = 0.5 rad/s,
  /// h = 1e-3, where the body failed at step 151 (tests/steady_spin_test.cpp). Two units
  /// of q¹ bound the position rows.
  QS_HD S round_off_norm(const Vec<S, K>& x) const {
    const Vec4<S> q1 = x.template head<4>();
    const S eps = std::numeric_limits<S>::epsilon();
    const S dq = S(2) * eps * q1.template lpNorm<Eigen::Infinity>();
    const S dp = S(8) * eps * q1.squaredNorm() / (h * a(0, 0)) * p_scale;
    using std::max;
    return max(dp, dq);
  }
};

}  // namespace hamiltonian

template <class Model, LivensRule Rule>
class HamiltonianQuaternion {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;
  static constexpr bool translates = model_translates<Model>();
  using Step = hamiltonian::Step<S, Rule>;

  struct State {
    Vec4<S> q, p;
    S lambda;
    Vec3<S> r, vr;
    static constexpr int size = 9 + (translates ? 6 : 0);
    QS_HD S& operator[](int i) {
      if (i < 4) return q[i];
      if (i < 8) return p[i - 4];
      if (i == 8) return lambda;
      return i < 12 ? r[i - 9] : vr[i - 12];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  HamiltonianSettings<S> settings;

  QS_HD explicit HamiltonianQuaternion(const HamiltonianSettings<S>& s = {}) : settings(s) {}
  /// p⁰ = 2G(q⁰)ᵀJΩ⁰ (= M₄v⁰ on the velocity constraint, eq. 140).
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S, State& s) const {
    s.q = k.quaternion;
    s.p = S(2) * (G(s.q).transpose() * (model.inertia * k.omega_body));
    s.lambda = S(0);
    s.r = k.position;
    s.vr = k.velocity;
    return Status::ok;
  }

  /// Ω = 2G(q)v with v = M₄(q)⁻¹p (eq. 139, footnote 5): Ω = ½|q|² J⁻¹G(q)p.
  QS_HD RigidBodyKinematics<S> kinematics(const Model& model, const State& s) const {
    RigidBodyKinematics<S> k;
    k.quaternion = s.q;
    // J⁻¹ evaluated on its own: nvcc compiled `scalar * J.inverse()` (Eigen's lazy Inverse inside a
    // scalar product) to a trap in device code (found on the first H100 run).
    const Mat3<S> inertia_inverse = model.inertia.inverse();
    k.omega_body = (S(0.5) * s.q.squaredNorm() * inertia_inverse) * (G(s.q) * s.p);
    k.position = s.r;
    k.velocity = s.vr;
    return k;
  }

  /// H = ⅛ t·J₄⁻¹t + V(q) (eqs. 138–139) (+ ½m|v_r|² − m g·r).
  QS_HD S generalized_energy(const Model& model, const State& s) const {
    const Vec4<S> t = hamiltonian::invariant(s.q, s.p);
    const Vec3<S> tv = t.template tail<3>();
    const Mat3<S> inertia_inverse = model.inertia.inverse();
    S e = S(0.125) * (t[0] * t[0] * S(2) / model.inertia.trace() + tv.dot(inertia_inverse * tv)) +
          model.loads.potential(s.q);
    if constexpr (translates) e += translational_energy(model, s.r, s.vr);
    return e;
  }

  static constexpr std::array channels{
      Channel{"generalized_energy", 1, "the scheme's Hamiltonian H, Kinon eqs. (138)-(139) [J]", false}};
  template <class W>
  QS_HD void observe(const Model& model, const State& s, W& w) const {
    w(generalized_energy(model, s));
  }

  /// L = ½E(q)p (eq. 64) (+ m r × v_r).
  QS_HD Vec3<S> angular_momentum(const Model& model, const State& s) const {
    Vec3<S> l = S(0.5) * (E(s.q) * s.p);
    if constexpr (translates) l += model.mass * s.r.cross(s.vr);
    return l;
  }

  /// Predictor: q¹ by the constant body rate (as in the Livens schemes), p¹ = 2G(q¹)ᵀJΩ⁰, λ of
  /// the last step.
  QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    const Step sys(model, s.q, s.p, t, h);
    Vec<S, 9> x = predictor(model, s, h);
    NewtonOutcome out = newton_solve<S, 9>(sys, x, settings.newton);
    if (out.status != Status::ok) return out;
    const State next = end_point(model, s, x, t, h);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    s = next;
    return out;
  }

  /// The Newton guess of step (above).
  QS_HD Vec<S, 9> predictor(const Model& model, const State& s, S h) const {
    const Vec3<S> w = kinematics(model, s).omega_body;
    Vec<S, 9> x;
    x.template head<4>() = midpoint_rotation<S>(s.q, w, h);
    x.template segment<4>(4) = S(2) * (G(Vec4<S>(x.template head<4>())).transpose() * (model.inertia * w));
    x[8] = s.lambda;
    return x;
  }

  /// The state at t + h from the solution x = (q¹, p¹, λ), unchecked (step's, or the lane step's per
  /// body: simd/lane_hamiltonian.hpp).
  QS_HD State end_point(const Model& model, const State& s, const Vec<S, 9>& x, S t, S h) const {
    State next = s;
    next.q = x.template head<4>();
    next.p = x.template segment<4>(4);
    next.lambda = x[8];
    if constexpr (translates) midpoint_translation(model, next.r, next.vr, t, h);
    return next;
  }
};

}  // namespace quatstep
