// A mechanism's life in one window of samples, the counterpart of a single body's advance_body
// (include/quatstep/ensemble.hpp), and the one function both backends call for fixed steps (and its
// adaptive counterpart for adaptive ones): the CPU from its OpenMP loop (host/mechanism_run.cpp) for
// the mechanisms it steps alone (its blocks in SIMD lanes, host/cpu_mechanism_lanes.hpp, step them
// the same way with the same bits), the GPU one thread per mechanism (kernels/mechanism_kernels.cuh);
// its step-range form advances a
// mechanism ensemble made from a scenario by any number of steps (host/mechanism_ensemble.hpp).
// Load state → steps → samples → store; nothing of it depends on where it runs, so strict-mode
// builds agree bit for bit.
//
// A sample of mechanism i is the mechanism's channels (channels.hpp: every body's kinematics, the
// mechanism-wide energy, momenta and residuals), the Newton iterations since the previous sample,
// then the integrator's own channels; sample j is the state at t0 + (j·stride)·h. The samples go to
// a SampleView ([sample][scalar][mechanism], coalesced across mechanisms); the record is the single
// bodies' BodyRecord (status, Newton iterations, failed step), one entry per mechanism.
#pragma once

#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/mechanism/channels.hpp"

namespace quatstep {

/// A caller's loads on every body of every mechanism (MechanismEnsemble::step, initialize): each
/// null (none of that kind) or mechanisms × bodies × 3 doubles, [mechanism][body][component], the
/// bodies in the mechanism's order. They add to the mechanism's own loads, as a load of the same kind
/// in its table would. The arrays are in host memory, or (device ≥ 0) all in that CUDA device's
/// memory, where a mechanism ensemble on the GPU reads them in place.
struct MechanismLoads {
  const double* force = nullptr;           ///< at the centre of mass, spatial axes
  const double* body_torque = nullptr;     ///< body axes
  const double* spatial_torque = nullptr;  ///< spatial axes
  int device = -1;                         ///< −1: host memory; else the CUDA device of every array
};

}  // namespace quatstep

