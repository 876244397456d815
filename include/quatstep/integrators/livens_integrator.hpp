// The Livens-principle one-step schemes of Kinon & Betsch 2024, one class for both rules and all
// three sizes of the Newton system:
//   LivensEm<Model, Variant>       (EML)  eqs. (72a)–(72d) / (86a)–(86d) with the discrete derivatives (87)–(88)
//   LivensMidpoint<Model, Variant> (MPL)  eq. (132)
// The template parameter Variant picks the unknowns (livens_variant.hpp, livens_system.hpp): reduced
// (REML, §4.5, default; for rigid bodies with λ eliminated, livens_rigid_body.hpp), full
// (eqs. 72a–d) or nullspace (Remark 4.11, rigid bodies only); all give the same trajectory to the
// Newton tolerance. A compile-time choice, so that each GPU kernel holds only the system it solves.
//
// Rigid-body models (HeavyTop, FreeRigidBody): q ∈ R⁴ the Euler parameters, the mass matrix the
// singular M̃₄(q) = 4G(q)ᵀJ₀G(q) (eq. 46), gravity as a potential, the centre of mass of a free body
// by the midpoint rule (midpoint_translation.hpp). Other models with singular or configuration-
// dependent mass matrices use the generic form (livens_generic.hpp).
#pragma once

#include <array>
#include <limits>
#include <type_traits>

#include "quatstep/integrators/livens_generic.hpp"
#include "quatstep/integrators/livens_rigid_body.hpp"
#include "quatstep/integrators/livens_variant.hpp"
#include "quatstep/integrators/midpoint_translation.hpp"
#include "quatstep/math/choose.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/registry/entry.hpp"
#include "quatstep/state_components.hpp"

namespace quatstep {

template <class S>
struct LivensSettings {
  /// Rigid bodies: after each step remove the components of v¹ and p¹ along q¹ where that leaves
  /// E, L, Ω and g unchanged to round-off (see the note at LivensIntegrator::step). Default: true.
  bool project_normal_components = true;
  /// Conservation at round-off needs the Newton error below it: the default tolerance, 1e-12 in
  /// double (free rotation, h = 0.05: energy increments 2e-15 relative vs 2e-13 at 1e-10). REML
  /// then takes 4.05 iterations/step at h = 0.05 (ωh = 1.5 rad per step) and 3.0 at h = 0.01.
  NewtonSettings<S> newton{};

  template <class Keys>
  void describe(Keys& k) {
    k("project_normal_components", project_normal_components,
      "rigid bodies: remove the components of v and p along q where that changes nothing conserved "
      "(docs/livens_projection.md)");
    newton.describe(k);
  }
};

namespace livens {

template <class Model, LivensRule Rule, bool RigidBody = is_rigid_body_model<Model>::value>
struct Problem;

/// A rotating rigid body: the quaternion block of Kinon §4.3.
template <class Model, LivensRule Rule>
struct Problem<Model, Rule, true> {
  using S = typename Model::Scalar;
  static constexpr int n = 4, m = 1;
  using Discretization = RigidBodyDiscretization<S, Rule>;
  QS_HD static Vec4<S> predictor(const Discretization& d) { return d.predictor(); }
  QS_HD static S kinetic_energy(const Model& mo, const Vec4<S>& q, const Vec4<S>& v) {
    return rigid_body_kinetic_energy(mo.inertia, q, v);
  }
  QS_HD static S potential(const Model& mo, const Vec4<S>& q) { return mo.loads.potential(q); }
  QS_HD static Vec4<S> momentum(const Model& mo, const Vec4<S>& q, const Vec4<S>& v) {
    return euler_parameters::mass(mo.inertia, q, q) * v;  // p = M̃₄(q)v, eq. (47c)
  }
  /// The normal components ν = q·v, a = q·p enter none of Ω = 2G(q)v, T, L = ½E(q)p, g, and enter
  /// E = p·v − T + V only through p·v = p_t·v_t + aν|q|². Removing both changes E by aν|q|², so it is
  /// done only where that is below round-off of p·v (always when a ≡ 0: no potential, no torques).
  QS_HD static void project_normal_components(const Vec4<S>& q, Vec4<S>& v, Vec4<S>& p) {
    using math::choose;  // a lane type's own, per lane, by argument-dependent lookup
    using math::is_less_equal;
    using std::abs;
    const S qq = q.squaredNorm(), nu = q.dot(v) / qq, a = q.dot(p) / qq;
    const auto project = is_less_equal(abs(a * nu) * qq, std::numeric_limits<S>::epsilon() * abs(p.dot(v)));
    v = choose(project, [&] { return Vec4<S>(v - nu * q); }, [&] { return v; });
    p = choose(project, [&] { return Vec4<S>(p - a * q); }, [&] { return p; });
  }
};

/// Any model with the Livens interface of livens_generic.hpp.
template <class Model, LivensRule Rule>
struct Problem<Model, Rule, false> {
  using S = typename Model::Scalar;
  static constexpr int n = Model::n, m = Model::m;
  using Discretization = GenericDiscretization<Model, Rule>;
  QS_HD static Vec<S, n> predictor(const Discretization& d) { return d.q0 + d.h * d.v0; }
  QS_HD static S kinetic_energy(const Model& mo, const Vec<S, n>& q, const Vec<S, n>& v) {
    return S(0.5) * v.dot(mo.mass_matrix(q) * v);
  }
  QS_HD static S potential(const Model& mo, const Vec<S, n>& q) { return mo.potential(q); }
  QS_HD static Vec<S, n> momentum(const Model& mo, const Vec<S, n>& q, const Vec<S, n>& v) {
    return mo.mass_matrix(q) * v;
  }
  QS_HD static void project_normal_components(const Vec<S, n>&, Vec<S, n>&, Vec<S, n>&) {}
};

}  // namespace livens

/// Whether LivensIntegrator<Model, ·, V> exists: the null-space form needs a single unit quaternion.
template <class Model, LivensVariant V>
inline constexpr bool livens_variant_applies = V != LivensVariant::nullspace || is_rigid_body_model<Model>::value;

template <class Model, LivensRule Rule, LivensVariant Variant = LivensVariant::reduced>
class LivensIntegrator {
  static_assert(livens_variant_applies<Model, Variant>, "the null-space form (Remark 4.11) is for rigid bodies only");

