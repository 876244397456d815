// The HHT-α family on a mechanism's index-3 DAE (Sherif §9, eqs. 57–70; Negrut §2):
//   MechanismHht          classical Newmark on every coordinate (Sherif eqs. 59–60)
//   MechanismModifiedHht  the body translations by eqs. (59)–(60), each body's Euler parameters by
//                         the modified formulas (33)–(34)
// each optionally with the inertia time shift of docs/second_order_hht.md (HhtSettings::inertia_shift),
// per body on its Euler-parameter mass block (hht_terms.hpp). The same settings as the single-body
// HhtFamily (integrators/hht.hpp); the same per-block formulas.
//
// Unknowns x = (q̈_{n+1}, λ_{n+1}), ordered per body (its 7 accelerations, its Euler-parameter
// multiplier) and then the joint rows; residual Sherif eqs. (62)–(63), the constraint rows scaled by
// 1/(βh²) (Negrut eq. 13, docs/errata.md S9). Newton matrix Sherif eq. (65) with J₀ = βh² I (eq. 66) and J₁
// of eqs. (68)–(69), solved by the Schur complement onto the joint rows (kkt.hpp). Its body blocks
// are exact: inertia, gyroscopic and load derivatives, Euler-parameter and joint curvature
// (C_qᵀλ)_q J₀ and spring stiffness and damping on the body itself. The blocks coupling two bodies
// — a joint's curvature between its two bodies, a spring's stiffness and damping between them —
// are left out of the solved matrix: they are O(βh² λ) and O(βh² k + γh c) against the mass, so
// Newton converges linearly at that rate rather than quadratically (the stopping rule certifies
// either), and the body blocks stay independent. Step::jacobian_product gives the exact Newton
// matrix along a direction, for tests and for the dense comparison of docs/mechanisms.md.
//
// Velocity projection (docs/errata.md S10, docs/mechanisms.md). At α = 0 the index-3 scheme has a double
// eigenvalue at −1 in the constraint-normal velocities and accelerations (λ): classical Newmark
// keeps q_{n+1} − q_n = h/2 (q̇_n + q̇_{n+1}) exactly, so a velocity-constraint violation only
// alternates in sign while λ drifts linearly, and the constraint curvature makes that grow slowly
// (the classical step fails after ≈ 2 s on the test mechanisms); the modified update (34) breaks
// the identity in every Euler-parameter block (the h²βŵ term of eq. 69, the projection (I − eeᵀ) of
// δë), which splits the double eigenvalue and makes the modified step fail within 0.2–1 s, the
// sooner the smaller h (also at α = −0.05 on a spinning, loaded four-bar). After each step q̇_{n+1}
// is therefore projected onto C_q q̇ + C_t = 0 in the metric of the step's Newton matrix
// (project_velocities below): that removes the velocity-level half of the pair. With it every
// variant is stable at α = 0 and keeps its order; at α = −0.2 it changes the error by < 1e-3
// relative, and the velocity constraints then hold to O(h⁵). With project_velocities = false
// (Sherif's scheme as printed) a joint velocity residual above drift_tolerance is reported as
// Status::constraint_drift instead of a blow-up.
#pragma once

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "quatstep/integrators/hht.hpp"
#include "quatstep/mechanism/consistent_state.hpp"
#include "quatstep/mechanism/dynamics.hpp"
#include "quatstep/mechanism/kkt.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/subnormals.hpp"

namespace quatstep::mechanism {

/// HhtSettings (α, inertia shift, Newton, drift tolerance) and the velocity projection.
template <class S>
struct MechanismHhtSettings : HhtSettings<S> {
  /// Project q̇_{n+1} onto the velocity constraints after each step (file comment; docs/errata.md S10).
  /// Default: true.
  bool project_velocities = true;

  MechanismHhtSettings() = default;
  MechanismHhtSettings(const HhtSettings<S>& s) : HhtSettings<S>(s) {}  // NOLINT: the shared settings convert