namespace quatstep::mechanism {

/// Sample j of mechanism i at time t: its channels and `iterations`, or NaN throughout once it has
/// failed (`valid` false).
template <class Integrator, class Mech>
QS_HD void write_mechanism_sample(const SampleView<typename Mech::Scalar>& out, index_t j, index_t i,
                                  const Integrator& integrator, const Mech& m, const typename Integrator::State& s,
                                  typename Mech::Scalar t, index_t iterations, bool valid) {
  using S = typename Mech::Scalar;
  SampleWriter<S> w{out, j, i};
  if (!valid) {
    while (w.c < out.scalars) w(S(NAN));
    return;
  }
  observe_mechanism(integrator, m, s, t, w);
  w(S(iterations));
  if constexpr (has_integrator_channels<Integrator>::value) integrator.observe(m, s, w);
}

/// Mechanism i (its state states[i], its record) from step `first_step` by `steps` steps of size h
/// (step k goes from t0 + k·h to t0 + (k + 1)·h: exact products, no accumulated sums), writing each
/// sample that falls into `out`'s window (sample j follows step j·stride − 1) with the Newton
/// iterations since the previous sample time or since first_step, whichever is later. A failed
/// mechanism stops with its status and failed step and its samples are NaN; no other is touched.
template <class Integrator>
QS_HD void advance_mechanism(const Integrator& integrator, const typename Integrator::ModelType& m,
                             typename Integrator::State* states, const BodyRecord& record, index_t i,
                             typename Integrator::Scalar t0, typename Integrator::Scalar h, index_t first_step,
                             index_t steps, const SampleView<typename Integrator::Scalar>& out) {
  using S = typename Integrator::Scalar;
  typename Integrator::State s = states[i];
  Status status = record.status[i];
  index_t iterations = 0, at_sample = 0;
  for (index_t k = first_step; k < first_step + steps; ++k) {
    step_body(integrator, m, s, status, iterations, record, i, k, t0 + S(k) * h, h);
    if ((k + 1) % out.stride != 0) continue;
    if (out.holds(k + 1))
      write_mechanism_sample(out, (k + 1) / out.stride, i, integrator, m, s, t0 + S(k + 1) * h,
                             iterations - at_sample, status == Status::ok);
    at_sample = iterations;
  }
  states[i] = s;
  record.status[i] = status;
  record.newton_iterations[i] += iterations;
}

/// Mechanism i's bodies' constant force and torques set to its rows of `loads` (zero where a kind is
/// null): the loads a coupled code holds over a step (MechanismEnsemble::step). The mechanism keeps
/// those constants zero otherwise — its own loads are its load table, which Mechanism::bodies_at adds
/// to them — so hold_loads(m, {}, i) restores it.
template <class Mech>
QS_HD void hold_loads(Mech& m, const MechanismLoads& loads, index_t i) {
  using S = typename Mech::Scalar;
  for (int b = 0; b < m.n_bodies; ++b) {
    const auto value = [&](const double* a) {
      const std::size_t k = 3 * (std::size_t(i) * std::size_t(m.n_bodies) + std::size_t(b));
      return a ? Vec3<S>(S(a[k]), S(a[k + 1]), S(a[k + 2])) : Vec3<S>(Vec3<S>::Zero());
    };
    m.bodies[b].force_profile.constant = value(loads.force);
    m.bodies[b].loads.body_torque.constant = value(loads.body_torque);
    m.bodies[b].loads.spatial_torque.constant = value(loads.spatial_torque);
  }
}

/// advance_mechanism's step range with `loads` held over every step besides the mechanism's own
/// (zero-order hold; none: the plain step range, `m` untouched): a MechanismEnsemble's steps on the
/// GPU (advance_mechanism_steps), one step with the caller's loads (step()) or steps without them
/// (advance()). The CPU's ensemble holds the loads the same way on every mechanism, then steps them by
/// blocks in SIMD lanes or alone, with the same bits. `m` is left as it was.
template <class Integrator>
QS_HD void advance_mechanism_with_loads(const Integrator& integrator, typename Integrator::ModelType& m,
                                        typename Integrator::State* states, const BodyRecord& record, index_t i,
                                        typename Integrator::Scalar t0, typename Integrator::Scalar h,
                                        index_t first_step, index_t steps,
                                        const SampleView<typename Integrator::Scalar>& out, const MechanismLoads& loads) {
  const bool held = loads.force || loads.body_torque || loads.spatial_torque;
  if (held) hold_loads(m, loads, i);
  advance_mechanism(integrator, m, states, record, i, t0, h, first_step, steps, out);
  if (held) hold_loads(m, MechanismLoads{}, i);
}

/// Mechanism i through the samples of `out`'s window, the steps between them included: sample 0 is
/// the state as it is (no steps), sample j ≥ 1 follows step j·stride − 1.
template <class Integrator>
QS_HD void advance_mechanism(const Integrator& integrator, const typename Integrator::ModelType& m,
                             typename Integrator::State* states, const BodyRecord& record, index_t i,
                             typename Integrator::Scalar t0, typename Integrator::Scalar h,
                             const SampleView<typename Integrator::Scalar>& out) {
  using S = typename Integrator::Scalar;
  if (out.samples == 0) return;
  if (out.first_sample == 0)
    write_mechanism_sample(out, 0, i, integrator, m, states[i], t0 + S(0) * h, 0, record.status[i] == Status::ok);
  const index_t first_step = out.first_sample > 0 ? (out.first_sample - 1) * out.stride : 0;
  advance_mechanism(integrator, m, states, record, i, t0, h, first_step,
                    (out.first_sample + out.samples - 1) * out.stride - first_step, out);
}

/// Mechanism i with adaptive steps (`stepper` an AdaptiveHht over a mechanism HHT method,
/// mechanism/adaptive.hpp) through the samples of `out`'s window: sample j is the stepper's dense
/// output at t_j = t0 + (j·stride)·h, after the accepted steps that pass it (sample 0: the state as
/// it is), with the Newton iterations since the previous sample of the window. Its accepted and
/// rejected steps and smallest and largest step go to `steps`; a failed mechanism stops, its samples
/// are NaN and its failed step is the number of steps it had accepted (as for a single body,
/// adaptive_ensemble.hpp, whose step loop this is).
template <class Stepper>
QS_HD void advance_mechanism_adaptive(const Stepper& stepper, const typename Stepper::ModelType& m,
                                      typename Stepper::State* states, const BodyRecord& record,
                                      const AdaptiveRecord<typename Stepper::Scalar>& steps, index_t i,
                                      typename Stepper::Scalar t0, typename Stepper::Scalar h,
                                      const SampleView<typename Stepper::Scalar>& out) {
  using S = typename Stepper::Scalar;
  typename Stepper::State s = states[i];
  AdaptiveTally<S> tally(record, steps, i);
  for (index_t j = out.first_sample; j < out.first_sample + out.samples; ++j) {
    const S tj = t0 + S(j * out.stride) * h;
    const index_t before = tally.iterations;
    tally.until(stepper, m, s, tj, record, steps, i);
    write_mechanism_sample(out, j, i, stepper.integrator, m, stepper.sample(m, s, tj), tj, tally.iterations - before,
                           tally.status == Status::ok);
  }
  states[i] = s;
  tally.store(record, steps, i);
}

}  // namespace quatstep::mechanism
