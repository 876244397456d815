// The Livens-principle schemes of Kinon & Betsch 2024 on a mechanism (§5.5: per body the centre of
// mass φ and the Euler parameters e, 7 coordinates; joints as holonomic constraints):
//   MechanismLivensEm        (EML)  eqs. (72a)–(72d), per body the discrete derivatives (87)–(88)
//   MechanismLivensMidpoint  (MPL)  eq. (132)
// in the size-reduced form of §4.5: unknowns q¹ and μ = hλ, then v¹, p¹ by eqs. (101)–(102).
//
// Per body, the kinetic energy is ½m|φ̇|² + ½ė·M̃₄(e)ė (eq. 123): the translation has a constant
// mass, so its discrete derivatives are exact (∂̄_v T = m v^{n+½}); the rotation is the rigid-body
// block of livens_rigid_body.hpp (reduced_balance, end_momentum), torques at t^{n+½}, e^{n+½}. The
// forces on φ — gravity (a linear potential, whose discrete gradient is exact) and the timed
// forces — are held at t^{n+½} (docs/errata.md K5). Each body keeps g_e = ½(eᵀe − 1) with
// ∇̄g_e = e^{n+½} (eq. 93). The residual per body is eq. (103),
//   R = 2∂̄_v T − 2p⁰ − h∂̄_q L + Σ μ_k ∇̄c_k = 0,   c(q¹, t¹) = 0,
// and its Newton matrix has the saddle-point form of kkt.hpp with rows ∂c/∂q at q¹ and columns ∇̄c,
// solved by the same Schur complement (StructuredKkt<…, Symmetric = false>). Its body blocks are
// exact for the inertia and forces; of the joint terms they hold ½ Σ μ ∂²c/∂q² at q^{n+½} on each
// body, and leave out the blocks between two bodies and the derivative of the corrections below
// (O(h²λ/m) against the mass, as in hht.hpp), so Newton converges linearly at that rate.
//
// The discrete gradient ∇̄c of a joint (ConstraintGradient; docs/mechanisms.md):
//   midpoint      ∇c(q^{n+½}), the paper's choice: a discrete gradient (∇̄c·Δq = c¹ − c⁰) for rows
//                 quadratic in q — point rows, and dot rows against the ground — and only
//                 approximately one for the rest (dot rows between two bodies, offset rows).
//   equivariant   (default) ∇c(q^{n+½}) made G-equivariant and a discrete gradient for every row.
//                 With Γ = [Ξ T] the generators of the rigid motions of both bodies at q^{n+½}
//                 (rotations about the origin Ξ: per body ξ × φ and ½(0, ξ)∘e; translations T:
//                 a on every φ; 14×6) and Δq the two bodies' increment:
//                   - point rows, c = p_i − p_j (a vector, equivariant: ∇c(q)Ξ = −[c(q)]×, ∇c T = 0):
//                     + C with C Δq = 0, C Ξ = −[δ]× and C T = 0, δ = ½(c⁰ + c¹) − c(q^{n+½}):
//                     C = [−[δ]× 0] (ΓᵀPΓ)⁻¹ΓᵀP, P = I − ΔqΔqᵀ/|Δq|², evaluated in the closed form
//                     of joint_discrete_gradient (no singular solve when the step is nearly rigid);
//                     then ∇̄c Ξ = −[½(c⁰ + c¹)]× = 0.
//                   - dot and offset rows (invariant: ∇c(q)Γ = 0): + ε w/(w·Δq), ε = c¹ − c⁰ −
//                     ∇c(q^{n+½})·Δq, w = Δq less its part in span Γ (Gonzalez's correction, in a
//                     direction that the rigid motions do not see).
//                 Joints to the ground are not rotation-invariant: there the corrections reduce to
//                 Gonzalez's (Γ empty, point rows exact already).
// With it the energy of eq. (74) and — without ground joints or external loads — the linear and the
// angular momentum are conserved to the Newton tolerance (tests/mechanism_livens_test.cpp); with
// the midpoint gradient the angular momentum drifts (docs/errata.md K5).
//
// Springs: the elastic force is the discrete gradient of V = ½k(√s − L₀)², s = |d|²,
// d = p_j − p_i quadratic in q: ∇̄V = V̄′ ∇̄s with V̄′ = (V¹ − V⁰)/(s¹ − s⁰) and
// ∇̄s = 2∇d(q^{n+½})ᵀ ½(d⁰ + d¹) (exact, as d is quadratic); the damper at q^{n+½}, v^{n+½}.
#pragma once