  /// The single-body HHT keys and project_velocities (settings_keys.hpp).
  template <class Keys>
  void describe(Keys& k) {
    HhtSettings<S>::describe(k);
    k("project_velocities", project_velocities,
      "project the velocities onto the velocity constraints after each step (docs/mechanisms.md, "
      "docs/errata.md S10)");
  }
};

template <class Mech, VelocityUpdate Update>
class MechanismHhtFamily {
 public:
  using ModelType = Mech;
  using Scalar = typename Mech::Scalar;
  using S = Scalar;
  using D = Dae<Mech>;
  static constexpr int NB = D::NB, R = D::R, N = D::N, M = D::M;
  static constexpr VelocityUpdate update = Update;
  using Kkt = StructuredKkt<S, typename Mech::CapacityType>;
  static constexpr int K = Kkt::K;  ///< Newton unknowns at capacity
  using VecN = typename D::VecN;
  using VecM = typename D::VecM;
  using Vec7 = typename D::Vec7;
  using VecK = Vec<S, K>;
  using Kinematics = MechanismKinematics<S, NB>;

  struct State {
    VecN q, v, a;  // coordinates, velocities, accelerations
    VecM lambda;   // (λ_e per body | joint rows), Sherif eq. 61 scale: force C_qᵀλ
    static constexpr int size = 3 * N + M;
    QS_HD S& operator[](int i) { return i < N ? q[i] : i < 2 * N ? v[i - N] : i < 3 * N ? a[i - 2 * N] : lambda[i - 3 * N]; }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  MechanismHhtSettings<S> settings;
  HhtParameters<S> p;

  QS_HD explicit MechanismHhtFamily(const MechanismHhtSettings<S>& s = {}) : settings(s), p(s.alpha) {}

  /// Consistent initial state from kinematics on the constraints (assembly.hpp projects them there):
  /// q̈₀, λ₀ from Sherif eqs. (57)–(58) (consistent_state.hpp).
  QS_HD Status initialize(const Mech& m, const Kinematics& k, S t, State& s) const {
    dae_from_kinematics(m, k, s.q, s.v);
    return solve_accelerations(m, s.q, s.v, t, s.a, s.lambda);
  }

  QS_HD Kinematics kinematics(const Mech& m, const State& s) const { return kinematics_from_dae(m, s.q, s.v); }

  /// One step t → t + h. On failure the state is left as it was and the status says why.
  QS_HD NewtonOutcome step(const Mech& m, State& s, S t, S h) const {
    return step(m, s, t, h, unknowns(s));  // predictor: q̈_{n+1}⁽⁰⁾ = q̈_n, λ⁽⁰⁾ = λ_n
  }
  /// The same from the Newton starting value x (the adaptive steps' predictor, adaptive/predictor.hpp).
  QS_HD NewtonOutcome step(const Mech& m, State& s, S t, S h, VecK x) const {
    const Step sys(m, *this, s, t, h);
    Kkt kkt;
    NewtonOutcome out = newton_solve<S, K>(sys, x, settings.newton, kkt);
    if (out.status != Status::ok) return out;
    State next;
    next.a = accelerations(x);
    next.lambda = multipliers(x);
    sys.kinematics(next.a, next.q, next.v);
    if (settings.project_velocities) project_velocities(m, kkt, next, t + h);
    out.status = check(m, next, t + h, h);
    flush_subnormals(next);
    if (out.status == Status::ok) s = next;
    return out;
  }

  /// q̇ ← q̇ + δ with [Â Dᵀ; D 0](δ, μ) = (0, −(C_q q̇ + C_t)) at q_{n+1}: the projection onto the
  /// velocity constraints in the metric of the step's last factorised Newton matrix (Â = M/(1+α) +
  /// O(h), D = C_q at an iterate O(h³) from q_{n+1}). The correction is O(h²) (the index-3 velocity
  /// residual), so the metric changes it by O(h³) relative and the stale D leaves a residual of
  /// O(h³)·O(h²); one solve, no factorisation.
  QS_HD static void project_velocities(const Mech& m, const Kkt& kkt, State& s, S t) {
    const VecM c = constraint_rate(m, s.q, s.v, t);
    VecK rhs = VecK::Zero();
    for (int b = 0; b < m.n_bodies; ++b) rhs[Kkt::body_index(b) + 7] = -c[b];
    rhs.template segment<R>(Kkt::joint_index()) = -c.template tail<R>();
    const VecK x = kkt.solve(rhs);
    for (int b = 0; b < m.n_bodies; ++b) s.v.template segment<7>(7 * b) += x.template segment<7>(Kkt::body_index(b));
  }

