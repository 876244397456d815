// The HHT-α family on the index-3 Euler-parameter DAE (Sherif eqs. 57–70, Negrut §2):
//   Hht          classical Newmark on every coordinate (Sherif eqs. 17–18 / 59–60),
//   ModifiedHht  Newmark on the body angular velocity for each quaternion block (Sherif eqs. 33–34),
// each optionally with the inertia time shift of docs/second_order_hht.md
// (inertia_shift = true), which restores second order for α ≠ 0 (docs/errata.md S3).
//
// Unknowns x = (q̈_{n+1}, λ_{n+1}); residual Sherif eqs. (62)–(63) with the constraint rows scaled
// by 1/(βh²) (Negrut eq. 13, docs/errata.md S9); Jacobian Sherif eq. (65) with J₀ = βh² I (eq. 66) and
// J₁ of eq. (68)–(69), assembled column by column from directional derivatives. The translation
// of a free body (r in Sherif §9's ordering (r, e)) has a constant mass, no constraint and a force
// that does not depend on the rotation, so its rows of eq. (62) are linear and decoupled: they are
// solved in closed form and Newton sees (ë, λ) only.
#pragma once

#include <limits>
#include <type_traits>
#include <utility>

#include "quatstep/integrators/hht_parameters.hpp"
#include "quatstep/integrators/hht_terms.hpp"
#include "quatstep/integrators/midpoint_translation.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/quaternion.hpp"
#include "quatstep/registry/entry.hpp"

namespace quatstep {

template <class S>
struct HhtSettings {
  S alpha = S(-0.2);           ///< numerical damping, ∈ [−1/3, 0]. Default: −0.2.
  bool inertia_shift = false;  ///< second-order variant (docs/second_order_hht.md). Default: false.
  NewtonSettings<S> newton{};
  /// Largest |eᵀė|/|ė| accepted, above a round-off floor of 16ε/h (hht::quaternion_drifted), before
  /// the body is reported as having lost the velocity-level constraint (docs/errata.md S4:
  /// classical α = 0 diverges this way). Default: 1e-3.
  S drift_tolerance = S(1e-3);

  template <class Keys>
  void describe(Keys& k) {
    k("alpha", alpha, "numerical damping; beta = (1-alpha)^2/4, gamma = (1-2 alpha)/2 (Sherif eq. 19)", alpha_range);
    k("inertia_shift", inertia_shift, "second-order variant for every alpha (docs/second_order_hht.md)");
    k("drift_tolerance", drift_tolerance,
      "largest |e.de/dt|/|de/dt| (above a round-off floor of 16 eps/h) before the body fails with constraint_drift (docs/errata.md S4)",
      keys::Range{0.0, keys::infinity, false, true, "> 0 (infinity in C++: no check)"});
    newton.describe(k);
  }
};

template <class Model, VelocityUpdate Update>
class HhtFamily {
 public:
  using ModelType = Model;
  static constexpr VelocityUpdate update = Update;
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

  /// Consistent initial state: q̈₀, λ₀ from Sherif eq. (57), M q̈ + C_qᵀλ = Q, and eq. (58)
  /// differentiated twice, C_q q̈ = −(C_q q̇)_q q̇; a free body's
  /// translation rows (m r̈ = F, decoupled as in the step) directly, the rest with one LU
  /// (a singular one: failed_start).
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S t, State& s) const {
    model.dae_from_kinematics(k, s.q, s.v);
    Vec<S, K> b;
    const VecN Q = model.force(s.q, s.v, t);
    b.template head<nr>() = Q.template tail<nr>();
    b.template tail<m>() = model.constraint_acceleration_rhs(s.q, s.v);
    const Lu<S, K> lu(constrained_mass(model, s.q));
    if (lu.singular) return failed_start(s, Status::singular_jacobian);
    const Vec<S, K> x = lu.solve(b);
    if constexpr (nt > 0) s.a.template head<nt>() = Q.template head<nt>() / model.mass;
    s.a.template tail<nr>() = x.template head<nr>();
    s.lambda = x.template tail<m>();
    return Status::ok;
  }