#include <array>
#include <limits>

#include "quatstep/channels.hpp"
#include "quatstep/integrators/livens_integrator.hpp"
#include "quatstep/linalg/lu.hpp"
#include "quatstep/mechanism/consistent_state.hpp"
#include "quatstep/mechanism/dynamics.hpp"
#include "quatstep/mechanism/kkt.hpp"
#include "quatstep/mechanism/observables.hpp"
#include "quatstep/newton.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/settings_keys.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/subnormals.hpp"

namespace quatstep::mechanism {

/// The discrete gradient of the joint constraints (file comment).
enum class ConstraintGradient : int { equivariant, midpoint };
inline constexpr keys::Choice<ConstraintGradient> constraint_gradient_names[] = {
    {ConstraintGradient::equivariant, "equivariant"},
    {ConstraintGradient::midpoint, "midpoint"},
};

template <class S>
struct MechanismLivensSettings {
  ConstraintGradient gradient = ConstraintGradient::equivariant;  ///< Default: equivariant.
  /// Per body, remove the components of ė¹ and p¹_e along e¹ where that changes no conserved
  /// quantity to round-off (LivensSettings, livens_integrator.hpp). Default: true.
  bool project_normal_components = true;
  NewtonSettings<S> newton{};

  template <class Keys>
  void describe(Keys& k) {
    k("constraint_gradient", gradient,
      "discrete gradient of the joint constraints: G-equivariant (conserves angular momentum) or the paper's "
      "midpoint gradient (docs/mechanisms.md)",
      keys::Choices<ConstraintGradient>(constraint_gradient_names));
    k("project_normal_components", project_normal_components,
      "per body, remove the components of the Euler-parameter velocity and momentum along e where that changes "
      "nothing conserved (docs/livens_projection.md)");
    newton.describe(k);
  }
};

/// The columns ∇̄c of one joint's rows (file comment), per side (zero on a ground side), from the
/// joint at q⁰ (c0, its values at t^{n+½}), at q^{n+½} (jm, t^{n+½}) and at q¹ (c1, values at t^{n+½}).
template <class S>
QS_HD void joint_discrete_gradient(const Joint<S>& joint, const Side<S> mid[2], const Vec<S, 7> dq[2],
                                   const JointState<S>& jm, const S* c0, const S* c1, S t_mid,
                                   ConstraintGradient rule, Mat<S, 6, 7> out[2]) {
  using Vec14 = Vec<S, 14>;
  using Mat146 = Mat<S, 14, 6>;
  using math::any;
  using math::is_less;
  using math::select;
  using std::sqrt;
  const int rows = jm.rows();
  for (int s = 0; s < 2; ++s)
    for (int r = 0; r < rows; ++r) out[s].row(r) = jm.gradient(r, s).transpose();
  if (rule == ConstraintGradient::midpoint) return;
  const bool invariant = !mid[0].ground && !mid[1].ground;  // both sides move with the group
  Vec14 d;
  d << dq[0], dq[1];
  const S dd = d.squaredNorm();
  // No motion: every correction vanishes. The corrections below are added only where `moving` holds
  // (a lane type's lanes each by their own).
  const auto moving = is_less(S(0), dd);
  if (!any(moving)) return;
  // Γ = [Ξ T]: rotations about the origin and translations of both bodies at q^{n+½}.
  Mat146 gamma = Mat146::Zero();
  if (invariant)
    for (int s = 0; s < 2; ++s) {
      gamma.template block<3, 3>(7 * s, 0) = -skew(mid[s].r);                        // ξ × φ
      gamma.template block<4, 3>(7 * s + 3, 0) = S(0.5) * E(mid[s].e).transpose();  // ½ (0, ξ)∘e
      gamma.template block<3, 3>(7 * s, 3) = Mat3<S>::Identity();                   // a
    }
  const auto gradient_of = [&](int r) {
    Vec14 g;
    g << out[0].row(r).transpose(), out[1].row(r).transpose();
    return g;
  };
  const auto add = [&](int r, const Vec14& g, const decltype(moving)& where) {
    for (int j = 0; j < 7; ++j) {
      out[0](r, j) = select(where, S(out[0](r, j) + g[j]), out[0](r, j));
      out[1](r, j) = select(where, S(out[1](r, j) + g[7 + j]), out[1](r, j));
    }
  };
  // The step split into its rigid part Γu, u = G⁻¹ΓᵀΔq with G = ΓᵀΓ, and w = Δq − Γu, normal to it.
  Vec14 w = d;
  Vec<S, 6> u = Vec<S, 6>::Zero();
  // G as a coefficient-wise product, the one the GPU forms: the CPU's Eigen would take its blocked
  // matrix product for a depth of 14, another order of summation (and, for lanes, a heap workspace).
  const Lu<S, 6> g_lu(invariant ? Mat<S, 6, 6>(gamma.transpose().lazyProduct(gamma)) : Mat<S, 6, 6>::Identity());
  if (invariant) {
    u = g_lu.solve(Vec<S, 6>(gamma.transpose() * d));
    w -= gamma * u;
  }
  const S ww = w.dot(d);  // = |w|², as w ⊥ span Γ
  // Below |w|² ≈ √ε a correction divided by |w|² is the round-off of what it divides, or (point rows
  // of a near-rigid step) no consistent correction exists: τ² = √ε marks that scale.
  const S tau2 = sqrt(std::numeric_limits<S>::epsilon());
  // Gonzalez's correction of the non-quadratic rows, along w.
  bool point = false, quartic = false;
  for (int r = 0; r < rows; ++r) {
    const RowKind kind = row_geometry(joint, r, t_mid).kind;
    point = point || kind == RowKind::point;
    quartic = quartic || kind == RowKind::offset || (kind == RowKind::dot && invariant);
  }
  const auto wide = moving && is_less(tau2, ww);
  if (quartic && any(wide))
    for (int r = 0; r < rows; ++r) {
      const RowKind kind = row_geometry(joint, r, t_mid).kind;
      if (kind == RowKind::offset || (kind == RowKind::dot && invariant))
        add(r, ((c1[r] - c0[r] - gradient_of(r).dot(d)) / ww) * w, wide);
    }
  if (!point || !invariant) return;
  // Point rows 0–2 (axis = row): C = X M⁻¹ΓᵀP with X = [−[δ]×  0], M = ΓᵀPΓ, P = I − ΔqΔqᵀ/|Δq|²,
  // which by Sherman–Morrison (M = G − ΓᵀΔq ΔqᵀΓ/|Δq|², |Δq|² − ΔqᵀΓG⁻¹ΓᵀΔq = |w|²) is
  //   C = X G⁻¹Γᵀ − (X u) wᵀ/|w|²:   C Γ = X (wᵀΓ = 0) and C Δq = X u − X u = 0.
  // M, singular as w → 0, is never formed: G is the well-conditioned Gram matrix of the group's
  // generators. When the two bodies move rigidly together by a rotation θ per step, X u and w are both
  // O(θ³) (a finite rotation is not exactly in the range of the generators at the midpoint): the
  // second term stays O(1) but its derivative in q¹ is O(θ⁻³), which Newton — its matrix leaves the
  // corrections out — cannot follow. So 1/|w|² becomes κ = |w|²/(|w|⁴ + τ⁴), which keeps C Γ = X
  // exactly — the equivariance, and so the angular momentum — and leaves C Δq = X u τ⁴/(|w|⁴ + τ⁴), a
  // discrete-gradient defect of O(θ³) on the steps that are rigid to |w|² ≲ τ² alone (docs/mechanisms.md).
  Vec3<S> delta;
  for (int a = 0; a < 3; ++a) delta[a] = S(0.5) * (c0[a] + c1[a]) - jm.value(a);
  Mat<S, 6, 3> xt = Mat<S, 6, 3>::Zero();
  xt.template topRows<3>() = skew(delta);  // Xᵀ = [−[δ]×  0]ᵀ = [[δ]×; 0]
  const Vec3<S> xu = xt.transpose() * u;
  const S kappa = ww / (ww * ww + tau2 * tau2);
  for (int a = 0; a < 3; ++a) add(a, Vec14(gamma * g_lu.solve(Vec<S, 6>(xt.col(a))) - (xu[a] * kappa) * w), moving);
}

template <class Mech, LivensRule Rule>
class MechanismLivens {
 public:
  using ModelType = Mech;
  using Scalar = typename Mech::Scalar;
  using S = Scalar;
  using D = Dae<Mech>;
  static constexpr int NB = D::NB, NJ = Mech::max_joints, R = D::R, N = D::N, M = D::M;
  using Kkt = StructuredKkt<S, typename Mech::CapacityType, false>;
  static constexpr int K = Kkt::K;
  using VecN = typename D::VecN;
  using VecM = typename D::VecM;
  using Vec7 = typename D::Vec7;
  using VecK = Vec<S, K>;
  using Kinematics = MechanismKinematics<S, NB>;
  using Rotation = livens::RigidBodyDiscretization<S, Rule>;