  /// Finite state, and not drifted (drifted below).
  QS_HD Status check(const Mech& m, const State& s, S t, S h) const {
    if (!all_finite(s)) return Status::non_finite;
    return drifted(m, s, t, h) ? Status::constraint_drift : Status::ok;
  }

  /// Whether a velocity constraint has drifted: per body |eᵀė| > drift_tolerance·|ė| (docs/errata.md
  /// S4) or, without the velocity projection, a joint row's |C_q q̇ + C_t| (lengths over the length
  /// scale) > drift_tolerance · (the largest |ω| or |ṙ|/L of the bodies) (docs/errata.md S10); each
  /// above a floor of 16ε/h, the rates of rounding alone (a mechanism at rest: ė is rounding, so is
  /// eᵀė). A condition of math/choose.hpp: a lane mask for a lane type (simd/lane_mechanism_hht.hpp).
  QS_HD auto drifted(const Mech& m, const State& s, S t, S h) const {
    using math::is_less;
    using std::abs;
    using std::max;
    const S floor = S(16) * std::numeric_limits<S>::epsilon() / h;
    S speed = S(0);
    auto drift = !math::always<S>();
    for (int b = 0; b < m.n_bodies; ++b) {
      const Vec4<S> e = s.q.template segment<4>(7 * b + 3), ed = s.v.template segment<4>(7 * b + 3);
      drift = drift || hht::quaternion_drifted<S>(e, ed, settings.drift_tolerance, h);
      speed = max(speed, max(S(2) * ed.norm(), s.v.template segment<3>(7 * b).norm() / m.length_scale));
    }
    if (settings.project_velocities) return drift;
    for (int k = 0; k < m.n_joints; ++k) {
      const JointState<S> js = joint_at(m, k, s.q, s.v, t);
      for (int r = 0; r < js.rows(); ++r) {
        const bool length = row_geometry(m.joints[k], r, t).kind != RowKind::dot;
        drift = drift || is_less(settings.drift_tolerance * speed + floor,
                                 abs(js.rate(r)) / (length ? m.length_scale : S(1)));
      }
    }
    return drift;
  }

  /// The Newton unknowns (q̈, λ) of a state, and back.
  QS_HD static VecK unknowns(const State& s) { return Kkt::unknowns(s.a, s.lambda); }
  QS_HD static VecN accelerations(const VecK& x) { return Kkt::coordinates(x); }
  QS_HD static VecM multipliers(const VecK& x) { return Kkt::multipliers(x); }

  /// Joint j's rows in the saddle-point matrix: D_{j,s} = ∂C_j/∂q_s.
  QS_HD static void fill_jacobian(const Mech& m, int j, const JointState<S>& js, Kkt& kkt) {
    for (int s = 0; s < 2; ++s)
      if (m.joints[j].body[s] != ground)
        for (int r = 0; r < js.rows(); ++r) kkt.jac[j][s].row(r) = js.gradient(r, s).transpose();
  }

  /// The nonlinear system of one step, for newton_solve (public so tests can check its Jacobian).
  /// Loads at t_{n+1} are held once per step (Mechanism::bodies_at), those of t_n once.
  struct Step : AssembledSystem<Step, Kkt> {
    const Mech& mech;
    const MechanismHhtFamily& hht;
    const State& s0;
    typename Mech::Bodies held;  // loads at t_{n+1}
    S t1, h, bh2, gh, c;
    VecN force_n;     // (C_qᵀλ − Q)_n
    Vec3<S> w[NB];    // Sherif eq. (70) per body: w = G_n ė_n + h(1−γ) G_n ë_n
    S velocity_scale;  // Σ ‖ė_n‖∞ + h‖ë_n‖∞ + (‖ṙ_n‖∞ + h‖r̈_n‖∞)/L over the bodies

