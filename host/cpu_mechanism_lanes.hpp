// SIMD across mechanisms in the CPU backend: blocks of lanes::width<double>(isa) mechanisms (4 with
// AVX2, 8 with AVX-512) take one lane step (include/quatstep/simd/lane_mechanism_*.hpp), bit for bit
// the scalar step of each, as single bodies do (cpu_lanes.hpp, whose dispatch this shares).
//
// Which steps have lanes: MechanismLaneForm<Integrator>::exists, every method of the mechanism
// registry with fixed steps — the HHT family (MechanismHht, MechanismModifiedHht, with or without the
// inertia shift and the velocity projection; simd/lane_mechanism_hht.hpp) and the Livens schemes
// (MechanismLivensEm, MechanismLivensMidpoint, either joint gradient; simd/lane_mechanism_livens.hpp)
// — on mechanisms of either capacity in double. Which mechanisms: the blocks of consecutive mechanisms
// whose kinds agree (simd/lane_mechanism_model.hpp: the same bodies, joints, springs and loads, the
// same load windows, the same zero and non-zero load terms); every other mechanism takes the scalar
// step. Adaptive steps over the HHT family too (AdaptiveHht, simd/lane_adaptive.hpp), for blocks of
// mechanisms whose loads have no windows (each lane keeps its own time). A LargeCapacity block's lane
// step keeps 2.5–3 MB on its thread's stack with AVX-512 (the lane mechanism, the structured Newton
// matrix and the copy lane_newton takes of it), within the usual 8 MB. With less left (lane_stack)
// the mechanisms step alone, with the same bits: on the thread that makes the blocks none is made,
// on another thread that block's mechanisms step alone.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "cpu_lanes.hpp"
#include "quatstep/mechanism/adaptive.hpp"
#include "quatstep/mechanism/batch.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "quatstep/simd/lane_mechanism_model.hpp"

