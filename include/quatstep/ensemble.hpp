// A body's life in one pass, written once for every backend:
//   load state from struct-of-arrays → loop steps in registers → write sampled outputs → store state.
// The CPU backend calls advance_body from an OpenMP loop, a CUDA kernel from one thread per body;
// nothing numerical differs between them.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "quatstep/channels.hpp"
#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/status.hpp"

namespace quatstep {

using index_t = std::int64_t;

/// What an integrator tells of a body's state (RigidBodyKinematics for the rigid-body models), and
/// what a body's initial state is given as.
template <class Integrator>
using KinematicsOf = decltype(std::declval<const Integrator&>().kinematics(
    std::declval<const typename Integrator::ModelType&>(), std::declval<const typename Integrator::State&>()));

/// Struct-of-arrays view: component c of body i at data[c·bodies + i].
template <class S>
struct SoaView {
  S* data;
  index_t bodies;
  QS_HD S& operator()(int c, index_t i) const { return data[c * bodies + i]; }
};

/// Output of the samples [first_sample, first_sample + samples) of a run; sample j is the state
/// after j·stride steps. Stored [sample][scalar][body] (coalesced across bodies), `scalars` per body
/// and sample: the channels of the model, then those of the integrator (channels.hpp,
/// sample_scalars<Integrator>()).
template <class S>
struct SampleView {
  S* data;
  index_t bodies;
  index_t first_sample;
  index_t samples;
  index_t stride;
  int scalars;
  QS_HD S& operator()(index_t sample, int c, index_t i) const {
    return data[((sample - first_sample) * scalars + c) * bodies + i];
  }
  QS_HD bool holds(index_t step) const {
    if (samples <= 0 || step % stride != 0) return false;  // none: any stride, 0 too (SampleView{})
    const index_t j = step / stride;
    return j >= first_sample && j < first_sample + samples;
  }
};

struct BodyRecord {
  Status* status;              ///< per body
  index_t* newton_iterations;  ///< per body, total
  index_t* failed_step;        ///< per body, the step that failed (−1 while none)
};

/// Hands the values of one sample of body i to consecutive scalars of a SampleView, as the models'
/// and integrators' observe() produce them.
template <class S>
struct SampleWriter {
  const SampleView<S>& out;
  index_t sample, i;
  int c = 0;
  QS_HD void operator()(S value) { out(sample, c++, i) = value; }
  template <int N>
  QS_HD void operator()(const Vec<S, N>& v) {
    for (int k = 0; k < N; ++k) (*this)(v[k]);
  }
};

/// Sample `step / stride` of body i: its channels, or NaN throughout for a body that has failed.
template <class Integrator>
QS_HD void write_sample(const SampleView<typename Integrator::Scalar>& out, index_t step, index_t i,
                        const Integrator& integrator, const typename Integrator::ModelType& model,
                        const typename Integrator::State& s, bool valid) {
  using S = typename Integrator::Scalar;
  SampleWriter<S> w{out, step / out.stride, i};
  if (!valid) {
    for (int c = 0; c < sample_scalars<Integrator>(); ++c) w(S(NAN));
    return;
  }
  model.observe(integrator.kinematics(model, s), w);
  if constexpr (has_integrator_channels<Integrator>::value) integrator.observe(model, s, w);
}

/// Step k (from t to t + h) of body i held in registers: nothing happens once the body has
/// failed; a failure is recorded with its step index and leaves the state of the failed step.
template <class Integrator>
QS_HD void step_body(const Integrator& integrator, const typename Integrator::ModelType& model,
                     typename Integrator::State& s, Status& status, index_t& iterations, const BodyRecord& record,
                     index_t i, index_t k, typename Integrator::Scalar t, typename Integrator::Scalar h) {
  if (status != Status::ok) return;
  const auto outcome = integrator.step(model, s, t, h);
  iterations += outcome.iterations;
  if (outcome.status != Status::ok) {
    status = outcome.status;
    record.failed_step[i] = k;
  }
}

/// Whether Integrator's state keeps evaluations of the model's loads for the next step (first
/// same as last: the torque at the end of a step is the first kick of the next), re-evaluated by
/// integrator.hold_loads(model, s, t) from the model at the state and time t.
template <class I, class = void>
struct holds_loads : std::false_type {};
template <class I>
struct holds_loads<I, std::void_t<decltype(std::declval<const I&>().hold_loads(
                          std::declval<const typename I::ModelType&>(), std::declval<typename I::State&>(),
                          std::declval<typename I::Scalar>()))>> : std::true_type {};

/// Whether Integrator ends its step with an impulse of the loads it holds (a kick of the
/// kick–drift–kick splittings, Krysl's end impulse) and can redo it with other loads:
/// integrator.redo_end_impulse(before, s, h_previous), with before's held loads replaced by s's.
template <class I, class = void>
struct redoes_end_impulse : std::false_type {};
template <class I>
struct redoes_end_impulse<I, std::void_t<decltype(std::declval<const I&>().redo_end_impulse(
                                 std::declval<const typename I::State&>(), std::declval<typename I::State&>(),
                                 std::declval<typename I::Scalar>()))>> : std::true_type {};

/// What the state of a body holds of the last step's loads, evaluated anew from `model` at t, so
/// that the next step sees this model (nothing for an integrator that keeps no loads).
/// h_previous > 0 says the loads are those of the state the step starts from (LoadTiming::at_start,
/// coupled_step.hpp) and that the last step, of size h_previous, ended with the loads it held: its
/// end impulse is redone with the new ones first (velocity Verlet's second half kick, which needs
/// the loads at the end of the step: the caller gives them one call later).
template <class Integrator>
QS_HD void take_loads(const Integrator& integrator, const typename Integrator::ModelType& model,
                      typename Integrator::State& s, typename Integrator::Scalar t,
                      typename Integrator::Scalar h_previous) {
  if constexpr (holds_loads<Integrator>::value) {
    const typename Integrator::State before = s;
    integrator.hold_loads(model, s, t);
    if constexpr (redoes_end_impulse<Integrator>::value)
      if (h_previous > 0) integrator.redo_end_impulse(before, s, h_previous);
  }
}

/// Step k as step_body, for a model whose loads may differ from the last step's (the coupled-step
/// API: a DEM code's torques and forces of this step): take_loads, then the step. The ordinary
/// stepping loop (advance_body) keeps the held loads: its model never changes.
template <class Integrator>
QS_HD void step_body_with_loads(const Integrator& integrator, const typename Integrator::ModelType& model,
                                typename Integrator::State& s, Status& status, index_t& iterations,
                                const BodyRecord& record, index_t i, index_t k, typename Integrator::Scalar t,
                                typename Integrator::Scalar h,
                                typename Integrator::Scalar h_previous = typename Integrator::Scalar(0)) {
  if (status != Status::ok) return;
  take_loads(integrator, model, s, t, h_previous);
  step_body(integrator, model, s, status, iterations, record, i, k, t, h);
}

/// f(state, status, iterations) on body i's state, status and a zero iteration count loaded into
/// registers from the struct-of-arrays and the record, then stored back: the frame of every
/// stepping loop (advance_body here, the coupled step of coupled_step.hpp). Of the state, the
/// components [0, Stored) are stored (state_components.hpp: what the loop may have changed); the
/// status and the iteration count only where they changed.
template <class State, int Stored = stepped_components<State>, class F>
QS_HD void with_body_state(const SoaView<std::decay_t<decltype(std::declval<State&>()[0])>>& state_soa,
                           const BodyRecord& record, index_t i, F&& f) {
  State s;
  load_state(state_soa, i, s);
  const Status before = record.status[i];
  Status status = before;
  index_t iterations = 0;
  f(s, status, iterations);
  store_state<Stored>(s, state_soa, i);
  if (status != before) record.status[i] = status;
  if (iterations != 0) record.newton_iterations[i] += iterations;
}

/// Advance body i from step `first_step` by `steps` steps of size h (t_k = t0 + k·h, exact
/// products, no accumulated sums), writing every sample that falls in `out`'s window.
/// A body whose status is not ok is left untouched and its samples are NaN.
template <class Integrator>
QS_HD void advance_body(const Integrator& integrator, const typename Integrator::ModelType& model,
                        const SoaView<typename Integrator::Scalar>& state_soa,
                        const BodyRecord& record, index_t i,
                        typename Integrator::Scalar t0, typename Integrator::Scalar h, index_t first_step,
                        index_t steps, const SampleView<typename Integrator::Scalar>& out) {
  using S = typename Integrator::Scalar;
  with_body_state<typename Integrator::State>(state_soa, record, i, [&](auto& s, Status& status, index_t& iterations) {
    for (index_t k = first_step; k < first_step + steps; ++k) {
      step_body(integrator, model, s, status, iterations, record, i, k, t0 + S(k) * h, h);
      if (out.holds(k + 1)) write_sample(out, k + 1, i, integrator, model, s, status == Status::ok);
    }
  });
}

/// Consistent initial state of body i (accelerations, multipliers) from its initial kinematics
/// (RigidBodyKinematics for the rigid-body models), and sample 0.
template <class Integrator, class Kinematics>
QS_HD void initialize_body(const Integrator& integrator, const typename Integrator::ModelType& model,
                           const Kinematics& initial, const SoaView<typename Integrator::Scalar>& state_soa,
                           const BodyRecord& record, index_t i, typename Integrator::Scalar t0,
                           const SampleView<typename Integrator::Scalar>& out) {
  using State = typename Integrator::State;
  State s{};
  // A body rejected before the start (record.status already set) keeps its status, never advances
  // and holds NaN, as one whose start fails (not what the stack held: another body's state).
  const Status status = record.status[i] == Status::ok ? integrator.initialize(model, initial, t0, s)
                                                       : failed_start(s, record.status[i]);
  store_state(s, state_soa, i);
  record.status[i] = status;
  record.newton_iterations[i] = 0;
  record.failed_step[i] = status == Status::ok ? -1 : 0;
  if (out.holds(0)) write_sample(out, 0, i, integrator, model, s, status == Status::ok);
}

}  // namespace quatstep