    QS_HD Step(const Mech& m, const MechanismHhtFamily& hf, const State& s, S t, S hh)
        : mech(m), hht(hf), s0(s), held(m.bodies_at(t + hh)), t1(t + hh), h(hh) {
      bh2 = hht.p.beta * h * h;
      gh = hht.p.gamma * h;
      c = S(1) / (S(1) + hht.p.alpha);
      force_n = constraint_force(m, s.q, t, s.lambda) - applied_force(m, m.bodies_at(t), s.q, s.v, t);
      const VecN v_pred = velocity_predictor();
      velocity_scale = S(0);
      for (int b = 0; b < m.n_bodies; ++b) {
        const int o = 7 * b;
        if constexpr (Update == VelocityUpdate::modified)
          w[b] = G<S>(s.q.template segment<4>(o + 3)) * v_pred.template segment<4>(o + 3);
        velocity_scale += s.v.template segment<4>(o + 3).template lpNorm<Eigen::Infinity>() +
                          h * s.a.template segment<4>(o + 3).template lpNorm<Eigen::Infinity>() +
                          (s.v.template segment<3>(o).template lpNorm<Eigen::Infinity>() +
                           h * s.a.template segment<3>(o).template lpNorm<Eigen::Infinity>()) / m.length_scale;
      }
    }

    /// The Newmark predictors, Sherif eqs. (59)–(60) without the q̈_{n+1} terms.
    QS_HD VecN position_predictor() const { return s0.q + h * s0.v + (S(0.5) - hht.p.beta) * h * h * s0.a; }
    QS_HD VecN velocity_predictor() const { return s0.v + (S(1) - hht.p.gamma) * h * s0.a; }

    /// q_{n+1}, q̇_{n+1} from q̈_{n+1}: Sherif eqs. (59)/(33) and (60) or, per body's Euler
    /// parameters, (34).
    QS_HD void kinematics(const VecN& a, VecN& q1, VecN& v1) const {
      q1 = position_predictor() + bh2 * a;
      v1 = velocity_predictor() + gh * a;
      if constexpr (Update == VelocityUpdate::modified) {
        for (int b = 0; b < mech.n_bodies; ++b) {
          const int o = 7 * b + 3;
          v1.template segment<4>(o) =
              hht::modified_rate(Vec4<S>(q1.template segment<4>(o)), w[b], Vec4<S>(a.template segment<4>(o)), gh);
        }
      }
    }

    /// J₁ δq̈ for body b: hγ δq̈ (eq. 60), or eq. (69) applied to δë (modified).
    QS_HD Vec7 velocity_derivative(int b, const Vec7& q1, const Vec7& a, const Vec7& da, const Vec7& dq) const {
      Vec7 dv = gh * da;
      if constexpr (Update == VelocityUpdate::modified)
        dv.template tail<4>() = hht::modified_rate_derivative(rotation_of(q1), w[b], rotation_of(a), rotation_of(dq),
                                                              rotation_of(da), gh);
      return dv;
    }

