// A body's life in one pass, written once for every backend:
//   load state from struct-of-arrays → loop steps in registers → write sampled outputs → store state.
// The CPU backend calls advance_body from an OpenMP loop, a CUDA kernel from one thread per body;
// nothing numerical differs between them.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "quatstep/models/rigid_body_kinematics.hpp"
#include "quatstep/state_components.hpp"
#include "quatstep/status.hpp"

namespace quatstep {

using index_t = std::int64_t;

/// Sampled output channels, stored [sample][channel][body] (coalesced across bodies).
namespace channel {
inline constexpr int quaternion = 0;        // 4: e0..e3
inline constexpr int omega_body = 4;        // 3
inline constexpr int energy = 7;            // 1
inline constexpr int angular_momentum = 8;  // 3, spatial
inline constexpr int constraint_violation = 11;
inline constexpr int local_error = 12;          // 1, methods with an embedded estimate (Zupan3), else NaN
inline constexpr int generalized_energy = 13;   // 1, Kinon eq. (74) for the Livens/Hamiltonian schemes, else NaN
inline constexpr int count = 14;
}  // namespace channel

/// Which optional outputs an integrator provides: `local_error(state)` and
/// `generalized_energy(model, state)`.
template <class I, class = void>
struct has_local_error : std::false_type {};
template <class I>
struct has_local_error<I, std::void_t<decltype(std::declval<const I&>().local_error(
                              std::declval<const typename I::State&>()))>> : std::true_type {};
template <class I, class = void>
struct has_generalized_energy : std::false_type {};
template <class I>
struct has_generalized_energy<I, std::void_t<decltype(std::declval<const I&>().generalized_energy(
                                     std::declval<const typename I::ModelType&>(),
                                     std::declval<const typename I::State&>()))>> : std::true_type {};

/// Struct-of-arrays view: component c of body i at data[c·bodies + i].
template <class S>
struct SoaView {
  S* data;
  index_t bodies;
  QS_HD S& operator()(int c, index_t i) const { return data[c * bodies + i]; }
};

/// Output of the samples [first_sample, first_sample + samples) of a run; sample j is the state
/// after j·stride steps.
template <class S>
struct SampleView {
  S* data;
  index_t bodies;
  index_t first_sample;
  index_t samples;
  index_t stride;
  QS_HD S& operator()(index_t sample, int c, index_t i) const {
    return data[((sample - first_sample) * channel::count + c) * bodies + i];
  }
  QS_HD bool holds(index_t step) const {
    if (step % stride != 0) return false;
    const index_t j = step / stride;
    return j >= first_sample && j < first_sample + samples;
  }
};

struct BodyRecord {
  Status* status;              ///< per body
  index_t* newton_iterations;  ///< per body, total
  index_t* failed_step;        ///< per body, the step that failed (−1 while none)
};

template <class Integrator>
QS_HD void write_sample(const SampleView<typename Integrator::Scalar>& out, index_t step, index_t i,
                        const Integrator& integrator, const typename Integrator::ModelType& model,
                        const typename Integrator::State& s, bool valid) {
  using S = typename Integrator::Scalar;
  const index_t j = step / out.stride;
  const S nan = S(NAN);
  if (!valid) {
    for (int c = 0; c < channel::count; ++c) out(j, c, i) = nan;
    return;
  }
  const RigidBodyKinematics<S> k = integrator.kinematics(model, s);
  const RigidBodyObservables<S> o = model.observe(k);
  for (int c = 0; c < 4; ++c) out(j, channel::quaternion + c, i) = k.quaternion[c];
  for (int c = 0; c < 3; ++c) out(j, channel::omega_body + c, i) = k.omega_body[c];
  out(j, channel::energy, i) = o.energy;
  for (int c = 0; c < 3; ++c) out(j, channel::angular_momentum + c, i) = o.angular_momentum[c];
  out(j, channel::constraint_violation, i) = o.constraint_violation;
  if constexpr (has_local_error<Integrator>::value)
    out(j, channel::local_error, i) = integrator.local_error(s);
  else
    out(j, channel::local_error, i) = nan;
  if constexpr (has_generalized_energy<Integrator>::value)
    out(j, channel::generalized_energy, i) = integrator.generalized_energy(model, s);
  else
    out(j, channel::generalized_energy, i) = nan;
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
  using State = typename Integrator::State;
  State s;
  load_state(state_soa, i, s);
  Status status = record.status[i];
  index_t iterations = 0;
  for (index_t k = first_step; k < first_step + steps; ++k) {
    step_body(integrator, model, s, status, iterations, record, i, k, t0 + S(k) * h, h);
    if (out.holds(k + 1)) write_sample(out, k + 1, i, integrator, model, s, status == Status::ok);
  }
  store_state(s, state_soa, i);
  record.status[i] = status;
  record.newton_iterations[i] += iterations;
}

/// Consistent initial state of body i (accelerations, multipliers) and sample 0.
template <class Integrator>
QS_HD void initialize_body(const Integrator& integrator, const typename Integrator::ModelType& model,
                           const RigidBodyKinematics<typename Integrator::Scalar>& initial,
                           const SoaView<typename Integrator::Scalar>& state_soa,
                           const BodyRecord& record, index_t i,
                           typename Integrator::Scalar t0, const SampleView<typename Integrator::Scalar>& out) {
  using State = typename Integrator::State;
  State s{};
  // A body rejected before the start (record.status already set) keeps its status and never advances.
  const Status status = record.status[i] != Status::ok ? record.status[i] : integrator.initialize(model, initial, t0, s);
  store_state(s, state_soa, i);
  record.status[i] = status;
  record.newton_iterations[i] = 0;
  record.failed_step[i] = status == Status::ok ? -1 : 0;
  if (out.holds(0)) write_sample(out, 0, i, integrator, model, s, status == Status::ok);
}

}  // namespace quatstep
