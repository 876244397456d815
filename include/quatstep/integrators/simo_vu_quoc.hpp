// Simo–Vu-Quoc Lie-group Newmark / HHT-α for rigid bodies (Sherif eqs. 29–31):
//   θ        = h ω_n + h²(½ − β) ω̇_n + h² β ω̇_{n+1}            (eq. 30, body-frame increment)
//   e_{n+1}  = e_n ∘ exp((0, θ/2))                               (eq. 29, A_{n+1} = A_n exp(θ̃))
//   ω_{n+1}  = ω_n + h(1 − γ) ω̇_n + h γ ω̇_{n+1}                 (eq. 31)
// and Euler's equations J ω̇ + ω × Jω = τ (Sherif eq. 8) weighted as in HHT (Sherif eq. 61/62):
//   J ω̇_{n+1}/(1+α) + (ω×Jω − τ)_{n+1} − α/(1+α) (ω×Jω − τ)_n = 0.
// The unit length of e holds by construction; the Newton unknown is ω̇_{n+1} (3 per body).
// Translation (free bodies) uses the same HHT weighting with Newmark, solved in closed form.
#pragma once

#include <limits>

#include "quatstep/integrators/hht_parameters.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/quaternion.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

template <class S>
struct SimoVuQuocSettings {
  S alpha = S(-0.2);  ///< numerical damping, ∈ [−1/3, 0]. Default: −0.2.
  NewtonSettings<S> newton{};

  template <class Keys>
  void describe(Keys& k) {
    k("alpha", alpha, "numerical damping; beta = (1-alpha)^2/4, gamma = (1-2 alpha)/2 (Sherif eq. 19)", alpha_range);
    newton.describe(k);
  }
};

template <class Model>
class SimoVuQuoc {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;

  struct State {
    Vec4<S> e;
    Vec3<S> w, wd;     // body angular velocity and acceleration
    Vec3<S> r, v, a;   // translation (unused for bodies about a fixed point)
    static constexpr int size = Model::translates ? 19 : 10;
    QS_HD S& operator[](int i) {
      return i < 4 ? e[i] : i < 7 ? w[i - 4] : i < 10 ? wd[i - 7] : i < 13 ? r[i - 10] : i < 16 ? v[i - 13] : a[i - 16];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  SimoVuQuocSettings<S> settings;
  HhtParameters<S> p;

  QS_HD explicit SimoVuQuoc(const SimoVuQuocSettings<S>& s = {}) : settings(s), p(s.alpha) {}

  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S t, State& s) const {
    s.e = k.quaternion;
    s.w = k.omega_body;
    s.r = k.position;
    s.v = k.velocity;
    s.a = Vec3<S>::Zero();
    const Mat3<S> J = model.inertia;
    const Lu<S, 3> lu(J);
    if (lu.singular) return failed_start(s, Status::singular_jacobian);
    s.wd = lu.solve(Vec3<S>(model.body_torque(s.e, t) - s.w.cross(J * s.w)));
    if constexpr (Model::translates) s.a = model.translational_force(t) / model.mass;
    return Status::ok;
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model&, const State& s) const {
    return RigidBodyKinematics<S>::of(s.e, s.w, s.r, s.v);
  }

  QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    const Step sys(model, *this, s, t, h);
    Vec3<S> x = s.wd;  // predictor ω̇_{n+1}⁽⁰⁾ = ω̇_n
    NewtonOutcome out = newton_solve<S, 3>(sys, x, settings.newton);
    if (out.status != Status::ok) return out;
    const State next = end_point(model, s, sys, x, t, h);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    s = next;
    return out;
  }

  /// The nonlinear system of one step, for newton_solve (public so tests can check its Jacobian).
  struct Step {
    const Model& model;
    const SimoVuQuoc& svq;
    const State& s0;
    S t1, h;
    Vec3<S> theta_pred;  // eq. (30) without the ω̇_{n+1} term
    Vec3<S> w_pred;      // eq. (31) without the ω̇_{n+1} term
    Vec3<S> residual_n;  // (ω×Jω − τ)_n
    S velocity_scale;  // ‖ω_n‖∞ + h‖ω̇_n‖∞

