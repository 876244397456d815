// The HHT-α family on the index-3 Euler-parameter DAE (Sherif eqs. 57–70, Negrut §2):
//   Hht          classical Newmark on every coordinate (Sherif eqs. 17–18 / 59–60),
//   ModifiedHht  Newmark on the body angular velocity for each quaternion block (Sherif eqs. 33–34),
// each optionally with the inertia time shift of shared/notes/second_order_hht.md
// (inertia_shift = true), which restores second order for α ≠ 0 (errata S3).
//
// Unknowns x = (q̈_{n+1}, λ_{n+1}); residual Sherif eqs. (62)–(63) with the constraint rows scaled
// by 1/(βh²) (Negrut eq. 13, errata S9); Jacobian Sherif eq. (65) with J₀ = βh² I (eq. 66) and
// J₁ of eq. (68)–(69). The translation of a free body (r in Sherif §9's ordering (r, e)) has a
// constant mass, no constraint and a force that does not depend on the rotation, so its rows of
// eq. (62) are linear and decoupled: they are solved in closed form and Newton sees (ë, λ) only.
#pragma once

#include <limits>
#include <stdexcept>
#include <string>

#include "quatstep/integrators/hht_parameters.hpp"
#include "quatstep/integrators/midpoint_translation.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep {

enum class VelocityUpdate { classical, modified };

template <class S>
struct HhtSettings {
  S alpha = S(-0.2);           ///< numerical damping, ∈ [−1/3, 0]. Default: −0.2.
  bool inertia_shift = false;  ///< second-order variant (second_order_hht.md). Default: false.
  NewtonSettings<S> newton{};
  /// Largest |eᵀė|/|ė| accepted before the body is reported as having lost the velocity-level
  /// constraint (errata S4: classical α = 0 diverges this way). Default: 1e-3.
  S drift_tolerance = S(1e-3);
};

template <class Model, VelocityUpdate Update>
class HhtFamily {
 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;
  static constexpr int n = Model::n;
  static constexpr int m = Model::m;
  /// Translation coordinates at the front of q (3 for a free body), solved in closed form.
  static constexpr int nt = model_translates<Model>() ? 3 : 0;
  static constexpr int nr = n - nt;  ///< coordinates in the Newton system
  static constexpr int K = nr + m;   ///< Newton unknowns
  using VecN = Vec<S, n>;
  using MatN = Eigen::Matrix<S, n, n>;
  using VecM = Vec<S, m>;
  using MatMN = Eigen::Matrix<S, m, n>;

  struct State {
    VecN q, v, a;  // coordinates, velocities, accelerations
    VecM lambda;   // multipliers (Sherif eq. 61 scale: force C_qᵀλ)
    static constexpr int size = 3 * n + m;
    QS_HD S& operator[](int i) { return i < n ? q[i] : i < 2 * n ? v[i - n] : i < 3 * n ? a[i - 2 * n] : lambda[i - 3 * n]; }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  HhtSettings<S> settings;
  HhtParameters<S> p;

  QS_HD explicit HhtFamily(const HhtSettings<S>& s = {}) : settings(s), p(s.alpha) {}

  /// Host-side check of the settings (device code cannot throw): α ∈ [−1/3, 0], Newton settings sane.
  void validate() const {
    if (!alpha_in_range(p.alpha))
      throw std::invalid_argument("integrator.alpha = " + std::to_string(p.alpha) + ": must be in [-1/3, 0]");
    quatstep::validate(settings.newton);
  }

