// Per-body adaptive steps for the HHT family (Negrut et al. §3): each body keeps its own t and h.
// A step starts Newton from the extrapolating predictor (§3.5, predictor.hpp), solves with the
// integrator's own corrector and stopping rule (§3.4, newton.hpp), estimates its local error
// (§3.1, local_error.hpp), and is accepted or retried by the test and rule of §3.2–3.3
// (step_size_rule.hpp). Bodies are sampled at common output times by dense output
// (dense_output.hpp); adaptive_ensemble.hpp walks one body through a launch. A step keeps to the
// model's load_step_limit: it ends where a load switches on or off (a TimeProfile window's edge)
// and spans at most half a window it lies in. A step's loads are evaluated at its ends only, so a
// pulse shorter than the step would otherwise go unseen by both the solution and the error estimate.
//
// Failures stay with the body: a corrector failure (no convergence, singular matrix, non-finite
// state) is retried with a smaller step; the velocity-constraint drift of the classical method
// (docs/errata.md S4) is a divergence that no step cures, and fails at once; a step whose test still
// fails at h_min fails with step_size_too_small (or, if its corrector failed there, with the
// corrector's status).
//
// What the controls give (tests/adaptive_tolerance_test.cpp): with a second-order method (α = 0, or
// inertia_shift = true) the global error goes as ε^(2/3) under error per step and as ε under error
// per unit step. The plain methods at α ≠ 0 are first order (docs/errata.md S3): their velocity's
// local error is O(h²), which no position estimate sees, and their global error goes as ε^(1/2) per
// unit step. Use the inertia shift with α ≠ 0.
#pragma once

#include <type_traits>
#include <utility>

#include "quatstep/adaptive/adaptive_settings.hpp"
#include "quatstep/adaptive/dense_output.hpp"
#include "quatstep/adaptive/local_error.hpp"
#include "quatstep/adaptive/predictor.hpp"
#include "quatstep/adaptive/step_size_rule.hpp"
#include "quatstep/integrators/hht.hpp"

namespace quatstep {

/// The unknowns by which the predictor chooses its degree: the accelerations, the first nr of a rigid
/// body's HHT unknowns; a mechanism's interleave each body's accelerations with its multiplier, and
/// all of them are compared.
template <class Integrator, class = void>
struct compared_unknowns : std::integral_constant<int, Integrator::K> {};
template <class Integrator>
struct compared_unknowns<Integrator, std::void_t<decltype(Integrator::nr)>> : std::integral_constant<int, Integrator::nr> {};

/// Whether a model bounds the steps its loads' windows allow (load_step_limit).
template <class Model, class = void>
struct has_load_step_limit : std::false_type {};
template <class Model>
struct has_load_step_limit<Model, std::void_t<decltype(std::declval<const Model&>().load_step_limit(
                                      std::declval<typename Model::Scalar>()))>> : std::true_type {};

/// Adaptive steps over an HHT-family integrator (Hht, ModifiedHht, with or without the inertia
/// shift; or their mechanism forms, mechanism/adaptive.hpp).
template <class Integrator>
class AdaptiveHht {
 public:
  using ModelType = typename Integrator::ModelType;
  using Model = ModelType;
  using Scalar = typename Integrator::Scalar;
  using S = Scalar;
  using IntegratorState = typename Integrator::State;
  static constexpr int K = Integrator::K;
  using VecN = decltype(IntegratorState::q);
  using History = PredictorHistory<S, K>;
  using Blocks = EulerParameterBlocks<Model>;

  /// What persists between launches, struct-of-arrays storable.
  struct State {
    IntegratorState now;       ///< at t
    IntegratorState previous;  ///< at t − h_last, the start of the last accepted step (dense output)
    S t;          ///< time of `now`: t + t_low is the sum of the accepted steps (Kahan)
    S t_low;      ///< the rounding error of t
    S h_last;     ///< size of the last accepted step (0 before the first)
    S h;          ///< the next step to try
    S successes;  ///< consecutive accepted steps (halve_double rule)
    History history;

    static constexpr int scalars = 5;
    static constexpr int size = 2 * IntegratorState::size + scalars + History::size;
    static constexpr int next_step_component = 2 * IntegratorState::size + 3;  ///< h's index below
    QS_HD S& operator[](int i) {
      constexpr int m = IntegratorState::size;
      if (i < m) return now[i];
      if (i < 2 * m) return previous[i - m];
      if (i < 2 * m + scalars) {
        const int j = i - 2 * m;
        return j == 0 ? t : j == 1 ? t_low : j == 2 ? h_last : j == 3 ? h : successes;
      }
      return history[i - 2 * m - scalars];
    }
    QS_HD S operator[](int i) const { return const_cast<State&>(*this)[i]; }
  };

  /// One accepted step, or the failure that ended the attempts.
  struct StepOutcome {
    Status status;
    S h;            ///< size of the accepted step
    int iterations;  ///< Newton iterations of every attempt
    int rejected;    ///< attempts rejected before it
  };