  struct State {
    VecN q, v, p;  // coordinates, velocities, momenta (independent in Livens' principle)
    VecM lambda;   // multipliers of the last step (λ_e per body for ½(eᵀe − 1), joint rows): the predictor
    static constexpr int size = 3 * N + M;
    QS_HD S& operator[](int i) { return i < N ? q[i] : i < 2 * N ? v[i - N] : i < 3 * N ? p[i - 2 * N] : lambda[i - 3 * N]; }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  MechanismLivensSettings<S> settings;

  QS_HD explicit MechanismLivens(const MechanismLivensSettings<S>& s = {}) : settings(s) {}

  /// q⁰, v⁰ from kinematics on the constraints, p⁰ = M(q⁰)v⁰ (per body m φ̇ and M̃₄(e)ė, eq. 124);
  /// the multipliers of Sherif eqs. (57)–(58) as the first predictor.
  QS_HD Status initialize(const Mech& m, const Kinematics& k, S t, State& s) const {
    dae_from_kinematics(m, k, s.q, s.v);
    for (int b = 0; b < m.n_bodies; ++b) {
      const int o = 7 * b;
      const Vec4<S> e = s.q.template segment<4>(o + 3);
      s.p.template segment<3>(o) = m.bodies[b].mass * s.v.template segment<3>(o);
      s.p.template segment<4>(o + 3) = euler_parameters::mass(m.bodies[b].inertia, e, e) * s.v.template segment<4>(o + 3);
    }
    for (int i = 7 * m.n_bodies; i < N; ++i) s.p[i] = S(0);
    VecN a;
    const Status st = solve_accelerations(m, s.q, s.v, t, a, s.lambda);
    for (int b = 0; b < m.n_bodies; ++b) s.lambda[b] *= S(2);  // Sherif's eᵀe − 1 against ½(eᵀe − 1)
    return st;
  }