  /// [M C_qᵀ; C_q 0] over the Newton coordinates at q (Sherif eq. 57): the matrix of the
  /// consistent initial state, and how the accelerations answer a force under the constraints
  /// (the local error estimate of the plain methods, include/quatstep/adaptive/local_error.hpp).
  QS_HD static Eigen::Matrix<S, K, K> constrained_mass(const Model& model, const VecN& q) {
    Eigen::Matrix<S, K, K> A = Eigen::Matrix<S, K, K>::Zero();
    const MatMN Cq = model.constraint_jacobian(q);
    A.template topLeftCorner<nr, nr>() = model.bilinear_mass_matrix(q, q).template bottomRightCorner<nr, nr>();
    A.template topRightCorner<nr, m>() = Cq.template rightCols<nr>().transpose();
    A.template bottomLeftCorner<m, nr>() = Cq.template rightCols<nr>();
    return A;
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model& model, const State& s) const {
    return model.kinematics_from_dae(s.q, s.v);
  }

  /// One step t → t + h. On failure the state is left as it was and the status says why.
  QS_FLATTEN QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    return step(model, s, t, h, unknowns(s));  // predictor: q̈_{n+1}⁽⁰⁾ = q̈_n, λ⁽⁰⁾ = λ_n
  }
  /// The same from the Newton starting value x (an extrapolating predictor, Negrut §3.5:
  /// include/quatstep/adaptive/predictor.hpp).
  QS_FLATTEN QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h, Vec<S, K> x) const {
    const Step sys(model, *this, s, t, h);
    NewtonOutcome out = newton_solve<S, K>(sys, x, settings.newton);
    if (out.status != Status::ok) return out;
    State next;
    next.a = sys.accelerations(x);
    next.lambda = x.template tail<m>();
    sys.kinematics(next.a, next.q, next.v);
    out.status = check(next, h);
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

  /// Finite state, and not drifted (below).
  QS_HD Status check(const State& s, S h) const {
    if (!all_finite(s)) return Status::non_finite;
    return drifted(s, h) ? Status::constraint_drift : Status::ok;
  }

  /// Whether a quaternion block's velocity constraint has drifted after a step of size h
  /// (hht::quaternion_drifted). A condition of math/choose.hpp: a lane mask for a lane type
  /// (simd/lane_hht.hpp).
  QS_HD auto drifted(const State& s, S h) const {
    auto drift = !math::always<S>();
    for (int b = 0; b < Model::n_quaternions; ++b) {
      const int o = Model::quaternion_offset(b);
      drift = drift || hht::quaternion_drifted<S>(s.q.template segment<4>(o), s.v.template segment<4>(o),
                                                  settings.drift_tolerance, h);
    }
    return drift;
  }

  /// The nonlinear system of one step, for newton_solve (public so tests can check its Jacobian).
  /// Everything the iterations evaluate at t_{n+1} uses `model`, the body with its loads held at
  /// t_{n+1}; the Newmark predictors are recomputed from s0 at each evaluation rather than stored
  /// (the same bits; ≈ 80 more flops per step for fewer live registers in the GPU kernels).
  struct Step {
    Model model;  // held at t_{n+1}
    const HhtFamily& hht;
    State s0;  // a copy: a reference here kept the caller's state in GPU local memory
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
          v1.template segment<4>(o) =
              hht::modified_rate(Vec4<S>(q1.template segment<4>(o)), w[b], Vec4<S>(a.template segment<4>(o)), gh);
        }
      }
    }

    /// The inertia term M̃ q̈ of the residual and its derivative (hht_terms.hpp).
    QS_HD VecN inertia_force(const VecN& q1, const VecN& a) const {
      return hht::inertia_force<Update>(model, hht.p, hht.settings.inertia_shift, s0.q, q1, a);
    }
    QS_HD VecN inertia_force_derivative(const VecN& q1, const VecN& a, const VecN& da, const VecN& dq) const {
      return hht::inertia_force_derivative<Update>(model, hht.p, hht.settings.inertia_shift, s0.q, q1, a, da, dq);
    }

    /// Sherif eq. (62) (the Newton rows) and the scaled constraint rows of Negrut eq. (13).
    QS_HD void assemble_residual(const VecN& a, const VecM& lambda, const VecN& q1, const VecN& Q, const MatMN& Cq,
                                 Vec<S, K>& R) const {
      const S alpha = hht.p.alpha, c = S(1) / (S(1) + alpha);
      const VecN r = c * inertia_force(q1, a) + Cq.transpose() * lambda - Q - alpha * c * force_n;
      R.template head<nr>() = r.template tail<nr>();
      R.template tail<m>() = model.constraint(q1) / bh2;
    }

    QS_HD void residual(const Vec<S, K>& x, Vec<S, K>& R) const {
      const VecN a = accelerations(x);
      VecN q1, v1;
      kinematics(a, q1, v1);
      assemble_residual(a, x.template tail<m>(), q1, model.force(q1, v1, t1), model.constraint_jacobian(q1), R);
    }

    /// Residual and Sherif eq. (65), one column at a time: column j is the derivative of the
    /// residual along δq̈ = e_j, which moves q_{n+1} by J₀δq̈ = βh² δq̈ (eq. 66) and q̇_{n+1} by
    /// J₁δq̈ (eqs. 60, 68–69):
    ///   (1/(1+α)) [M̃ δq̈ + (M̃q̈)_q J₀δq̈] + (C_qᵀλ)_q J₀δq̈ − Q_q J₀δq̈ − Q_q̇ J₁δq̈.
    /// No n×n derivative matrix is formed: a column needs only vectors, which keeps the GPU kernels
    /// within their registers (bench/README.md).
    QS_HD void evaluate(const Vec<S, K>& x, Vec<S, K>& R, Eigen::Matrix<S, K, K>& Jac) const {
      const S c = S(1) / (S(1) + hht.p.alpha);
      const VecN a = accelerations(x);
      const VecM lambda = x.template tail<m>();
      VecN q1, v1;
      kinematics(a, q1, v1);
      const auto Q = model.linearized_force(q1, v1, t1);
      const MatMN Cq = model.constraint_jacobian(q1);
      assemble_residual(a, lambda, q1, Q.value, Cq, R);
      // One pass over the columns for each term of Q's derivative, then the constraint and the
      // inertia terms: the values a pass shares between its columns are not live in the others
      // (GPU registers).
      Jac.template topLeftCorner<nr, nr>().setZero();
      add_force_columns(Jac, Q, a, q1, std::make_integer_sequence<int, std::decay_t<decltype(Q)>::terms>{});
      add_columns(Jac, [&](const VecN&, const VecN& dq) { return model.constraint_force_derivative(q1, lambda, dq); });
      add_columns(Jac, [&](const VecN& da, const VecN& dq) { return VecN(c * inertia_force_derivative(q1, a, da, dq)); });
      Jac.template topRightCorner<nr, m>() = Cq.template rightCols<nr>().transpose();
      Jac.template bottomLeftCorner<m, nr>() = Cq.template rightCols<nr>();  // (C_q J₀)/(βh²)
      Jac.template bottomRightCorner<m, m>().setZero();
    }

    /// Adds column(δq̈, δq) to each column j of the Newton rows of Jac, with δq̈ = e_j (after the
    /// translation) and δq = βh² δq̈. The loop is not unrolled, and the direction and the columns
    /// rotate through it: no component of a direction is a constant, from which the compiler
    /// would fold products and hoist them out of the loop (GPU registers).
    template <class Column>
    QS_HD void add_columns(Eigen::Matrix<S, K, K>& Jac, const Column& column) const {
      VecN da = VecN::Zero();
      da[nt] = S(1);
      QS_NO_UNROLL for (int j = 0; j < nr; ++j) {
        const VecN d = column(da, VecN(bh2 * da));
        const Vec<S, nr> first = Jac.col(0).template head<nr>() + d.template tail<nr>();
        QS_UNROLL for (int k = 0; k + 1 < nr; ++k) Jac.col(k).template head<nr>() = Jac.col(k + 1).template head<nr>();
        Jac.col(nr - 1).template head<nr>() = first;
        const S last = da[n - 1];
        QS_UNROLL for (int k = n - 1; k > nt; --k) da[k] = da[k - 1];
        da[nt] = last;
      }
    }

    /// −(Q_q δq + Q_q̇ J₁ δq̈), term T of Q's derivative in pass T.
    template <class Force, int... T>
    QS_HD void add_force_columns(Eigen::Matrix<S, K, K>& Jac, const Force& Q, const VecN& a, const VecN& q1,
                                 std::integer_sequence<int, T...>) const {
      (add_columns(Jac,
                   [&](const VecN& da, const VecN& dq) {
                     return VecN(-Q.template derivative_term<T>(dq, velocity_derivative(a, q1, da, dq)));
                   }),
       ...);
    }

    /// J₁ δq̈ = ∂q̇_{n+1}/∂q̈_{n+1} δq̈, with δq = βh² δq̈: hγ δq̈ (eq. 60) or, per quaternion block,
    /// the derivative of eq. (34), i.e. eq. (69) applied to δë:
    ///   G(δe)ᵀ w + hγ (δë − δe (eᵀë) − e (δeᵀë + eᵀδë)).
    QS_HD VecN velocity_derivative(const VecN& a, const VecN& q1, const VecN& da, const VecN& dq) const {
      VecN dv = gh * da;
      if constexpr (Update == VelocityUpdate::modified) {
        for (int b = 0; b < Model::n_quaternions; ++b) {
          const int o = Model::quaternion_offset(b);
          dv.template segment<4>(o) = hht::modified_rate_derivative(
              Vec4<S>(q1.template segment<4>(o)), w[b], Vec4<S>(a.template segment<4>(o)),
              Vec4<S>(dq.template segment<4>(o)), Vec4<S>(da.template segment<4>(o)), gh);
        }
      }
      return dv;
    }

    /// Velocity change γh‖Δq̈‖∞ relative to the velocity scale of the step, which includes the
    /// current iterate's h‖q̈‖∞ (a body at rest whose load switches on still has a scale); both
    /// over the Newton coordinates only (a free body's translation in m/s would otherwise loosen
    /// the test on its Euler parameters when it moves fast).
    QS_HD S correction_norm(const Vec<S, K>& dx, const Vec<S, K>& x) const {
      return gh * dx.template head<nr>().template lpNorm<Eigen::Infinity>() / correction_scale(x);
    }

    /// The correction of q̈ that moves q_{n+1} = predictor + βh² q̈ by two units in the last place of
    /// its largest coordinate, 2ε‖q‖∞/(βh²), in correction_norm's units: smaller corrections are
    /// rounding (newton.hpp, the round-off stall).
    QS_HD S round_off_norm(const Vec<S, K>& x) const {
      const S position_ulps = S(2) * std::numeric_limits<S>::epsilon() *
                              s0.q.template tail<nr>().template lpNorm<Eigen::Infinity>();
      return gh * (position_ulps / bh2) / correction_scale(x);
    }

    QS_HD S correction_scale(const Vec<S, K>& x) const {
      return velocity_scale + h * x.template head<nr>().template lpNorm<Eigen::Infinity>() +
             std::numeric_limits<S>::min();
    }
  };
};