  Integrator integrator;
  AdaptiveSettings<S> settings;

  QS_HD AdaptiveHht(const Integrator& i, const AdaptiveSettings<S>& s) : integrator(i), settings(s) {}

  /// Host-side check of both settings (device code cannot throw).
  void validate() const {
    keys::check(integrator.settings);
    settings.validate();
  }

  /// Consistent state at t0 (the integrator's, from the model's kinematics), the first step
  /// h_initial, an empty predictor history.
  template <class Kinematics>
  QS_HD Status initialize(const Model& model, const Kinematics& k, S t0, State& st) const {
    const Status status = integrator.initialize(model, k, t0, st.now);
    st.previous = st.now;
    st.t = t0;
    st.t_low = st.h_last = S(0);
    st.h = settings.h_initial;
    st.successes = S(0);
    st.history.reset();
    return status;
  }

  /// One accepted step from st.t: attempts of size st.h, smaller after each rejection, until the
  /// accuracy test passes; then st.h is the next step's size. On failure the time and the states
  /// are left as they were.
  QS_HD StepOutcome step(const Model& model, State& st) const {
    // A rigid body's step is flattened on the host (config.hpp: its small helpers inlined); a
    // mechanism's is not, whose flattened Newton and constraint solves took g++ over 7 minutes.
    if constexpr (Blocks::capacity == 1) return flattened_attempts(model, st);
    else return attempts(model, st);
  }

  /// The body's kinematics at t (the integrator's, of `now`).
  QS_HD auto kinematics(const Model& model, const State& st) const { return integrator.kinematics(model, st.now); }

  /// The integrator's state at τ ∈ [t − h_last, t] (dense output, for common output times).
  QS_HD IntegratorState sample(const Model& model, const State& st, S tau) const {
    if (!(st.h_last > S(0))) return st.now;
    const S theta = S(1) + ((tau - st.t) - st.t_low) / st.h_last;  // τ − (t + t_low) over the step
    return dense_output(model, st.previous, st.now, st.h_last, theta);
  }

  // The stages of an attempt, shared with the lanes' driver of the attempts (simd/lane_adaptive.hpp):
  // every branch on a body's numbers in them is math::select or math::choose.

  /// The error test of the converged step start → next of size h, after `iterations` Newton
  /// iterations: accept or not, and the factor for the next size; st.successes updated.
  QS_HD StepDecision<S> decide(const Model& model, State& st, const IntegratorState& start,
                               const IntegratorState& next, S h, S iterations,
                               math::ConditionOf<S> after_rejection) const {
    const VecN delta = local_error(integrator, model, start, next, st.t + h, h);
    const S e = composite_error(model, settings, delta, st.now.q, next.q);
    return decide_step(settings, e, h, iterations, after_rejection, st.successes);
  }

  /// Take the accepted step start → next of size h from the unknowns xn of st.now; the next step's
  /// size is factor·h within [h_min, h_max].
  QS_HD void accept(State& st, const IntegratorState& start, const IntegratorState& next, const Vec<S, K>& xn, S h,
                    S factor) const {
    st.history.template accept<compared_unknowns<Integrator>::value>(xn, h, Integrator::unknowns(next),
                                                                     settings.predictor_degree);
    st.previous = start;
    st.now = next;
    const S y = h + st.t_low, t1 = st.t + y;  // Kahan: t + t_low += h
    st.t_low = y - (t1 - st.t);                 // what the rounded sum t1 left out
    st.t = t1;
    st.h_last = h;
    st.h = clamp_step(factor * h);
  }

  /// The state a step of size h starts from. HHT's accelerations and multipliers lag: after a step
  /// of size h₀ they approximate their values at t_n + αh₀, not t_n (Negrut eq. 23), and with
  /// constant steps this is consistent. A step of another size h would take the lag αh₀ for αh
  /// and make an O(h·(h − h₀)) velocity error (first order under a jittery h); the lag is moved to
  /// αh by the first-order extrapolation x_n → x_n + α(h − h₀)/h₀·(x_n − x_{n−1}) along the last
  /// step, where x_{n−1} is that step's own start.
  QS_HD IntegratorState step_start(const Model& model, const State& st, S h) const {
    using math::choose;
    using math::is_equal;
    using math::is_less;
    IntegratorState start = st.now;
    const S h0 = st.h_last, alpha = integrator.p.alpha;
    if (alpha == S(0)) return start;
    const auto moves = is_less(S(0), h0) && !is_equal(h, h0);
    const S r = alpha * (h - h0) / h0;
    using Lambda = decltype(start.lambda);
    start.lambda = choose(moves, [&] { return Lambda(st.now.lambda + r * (st.now.lambda - st.previous.lambda)); },
                          [&] { return st.now.lambda; });
    start.a = choose(moves, [&] { return lagged_accelerations(model, st, r); }, [&] { return st.now.a; });
    return start;
  }