    /// Sherif eq. (62) per body, its Euler-parameter row and the joint rows (eq. 63), scaled by
    /// 1/(βh²); with kkt, also the blocks of eq. (65) that the structured solve keeps (file comment).
    QS_HD void assemble(const VecK& x, VecK& res, Kkt* kkt) const {
      const Mech& m = mech;
      const S alpha = hht.p.alpha;
      const VecN a = accelerations(x);
      const VecM lambda = multipliers(x);
      VecN q1, v1;
      kinematics(a, q1, v1);
      res.setZero();
      for (int b = 0; b < m.n_bodies; ++b) {
        const int o = 7 * b, ob = Kkt::body_index(b);
        const FreeRigidBody<S>& body = held.body[b];
        const Vec7 q1b = q1.template segment<7>(o), v1b = v1.template segment<7>(o), ab = a.template segment<7>(o);
        const Vec7 q0b = s0.q.template segment<7>(o);
        const auto Q = body.linearized_force(q1b, v1b, t1);
        res.template segment<7>(ob) =
            c * hht::inertia_force<Update>(body, hht.p, hht.settings.inertia_shift, q0b, q1b, ab) +
            body.constraint_jacobian(q1b).transpose() * lambda[b] - Q.value -
            alpha * c * force_n.template segment<7>(o);
        res[ob + 7] = body.constraint(q1b)[0] / bh2;
        if (!kkt) continue;
        // Body b's own columns: (1/(1+α))[M̃ δq̈ + (M̃q̈)_q J₀δq̈] + (2eλ_e)_q J₀δq̈ − Q_q J₀δq̈ − Q_q̇ J₁δq̈;
        // along a translation only the mass term is left (the body's own Q depends on neither r nor ṙ).
        Mat<S, 8, 8>& A = kkt->body[b].lu;
        A.template topLeftCorner<7, 3>().setZero();
        A.template topLeftCorner<3, 3>().diagonal().setConstant(c * body.mass);
        Vec7 da = Vec7::Zero();
        for (int j = 3; j < 7; ++j) {
          da[j] = S(1);
          const Vec7 dq = bh2 * da;
          const Vec7 dv = velocity_derivative(b, q1b, ab, da, dq);
          A.col(j).template head<7>() =
              c * hht::inertia_force_derivative<Update>(body, hht.p, hht.settings.inertia_shift, q0b, q1b, ab, da, dq) +
              body.constraint_force_derivative(q1b, Vec<S, 1>(lambda[b]), dq) - force_derivative(Q, dq, dv);
          da[j] = S(0);
        }
      }
      for (int k = 0; k < m.n_springs; ++k) {
        const SpringDamper<S>& sp = m.springs[k];
        const SpringState<S> spring = spring_at(m, k, q1, v1);
        for (int s = 0; s < 2; ++s) {
          const int b = sp.body[s];
          if (b == ground) continue;
          res.template segment<7>(Kkt::body_index(b)) -= spring.force(s);
          if (!kkt) continue;
          // −(Q_q J₀ + Q_q̇ J₁) of the spring on its own body
          const Vec7 q1b = q1.template segment<7>(7 * b), ab = a.template segment<7>(7 * b);
          Vec7 dq[2] = {Vec7::Zero(), Vec7::Zero()}, dv[2] = {Vec7::Zero(), Vec7::Zero()}, out[2];
          for (int j = 0; j < 7; ++j) {
            Vec7 da = Vec7::Zero();
            da[j] = S(1);
            dq[s] = bh2 * da;
            dv[s] = velocity_derivative(b, q1b, ab, da, dq[s]);
            spring.force_derivative(dq, dv, out);
            kkt->body[b].lu.col(j).template head<7>() -= out[s];
          }
        }
      }
      for (int k = 0; k < m.n_joints; ++k) {
        const Joint<S>& jt = m.joints[k];
        const JointState<S> js = joint_at(m, k, q1, v1, t1);
        const S* lk = &lambda[NB + jt.offset];
        for (int r = 0; r < js.rows(); ++r) res[Kkt::joint_index() + jt.offset + r] = js.value(r) / bh2;
        for (int s = 0; s < 2; ++s)
          if (jt.body[s] != ground) res.template segment<7>(Kkt::body_index(jt.body[s])) += js.constraint_force(lk, s);
        if (!kkt) continue;
        fill_jacobian(m, k, js, *kkt);
        Mat<S, 7, 7> diag[2], cross;
        js.hessian(lk, diag, cross);
        for (int s = 0; s < 2; ++s)
          if (jt.body[s] != ground) kkt->body[jt.body[s]].lu.template topLeftCorner<7, 7>() += bh2 * diag[s];  // (C_qᵀλ)_q J₀
      }
      if (!kkt) return;
      for (int b = 0; b < m.n_bodies; ++b) kkt->border(b, q1.template segment<4>(7 * b + 3));
    }

