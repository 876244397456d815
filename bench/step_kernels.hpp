// The step-code kernels that bench_profile_step (instructions, callgrind) and bench_flop_count
// (flops, counting scalar) measure: whole steps of each integrator and the parts of one step.
// Every kernel works on one heavy top (Sherif §10.1, h = 1e-4, α = −0.2) at a state reached after
// warmup_steps steps, so its inputs are those of a real step. Inputs and outputs go through
// benchmark::DoNotOptimize so that nothing is hoisted out of a repetition loop.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "heavy_top_ensemble.hpp"
#include "quatstep/adaptive/adaptive_hht.hpp"

namespace quatstep::bench {

inline constexpr int warmup_steps = 500;

template <class Integrator>
typename Integrator::State warmed_up(const Integrator& integrator, const typename Integrator::ModelType& top) {
  using S = typename Integrator::Scalar;
  typename Integrator::State s;
  integrator.initialize(top, sherif_initial<S>(0), S(0), s);
  for (int k = 0; k < warmup_steps; ++k) integrator.step(top, s, S(k) * S(step_size), S(step_size));
  return s;
}

/// Inputs of one step of ModifiedHht+shift and of SimoVuQuoc after the warm-up.
template <class S>
struct Fixture {
  using Top = HeavyTop<S>;
  using Mhht = ModifiedHht<Top>;
  using Svq = SimoVuQuoc<Top>;
  Top top = sherif_top<S>();
  S t = S(warmup_steps) * S(step_size), h = S(step_size);
  Mhht mhht{hht_settings<S>(true)};
  typename Mhht::State ms = warmed_up(mhht, top);
  Svq svq{svq_settings<S>()};
  typename Svq::State ss = warmed_up(svq, top);
  // The converged Newton unknowns of the next step and the Jacobian there.
  Vec<S, 5> mx;
  Eigen::Matrix<S, 5, 5> mjac;
  Vec4<S> q1, v1;
  // The Newton systems of that step (they refer to the members above: a Fixture never moves).
  std::optional<typename Mhht::Step> msys;
  std::optional<typename Svq::Step> ssys;
  Fixture() {
    typename Mhht::State next = ms;
    mhht.step(top, next, t, h);
    mx << next.a, next.lambda;
    Vec<S, 5> r;
    typename Mhht::Step(top, mhht, ms, t, h).evaluate(mx, r, mjac);
    q1 = next.q;
    v1 = next.v;
    msys.emplace(top, mhht, ms, t, h);
    ssys.emplace(top, svq, ss, t, h);
  }
  Fixture(const Fixture&) = delete;
};

template <class S>
using Kernel = std::function<void(Fixture<S>&)>;

template <class... T>
void opaque(T&... v) {
  (benchmark::DoNotOptimize(v), ...);
}

/// integrator.step on its own model and state, stepping forward along the trajectory from the warm-up.
template <class Integrator>
Kernel<typename Integrator::Scalar> whole_step(const Integrator& integrator) {
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  struct Run {
    Integrator integrator;
    Model top;
    typename Integrator::State s;
    long k;
  };
  const Model top(sherif_top<S>());
  auto run = std::make_shared<Run>(Run{integrator, top, warmed_up(integrator, top), warmup_steps});
  return [run](Fixture<S>& f) {
    opaque(run->s);
    const NewtonOutcome o = run->integrator.step(run->top, run->s, S(run->k) * f.h, f.h);
    ++run->k;
    opaque(o);
  };
}

/// Adaptive steps over ModifiedHht+shift on the same top, error per unit step at a tolerance whose
/// steps are about the fixed step_size, warmed up to t = warmup_steps·step_size; a kernel of this
/// kind takes the accepted step (or one of its stages) from that state.
template <class S>
struct AdaptiveRun {
  using Stepper = AdaptiveHht<ModifiedHht<HeavyTop<S>>>;
  static AdaptiveSettings<S> settings() {
    AdaptiveSettings<S> a;
    a.control = ErrorControl::per_unit_step;
    a.rotation_atol = S(5e-4);
    a.h_initial = S(step_size);
    return a;
  }
  Stepper stepper{ModifiedHht<HeavyTop<S>>(hht_settings<S>(true)), settings()};
  HeavyTop<S> top = sherif_top<S>();
  typename Stepper::State s;
  AdaptiveRun() {
    stepper.initialize(top, sherif_initial<S>(0), S(0), s);
    while (s.t < S(warmup_steps) * S(step_size)) stepper.step(top, s);
  }
};

/// One stage of an accepted adaptive step, on the state after the warm-up (never advanced).
template <class S, class Stage>
Kernel<S> adaptive_stage(Stage stage) {
  auto run = std::make_shared<AdaptiveRun<S>>();
  return [run, stage](Fixture<S>&) { stage(*run); };
}

template <class S>
std::map<std::string, Kernel<S>> kernels() {
  using F = Fixture<S>;
  using Mhht = typename F::Mhht;
  using Svq = typename F::Svq;
  std::map<std::string, Kernel<S>> k;
  for (const Method m : all_methods) {
    with_integrator<HeavyTop<S>>(m, [&](const auto& integrator) { k["step/" + name(m)] = whole_step(integrator); });
  }

  // ---- AdaptiveHht over ModifiedHht+shift: an accepted step and its stages (adaptive_hht.hpp)
  {
    auto run = std::make_shared<AdaptiveRun<S>>();
    k["adaptive/step"] = [run](F&) {  // forward along the trajectory from the warm-up
      opaque(run->s);
      const auto o = run->stepper.step(run->top, run->s);
      opaque(o);
    };
  }
  using Run = AdaptiveRun<S>;
  using AState = typename Run::Stepper::IntegratorState;
  k["adaptive/predict"] = adaptive_stage<S>([](Run& r) {
    opaque(r.s);
    const Vec<S, Mhht::K> xn = Mhht::unknowns(r.s.now);
    Vec<S, Mhht::K> x0 = r.s.history.predict(xn, r.s.h);
    opaque(x0);
  });
  k["adaptive/step_start"] = adaptive_stage<S>([](Run& r) {
    opaque(r.s);
    AState start = r.stepper.step_start(r.top, r.s, S(0.9) * r.s.h);
    opaque(start);
  });
  k["adaptive/decide"] = adaptive_stage<S>([](Run& r) {  // local error, composite error, step-size rule
    opaque(r.s);
    typename Run::Stepper::State st = r.s;
    const StepDecision<S> d = r.stepper.decide(r.top, st, st.previous, st.now, st.h_last, S(2), false);
    opaque(d, st);
  });
  k["adaptive/history_accept"] = adaptive_stage<S>([](Run& r) {
    opaque(r.s);
    auto history = r.s.history;
    history.template accept<compared_unknowns<Mhht>::value>(Mhht::unknowns(r.s.previous), r.s.h_last,
                                                             Mhht::unknowns(r.s.now), r.stepper.settings.predictor_degree);
    opaque(history);
  });

  // ---- ModifiedHht+shift, the parts of one step (hht.hpp)
  k["mhht/step_setup"] = [](F& f) {  // Step constructor: predictors, force at t_n
    opaque(f.ms);
    const typename Mhht::Step sys(f.top, f.mhht, f.ms, f.t, f.h);
    opaque(sys);
  };
  k["mhht/newton_solve"] = [](F& f) {
    opaque(f.ms);
    const typename Mhht::Step sys(f.top, f.mhht, f.ms, f.t, f.h);
    Vec<S, 5> x;
    x << f.ms.a, f.ms.lambda;
    const auto o = newton_solve<S, 5>(sys, x, f.mhht.settings.newton);
    opaque(x, o);
  };
  k["mhht/evaluate"] = [](F& f) {
    auto& sys = *f.msys;
    opaque(f.mx, sys);
    Vec<S, 5> r;
    Eigen::Matrix<S, 5, 5> jac;
    sys.evaluate(f.mx, r, jac);
    opaque(r, jac);
  };
  k["mhht/kinematics"] = [](F& f) {
    auto& sys = *f.msys;
    opaque(f.mx, sys);
    Vec4<S> q1, v1;
    sys.kinematics(f.mx.template head<4>(), q1, v1);
    opaque(q1, v1);
  };
  k["mhht/velocity_derivative"] = [](F& f) {  // J₁ applied to one direction
    auto& sys = *f.msys;
    opaque(f.mx, f.q1, sys);
    const Vec4<S> da(S(1), S(0), S(0), S(0));
    Vec4<S> dv = sys.velocity_derivative(f.mx.template head<4>(), f.q1, da, Vec4<S>(sys.bh2 * da));
    opaque(dv);
  };
  k["mhht/check"] = [](F& f) {
    opaque(f.ms);
    const Status s = f.mhht.check(f.ms, f.h);
    opaque(s);
  };
  k["lu5/factor+solve"] = [](F& f) {
    opaque(f.mjac, f.mx);
    const Lu<S, 5> lu(f.mjac);
    Vec<S, 5> dx = lu.solve(-f.mx);
    opaque(dx);
  };

  // ---- HeavyTop model terms called by evaluate (heavy_top.hpp, euler_parameter_block.hpp)
  k["top/mass_shift"] = [](F& f) {  // the inertia-shift mass term and its derivative along one direction
    opaque(f.q1, f.mx, f.ms);
    const S alpha = f.mhht.p.alpha, bh2 = f.msys->bh2;
    const Vec4<S> a = f.mx.template head<4>(), da(S(1), S(0), S(0), S(0)), dq = bh2 * da;
    const Vec4<S> qt = (S(1) + alpha) * f.q1 - alpha * f.ms.q;
    Vec4<S> m = f.top.mass_times(qt, f.q1, a);
    Vec4<S> dm = f.top.mass_times_derivative(qt, f.q1, a, Vec4<S>((S(1) + alpha) * dq), dq, da);
    opaque(m, dm);
  };
  k["top/linearized_force"] = [](F& f) {  // Q and both derivative terms along one direction
    opaque(f.q1, f.v1, f.t);
    const auto lin = f.top.linearized_force(f.q1, f.v1, f.t);
    const Vec4<S> d(S(1), S(0), S(0), S(0));
    Vec4<S> q = lin.value, dq = lin.template derivative_term<0>(d, d) + lin.template derivative_term<1>(d, d);
    opaque(q, dq);
  };
  k["top/gyroscopic"] = [](F& f) {
    opaque(f.q1, f.v1);
    const euler_parameters::GyroscopicForce<S> g(f.top.inertia, f.q1, f.v1);
    const Vec4<S> d(S(1), S(0), S(0), S(0));
    Vec4<S> q = g.force, dq = g.derivative(d, d);
    opaque(q, dq);
  };
  k["top/torque_derivative"] = [](F& f) {
    opaque(f.q1, f.t);
    const Vec4<S> d(S(1), S(0), S(0), S(0));
    Vec3<S> tau = f.top.loads.torque(f.q1, f.t), dtau = f.top.loads.torque_derivative(f.q1, f.t, d);
    opaque(tau, dtau);
  };
  k["top/force"] = [](F& f) {  // Q alone (used once per step at t_n)
    opaque(f.q1, f.v1, f.t);
    Vec4<S> q = f.top.force(f.q1, f.v1, f.t);
    opaque(q);
  };

  // ---- SimoVuQuoc (simo_vu_quoc.hpp)
  k["svq/evaluate"] = [](F& f) {
    auto& sys = *f.ssys;
    Vec3<S> x = f.ss.wd;
    opaque(x, sys);
    Vec3<S> r;
    Mat3<S> jac;
    sys.evaluate(x, r, jac);
    opaque(r, jac);
  };
  k["svq/step_setup"] = [](F& f) {
    opaque(f.ss);
    const typename Svq::Step sys(f.top, f.svq, f.ss, f.t, f.h);
    opaque(sys);
  };
  k["svq/quat_from_rotation_vector"] = [](F& f) {
    Vec3<S> th = f.h * f.ss.w;
    opaque(th);
    Vec4<S> e = quat_from_rotation_vector(th);
    opaque(e);
  };
  k["svq/so3_right_jacobian"] = [](F& f) {
    Vec3<S> th = f.h * f.ss.w;
    opaque(th);
    Mat3<S> j = so3_right_jacobian(th);
    opaque(j);
  };
  k["svq/body_torque+dphi"] = [](F& f) {
    opaque(f.ss.e, f.t);
    Vec3<S> tau = f.top.body_torque(f.ss.e, f.t);
    Mat3<S> d = f.top.body_torque_dphi(f.ss.e, f.t);
    opaque(tau, d);
  };
  k["lu3/factor+solve"] = [](F& f) {
    Mat3<S> a = f.top.inertia;
    Vec3<S> b = f.ss.w;
    opaque(a, b);
    const Lu<S, 3> lu(a);
    Vec3<S> x = lu.solve(b);
    opaque(x);
  };
  k["empty"] = [](F& f) { opaque(f); };  // the cost of the harness itself
  return k;
}

}  // namespace quatstep::bench