namespace quatstep::lanes {

/// A block of mechanisms for a lane unit: BlockJob's fields — its parameters the block's
/// (mechanism::for_each_parameter, [parameter][lane]), its state the block's own ([component][lane],
/// bodies = the width, first = 0), its records the block's (fixed steps: from its first mechanism on;
/// adaptive steps: gathered, step records included); no model or branches — and one mechanism of the
/// block, whose structure every mechanism of the block shares (mechanism::copy_structure).
template <class T, class Cap>
struct MechanismBlockJob {
  BlockJob<T> block;
  const mechanism::Mechanism<T, Cap>* structure;
};

/// The lane step of a mechanism method (or of AdaptiveHht over one), where it has one.
template <class Integrator>
struct MechanismLaneForm {
  static constexpr bool exists = false;
};
template <class Cap, VelocityUpdate U>
struct MechanismLaneForm<mechanism::MechanismHhtFamily<mechanism::Mechanism<double, Cap>, U>> {
  using Mech = mechanism::Mechanism<double, Cap>;
  static constexpr bool exists = built;
  static void advance(const mechanism::MechanismHhtFamily<Mech, U>& method, const MechanismBlockJob<double, Cap>& job) {
    with_steps<Mech>(job.block, [&](auto steps) { steps.mechanism_hht(U, method.settings, job); });
  }
};
template <class Cap, LivensRule Rule>
struct MechanismLaneForm<mechanism::MechanismLivens<mechanism::Mechanism<double, Cap>, Rule>> {
  using Mech = mechanism::Mechanism<double, Cap>;
  static constexpr bool exists = built;
  static void advance(const mechanism::MechanismLivens<Mech, Rule>& method, const MechanismBlockJob<double, Cap>& job) {
    with_steps<Mech>(job.block, [&](auto steps) { steps.mechanism_livens(Rule, method.settings, job); });
  }
};
template <class Cap, VelocityUpdate U>
struct MechanismLaneForm<AdaptiveHht<mechanism::MechanismHhtFamily<mechanism::Mechanism<double, Cap>, U>>> {
  using Mech = mechanism::Mechanism<double, Cap>;
  static constexpr bool exists = built;
  static void advance(const AdaptiveHht<mechanism::MechanismHhtFamily<Mech, U>>& stepper,
                      const MechanismBlockJob<double, Cap>& job) {
    with_steps<Mech>(job.block, [&](auto steps) {
      steps.mechanism_adaptive_hht(U, stepper.integrator.settings, stepper.settings, job);
    });
  }
};

/// Bytes of stack left below the caller's frame on this thread, or the largest size_t where the
/// thread's stack cannot be read (its bounds are read once per thread: for the main thread glibc
/// reads them from /proc/self/maps).
inline std::size_t stack_left() {
  thread_local const std::uintptr_t low = [] {
    pthread_attr_t attr;
    void* address = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return std::uintptr_t(0);
    const int rc = pthread_attr_getstack(&attr, &address, &size);
    pthread_attr_destroy(&attr);
    return rc == 0 ? reinterpret_cast<std::uintptr_t>(address) : std::uintptr_t(0);
  }();
  const char here = 0;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(&here);
  if (low == 0 || at < low) return std::numeric_limits<std::size_t>::max();
  return std::size_t(at - low);
}

/// What a block of `width` lanes of Mech keeps on the stack at most, estimated from above: the lane
/// mechanism and three structured Newton matrices in lanes (the step's, the copy lane_newton takes,
/// the adaptive error estimate's). For the V8 (LargeCapacity) with AVX-512 3.4 MB; measured, its
/// runs needed 2.5–3 MB (2026-12-03: they ran with a 3 MB main-thread stack, not with 2.5 MB).
template <class Mech>
std::size_t lane_stack(int width) {
  using Cap = typename Mech::CapacityType;
  const std::size_t kkt = std::max(sizeof(mechanism::StructuredKkt<double, Cap, true>),
                                   sizeof(mechanism::StructuredKkt<double, Cap, false>));
  return std::size_t(width) * (sizeof(Mech) + 3 * kkt);
}

/// Whether no load of m has a window (each acts at all times): then no step branches on time, and
/// mechanisms with their own times (adaptive steps) can share a block.
template <class Mech>
bool windowless(const Mech& m) {
  for (int l = 0; l < m.n_loads; ++l)
    if (!(m.loads[l].profile.begin == -INFINITY && m.loads[l].profile.end == INFINITY)) return false;
  return true;
}

template <class Stepper>
struct is_adaptive : std::false_type {};
template <class Integrator>
struct is_adaptive<AdaptiveHht<Integrator>> : std::true_type {};

/// The units of work of an ensemble of mechanisms stepped by Stepper — a mechanism method with fixed
/// steps, or AdaptiveHht over one — on the CPU: blocks that take the lane step, and mechanisms stepped
/// alone. With fixed steps a block is `width` consecutive mechanisms of one kind (lane_kind), its
/// parameters packed once. With adaptive steps, where each mechanism keeps its own time and a block
/// runs until its slowest lane reaches each output time, the mechanisms whose loads have no windows
/// are ordered by kind and by their mean step size so far (KindOrder, cpu_lanes.hpp) and cut into
/// blocks in that order, anew between output times once they have taken 16 steps each on average
/// since the last order (sort()). The mean, not the next step: on a sweep of slider-cranks sorted by
/// their next step the AVX-512 run took 19.3 s, by their mean 17.0 s, unsorted (neighbours of a sweep
/// are alike) 16.6 s; on random draws 6.98, 6.45 and 9.28 s. Every mechanism is alone where the method has no lane step or the CPU no lanes
/// (lanes::available()).
template <class Stepper>
class MechanismBlocks {
 public:
  using Mech = typename Stepper::ModelType;
  using Capacity = typename Mech::CapacityType;
  using State = typename Stepper::State;
  static constexpr bool has_lanes = MechanismLaneForm<Stepper>::exists;
  static constexpr bool adaptive = is_adaptive<Stepper>::value;

