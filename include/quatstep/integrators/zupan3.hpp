// Zupan & Zupan's third-order TR-BDF2 scheme for rotations in quaternions (Zupan §III, docs/errata.md Z1–Z7):
//   stage 1 (trapezoidal to t_n + τh), unknown Ω̄ = (Ω^n + Ω^{n+τ})/2                 (eqs. 12–13)
//   stage 2 (BDF2-like to t_{n+1}), unknown Ω̄ = wΩ^n + wΩ^{n+τ} + (τ/2)Ω^{n+1}        (eqs. 16–17, Z1)
//   stage 3 (explicit, third order)                                                   (eqs. 18–20, Z2–Z5)
// τ = 2 − √2, w = √2/4. Each implicit stage has the same shape: q = q^n ∘ exp((0, c h Ω̄/2)),
// Ω = Ω₀ + c_Ω Ω̄, α = α₀ + c_α Ω̄, residual J α + Ω × JΩ − T(q, t_stage) (eq. 21), so one
// Newton system (Step) serves both. The difference between the third-order and the stage-2
// (second-order) orientation is kept in the state as a free local error estimate (docs/errata.md Z7).
// Translation (free bodies): the same stages on (r, v, a) with the force a function of time only,
// solved in closed form (eqs. 10–11, 14–15, 18).
#pragma once

#include <array>

#include <cmath>
#include <limits>

#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/quaternion.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

/// TR-BDF2 coefficients of Zupan eq. (9), with the corrected third-order weights (docs/errata.md Z2).
template <class S>
struct Zupan3Coefficients {
  S tau, w, b1, b2, b3;
  QS_HD Zupan3Coefficients() {
    using std::sqrt;
    tau = S(2) - sqrt(S(2));
    w = sqrt(S(2)) / S(4);
    b1 = (S(1) - w) / S(3);
    b2 = (S(3) * w + S(1)) / S(3);
    b3 = tau / S(6);
  }
};

template <class S>
struct Zupan3Settings {
  NewtonSettings<S> newton{};  ///< for each of the two 3-unknown stage solves

  template <class Keys>
  void describe(Keys& k) {
    newton.describe(k);
  }
};

template <class Model>
class Zupan3 {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;