  QS_HD Kinematics kinematics(const Mech& m, const State& s) const { return kinematics_from_dae(m, s.q, s.v); }

  /// The discrete generalized energy, Kinon eq. (74): E = p·v − T(q, v) + V(q), V gravity and springs.
  QS_HD S generalized_energy(const Mech& m, const State& s) const {
    const MechanismObservables<S> o = mechanism::observe(m, s.q, s.v, S(0));
    S pv = S(0);
    for (int i = 0; i < 7 * m.n_bodies; ++i) pv += s.p[i] * s.v[i];
    return pv - o.kinetic_energy + o.potential_energy;
  }
  /// The scheme's own sampled channel (mechanism/channels.hpp): its conserved energy.
  static constexpr std::array channels{
      Channel{"generalized_energy", 1, "the scheme's discrete generalized energy, Kinon eq. (74): p.v - T(q, v) + V(q) [J]",
              false}};
  template <class W>
  QS_HD void observe(const Mech& m, const State& s, W& w) const {
    w(generalized_energy(m, s));
  }

  /// The momentum maps (Kinon eq. 64 per body): Σ p_φ, and Σ φ × p_φ + ½E(e)p_e. The momentum
  /// channels are these (mechanism/channels.hpp).
  QS_HD Vec3<S> linear_momentum(const Mech& m, const State& s) const {
    Vec3<S> l = Vec3<S>::Zero();
    for (int b = 0; b < m.n_bodies; ++b) l += s.p.template segment<3>(7 * b);
    return l;
  }
  QS_HD Vec3<S> angular_momentum(const Mech& m, const State& s) const {
    Vec3<S> l = Vec3<S>::Zero();
    for (int b = 0; b < m.n_bodies; ++b) {
      const int o = 7 * b;
      l += Vec3<S>(s.q.template segment<3>(o)).cross(Vec3<S>(s.p.template segment<3>(o))) +
           S(0.5) * (E(Vec4<S>(s.q.template segment<4>(o + 3))) * s.p.template segment<4>(o + 3));
    }
    return l;
  }