  explicit MechanismBlocks(const std::vector<Mech>& mechs, bool lanes = true, Isa isa = best_isa())
      : isa_(isa),
        width_(lanes::width<double>(isa)),
        order_(width_, kinds(mechs, has_lanes && lanes && available() && stack_left() >= lane_stack<Mech>(width_))) {
    if constexpr (adaptive) {
      pack_all(mechs);
      return;
    }
    const index_t n = index_t(mechs.size());
    for (index_t first = 0; first < n; first += width_) {
      bool shared = first + width_ <= n;
      for (int j = 0; shared && j < width_; ++j) shared = order_.kind[first + j] >= 0 && order_.kind[first + j] == order_.kind[first];
      if (!shared) {
        for (index_t i = first; i < std::min(n, first + width_); ++i) alone_.push_back(i);
        continue;
      }
      blocks_.push_back(first);
      parameters_.push_back(pack(mechs, consecutive(first).data()));
    }
  }

  /// Blocks and mechanisms alone.
  index_t units() const { return adaptive ? order_.blocks() : index_t(blocks_.size() + alone_.size()); }
  /// The mechanisms in lanes.
  index_t mechanisms_in_lanes() const { return adaptive ? order_.in_lanes() : index_t(blocks_.size()) * width_; }

  /// With adaptive steps, before an output time: the blocks anew (class comment) from the mechanisms'
  /// mean step sizes (their time over their accepted steps, `steps`; before the first, the next
  /// step), once they have taken 16 steps each on average since the last time.
  void sort(const std::vector<Mech>& mechs, const State* states, const AdaptiveRecord<double>& steps) {
    const index_t n = index_t(mechs.size());
    const index_t taken = std::accumulate(steps.accepted_steps, steps.accepted_steps + n, index_t(0));
    if (taken - accepted_at_sort_ < 16 * n) return;
    std::vector<double> mean_step(mechs.size());
    for (index_t i = 0; i < n; ++i)
      mean_step[std::size_t(i)] = steps.accepted_steps[i] > 0 ? states[i].t / double(steps.accepted_steps[i]) : states[i].h;
    order_.sort(mean_step.data());
    pack_all(mechs);
    accepted_at_sort_ = taken;
  }

  /// f(i) for each mechanism i of unit u.
  template <class F>
  void for_each_member(index_t u, F&& f) const {
    if constexpr (adaptive) {
      for (index_t j = 0; j < order_.size_of(u); ++j) f(order_.members_of(u)[j]);
    } else {
      if (u >= index_t(blocks_.size())) return f(alone_[std::size_t(u) - blocks_.size()]);
      for (int j = 0; j < width_; ++j) f(blocks_[std::size_t(u)] + j);
    }
  }

  /// Unit u through the samples of `out`'s window, as mechanism::advance_mechanism's window form
  /// steps each of its mechanisms.
  void advance(index_t u, const Stepper& method, const std::vector<Mech>& mechs, State* states,
               const BodyRecord& record, double t0, double h, const SampleView<double>& out) const {
    if (out.samples == 0) return;
    if (out.first_sample == 0)
      for_each_member(u, [&](index_t i) {
        mechanism::write_mechanism_sample(out, 0, i, method, mechs[i], states[i], t0 + 0.0 * h, 0,
                                          record.status[i] == Status::ok);
      });
    const index_t first_step = out.first_sample > 0 ? (out.first_sample - 1) * out.stride : 0;
    advance(u, method, mechs, states, record, t0, h, first_step,
            (out.first_sample + out.samples - 1) * out.stride - first_step, out);
  }

  /// Unit u by the steps first_step … first_step + steps − 1, as mechanism::advance_mechanism's
  /// step-range form steps each of its mechanisms: the samples of `out`'s window that follow them,
  /// each with the Newton iterations since the previous sample time or first_step.
  void advance(index_t u, const Stepper& method, const std::vector<Mech>& mechs, State* states,
               const BodyRecord& record, double t0, double h, index_t first_step, index_t steps,
               const SampleView<double>& out) const {
    if (u >= index_t(blocks_.size()) || stack_left() < lane_stack<Mech>(width_)) {
      for_each_member(u, [&](index_t i) {
        mechanism::advance_mechanism(method, mechs[i], states, record, i, t0, h, first_step, steps, out);
      });
      return;
    }
    if constexpr (has_lanes && !adaptive) advance_block(u, method, mechs, states, record, t0, h, first_step, steps, out);
  }