  /// Consistent initial state: q̈₀, λ₀ from Sherif eq. (57), M q̈ + C_qᵀλ = Q, and eq. (58)
  /// differentiated twice, C_q q̈ = −(C_q q̇)_q q̇; a free body's
  /// translation rows (m r̈ = F, decoupled as in the step) directly, the rest with one LU.
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S t, State& s) const {
    model.dae_from_kinematics(k, s.q, s.v);
    Eigen::Matrix<S, K, K> A = Eigen::Matrix<S, K, K>::Zero();
    Vec<S, K> b;
    const MatMN Cq = model.constraint_jacobian(s.q);
    const VecN Q = model.force(s.q, s.v, t);
    A.template topLeftCorner<nr, nr>() = model.mass_matrix(s.q, s.q).template bottomRightCorner<nr, nr>();
    A.template topRightCorner<nr, m>() = Cq.template rightCols<nr>().transpose();
    A.template bottomLeftCorner<m, nr>() = Cq.template rightCols<nr>();
    b.template head<nr>() = Q.template tail<nr>();
    b.template tail<m>() = model.constraint_acceleration_rhs(s.q, s.v);
    const Lu<S, K> lu(A);
    if (lu.singular) return Status::singular_jacobian;
    const Vec<S, K> x = lu.solve(b);
    if constexpr (nt > 0) s.a.template head<nt>() = Q.template head<nt>() / model.mass;
    s.a.template tail<nr>() = x.template head<nr>();
    s.lambda = x.template tail<m>();
    return Status::ok;
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model& model, const State& s) const {
    return model.kinematics_from_dae(s.q, s.v);
  }