  /// One step t → t + h. On failure the state is left as it was and the status says why.
  QS_HD NewtonOutcome step(const Mech& m, State& s, S t, S h) const {
    const Step sys(m, *this, s, t, h);
    VecK x = sys.predictor();
    Kkt kkt;
    NewtonOutcome out = newton_solve<S, K>(sys, x, settings.newton, kkt);
    if (out.status != Status::ok) return out;
    State next = sys.end_point(x);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    flush_subnormals(next);
    s = next;
    return out;
  }

  /// The nonlinear system of one step, for newton_solve (public so tests can check it).
  struct Step : AssembledSystem<Step, Kkt> {
    const Mech& mech;
    const MechanismLivens& integrator;
    const State& s0;
    typename Mech::Bodies held;  // loads at t^{n+½}
    S h, t_mid, t1;
    Rotation rot[NB];
    S c0[NJ][max_joint_rows];  // joint rows at q⁰, t^{n+½}

    QS_HD Step(const Mech& m, const MechanismLivens& in, const State& s, S t, S hh)
        : mech(m), integrator(in), s0(s), held(m.bodies_at(t + S(0.5) * hh)), h(hh), t_mid(t + S(0.5) * hh),
          t1(t + hh) {
      for (int b = 0; b < m.n_bodies; ++b) {
        const int o = 7 * b + 3;
        rot[b] = Rotation(held.body[b], Vec4<S>(s.q.template segment<4>(o)), Vec4<S>(s.v.template segment<4>(o)),
                          Vec4<S>(s.p.template segment<4>(o)), t, h);
      }
      const VecN zero = VecN::Zero();
      for (int k = 0; k < m.n_joints; ++k) {
        const JointState<S> j0 = joint_at(m, k, s.q, zero, t_mid);
        for (int r = 0; r < j0.rows(); ++r) c0[k][r] = j0.value(r);
      }
    }

    /// The unknowns' parts: q¹ and μ = hλ.
    QS_HD static VecN coordinates(const VecK& x) { return Kkt::coordinates(x); }
    QS_HD static VecM multipliers(const VecK& x) { return Kkt::multipliers(x); }