  /// Unit u through the samples of `out`'s window with adaptive steps, as
  /// mechanism::advance_mechanism_adaptive steps each of its mechanisms (its step records in `steps`):
  /// the lanes of a block run to each output time, then each mechanism's dense output there is written.
  void advance_adaptive(index_t u, const Stepper& stepper, const std::vector<Mech>& mechs, State* states,
                        const BodyRecord& record, const AdaptiveRecord<double>& steps, double t0, double h,
                        const SampleView<double>& out) const {
    if (!order_.lanes(u) || stack_left() < lane_stack<Mech>(width_)) {
      for_each_member(u, [&](index_t i) {
        mechanism::advance_mechanism_adaptive(stepper, mechs[i], states, record, steps, i, t0, h, out);
      });
      return;
    }
    if constexpr (has_lanes && adaptive) {
      const index_t* ids = order_.members_of(u);
      const int w = width_;
      const std::size_t lanes = static_cast<std::size_t>(w);
      std::vector<double> block = gather(states, ids);
      // The block's records, gathered (iterations: this call's) and scattered back at the end.
      std::vector<Status> status(lanes);
      std::vector<index_t> iterations(lanes, 0), failed(lanes), accepted(lanes), rejected(lanes), before(lanes);
      std::vector<double> smallest(lanes), largest(lanes);
      for (int j = 0; j < w; ++j) {
        const index_t i = ids[j];
        status[j] = record.status[i], failed[j] = record.failed_step[i];
        accepted[j] = steps.accepted_steps[i], rejected[j] = steps.rejected_steps[i];
        smallest[j] = steps.smallest_step[i], largest[j] = steps.largest_step[i];
      }
      MechanismBlockJob<double, Capacity> job{{isa_, Model::free_rigid_body, parameters_[std::size_t(u)].data(), {}, block.data(), w,
                                     0, BodyRecord{status.data(), iterations.data(), failed.data()}, t0, h, 0, 0,
                                     AdaptiveRecord<double>{accepted.data(), rejected.data(), smallest.data(), largest.data()}},
                                    &mechs[ids[0]]};
      for (index_t j = out.first_sample; j < out.first_sample + out.samples; ++j) {
        before = iterations;
        job.block.steps = j * out.stride;  // through t_j = t0 + (j·stride)·h
        MechanismLaneForm<Stepper>::advance(stepper, job);
        scatter(block, states, ids);
        const double tj = t0 + double(j * out.stride) * h;
        for (int l = 0; l < w; ++l)
          mechanism::write_mechanism_sample(out, j, ids[l], stepper.integrator, mechs[ids[l]],
                                            stepper.sample(mechs[ids[l]], states[ids[l]], tj), tj,
                                            iterations[std::size_t(l)] - before[std::size_t(l)],
                                            status[std::size_t(l)] == Status::ok);
      }
      for (int j = 0; j < w; ++j) {
        const index_t i = ids[j];
        record.status[i] = status[j], record.newton_iterations[i] += iterations[j], record.failed_step[i] = failed[j];
        steps.accepted_steps[i] = accepted[j], steps.rejected_steps[i] = rejected[j];
        steps.smallest_step[i] = smallest[j], steps.largest_step[i] = largest[j];
      }
    }
  }

 private:
  void advance_block(index_t u, const Stepper& method, const std::vector<Mech>& mechs, State* states,
                     const BodyRecord& record, double t0, double h, index_t first_step, index_t steps,
                     const SampleView<double>& out) const {
    const index_t i0 = blocks_[std::size_t(u)];
    const int w = width_;
    const std::vector<index_t> ids = consecutive(i0);
    std::vector<double> block = gather(states, ids.data());
    const BodyRecord members{record.status + i0, record.newton_iterations + i0, record.failed_step + i0};
    MechanismBlockJob<double, Capacity> job{
        {isa_, Model::free_rigid_body, parameters_[std::size_t(u)].data(), {}, block.data(), w, 0, members, t0, h, 0, 0, {}},
        &mechs[i0]};
    std::vector<index_t> at_sample(members.newton_iterations, members.newton_iterations + w);
    // The lanes run to the next sample time (all the steps at once without samples), then the
    // samples of the window are written as advance_mechanism writes them.
    for (index_t k = first_step; k < first_step + steps;) {
      const index_t next = out.samples > 0 ? std::min(first_step + steps, (k / out.stride + 1) * out.stride)
                                           : first_step + steps;
      job.block.first_step = k, job.block.steps = next - k;
      MechanismLaneForm<Stepper>::advance(method, job);
      k = next;
      if (k % out.stride != 0) continue;
      if (out.holds(k)) {
        scatter(block, states, ids.data());
        for (int j = 0; j < w; ++j)
          mechanism::write_mechanism_sample(out, k / out.stride, i0 + j, method, mechs[i0 + j], states[i0 + j],
                                            t0 + double(k) * h, members.newton_iterations[j] - at_sample[j],
                                            members.status[j] == Status::ok);
      }
      std::copy(members.newton_iterations, members.newton_iterations + w, at_sample.begin());
    }
    scatter(block, states, ids.data());
  }