  struct State {
    Vec4<S> e;
    Vec3<S> w, wd;    // body angular velocity Ω and acceleration α
    S local_error;    // geodesic angle between the third- and second-order orientations of the last step
    Vec3<S> r, v, a;  // translation (unused for bodies about a fixed point)
    static constexpr int size = Model::translates ? 20 : 11;
    QS_HD S& operator[](int i) {
      return i < 4    ? e[i]
             : i < 7  ? w[i - 4]
             : i < 10 ? wd[i - 7]
             : i < 11 ? local_error
             : i < 14 ? r[i - 11]
             : i < 17 ? v[i - 14]
                      : a[i - 17];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  /// Newton system of one implicit stage (shared by stages 1 and 2), unknown Ω̄.
  struct Step {
    const Model& model;
    Vec4<S> e0;     ///< q^n
    S t;            ///< time of the stage end
    S rot_h;        ///< q = q^n ∘ exp((0, rot_h Ω̄/2)): τh (eq. 12) or h (eq. 16)
    Vec3<S> w0;     ///< Ω = w0 + cw Ω̄
    S cw;
    Vec3<S> a0;     ///< α = a0 + ca Ω̄
    S ca;
    S velocity_scale;  ///< ‖Ω^n‖∞ + h‖α^n‖∞

    QS_HD Step(const Model& m, const State& s, S t_end, S rh, const Vec3<S>& w_off, S w_coef, const Vec3<S>& a_off,
               S a_coef, S h)
        : model(m), e0(s.e), t(t_end), rot_h(rh), w0(w_off), cw(w_coef), a0(a_off), ca(a_coef) {
      velocity_scale = s.w.template lpNorm<Eigen::Infinity>() + h * s.wd.template lpNorm<Eigen::Infinity>();
    }

    /// Stage 1, Zupan eq. (12): Ω^{n+τ} = −Ω^n + 2Ω̄, α^{n+τ} = −α^n − 4/(τh) Ω^n + 4/(τh) Ω̄.
    QS_HD static Step first(const Model& m, const State& s, S t, S h) {
      const Zupan3Coefficients<S> c;
      const S k = S(4) / (c.tau * h);
      return Step(m, s, t + c.tau * h, c.tau * h, -s.w, S(2), Vec3<S>(-s.wd - k * s.w), k, h);
    }
    /// Stage 2, Zupan eq. (16) with docs/errata.md Z1, given Ω^{n+τ}, α^{n+τ} of stage 1.
    QS_HD static Step second(const Model& m, const State& s, const Vec3<S>& w_tau, const Vec3<S>& a_tau, S t, S h) {
      const Zupan3Coefficients<S> c;
      const S k = S(4) / (c.tau * c.tau * h), g = S(2) * c.w / c.tau;
      return Step(m, s, t + h, h, Vec3<S>(-g * (s.w + w_tau)), S(2) / c.tau,
                  Vec3<S>(-g * (s.wd + a_tau) - k * ((c.w + S(0.5) * c.tau) * s.w + c.w * w_tau)), k, h);
    }

    QS_HD Vec4<S> orientation(const Vec3<S>& wbar) const {
      return quat_mul<S>(e0, quat_from_rotation_vector<S>(rot_h * wbar));
    }
    QS_HD Vec3<S> omega(const Vec3<S>& wbar) const { return w0 + cw * wbar; }
    QS_HD Vec3<S> alpha(const Vec3<S>& wbar) const { return a0 + ca * wbar; }

    QS_HD void evaluate(const Vec3<S>& wbar, Vec3<S>& R, Mat3<S>& Jac) const {
      const Mat3<S>& J = model.inertia;
      const Vec3<S> th = rot_h * wbar;
      const Vec4<S> e1 = quat_mul<S>(e0, quat_from_rotation_vector<S>(th));
      const Vec3<S> w1 = omega(wbar), Jw = J * w1;
      R = J * alpha(wbar) + w1.cross(Jw) - model.body_torque(e1, t);  // Zupan eq. (21)
      // ∂(ω×Jω)/∂ω = ω̃J − (Jω)~ ; ∂T/∂Ω̄ = T_φ J_r(θ) rot_h
      Jac = ca * J + cw * (skew(w1) * J - skew(Jw)) - model.body_torque_dphi(e1, t) * so3_right_jacobian(th) * rot_h;
    }
    /// ‖ΔΩ̄‖∞ relative to the old velocity scale and the current iterate Ω̄ (newton.hpp).
    QS_HD S correction_norm(const Vec3<S>& dx, const Vec3<S>& wbar) const {
      return dx.template lpNorm<Eigen::Infinity>() /
             (velocity_scale + wbar.template lpNorm<Eigen::Infinity>() + std::numeric_limits<S>::min());
    }
  };

  Zupan3Settings<S> settings;
  Zupan3Coefficients<S> c;

  QS_HD explicit Zupan3(const Zupan3Settings<S>& s = {}) : settings(s) {}
  /// Angular acceleration from Euler's equations at (e, Ω, t), Zupan eq. (21), with the inertia
  /// factorised (not singular).
  QS_HD static Vec3<S> angular_acceleration(const Model& model, const Lu<S, 3>& inertia, const Vec4<S>& e,
                                            const Vec3<S>& w, S t) {
    return inertia.solve(Vec3<S>(model.body_torque(e, t) - w.cross(model.inertia * w)));
  }

  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S t, State& s) const {
    s.e = k.quaternion;
    s.w = k.omega_body;
    s.local_error = S(0);
    s.r = k.position;
    s.v = k.velocity;
    s.a = Vec3<S>::Zero();
    return hold_loads(model, s, t) ? Status::ok : failed_start(s, Status::singular_jacobian);
  }

  /// The accelerations the next step starts with, α(e, Ω, t) and F(t)/m: initialize and every step
  /// set them (ensemble.hpp, step_body_with_loads, when the model changes between steps). False for
  /// a singular inertia, which initialize refuses.
  QS_HD bool hold_loads(const Model& model, State& s, S t) const {
    if constexpr (Model::translates) s.a = model.translational_force(t) / model.mass;
    const Lu<S, 3> inertia(model.inertia);
    if (inertia.singular) return false;
    s.wd = angular_acceleration(model, inertia, s.e, s.w, t);
    return true;
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model&, const State& s) const {
    return RigidBodyKinematics<S>::of(s.e, s.w, s.r, s.v);
  }

  /// The embedded local error estimate of the last step (docs/errata.md Z7), radians.
  QS_HD static S local_error(const State& s) { return s.local_error; }

  static constexpr std::array channels{
      Channel{"local_error", 1,
       "geodesic angle [rad] between the second- and third-order orientation of the step that ended at the sample "
       "(docs/errata.md Z7; 0 at t_start)",
       true}};
  template <class W>
  QS_HD void observe(const Model&, const State& s, W& w) const {
    w(s.local_error);
  }

  /// What the two implicit stages give: Ω, α at t_n + τh and the second-order result at t_{n+1}.
  struct Stages {
    Vec3<S> w_tau, a_tau;  ///< Ω^{n+τ}, α^{n+τ}
    Vec4<S> e;             ///< q^{n+1} of stage 2 (second order)
    Vec3<S> w;             ///< Ω^{n+1} of stage 2
  };