    /// q¹⁽⁰⁾: φ⁰ + hφ̇⁰ and the rotation at the constant body rate; μ⁽⁰⁾ = hλ of the last step.
    QS_HD VecK predictor() const {
      VecN q = VecN::Zero();
      for (int b = 0; b < mech.n_bodies; ++b) {
        const int o = 7 * b;
        q.template segment<3>(o) = s0.q.template segment<3>(o) + h * s0.v.template segment<3>(o);
        q.template segment<4>(o + 3) = rot[b].predictor();
      }
      return Kkt::unknowns(q, VecM(h * s0.lambda));
    }

    /// v¹ (eq. 101), p¹ (eq. 102), λ = μ/h.
    QS_HD State end_point(const VecK& x) const {
      State s;
      s.q = coordinates(x);
      s.v = (S(2) / h) * (s.q - s0.q) - s0.v;
      s.p = VecN::Zero();
      for (int b = 0; b < mech.n_bodies; ++b) {
        const int o = 7 * b;
        s.p.template segment<3>(o) = (S(2) * held.body[b].mass / h) * (s.q.template segment<3>(o) - s0.q.template segment<3>(o)) -
                                     s0.p.template segment<3>(o);
        s.p.template segment<4>(o + 3) = rot[b].end_momentum(Vec4<S>(s.q.template segment<4>(o + 3)));
        if (integrator.settings.project_normal_components) {
          Vec4<S> e = s.q.template segment<4>(o + 3), ed = s.v.template segment<4>(o + 3), pe = s.p.template segment<4>(o + 3);
          livens::Problem<FreeRigidBody<S>, Rule>::project_normal_components(e, ed, pe);
          s.v.template segment<4>(o + 3) = ed;
          s.p.template segment<4>(o + 3) = pe;
        }
      }
      s.lambda = multipliers(x) / h;
      return s;
    }

    /// Eq. (103) per body, its Euler-parameter row and the joint rows c(q¹, t¹); with kkt, also the
    /// blocks of the Newton matrix the structured solve keeps (file comment).
    QS_HD void assemble(const VecK& x, VecK& res, Kkt* kkt) const {
      const Mech& m = mech;
      const VecN q1 = coordinates(x), qm = S(0.5) * (s0.q + q1), dq = q1 - s0.q;
      const VecM mu = multipliers(x);
      res.setZero();
      for (int b = 0; b < m.n_bodies; ++b) {
        const int o = 7 * b, ob = Kkt::body_index(b);
        const FreeRigidBody<S>& body = held.body[b];
        const S mh = S(2) * body.mass / h;
        const Vec4<S> e1 = q1.template segment<4>(o + 3), em = qm.template segment<4>(o + 3);
        // translation: 2m v^{n+½} − 2p⁰ − h f(t^{n+½})
        res.template segment<3>(ob) = mh * dq.template segment<3>(o) - S(2) * s0.p.template segment<3>(o) -
                                      h * body.translational_force(t_mid);
        Vec4<S> r;
        Mat4<S> jr;
        rot[b].reduced_balance(e1, r, kkt ? &jr : nullptr);
        res.template segment<4>(ob + 3) = r + mu[b] * em;  // + μ_e ∇̄g_e, eq. (93)
        res[ob + 7] = S(0.5) * (e1.squaredNorm() - S(1));
        if (!kkt) continue;
        Mat<S, 8, 8>& A = kkt->body[b].lu;
        A.template topLeftCorner<7, 7>().setZero();
        A.template topLeftCorner<3, 3>().diagonal().setConstant(mh);
        A.template block<4, 4>(3, 3) = jr;
        A.template block<4, 4>(3, 3).diagonal().array() += S(0.5) * mu[b];
        kkt->border(b, e1, em);
      }
      const VecN vm = dq / h;
      for (int k = 0; k < m.n_springs; ++k) add_spring(k, q1, qm, vm, res, kkt);
      for (int k = 0; k < m.n_joints; ++k) add_joint(k, q1, qm, dq, &mu[NB + m.joints[k].offset], res, kkt);
    }

