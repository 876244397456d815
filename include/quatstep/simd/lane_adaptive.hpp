// AdaptiveHht's steps (adaptive/adaptive_hht.hpp) for W bodies at once, bit for bit the scalar steps
// of each body. The stages of an attempt are the core's, instantiated with Lanes: the step within
// the loads' windows, the start with its lag moved, the predictor, the error test and step-size
// rule (decide), and taking an accepted step (accept); their branches on a body's numbers are
// math::select and math::choose. Lane-wise here is the control of the attempts, AdaptiveHht's
// attempts() and AdaptiveTally::until() (adaptive_ensemble.hpp) in one loop: each pass makes one
// attempt in every lane that has not yet reached the target time, and each lane goes through its
// own sequence (a retry from the start's unknowns after a failed predicted solve, a rejection and a
// smaller step, an accepted step, a failure) as its scalar body does.
//
// The bodies of a block keep their own t, so their loads must not branch on time: the CPU backend
// steps in lanes only blocks whose loads have no windows (host/cpu_lanes.hpp, LaneBranches).
#pragma once

#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/simd/lane_hht.hpp"

namespace quatstep::simd {

/// What a block's launch adds to its bodies' records, per lane: AdaptiveTally for each body.
template <class L>
struct LaneAdaptiveTally {
  static constexpr int W = int(L::V::size());
  typename L::V status;  ///< Status codes
  index_t iterations[W] = {}, accepted[W] = {}, rejected[W] = {};
  index_t accepted_before[W];  ///< the steps accepted in earlier launches
  index_t failed_step[W];
  L smallest, largest;

  /// The records of bodies first … first + W − 1.
  LaneAdaptiveTally(const BodyRecord& record, const AdaptiveRecord<typename L::Element>& steps, index_t first) {
    for (int j = 0; j < W; ++j) {
      status[j] = typename L::Element(int(record.status[first + j]));
      failed_step[j] = record.failed_step[first + j];
      accepted_before[j] = steps.accepted_steps[first + j];
      smallest[j] = steps.smallest_step[first + j];
      largest[j] = steps.largest_step[first + j];
    }
  }

  /// The lanes `which` fail with the status codes `codes`, after the steps they accepted.
  void fail(typename L::Mask which, const typename L::V& codes) {
    status = select(which, codes, status);
    if (stdx::any_of(which))
      for (int j = 0; j < W; ++j) failed_step[j] = which[j] ? accepted_before[j] + accepted[j] : failed_step[j];
  }

  void store(const BodyRecord& record, const AdaptiveRecord<typename L::Element>& steps, index_t first) const {
    for (int j = 0; j < W; ++j) {
      record.status[first + j] = static_cast<Status>(int(status[j]));
      record.newton_iterations[first + j] += iterations[j];
      record.failed_step[first + j] = failed_step[j];
      steps.accepted_steps[first + j] += accepted[j];
      steps.rejected_steps[first + j] += rejected[j];
      steps.smallest_step[first + j] = smallest[j];
      steps.largest_step[first + j] = largest[j];
    }
  }
};

/// AdaptiveTally::until for the lanes: accepted steps of each lane's `st` until it reaches `target`
/// (none in a lane that has failed).
template <class Integrator, class L = typename Integrator::Scalar>
void lane_adaptive_until(const AdaptiveHht<Integrator>& stepper, const typename Integrator::ModelType& model,
                         typename AdaptiveHht<Integrator>::State& st, L target, LaneAdaptiveTally<L>& tally) {
  using Mask = typename L::Mask;
  using Ints = typename L::V;
  using State = typename AdaptiveHht<Integrator>::State;
  constexpr int W = LaneAdaptiveTally<L>::W;
  const Ints drift_code(int(Status::constraint_drift));
  Mask after_rejection(false);  // the lane's current step has had an attempt rejected
  for (;;) {
    const Mask active = lanes_where(tally.status, 0) && st.t.v < target.v;
    if (stdx::none_of(active)) return;
    const L h = stepper.step_within_loads(model, st);
    const typename Integrator::State start = stepper.step_start(model, st, h);
    typename Integrator::State next = start;
    const Vec<L, Integrator::K> xn = Integrator::unknowns(st.now);
    LaneOutcome<L> solved =
        lane_hht_step(stepper.integrator, model, next, st.t, h, active, st.history.predict(xn, h));
    Ints iterations = solved.iterations;  // every solve of this attempt
    // A predictor never fails a step: the lanes whose predicted solve failed retry from the start's
    // own unknowns (degree 0), as attempts() does.
    const Mask retry = active && !lanes_where(solved.status, 0) && solved.status != drift_code &&
                       L(0).v < st.history.degree.v;
    if (stdx::any_of(retry)) {
      const LaneOutcome<L> again =
          lane_hht_step(stepper.integrator, model, next, st.t, h, retry, Integrator::unknowns(start));
      solved.status = select(retry, again.status, solved.status);
      solved.iterations = select(retry, again.iterations, solved.iterations);
      iterations += again.iterations;
    }
    for (int j = 0; j < W; ++j) tally.iterations[j] += active[j] ? index_t(iterations[j]) : 0;
    const Mask drift = active && solved.status == drift_code;  // a divergence, not a step-size matter
    tally.fail(drift, solved.status);

    const Mask converged = active && lanes_where(solved.status, 0);
    const L successes = st.successes;
    const StepDecision<L> decision =
        stepper.decide(model, st, start, next, h, L(solved.iterations), LaneCondition<Mask>{after_rejection});
    st.successes = select(converged, st.successes, successes);
    const Mask accept = converged && decision.accept.holds;
    const L factor = select(converged, decision.factor, L(failed_step_factor(stepper.settings)));
    if (stdx::any_of(accept)) {
      State taken = st;
      stepper.accept(taken, start, next, xn, h, factor);
      for (int i = 0; i < State::size; ++i) st[i] = select(accept, taken[i], st[i]);
      tally.smallest = select(accept && h.v < tally.smallest.v, h, tally.smallest);
      tally.largest = select(accept && h.v > tally.largest.v, h, tally.largest);
      for (int j = 0; j < W; ++j) tally.accepted[j] += accept[j];
    }
    const Mask rejected = active && !drift && !accept;
    for (int j = 0; j < W; ++j) tally.rejected[j] += rejected[j];
    after_rejection = (after_rejection || rejected) && !accept;
    const Mask too_small = rejected && !(h.v > stepper.settings.h_min.v);
    tally.fail(too_small, select(converged, Ints(int(Status::step_size_too_small)), solved.status));
    st.h = select(rejected && !too_small, stepper.clamp_step(factor * h), st.h);
  }
}

}  // namespace quatstep::simd