    QS_HD Step(const Model& mo, const SimoVuQuoc& sv, const State& s, S t, S hh)
        : model(mo), svq(sv), s0(s), t1(t + hh), h(hh) {
      const auto& p = svq.p;
      theta_pred = h * s.w + (S(0.5) - p.beta) * h * h * s.wd;
      w_pred = s.w + (S(1) - p.gamma) * h * s.wd;
      residual_n = s.w.cross(model.inertia * s.w) - model.body_torque(s.e, t);
      velocity_scale = s.w.template lpNorm<Eigen::Infinity>() + h * s.wd.template lpNorm<Eigen::Infinity>();
    }
    QS_HD Vec3<S> theta(const Vec3<S>& wd1) const { return theta_pred + svq.p.beta * h * h * wd1; }
    QS_HD Vec4<S> orientation(const Vec3<S>& wd1) const {
      return quat_mul<S>(s0.e, quat_from_rotation_vector<S>(theta(wd1)));
    }

    QS_HD void residual(const Vec3<S>& wd1, Vec3<S>& R) const {
      const auto& p = svq.p;
      const S c = S(1) / (S(1) + p.alpha);
      const Vec3<S> w1 = w_pred + p.gamma * h * wd1;
      R = c * (model.inertia * wd1) + w1.cross(model.inertia * w1) - model.body_torque(orientation(wd1), t1) -
          p.alpha * c * residual_n;
    }

    QS_HD void evaluate(const Vec3<S>& wd1, Vec3<S>& R, Mat3<S>& Jac) const {
      residual(wd1, R);
      const auto& p = svq.p;
      const S c = S(1) / (S(1) + p.alpha), bh2 = p.beta * h * h, gh = p.gamma * h;
      const Mat3<S>& J = model.inertia;
      const Vec3<S> th = theta(wd1);
      const Vec4<S> e1 = orientation(wd1);
      const Vec3<S> w1 = w_pred + gh * wd1;
      const Vec3<S> Jw = J * w1;
      // ∂(ω×Jω)/∂ω = ω̃J − (Jω)~ ; ∂τ/∂ω̇ = τ_φ J_r(θ) βh²
      Jac = c * J + (skew(w1) * J - skew(Jw)) * gh - model.body_torque_dphi(e1, t1) * so3_right_jacobian(th) * bh2;
    }
    /// γh‖Δω̇‖∞ relative to ‖ω_n‖∞ + h‖ω̇_n‖∞ + h‖ω̇⁽ᵏ⁾‖∞ (a body starting from rest still has a scale).
    QS_HD S correction_norm(const Vec3<S>& dx, const Vec3<S>& x) const {
      const S scale = velocity_scale + h * x.template lpNorm<Eigen::Infinity>() + std::numeric_limits<S>::min();
      return svq.p.gamma * h * dx.template lpNorm<Eigen::Infinity>() / scale;
    }
  };

  /// The state at t + h from the solution ω̇_{n+1} of the step's system (eqs. 29–31), unchecked
  /// (step's, or the lane step's per body: simd/lane_simo_vu_quoc.hpp).
  QS_HD State end_point(const Model& model, const State& s, const Step& sys, const Vec3<S>& wd1, S t,
                        S h) const {
    State next = s;
    next.wd = wd1;
    next.e = stored_orientation(sys.orientation(wd1));
    next.w = s.w + (S(1) - p.gamma) * h * s.wd + p.gamma * h * wd1;
    if constexpr (Model::translates) {
      // M a_{n+1} = (1+α) F_{n+1} − α F_n (HHT weighting of the applied force), Newmark for r, v.
      next.a = ((S(1) + p.alpha) * model.translational_force(t + h) - p.alpha * model.translational_force(t)) /
               model.mass;
      next.r = s.r + h * s.v + h * h * ((S(0.5) - p.beta) * s.a + p.beta * next.a);
      next.v = s.v + h * ((S(1) - p.gamma) * s.a + p.gamma * next.a);
    }
    return next;
  }
};

struct SimoVuQuocMethod {
  static constexpr MethodInfo info{"simo_vu_quoc", "SimoVuQuoc<Model>", "simo_vu_quoc.hpp",
                                   "Sherif eqs. 29–31 with HHT weighting (Simo & Vu-Quoc's Lie-group HHT)", "2",
                                   "unit length by construction"};
  template <class Model, int>
  using Integrator = SimoVuQuoc<Model>;
};

}  // namespace quatstep