 public:
  using ModelType = Model;
  using Scalar = typename Model::Scalar;
  using S = Scalar;
  using Problem = livens::Problem<Model, Rule>;
  using Discretization = typename Problem::Discretization;
  static constexpr int n = Problem::n;
  static constexpr int m = Problem::m;
  static constexpr bool rigid_body = is_rigid_body_model<Model>::value;
  static constexpr bool translates = model_translates<Model>();
  using VecN = Vec<S, n>;
  using VecM = Vec<S, m>;

  /// The Newton systems of one step (public so tests can check their Jacobians); Variant picks one.
  using ReducedStep = livens::ReducedSystem<Discretization>;
  using FullStep = livens::FullSystem<Discretization>;
  using NullSpaceStep = livens::NullSpaceSystem<Discretization>;  // rigid bodies only
  /// What the reduced variant solves for rigid bodies: eq. (103) with λ eliminated (4 unknowns).
  using EliminatedStep = livens::EliminatedSystem<Discretization>;  // rigid bodies only
  /// The system a step solves.
  using StepSystem = std::conditional_t<
      Variant == LivensVariant::full, FullStep,
      std::conditional_t<Variant == LivensVariant::nullspace, NullSpaceStep,
                         std::conditional_t<rigid_body, EliminatedStep, ReducedStep>>>;