  /// One step t → t + h. On failure the state is left as it was and the status says why.
  QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    const Step sys(model, *this, s, t, h);
    Vec<S, K> x = unknowns(s);  // predictor: q̈_{n+1}⁽⁰⁾ = q̈_n, λ⁽⁰⁾ = λ_n
    NewtonOutcome out = newton_solve<S, K>(sys, x, settings.newton);
    if (out.status != Status::ok) return out;
    State next;
    next.a = sys.accelerations(x);
    next.lambda = x.template tail<m>();
    sys.kinematics(next.a, next.q, next.v);
    out.status = check(next);
    if (out.status == Status::ok) s = next;
    return out;
  }

  /// The Newton unknowns of a state: the accelerations of the non-translation coordinates, and λ.
  QS_HD static Vec<S, K> unknowns(const State& s) {
    Vec<S, K> x;
    x.template head<nr>() = s.a.template tail<nr>();
    x.template tail<m>() = s.lambda;
    return x;
  }

  /// Finite state and, per quaternion block, |eᵀė| ≤ drift_tolerance·|ė| (errata S4).
  QS_HD Status check(const State& s) const {
    if (!all_finite(s)) return Status::non_finite;
    for (int b = 0; b < Model::n_quaternions; ++b) {
      const int o = Model::quaternion_offset(b);
      const Vec4<S> e = s.q.template segment<4>(o), ed = s.v.template segment<4>(o);
      const S edn = ed.norm();
      if (Eigen::numext::abs(e.dot(ed)) > settings.drift_tolerance * edn) return Status::constraint_drift;
    }
    return Status::ok;
  }

  /// The nonlinear system of one step, for newton_solve (public so tests can check its Jacobian).
  /// Everything the iterations evaluate at t_{n+1} uses `model`, the body with its loads held at
  /// t_{n+1}; the Newmark predictors are recomputed from s0 at each evaluation rather than stored
  /// (the same bits; ≈ 80 more flops per step for fewer live registers in the GPU kernels).
  struct Step {
    Model model;  // held at t_{n+1}
    const HhtFamily& hht;
    const State& s0;
    S t1, h, bh2, gh;
    VecN force_n;  // (C_qᵀλ − Q)_n
    Vec<S, nt> translation_acceleration;  // rows 1–3 of Sherif eq. (62) solved, free bodies
    Vec3<S> w[Model::n_quaternions];  // Sherif eq. (70): w = G_n ė_n + h(1−γ) G_n ë_n
    S velocity_scale;  // ‖q̇_n‖∞ + h‖q̈_n‖∞ over the Newton coordinates

    QS_HD Step(const Model& mo, const HhtFamily& hf, const State& s, S t, S hh)
        : model(mo.held_at(t + hh)), hht(hf), s0(s), t1(t + hh), h(hh) {
      bh2 = hht.p.beta * h * h;
      gh = hht.p.gamma * h;
      force_n = mo.constraint_jacobian(s.q).transpose() * s.lambda - mo.force(s.q, s.v, t);
      if constexpr (nt > 0) {
        // c m r̈ − F(t_{n+1}) − α c (−F(t_n)) = 0, c = 1/(1+α): m r̈ = (1+α) F(t_{n+1}) − α F(t_n)
        const S alpha = hht.p.alpha;
        translation_acceleration = ((S(1) + alpha) * model.translational_force(t1) +
                                    alpha * force_n.template head<nt>()) / model.mass;
      }
      if constexpr (Update == VelocityUpdate::modified) {
        const VecN v_pred = velocity_predictor();
        for (int b = 0; b < Model::n_quaternions; ++b) {
          const int o = Model::quaternion_offset(b);
          w[b] = G<S>(s.q.template segment<4>(o)) * v_pred.template segment<4>(o);
        }
      }
      velocity_scale = s.v.template tail<nr>().template lpNorm<Eigen::Infinity>() +
                       h * s.a.template tail<nr>().template lpNorm<Eigen::Infinity>();
    }

    /// q̈_{n+1} from the Newton unknowns.
    QS_HD VecN accelerations(const Vec<S, K>& x) const {
      VecN a;
      if constexpr (nt > 0) a.template head<nt>() = translation_acceleration;
      a.template tail<nr>() = x.template head<nr>();
      return a;
    }

    /// The Newmark predictors, Sherif eqs. (59)–(60) without the q̈_{n+1} terms.
    QS_HD VecN position_predictor() const {
      return s0.q + h * s0.v + (S(0.5) - hht.p.beta) * h * h * s0.a;
    }
    QS_HD VecN velocity_predictor() const { return s0.v + (S(1) - hht.p.gamma) * h * s0.a; }

    /// q_{n+1}, q̇_{n+1} from q̈_{n+1}: Sherif eqs. (59)/(33) and (60) or (34).
    QS_HD void kinematics(const VecN& a, VecN& q1, VecN& v1) const {
      q1 = position_predictor() + bh2 * a;
      v1 = velocity_predictor() + gh * a;
      if constexpr (Update == VelocityUpdate::modified) {
        for (int b = 0; b < Model::n_quaternions; ++b) {
          const int o = Model::quaternion_offset(b);
          const Vec4<S> e = q1.template segment<4>(o), ab = a.template segment<4>(o);
          // Sherif eq. (34): ė = G(e)ᵀ w + hγ (I − e eᵀ) ë
          v1.template segment<4>(o) = G(e).transpose() * w[b] + gh * (ab - e * e.dot(ab));
        }
      }
    }

    /// The matrix multiplying q̈_{n+1} in the inertia term, M(q_{n+1}) or its time-shifted form.
    QS_HD MatN inertia_matrix(const VecN& q1) const {
      const S alpha = hht.p.alpha;
      if (!hht.settings.inertia_shift) return model.mass_matrix(q1, q1);
      if constexpr (Update == VelocityUpdate::modified) {
        // second_order_hht.md: 4 G(ẽ)ᵀ J G(e_{n+1}) ë, ẽ = (1+α) e_{n+1} − α e_n
        const VecN qt = (S(1) + alpha) * q1 - alpha * s0.q;
        return model.mass_matrix(qt, q1);
      } else {
        // second_order_hht.md: [(1+α) M(e_{n+1}) − α M(e_n)] ë
        return (S(1) + alpha) * model.mass_matrix(q1, q1) - alpha * model.mass_matrix(s0.q, s0.q);
      }
    }
    /// ∂(inertia_matrix(q_{n+1}) q̈)/∂q_{n+1} at fixed q̈.
    QS_HD MatN inertia_dq(const VecN& q1, const VecN& a) const {
      const S alpha = hht.p.alpha;
      if (hht.settings.inertia_shift && Update == VelocityUpdate::modified) {
        const VecN qt = (S(1) + alpha) * q1 - alpha * s0.q;
        return (S(1) + alpha) * model.mass_times_d_left(q1, a) + model.mass_times_d_right(qt, a);
      }
      const MatN d = model.mass_times_d_left(q1, a) + model.mass_times_d_right(q1, a);
      return hht.settings.inertia_shift ? MatN((S(1) + alpha) * d) : d;
    }
    /// Sherif eq. (62) (the Newton rows) and the scaled constraint rows of Negrut eq. (13).
    QS_HD void assemble_residual(const VecN& a, const VecM& lambda, const VecN& q1, const MatN& M, const VecN& Q,
                                 const MatMN& Cq, Vec<S, K>& R) const {
      const S alpha = hht.p.alpha, c = S(1) / (S(1) + alpha);
      const VecN r = c * (M * a) + Cq.transpose() * lambda - Q - alpha * c * force_n;
      R.template head<nr>() = r.template tail<nr>();
      R.template tail<m>() = model.constraint(q1) / bh2;
    }

    QS_HD void residual(const Vec<S, K>& x, Vec<S, K>& R) const {
      const VecN a = accelerations(x);
      VecN q1, v1;
      kinematics(a, q1, v1);
      assemble_residual(a, x.template tail<m>(), q1, inertia_matrix(q1), model.force(q1, v1, t1),
                        model.constraint_jacobian(q1), R);
    }

    QS_HD void evaluate(const Vec<S, K>& x, Vec<S, K>& R, Eigen::Matrix<S, K, K>& Jac) const {
      const S c = S(1) / (S(1) + hht.p.alpha);
      const VecN a = accelerations(x);
      const VecM lambda = x.template tail<m>();
      VecN q1, v1;
      kinematics(a, q1, v1);
      const MatN M = inertia_matrix(q1);
      VecN Q;
      MatN dQ_dq, dQ_dv;
      model.force_jacobians(q1, v1, t1, Q, dQ_dq, dQ_dv);
      const MatMN Cq = model.constraint_jacobian(q1);
      assemble_residual(a, lambda, q1, M, Q, Cq, R);

      // Sherif eq. (65): (1/(1+α)) M + [(1/(1+α))(Mq̈)_q + (C_qᵀλ)_q − Q_q] J₀ − Q_q̇ J₁, with J₀ = βh² I.
      // Accumulated in this order: of the orders tried it leaves ptxas the fewest spills
      // (ModifiedHht<HeavyTop<double>>: 196 B against 300–530 B for the others).
      MatN J = c * M + (model.constraint_force_dq(q1, lambda) - dQ_dq) * bh2;
      J += (c * bh2) * inertia_dq(q1, a);
      J.noalias() -= dQ_dv * velocity_jacobian(a, q1);
      Jac.template topLeftCorner<nr, nr>() = J.template bottomRightCorner<nr, nr>();
      Jac.template topRightCorner<nr, m>() = Cq.template rightCols<nr>().transpose();
      Jac.template bottomLeftCorner<m, nr>() = Cq.template rightCols<nr>();  // (C_q J₀)/(βh²)
      Jac.template bottomRightCorner<m, m>().setZero();
    }

    /// J₁ = ∂q̇_{n+1}/∂q̈_{n+1}: hγ I (eq. 60) or, per quaternion block, Sherif eq. (69).
    QS_HD MatN velocity_jacobian(const VecN& a, const VecN& q1) const {
      MatN J1 = gh * MatN::Identity();
      if constexpr (Update == VelocityUpdate::modified) {
        for (int b = 0; b < Model::n_quaternions; ++b) {
          const int o = Model::quaternion_offset(b);
          const Vec4<S> e = q1.template segment<4>(o), ab = a.template segment<4>(o);
          J1.template block<4, 4>(o, o) = bh2 * d_Gt_times<S>(w[b]) +
                                          gh * (Mat4<S>::Identity() - e * e.transpose()) -
                                          gh * bh2 * (e * ab.transpose() + e.dot(ab) * Mat4<S>::Identity());
        }
      }
      return J1;
    }

    /// Velocity change γh‖Δq̈‖∞ relative to the velocity scale of the step, which includes the
    /// current iterate's h‖q̈‖∞ (a body at rest whose load switches on still has a scale); both
    /// over the Newton coordinates only (a free body's translation in m/s would otherwise loosen
    /// the test on its Euler parameters when it moves fast).
    QS_HD S correction_norm(const Vec<S, K>& dx, const Vec<S, K>& x) const {
      const S scale = velocity_scale + h * x.template head<nr>().template lpNorm<Eigen::Infinity>() +
                      std::numeric_limits<S>::min();
      return gh * dx.template head<nr>().template lpNorm<Eigen::Infinity>() / scale;
    }
  };
};

/// Classical HHT-α on Euler parameters (Sherif eqs. 17–20).
template <class Model>
using Hht = HhtFamily<Model, VelocityUpdate::classical>;
/// Modified HHT-α for Euler parameters (Sherif eqs. 33–34); inertia_shift selects the second-order form.
template <class Model>
using ModifiedHht = HhtFamily<Model, VelocityUpdate::modified>;

}  // namespace quatstep