  /// Each mechanism's kind (an index into the kinds met), −1 where it steps alone: always without
  /// `lanes`; with adaptive steps, where a load has a window.
  static std::vector<int> kinds(const std::vector<Mech>& mechs, bool lanes) {
    std::vector<int> kind(mechs.size(), -1);
    if constexpr (has_lanes) {
      std::vector<std::vector<double>> met;
      for (std::size_t i = 0; lanes && i < mechs.size(); ++i) {
        if (adaptive && !windowless(mechs[i])) continue;
        const std::vector<double> k = lane_kind(mechs[i]);
        const auto found = std::find(met.begin(), met.end(), k);
        kind[i] = int(found - met.begin());
        if (found == met.end()) met.push_back(k);
      }
    }
    return kind;
  }
  /// Mechanisms first … first + width − 1.
  std::vector<index_t> consecutive(index_t first) const {
    std::vector<index_t> ids(static_cast<std::size_t>(width_));
    for (int j = 0; j < width_; ++j) ids[std::size_t(j)] = first + j;
    return ids;
  }
  /// The parameters of mechanisms ids[0 … width − 1], [parameter][lane].
  std::vector<double> pack(const std::vector<Mech>& mechs, const index_t* ids) const {
    std::vector<double> p;
    for (int j = 0; j < width_; ++j) {
      Mech m = mechs[ids[j]];  // for_each_parameter hands out its numbers to write
      std::size_t c = std::size_t(j);
      for_each_parameter(m, [&](double x) {
        if (c >= p.size()) p.resize(c + std::size_t(width_));
        p[c] = x, c += std::size_t(width_);
      });
    }
    return p;
  }
  /// The parameters of every block in lanes of the current order (adaptive steps).
  void pack_all(const std::vector<Mech>& mechs) {
    parameters_.assign(std::size_t(order_.blocks()), {});
    for (index_t b = 0; b < order_.blocks(); ++b)
      if (order_.lanes(b)) parameters_[std::size_t(b)] = pack(mechs, order_.members_of(b));
  }
  /// The states of mechanisms ids[0 … width − 1], [component][lane], and back.
  std::vector<double> gather(const State* states, const index_t* ids) const {
    std::vector<double> block(static_cast<std::size_t>(State::size * width_));
    for (int j = 0; j < width_; ++j)
      for (int c = 0; c < State::size; ++c) block[std::size_t(c * width_ + j)] = states[ids[j]][c];
    return block;
  }
  void scatter(const std::vector<double>& block, State* states, const index_t* ids) const {
    for (int j = 0; j < width_; ++j)
      for (int c = 0; c < State::size; ++c) states[ids[j]][c] = block[std::size_t(c * width_ + j)];
  }

  Isa isa_;
  int width_;
  KindOrder order_;                              ///< each mechanism's kind; with adaptive steps the blocks
  std::vector<index_t> blocks_;                  ///< fixed steps: each block's first mechanism
  std::vector<std::vector<double>> parameters_;  ///< each block's parameters, [parameter][lane]
  std::vector<index_t> alone_;                   ///< fixed steps: the mechanisms stepped alone
  index_t accepted_at_sort_ = 0;                 ///< adaptive steps: the steps taken at the last sort()
};

}  // namespace quatstep::lanes