/// Classical HHT-α on Euler parameters (Sherif eqs. 17–20).
template <class Model>
using Hht = HhtFamily<Model, VelocityUpdate::classical>;
/// Modified HHT-α for Euler parameters (Sherif eqs. 33–34); inertia_shift selects the second-order form.
template <class Model>
using ModifiedHht = HhtFamily<Model, VelocityUpdate::modified>;

// ---------------------------------------------------------------- registry entries
struct HhtMethod {
  static constexpr MethodInfo info{"hht", "Hht<Model>", "hht.hpp",
                                   "Sherif et al. 2019 eqs. 17–20, 59–65 (classical HHT on Euler parameters)",
                                   "1 for α ≠ 0, 2 for α = 0 — but unstable at α = 0 for fast spin "
                                   "(docs/errata.md S4, reported per body)",
                                   "–"};
  static constexpr Configuration configurations[] = {
      {"shift", "inertia_shift = true", "docs/second_order_hht.md, classical pairing", "2", "–"}};
  template <class Model, int>
  using Integrator = Hht<Model>;
};

struct ModifiedHhtMethod {
  static constexpr MethodInfo info{"modified_hht", "ModifiedHht<Model>", "hht.hpp",
                                   "Sherif eqs. 33–34, 61–70 (modified HHT on Euler parameters)",
                                   "1 for α ≠ 0, 2 for α = 0 (docs/errata.md S3)", "exact spin-up at α = 0"};
  static constexpr Configuration configurations[] = {
      {"shift", "inertia_shift = true", "docs/second_order_hht.md (beyond the paper)", "2 for every α ∈ [−1/3, 0]",
       "exact spin-up for every α"}};
  template <class Model, int>
  using Integrator = ModifiedHht<Model>;
};

}  // namespace quatstep