  /// Stages 1 and 2 from s at t (Zupan §III.A–B).
  QS_HD NewtonOutcome stages(const Model& model, const State& s, S t, S h, Stages& r) const {
    const Step st1 = Step::first(model, s, t, h);
    Vec3<S> x1 = first_guess(s, h);
    NewtonOutcome out = newton_solve<S, 3>(st1, x1, settings.newton);
    if (out.status != Status::ok) return out;
    r.w_tau = st1.omega(x1);
    r.a_tau = st1.alpha(x1);
    const Step st2 = Step::second(model, s, r.w_tau, r.a_tau, t, h);
    Vec3<S> x2 = second_guess(s, r, h);
    const NewtonOutcome out2 = newton_solve<S, 3>(st2, x2, settings.newton);
    out.iterations += out2.iterations;
    out.status = out2.status;
    r.e = st2.orientation(x2);
    r.w = st2.omega(x2);
    return out;
  }

  /// Stage 1's predictor α^{n+τ}⁽⁰⁾ = α^n (Zupan §III.A (ii)): Ω̄⁽⁰⁾ = Ω^n + (τh/2) α^n.
  QS_HD Vec3<S> first_guess(const State& s, S h) const { return s.w + S(0.5) * c.tau * h * s.wd; }

  /// Stage 2's predictor: the cubic Hermite predictor of Ω^{n+1} through t_n, t_{n+τ} (Zupan §III.B),
  /// Ω̄ from eq. (17); r holds stage 1's Ω^{n+τ}, α^{n+τ}.
  QS_HD Vec3<S> second_guess(const State& s, const Stages& r, S h) const {
    const S tau = c.tau;
    const Vec3<S> w1_pred = s.w + (S(2) - S(3) * tau) / (tau * tau * tau) * (s.w - r.w_tau) +
                            h * (S(1) - tau) / (tau * tau) * ((S(1) - tau) * s.wd + r.a_tau);
    return c.w * (s.w + r.w_tau) + S(0.5) * tau * w1_pred;
  }

  QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    Stages st;
    const NewtonOutcome out = stages(model, s, t, h, st);
    if (out.status != Status::ok) return out;
    const Lu<S, 3> inertia(model.inertia);
    if (inertia.singular) return {Status::singular_jacobian, out.iterations};
    const State next = end_point(model, inertia, s, st, t, h);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    s = next;
    return out;
  }

  /// Stage 3 from the stages' results, unchecked (step's, or the lane step's per body:
  /// simd/lane_zupan3.hpp): Zupan eqs. (19)–(20) with docs/errata.md Z3, Z4,
  /// Corr = h²/(24τ(τ−1)) Ω^n × (τ²Ω^{n+1} − Ω^{n+τ}).
  QS_HD State end_point(const Model& model, const Lu<S, 3>& inertia, const State& s, const Stages& st, S t,
                        S h) const {
    const S tau = c.tau;
    State next = s;
    const Vec3<S> corr = h * h / (S(24) * tau * (tau - S(1))) * s.w.cross(tau * tau * st.w - st.w_tau);
    next.e = stored_orientation(
        quat_mul<S>(s.e, quat_exp<S>(corr + S(0.5) * h * (c.b1 * s.w + c.b2 * st.w_tau + c.b3 * st.w))));
    // docs/errata.md Z5: third-order Ω, α^{n+1} re-evaluated from eq. (21) at the third-order orientation
    const Vec3<S> a_end = angular_acceleration(model, inertia, next.e, st.w, t + h);
    next.w = s.w + h * (c.b1 * s.wd + c.b2 * st.a_tau + c.b3 * a_end);
    next.wd = angular_acceleration(model, inertia, next.e, next.w, t + h);  // consistent α for the next step
    next.local_error = rotation_vector<S>(quat_mul<S>(quat_conj(st.e), next.e)).norm();  // docs/errata.md Z7
    if constexpr (Model::translates) translate(model, s, next, t, h);
    return next;
  }

 private:
  /// Translation, force a function of time: eqs. (10)–(11), (14)–(15), (18) and its velocity analogue.
  QS_HD void translate(const Model& model, const State& s, State& next, S t, S h) const {
    const S tau = c.tau;
    const Vec3<S> a_tau = model.translational_force(t + tau * h) / model.mass;
    const Vec3<S> v_tau = s.v + S(0.5) * tau * h * (s.a + a_tau);                          // eq. (11)
    next.a = model.translational_force(t + h) / model.mass;
    const Vec3<S> v_1 = s.v + h * (c.w * (s.a + a_tau) + S(0.5) * tau * next.a);           // eq. (15)
    next.r = s.r + h * (c.b1 * s.v + c.b2 * v_tau + c.b3 * v_1);                           // eq. (18)
    next.v = s.v + h * (c.b1 * s.a + c.b2 * a_tau + c.b3 * next.a);                        // eq. (18) for v
  }
};

struct Zupan3Method {
  static constexpr MethodInfo info{"zupan3", "Zupan3<Model>", "zupan3.hpp",
                                   "Zupan & Zupan eqs. 10–21 with docs/errata.md Z1–Z5 (third-order TR-BDF2)",
                                   "3, free local error estimate (docs/errata.md Z7)", "unit length"};
  template <class Model, int>
  using Integrator = Zupan3<Model>;
};

}  // namespace quatstep