  /// st.h within the model's load_step_limit. The limit is taken from h_min ahead, so that a switch
  /// the sum of the steps reached to within rounding counts as passed.
  QS_HD S step_within_loads(const Model& model, const State& st) const {
    if constexpr (has_load_step_limit<Model>::value) {
      const S ahead = settings.h_min;
      const S limit = (model.load_step_limit(st.t + ahead) + ahead) - st.t_low;
      using math::is_less;
      using math::select;
      return select(is_less(limit, st.h), limit, st.h);
    } else {
      return st.h;
    }
  }

  QS_HD S clamp_step(S h) const {
    using math::is_less;
    using math::select;
    return select(is_less(h, settings.h_min), settings.h_min, select(is_less(settings.h_max, h), settings.h_max, h));
  }

 private:
  QS_FLATTEN QS_HD StepOutcome flattened_attempts(const Model& model, State& st) const { return attempts(model, st); }

  /// step()'s attempts.
  QS_HD StepOutcome attempts(const Model& model, State& st) const {
    StepOutcome out{Status::ok, S(0), 0, 0};
    bool rejected = false;
    for (;;) {
      const S h = step_within_loads(model, st);
      const IntegratorState start = step_start(model, st, h);
      IntegratorState next = start;
      const Vec<S, K> xn = Integrator::unknowns(st.now);
      Vec<S, K> x0 = st.history.predict(xn, h);
      NewtonOutcome solved;
      // A predictor never fails a step: a corrector that fails from it is retried from the start's
      // own unknowns (degree 0). A start that is right to round-off fails the rate test of
      // newton.hpp (the corrections are noise, ξ ≈ 1); observed at h ≈ 1e-6 on the heavy top.
      // One call site for both tries: inlined twice, the corrector doubled the GPU kernel's code
      // and its stack frame (bench/adaptive.md §8).
      for (bool retried = false;; retried = true) {
        solved = integrator.step(model, next, st.t, h, x0);
        out.iterations += solved.iterations;
        if (retried || solved.status == Status::ok || solved.status == Status::constraint_drift ||
            !(st.history.degree > S(0)))
          break;
        next = start;
        x0 = Integrator::unknowns(start);
      }
      if (solved.status == Status::constraint_drift) {  // docs/errata.md S4: a divergence, not a step-size matter
        out.status = solved.status;
        return out;
      }
      StepDecision<S> decision{false, failed_step_factor(settings)};
      if (solved.status == Status::ok) decision = decide(model, st, start, next, h, S(solved.iterations), rejected);
      if (decision.accept) {
        accept(st, start, next, xn, h, decision.factor);
        out.h = h;
        return out;
      }
      ++out.rejected;
      rejected = true;
      if (!(h > settings.h_min)) {
        out.status = solved.status == Status::ok ? Status::step_size_too_small : solved.status;
        return out;
      }
      st.h = clamp_step(decision.factor * h);
    }
  }

  /// step_start's accelerations, the lag moved by the fraction r of the last step.
  QS_HD VecN lagged_accelerations(const Model& model, const State& st, S r) const {
    VecN a = st.now.a + r * (st.now.a - st.previous.a);
    if constexpr (Integrator::update == VelocityUpdate::modified) {
      // Only the angular acceleration ω̇ = 2Gë lags (eq. 34 is Newmark on ω); the centripetal part
      // of ë stays the one the constraints fix: ë += r·G_nᵀ(G_n ë_n − G_{n−1} ë_{n−1}).
      QS_UNROLL_UP_TO(Blocks::capacity) for (int b = 0; b < Blocks::count(model); ++b) {
        const int o = Blocks::offset(b);
        const Vec4<S> e = st.now.q.template segment<4>(o), e0 = st.previous.q.template segment<4>(o);
        const Vec3<S> dw = G(e) * st.now.a.template segment<4>(o) - G(e0) * st.previous.a.template segment<4>(o);
        a.template segment<4>(o) = st.now.a.template segment<4>(o) + r * (G(e).transpose() * dw);
      }
    }
    return a;
  }
};

/// Whether AdaptiveHht runs over an integrator: the HHT family (the registry's hht and
/// modified_hht). A scenario's `[time] adaptive = true` needs it.
template <class Integrator>
struct takes_adaptive_steps : std::false_type {};
template <class Model, VelocityUpdate Update>
struct takes_adaptive_steps<HhtFamily<Model, Update>> : std::true_type {};

/// Whether a stepper is an adaptive one (its bodies keep their own t and h: adaptive_ensemble.hpp).
template <class Stepper>
struct is_adaptive_stepper : std::false_type {};
template <class Integrator>
struct is_adaptive_stepper<AdaptiveHht<Integrator>> : std::true_type {};

}  // namespace quatstep