    /// The exact Newton matrix of eq. (65) applied to a direction δx = (δq̈, δλ), every block
    /// included (also those the structured solve leaves out): for tests and the dense comparison.
    QS_HD VecK jacobian_product(const VecK& x, const VecK& dx) const {
      const Mech& m = mech;
      const VecN a = accelerations(x), da = accelerations(dx);
      const VecM lambda = multipliers(x), dl = multipliers(dx);
      VecN q1, v1;
      kinematics(a, q1, v1);
      const VecN dq = bh2 * da;
      VecN dv = VecN::Zero();
      for (int b = 0; b < m.n_bodies; ++b)
        dv.template segment<7>(7 * b) = velocity_derivative(b, q1.template segment<7>(7 * b), a.template segment<7>(7 * b),
                                                            da.template segment<7>(7 * b), dq.template segment<7>(7 * b));
      VecK out = VecK::Zero();
      for (int b = 0; b < m.n_bodies; ++b) {
        const int o = 7 * b, ob = Kkt::body_index(b);
        const FreeRigidBody<S>& body = held.body[b];
        const Vec7 q1b = q1.template segment<7>(o), ab = a.template segment<7>(o), dab = da.template segment<7>(o);
        const Vec7 dqb = dq.template segment<7>(o);
        const auto Q = body.linearized_force(q1b, v1.template segment<7>(o), t1);
        out.template segment<7>(ob) =
            c * hht::inertia_force_derivative<Update>(body, hht.p, hht.settings.inertia_shift,
                                                      Vec7(s0.q.template segment<7>(o)), q1b, ab, dab, dqb) +
            body.constraint_force_derivative(q1b, Vec<S, 1>(lambda[b]), dqb) +
            body.constraint_jacobian(q1b).transpose() * dl[b] - force_derivative(Q, dqb, dv.template segment<7>(o));
        out[ob + 7] = (body.constraint_jacobian(q1b) * dab)[0];
      }
      for (int k = 0; k < m.n_springs; ++k) {
        const SpringDamper<S>& sp = m.springs[k];
        const SpringState<S> spring = spring_at(m, k, q1, v1);
        Vec7 dqs[2], dvs[2], f[2];
        for (int s = 0; s < 2; ++s) {
          const bool g = sp.body[s] == ground;
          dqs[s] = g ? Vec7::Zero() : Vec7(dq.template segment<7>(7 * sp.body[s]));
          dvs[s] = g ? Vec7::Zero() : Vec7(dv.template segment<7>(7 * sp.body[s]));
        }
        spring.force_derivative(dqs, dvs, f);
        for (int s = 0; s < 2; ++s)
          if (sp.body[s] != ground) out.template segment<7>(Kkt::body_index(sp.body[s])) -= f[s];
      }
      for (int k = 0; k < m.n_joints; ++k) {
        const Joint<S>& jt = m.joints[k];
        const JointState<S> js = joint_at(m, k, q1, v1, t1);
        Mat<S, 7, 7> diag[2], cross;
        js.hessian(&lambda[NB + jt.offset], diag, cross);
        Vec7 dqs[2], das[2];
        for (int s = 0; s < 2; ++s) {
          const bool g = jt.body[s] == ground;
          dqs[s] = g ? Vec7::Zero() : Vec7(dq.template segment<7>(7 * jt.body[s]));
          das[s] = g ? Vec7::Zero() : Vec7(da.template segment<7>(7 * jt.body[s]));
        }
        for (int r = 0; r < js.rows(); ++r)
          out[Kkt::joint_index() + jt.offset + r] = js.gradient(r, 0).dot(das[0]) + js.gradient(r, 1).dot(das[1]);
        for (int s = 0; s < 2; ++s) {
          if (jt.body[s] == ground) continue;
          const Vec7 curvature = diag[s] * dqs[s] + (s == 0 ? Vec7(cross * dqs[1]) : Vec7(cross.transpose() * dqs[0]));
          out.template segment<7>(Kkt::body_index(jt.body[s])) +=
              curvature + js.constraint_force(&dl[NB + jt.offset], s);
        }
      }
      return out;
    }

