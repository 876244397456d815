// A body's life in one launch with adaptive steps, the counterpart of advance_body
// (include/quatstep/ensemble.hpp): load state → accepted steps of the body's own size in registers,
// sampled at the common output times t_j = t0 + j·interval by dense output → store state.
// Sample j of a SampleView is the state at t_j (stride 1). The trajectory of a body does not depend
// on how the run is cut into launches: a launch ends after the step that passes its last output
// time, and the next one starts there (the last step is kept for dense output).
#pragma once

#include "quatstep/adaptive/adaptive_hht.hpp"
#include "quatstep/ensemble.hpp"

namespace quatstep {

/// Per-body step statistics, accumulated over launches.
template <class S>
struct AdaptiveRecord {
  index_t* accepted_steps;  ///< per body
  index_t* rejected_steps;  ///< per body: attempts rejected by the error test or a failed corrector
  S* smallest_step;         ///< per body, over accepted steps (+∞ before the first)
  S* largest_step;          ///< per body, over accepted steps (0 before the first)
};

/// Consistent initial state of body i, its records, and sample 0.
template <class Stepper>
QS_HD void initialize_body_adaptive(const Stepper& stepper, const typename Stepper::ModelType& model,
                                    const RigidBodyKinematics<typename Stepper::Scalar>& initial,
                                    const SoaView<typename Stepper::Scalar>& state_soa, const BodyRecord& record,
                                    const AdaptiveRecord<typename Stepper::Scalar>& steps, index_t i,
                                    typename Stepper::Scalar t0, const SampleView<typename Stepper::Scalar>& out) {
  using S = typename Stepper::Scalar;
  typename Stepper::State st{};
  // A body rejected before the start (record.status already set) keeps its status, never advances
  // and holds NaN, as one whose start fails (ensemble.hpp initialize_body).
  const Status status = record.status[i] == Status::ok ? stepper.initialize(model, initial, t0, st)
                                                       : failed_start(st, record.status[i]);
  store_state(st, state_soa, i);
  record.status[i] = status;
  record.newton_iterations[i] = 0;
  record.failed_step[i] = status == Status::ok ? -1 : 0;
  steps.accepted_steps[i] = 0;
  steps.rejected_steps[i] = 0;
  steps.smallest_step[i] = S(INFINITY);
  steps.largest_step[i] = S(0);
  if (out.holds(0)) write_sample(out, 0, i, stepper.integrator, model, st.now, status == Status::ok);
}

/// What one launch adds to body i's records, kept in registers: its status, Newton iterations and
/// steps; until() takes the steps to an output time, store() writes the records back.
template <class S>
struct AdaptiveTally {
  Status status;
  index_t iterations = 0, accepted = 0, rejected = 0;
  S smallest, largest;

  QS_HD AdaptiveTally(const BodyRecord& record, const AdaptiveRecord<S>& steps, index_t i)
      : status(record.status[i]), smallest(steps.smallest_step[i]), largest(steps.largest_step[i]) {}

  /// Accepted steps of `st` until it reaches t (none once the body has failed). A failure sets the
  /// status, and the failed step to the number of steps the body had accepted.
  template <class Stepper>
  QS_HD void until(const Stepper& stepper, const typename Stepper::ModelType& model, typename Stepper::State& st, S t,
                   const BodyRecord& record, const AdaptiveRecord<S>& steps, index_t i) {
    while (status == Status::ok && st.t < t) {
      const auto outcome = stepper.step(model, st);
      iterations += outcome.iterations;
      rejected += outcome.rejected;
      if (outcome.status != Status::ok) {
        status = outcome.status;
        record.failed_step[i] = steps.accepted_steps[i] + accepted;
        return;
      }
      ++accepted;
      smallest = outcome.h < smallest ? outcome.h : smallest;
      largest = outcome.h > largest ? outcome.h : largest;
    }
  }

  QS_HD void store(const BodyRecord& record, const AdaptiveRecord<S>& steps, index_t i) const {
    record.status[i] = status;
    record.newton_iterations[i] += iterations;
    steps.accepted_steps[i] += accepted;
    steps.rejected_steps[i] += rejected;
    steps.smallest_step[i] = smallest;
    steps.largest_step[i] = largest;
  }
};

/// Advance body i through the output times t_j, j = first_sample + 1 … first_sample + samples,
/// writing each sample that falls in `out`'s window. A failed body stops (its samples are NaN) and
/// its failed_step is the number of steps it had accepted.
template <class Stepper>
QS_HD void advance_body_adaptive(const Stepper& stepper, const typename Stepper::ModelType& model,
                                 const SoaView<typename Stepper::Scalar>& state_soa, const BodyRecord& record,
                                 const AdaptiveRecord<typename Stepper::Scalar>& steps, index_t i,
                                 typename Stepper::Scalar t0, typename Stepper::Scalar interval, index_t first_sample,
                                 index_t samples, const SampleView<typename Stepper::Scalar>& out) {
  using S = typename Stepper::Scalar;
  typename Stepper::State st;
  load_state(state_soa, i, st);
  AdaptiveTally<S> tally(record, steps, i);
  for (index_t j = first_sample + 1; j <= first_sample + samples; ++j) {
    const S tj = t0 + S(j) * interval;
    tally.until(stepper, model, st, tj, record, steps, i);
    if (out.holds(j))
      write_sample(out, j, i, stepper.integrator, model, stepper.sample(model, st, tj), tally.status == Status::ok);
  }
  store_state(st, state_soa, i);
  tally.store(record, steps, i);
}

}  // namespace quatstep