    /// Joint k: its rows c(q¹, t¹), its columns ∇̄c μ on its bodies' rows.
    QS_HD void add_joint(int k, const VecN& q1, const VecN& qm, const VecN& dq, const S* mu, VecK& res, Kkt* kkt) const {
      const Mech& m = mech;
      const Joint<S>& jt = m.joints[k];
      const VecN zero = VecN::Zero();
      const JointState<S> j1 = joint_at(m, k, q1, zero, t1), jm = joint_at(m, k, qm, zero, t_mid);
      S c1[max_joint_rows];
      if (jt.driven) {
        const JointState<S> j1m = joint_at(m, k, q1, zero, t_mid);
        for (int r = 0; r < j1.rows(); ++r) c1[r] = j1m.value(r);
      } else {
        for (int r = 0; r < j1.rows(); ++r) c1[r] = j1.value(r);
      }
      Side<S> mid[2];
      Vec7 d[2];
      for (int s = 0; s < 2; ++s) {
        mid[s] = side_at(jt.body[s], qm, zero);
        d[s] = jt.body[s] == ground ? Vec7(Vec7::Zero()) : Vec7(dq.template segment<7>(7 * jt.body[s]));
      }
      Mat<S, 6, 7> grad[2];
      joint_discrete_gradient(jt, mid, d, jm, c0[k], c1, t_mid, integrator.settings.gradient, grad);
      for (int r = 0; r < j1.rows(); ++r) res[Kkt::joint_index() + jt.offset + r] = j1.value(r);
      for (int s = 0; s < 2; ++s)
        if (jt.body[s] != ground)
          for (int r = 0; r < j1.rows(); ++r)
            res.template segment<7>(Kkt::body_index(jt.body[s])) += mu[r] * grad[s].row(r).transpose();
      if (!kkt) return;
      Mat<S, 7, 7> diag[2], cross;
      jm.hessian(mu, diag, cross);
      for (int s = 0; s < 2; ++s) {
        if (jt.body[s] == ground) continue;
        for (int r = 0; r < j1.rows(); ++r) kkt->jac[k][s].row(r) = j1.gradient(r, s).transpose();
        kkt->col[k][s] = grad[s];
        kkt->body[jt.body[s]].lu.template topLeftCorner<7, 7>() += S(0.5) * diag[s];  // ∂(∇c(q^{n+½})ᵀμ)/∂q¹
      }
    }