    /// Q_q δq + Q_q̇ δq̇ of a body's linearised force: the sum of its terms.
    template <class Force>
    QS_HD static Vec7 force_derivative(const Force& f, const Vec7& dq, const Vec7& dv) {
      return sum_terms(f, dq, dv, std::make_integer_sequence<int, Force::terms>{});
    }
    template <class Force, int... T>
    QS_HD static Vec7 sum_terms(const Force& f, const Vec7& dq, const Vec7& dv, std::integer_sequence<int, T...>) {
      return (Vec7::Zero() + ... + f.template derivative_term<T>(dq, dv));
    }

    /// Velocity change γh‖Δq̈‖ relative to the step's velocity scale (which includes the current
    /// iterate's h‖q̈‖, so that a mechanism starting from rest still has one); translations in
    /// units of the mechanism's length scale, so that one norm covers rad/s and m/s.
    QS_HD S correction_norm(const VecK& dx, const VecK& x) const {
      using std::max;
      S d = S(0);
      for (int b = 0; b < mech.n_bodies; ++b) {
        const int o = Kkt::body_index(b);
        d = max(d, max(dx.template segment<4>(o + 3).template lpNorm<Eigen::Infinity>(),
                       dx.template segment<3>(o).template lpNorm<Eigen::Infinity>() / mech.length_scale));
      }
      return gh * d / correction_scale(x);
    }
    QS_HD S correction_scale(const VecK& x) const {
      S scale = velocity_scale + std::numeric_limits<S>::min();
      for (int b = 0; b < mech.n_bodies; ++b) {
        const int o = Kkt::body_index(b);
        scale += h * (x.template segment<4>(o + 3).template lpNorm<Eigen::Infinity>() +
                      x.template segment<3>(o).template lpNorm<Eigen::Infinity>() / mech.length_scale);
      }
      return scale;
    }

    /// A mechanism at rest without loads has q̈ = 0 and a velocity scale of zero: its corrections are
    /// the rounding of q_{n+1} (constraint rows of ε|q|, scaled by 1/(βh²)), relative to nothing, and
    /// never meet the rate rule; the round-off stall (newton.hpp) ends them.
    /// The correction of q̈ that moves q_{n+1} by two units in the last place of its largest
    /// coordinate (translations over the length scale), 2ε‖q‖/(βh²), in correction_norm's units.
    QS_HD S round_off_norm(const VecK& x) const {
      using std::max;
      S size = S(1);  // the Euler parameters
      for (int b = 0; b < mech.n_bodies; ++b)
        size = max(size, s0.q.template segment<3>(7 * b).template lpNorm<Eigen::Infinity>() / mech.length_scale);
      return gh * (S(2) * std::numeric_limits<S>::epsilon() * size / bh2) / correction_scale(x);
    }
  };
};

/// Classical HHT-α on a mechanism (Sherif eqs. 59–63).
template <class Mech>
using MechanismHht = MechanismHhtFamily<Mech, VelocityUpdate::classical>;
/// Modified HHT-α on a mechanism (Sherif eqs. 33–34 for the Euler parameters, §9).
template <class Mech>
using MechanismModifiedHht = MechanismHhtFamily<Mech, VelocityUpdate::modified>;

// Mechanism registry entries (mechanism/registry.hpp).
struct MechanismHhtMethod {
  static constexpr MethodInfo info{"hht", "MechanismHht<Mech>", "hht.hpp",
                                   "Sherif et al. 2019 §9, eqs. 57–66: classical Newmark (eqs. 59–60) on every coordinate",
                                   "1 for α ≠ 0, 2 for α = 0 or with inertia_shift = true", "–"};
  using Settings = MechanismHhtSettings<double>;
  template <class Mech>
  using Integrator = MechanismHht<Mech>;
};
struct MechanismModifiedHhtMethod {
  static constexpr MethodInfo info{"modified_hht", "MechanismModifiedHht<Mech>", "hht.hpp",
                                   "Sherif et al. 2019 §9: each body's Euler parameters by eqs. 33–34, translations by "
                                   "eqs. 59–60",
                                   "1 for α ≠ 0, 2 for α = 0 or with inertia_shift = true", "–"};
  using Settings = MechanismHhtSettings<double>;
  template <class Mech>
  using Integrator = MechanismModifiedHht<Mech>;
};

}  // namespace quatstep::mechanism