  struct State {
    VecN q, v, p;     // coordinates, velocities, momenta (independent in Livens' principle)
    VecM lambda;      // multipliers of the last step (Kinon eq. 86b scale), the next predictor
    Vec3<S> r, vr;    // centre of mass and its velocity (free bodies only)
    static constexpr int size = 3 * n + m + (translates ? 6 : 0);
    QS_HD S& operator[](int i) {
      if (i < n) return q[i];
      if (i < 2 * n) return v[i - n];
      if (i < 3 * n) return p[i - 2 * n];
      if (i < 3 * n + m) return lambda[i - 3 * n];
      return i < 3 * n + m + 3 ? r[i - 3 * n - m] : vr[i - 3 * n - m - 3];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  LivensSettings<S> settings;

  QS_HD explicit LivensIntegrator(const LivensSettings<S>& s = {}) : settings(s) {}
  /// Rigid bodies: v⁰ = ½G(q⁰)ᵀΩ⁰, p⁰ = M̃₄(q⁰)v⁰ (Kinon §5.3).
  QS_HD Status initialize(const Model& model, const RigidBodyKinematics<S>& k, S, State& s) const {
    static_assert(rigid_body, "initialize from kinematics needs a rigid-body model");
    s.r = k.position;
    s.vr = k.velocity;
    return initialize(model, k.quaternion, euler_parameters::rate_from_body(k.quaternion, k.omega_body), s);
  }

  /// Any model: from coordinates and velocities, p⁰ = M(q⁰)v⁰.
  QS_HD Status initialize(const Model& model, const VecN& q, const VecN& v, State& s) const {
    s.q = q;
    s.v = v;
    s.p = Problem::momentum(model, q, v);
    s.lambda.setZero();
    if constexpr (!translates) s.r.setZero(), s.vr.setZero();
    return Status::ok;
  }

  QS_HD RigidBodyKinematics<S> kinematics(const Model&, const State& s) const {
    static_assert(rigid_body, "kinematics needs a rigid-body model");
    RigidBodyKinematics<S> k;
    k.quaternion = s.q;
    k.omega_body = euler_parameters::body_rate(s.q, s.v);
    k.position = s.r;
    k.velocity = s.vr;
    return k;
  }

  /// The discrete generalized energy, Kinon eq. (74): E = p·v − T(q, v) + V(q) (+ ½m|v_r|² − m g·r).
  QS_HD S generalized_energy(const Model& model, const State& s) const {
    S e = s.p.dot(s.v) - Problem::kinetic_energy(model, s.q, s.v) + Problem::potential(model, s.q);
    if constexpr (translates) e += translational_energy(model, s.r, s.vr);
    return e;
  }

  /// The method's channels: the generalized energy, and for rigid bodies the momentum map, which the
  /// scheme conserves where the model's /angular_momentum (from the end-point velocities, which
  /// Remark 4.8 leaves free to oscillate step by step) does not.
  static constexpr auto channels = [] {
    constexpr Channel energy{"generalized_energy", 1, "the scheme's discrete generalized energy, Kinon eq. (74) [J]",
                              false};
    if constexpr (rigid_body)
      return std::array{energy, Channel{"momentum_map", 3,
                                        "spatial angular momentum of the scheme's momenta p, E(q)p/2 (+ m r x v_r), "
                                        "Kinon eq. (64): what EML conserves without torque [kg m^2/s]",
                                        false}};
    else
      return std::array{energy};
  }();
  template <class W>
  QS_HD void observe(const Model& model, const State& s, W& w) const {
    w(generalized_energy(model, s));
    if constexpr (rigid_body) w(angular_momentum(model, s));
  }

  /// Spatial angular momentum, Kinon eq. (64): L = ½E(q)p (+ m r × v_r).
  QS_HD Vec3<S> angular_momentum(const Model& model, const State& s) const {
    static_assert(rigid_body, "angular momentum needs a rigid-body model");
    Vec3<S> l = S(0.5) * (E(s.q) * s.p);
    if constexpr (translates) l += model.mass * s.r.cross(s.vr);
    return l;
  }

  QS_HD Discretization discretization(const Model& model, const State& s, S t, S h) const {
    return Discretization(model, s.q, s.v, s.p, t, h);
  }

  /// One step t → t + h. On failure the state is left as it was and the status says why.
  ///
  /// Note (normal components). With |q⁰| = |q¹| = 1, eqs. (86a)–(86b) give for ν = q·v, a = q·p
  ///   ν¹ + ν⁰ = (h/4)(|v¹|² − |v⁰|²),   a¹ + a⁰ = −(h/2)(V(q¹) − V(q⁰)),
  /// so the endpoint velocity constraint is lost (Remark 4.8) and ν, a carry undamped alternating
  /// modes that drift. ν feeds back through Ω¹ = 2G(q¹)(2(q¹ − q⁰)/h − v⁰), and as |ν| → 2/h the
  /// step has no real solution: on the free rotation of §5.3 (h = 0.05) the literal scheme reaches
  /// |ν| = 34 and fails at step 164 (t = 8.2). Projecting v, p onto T_qS³ changes E by aν (2.8e-6
  /// relative over t ∈ [0, 0.1] on the heavy top at h = 0.01, 1e-12 at h = 1.25e-3), so
  /// project_normal_components projects only where aν is below round-off of p·v: always on the
  /// torque-free body (a ≡ 0), on the heavy top at small h; else the step stays literal.
  QS_FLATTEN QS_HD NewtonOutcome step(const Model& model, State& s, S t, S h) const {
    const Discretization d = discretization(model, s, t, h);
    const StepSystem sys(d);
    auto x = sys.predictor(Problem::predictor(d), s.lambda);
    const NewtonOutcome out = newton_solve<S, StepSystem::K>(sys, x, settings.newton);
    if (out.status != Status::ok) return out;
    const State next = end_state(model, s, sys.end_point(x), t, h);
    if (!all_finite(next)) return {Status::non_finite, out.iterations};
    s = next;
    return out;
  }

  /// The state after the step from s whose Newton solution ends at e.
  QS_HD State end_state(const Model& model, const State& s, const livens::EndPoint<S, n, m>& e, S t, S h) const {
    State next;
    next.q = e.q;
    next.v = e.v;
    next.p = e.p;
    next.lambda = e.lambda;
    if (settings.project_normal_components) Problem::project_normal_components(next.q, next.v, next.p);
    next.r = s.r;
    next.vr = s.vr;
    if constexpr (translates) midpoint_translation(model, next.r, next.vr, t, h);
    return next;
  }
};

}  // namespace quatstep