    /// Spring k: −h times its discrete force (file comment) on its bodies' rows.
    QS_HD void add_spring(int k, const VecN& q1, const VecN& qm, const VecN& vm, VecK& res, Kkt* kkt) const {
      using std::abs;
      using std::sqrt;
      const Mech& m = mech;
      const SpringDamper<S>& sp = m.springs[k];
      const VecN zero = VecN::Zero();
      Side<S> mid[2];
      Vec3<S> d0 = Vec3<S>::Zero(), d1 = Vec3<S>::Zero();
      for (int s = 0; s < 2; ++s) {
        const S sign = s == 0 ? S(-1) : S(1);  // d = p_j − p_i
        mid[s] = side_at(sp.body[s], qm, vm);
        d0 += sign * side_at(sp.body[s], s0.q, zero).point(sp.point[s]);
        d1 += sign * side_at(sp.body[s], q1, zero).point(sp.point[s]);
      }
      const S s0v = d0.squaredNorm(), s1v = d1.squaredNorm();
      const auto potential = [&](S sq) {
        const S stretch = sqrt(sq) - sp.rest_length;
        return S(0.5) * sp.stiffness * stretch * stretch;
      };
      // V̄′ = dV/ds, discrete
      const S ds = s1v - s0v, sbar = S(0.5) * (s0v + s1v);
      const S slope = math::choose(
          math::is_less(std::numeric_limits<S>::epsilon() * sbar, abs(ds)),
          [&] { return S((potential(s1v) - potential(s0v)) / ds); },
          [&] { return S(S(0.5) * sp.stiffness * (sqrt(sbar) - sp.rest_length) / sqrt(sbar)); });
      const Vec3<S> dm = mid[1].point(sp.point[1]) - mid[0].point(sp.point[0]);
      const Vec3<S> n = dm / sqrt(dm.squaredNorm());
      const S rate = n.dot(mid[1].point_rate(sp.point[1]) - mid[0].point_rate(sp.point[0]));
      const Vec3<S> F = slope * (d0 + d1) + sp.damping * rate * n;  // on side i: 2V̄′ d̄ + c L̇ n
      for (int s = 0; s < 2; ++s) {
        const int b = sp.body[s];
        if (b == ground) continue;
        const Vec3<S> Fs = s == 0 ? F : Vec3<S>(-F);
        Vec7 g;
        g << Fs, mid[s].jacobian(sp.point[s]).transpose() * Fs;
        res.template segment<7>(Kkt::body_index(b)) -= h * g;
      }
      if (!kkt) return;
      // −h ∂F/∂q¹ on each spring body itself, from the spring at (q^{n+½}, v^{n+½}): δq^{n+½} = ½δq¹, δv^{n+½} = δq¹/h
      const SpringState<S> spring(sp, mid[0], mid[1]);
      for (int s = 0; s < 2; ++s) {
        const int b = sp.body[s];
        if (b == ground) continue;
        Vec7 dqs[2] = {Vec7::Zero(), Vec7::Zero()}, dvs[2] = {Vec7::Zero(), Vec7::Zero()}, out[2];
        for (int j = 0; j < 7; ++j) {
          dqs[s].setZero();
          dvs[s].setZero();
          dqs[s][j] = S(0.5);
          dvs[s][j] = S(1) / h;
          spring.force_derivative(dqs, dvs, out);
          kkt->body[b].lu.col(j).template head<7>() -= h * out[s];
        }
      }
    }

    /// max over bodies of |δe|∞ and |δφ|∞/L: the Euler parameters are of unit size.
    QS_HD S correction_norm(const VecK& dx, const VecK&) const {
      using std::max;
      S d = S(0);
      for (int b = 0; b < mech.n_bodies; ++b) {
        const int o = Kkt::body_index(b);
        d = max(d, max(dx.template segment<4>(o + 3).template lpNorm<Eigen::Infinity>(),
                       dx.template segment<3>(o).template lpNorm<Eigen::Infinity>() / mech.length_scale));
      }
      return d;
    }
  };
};

/// The Livens energy-momentum scheme (EML) on a mechanism.
template <class Mech>
using MechanismLivensEm = MechanismLivens<Mech, LivensRule::energy_momentum>;
/// The Livens midpoint rule (MPL, Kinon eq. 132) on a mechanism.
template <class Mech>
using MechanismLivensMidpoint = MechanismLivens<Mech, LivensRule::midpoint>;

// Mechanism registry entries (mechanism/registry.hpp).
struct MechanismLivensEmMethod {
  static constexpr MethodInfo info{"livens_em", "MechanismLivensEm<Mech>", "livens.hpp",
                                   "Kinon & Betsch 2024 eqs. 72a–d, §4.5 size-reduced, with the G-equivariant joint "
                                   "gradient (docs/mechanisms.md)",
                                   "2", "energy (eq. 74), linear and angular momentum (no ground joint or load)"};
  using Settings = MechanismLivensSettings<double>;
  template <class Mech>
  using Integrator = MechanismLivensEm<Mech>;
};
struct MechanismLivensMidpointMethod {
  static constexpr MethodInfo info{"livens_midpoint", "MechanismLivensMidpoint<Mech>", "livens.hpp",
                                   "Kinon & Betsch 2024 App. B eq. 132 on a mechanism", "2", "the constraints"};
  using Settings = MechanismLivensSettings<double>;
  template <class Mech>
  using Integrator = MechanismLivensMidpoint<Mech>;
};

}  // namespace quatstep::mechanism
