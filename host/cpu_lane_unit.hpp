// What every lane unit (cpu_lane_steps.cpp.in, cpu_mechanism_lanes.cpp.in) does with a block of
// lanes::width<T>(I) bodies or mechanisms: read its parameters into a lane model, and step it as
// advance_body (or advance_mechanism) steps each of its members. Included by the lane units only;
// everything here is internal to each unit (an unnamed namespace), so no unit of another instruction
// set, or a baseline one, can take its code.
#pragma once

#include <cstdint>

#include "cpu_lanes.hpp"
#include "quatstep/simd/lane_adaptive.hpp"
#include "quatstep/simd/lane_newton.hpp"

namespace quatstep::lanes {
namespace {

namespace stdx = std::experimental;

/// The lanes of precision T in instruction set I, and the block steps on them.
template <class T, Isa I>
struct LaneUnit {
  static constexpr int W = width<T>(I);
  using L = simd::Lanes<T, W>;
  using Ints = typename L::V;

  /// The numbers of lane model m (for_each_parameter: a mechanism's counts set first) from
  /// `parameters`, [parameter][lane].
  template <class M>
  static void load_parameters(M& m, const T* parameters) {
    for_each_parameter(m, [&](L& x) { x = L(Ints(parameters, stdx::element_aligned)), parameters += W; });
  }
  template <class M>
  static M lane_model(const T* parameters) {
    M m;
    load_parameters(m, parameters);
    return m;
  }

  /// advance_body for the block's members: step(state, t, h, active) → LaneOutcome steps the lanes.
  template <class State, class Step>
  static void advance_block(const BlockJob<T>& job, Step&& step) {
    const index_t n = job.bodies, i0 = job.first;
    State s;
    for (int c = 0; c < State::size; ++c) s[c] = L(Ints(job.state + c * n + i0, stdx::element_aligned));
    // The counts in integers (a call's iterations pass a float's 2^24), per lane: a fixed_size integer
    // simd would be the same type, and the same weak symbols, in the AVX2 and the AVX-512 units.
    Ints status;
    index_t iterations[W] = {}, failed_step[W];
    for (int j = 0; j < W; ++j) {
      status[j] = T(job.record.status[i0 + j]);
      failed_step[j] = job.record.failed_step[i0 + j];
    }
    for (index_t k = job.first_step; k < job.first_step + job.steps; ++k) {
      const typename L::Mask active = simd::lanes_where(status, 0);
      if (stdx::none_of(active)) break;
      const simd::LaneOutcome<L> o = step(s, L(job.t0 + T(k) * job.h), L(job.h), active);  // t_k as advance_body's
      for (int j = 0; j < W; ++j) iterations[j] += active[j] ? index_t(o.iterations[j]) : 0;
      const typename L::Mask failed = active && !simd::lanes_where(o.status, 0);
      status = simd::select(failed, o.status, status);
      if (stdx::any_of(failed))
        for (int j = 0; j < W; ++j) failed_step[j] = failed[j] ? k : failed_step[j];
    }
    for (int c = 0; c < State::size; ++c) s[c].v.copy_to(job.state + c * n + i0, stdx::element_aligned);
    for (int j = 0; j < W; ++j) {
      job.record.status[i0 + j] = static_cast<Status>(std::int32_t(status[j]));
      job.record.newton_iterations[i0 + j] += index_t(iterations[j]);
      job.record.failed_step[i0 + j] = failed_step[j];
    }
  }

  /// advance_body_adaptive for the block's members with the lane stepper (an AdaptiveHht): the steps
  /// through the job's last output time (those before it make the same steps, the samples aside).
  template <class Stepper>
  static void advance_adaptive_block(const Stepper& stepper, const typename Stepper::ModelType& model,
                                     const BlockJob<T>& job) {
    const index_t n = job.bodies, i0 = job.first;
    typename Stepper::State s;
    for (int c = 0; c < Stepper::State::size; ++c) s[c] = L(Ints(job.state + c * n + i0, stdx::element_aligned));
    simd::LaneAdaptiveTally<L> tally(job.record, job.adaptive, i0);
    simd::lane_adaptive_until(stepper, model, s, L(job.t0 + T(job.first_step + job.steps) * job.h), tally);
    for (int c = 0; c < Stepper::State::size; ++c) s[c].v.copy_to(job.state + c * n + i0, stdx::element_aligned);
    tally.store(job.record, job.adaptive, i0);
  }
};

}  // namespace
}  // namespace quatstep::lanes
