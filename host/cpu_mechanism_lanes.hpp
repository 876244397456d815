// SIMD across mechanisms in the CPU backend: blocks of lanes::width<double>(isa) mechanisms (4 with
// AVX2, 8 with AVX-512) take one lane step (include/quatstep/simd/lane_mechanism_*.hpp), bit for bit
// the scalar step of each, as single bodies do (cpu_lanes.hpp, whose dispatch this shares).
//
// Which steps have lanes: MechanismLaneForm<Integrator>::exists, every method of the mechanism
// registry with fixed steps — the HHT family (MechanismHht, MechanismModifiedHht, with or without the
// inertia shift and the velocity projection; simd/lane_mechanism_hht.hpp) and the Livens schemes
// (MechanismLivensEm, MechanismLivensMidpoint, either joint gradient; simd/lane_mechanism_livens.hpp)
// — on mechanisms of SmallCapacity in double. Which mechanisms: the blocks of consecutive mechanisms
// whose kinds agree (simd/lane_mechanism_model.hpp: the same bodies, joints, springs and loads, the
// same load windows, the same zero and non-zero load terms); every other mechanism takes the scalar
// step. Adaptive steps over the HHT family too (AdaptiveHht, simd/lane_adaptive.hpp), for blocks of
// mechanisms whose loads have no windows (each lane keeps its own time). LargeCapacity mechanisms are
// scalar.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu_lanes.hpp"
#include "quatstep/mechanism/adaptive.hpp"
#include "quatstep/mechanism/batch.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "quatstep/simd/lane_mechanism_model.hpp"

namespace quatstep::lanes {

/// The mechanisms with lanes.
using LaneMechanism = mechanism::Mechanism<double, mechanism::SmallCapacity>;

/// A block of mechanisms for a lane unit: BlockJob's fields — its parameters the block's
/// (mechanism::for_each_parameter, [parameter][lane]), its state the block's own ([component][lane],
/// bodies = the width, first = 0), its record from the block's first mechanism on; no model, branches
/// or step records — and the block's first mechanism, whose structure every mechanism of the block
/// shares (mechanism::copy_structure).
template <class T>
struct MechanismBlockJob {
  BlockJob<T> block;
  const mechanism::Mechanism<T, mechanism::SmallCapacity>* structure;
};

/// The lane step of a mechanism method (or of AdaptiveHht over one), where it has one.
template <class Integrator>
struct MechanismLaneForm {
  static constexpr bool exists = false;
};
template <VelocityUpdate U>
struct MechanismLaneForm<mechanism::MechanismHhtFamily<LaneMechanism, U>> {
  static constexpr bool exists = built;
  static void advance(const mechanism::MechanismHhtFamily<LaneMechanism, U>& method, const MechanismBlockJob<double>& job) {
    with_steps<LaneMechanism>(job.block, [&](auto steps) { steps.mechanism_hht(U, method.settings, job); });
  }
};
template <LivensRule Rule>
struct MechanismLaneForm<mechanism::MechanismLivens<LaneMechanism, Rule>> {
  static constexpr bool exists = built;
  static void advance(const mechanism::MechanismLivens<LaneMechanism, Rule>& method, const MechanismBlockJob<double>& job) {
    with_steps<LaneMechanism>(job.block, [&](auto steps) { steps.mechanism_livens(Rule, method.settings, job); });
  }
};
template <VelocityUpdate U>
struct MechanismLaneForm<AdaptiveHht<mechanism::MechanismHhtFamily<LaneMechanism, U>>> {
  static constexpr bool exists = built;
  static void advance(const AdaptiveHht<mechanism::MechanismHhtFamily<LaneMechanism, U>>& stepper,
                      const MechanismBlockJob<double>& job) {
    with_steps<LaneMechanism>(job.block, [&](auto steps) {
      steps.mechanism_adaptive_hht(U, stepper.integrator.settings, stepper.settings, job);
    });
  }
};

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
/// steps, or AdaptiveHht over one — the blocks that take the lane step (their parameters packed once),
/// then each other mechanism alone. Every mechanism is alone where the method has no lane step or the
/// CPU no lanes (lanes::available()); with adaptive steps, where each mechanism keeps its own time,
/// those whose loads have windows too.
template <class Stepper>
class MechanismBlocks {
 public:
  using Mech = typename Stepper::ModelType;
  using State = typename Stepper::State;
  static constexpr bool has_lanes = MechanismLaneForm<Stepper>::exists;
  static constexpr bool adaptive = is_adaptive<Stepper>::value;

  explicit MechanismBlocks(const std::vector<Mech>& mechs, bool lanes = true, Isa isa = best_isa())
      : isa_(isa), width_(lanes::width<double>(isa)) {
    const index_t n = index_t(mechs.size());
    for (index_t first = 0; first < n; first += width_) {
      bool shared = has_lanes && lanes && available() && first + width_ <= n;
      if constexpr (has_lanes) {
        if (shared) {
          const std::vector<double> kind = lane_kind(mechs[first]);
          for (int j = 1; shared && j < width_; ++j) shared = lane_kind(mechs[first + j]) == kind;
          if (adaptive) shared = shared && windowless(mechs[first]);
        }
      }
      if (!shared) {
        for (index_t i = first; i < std::min(n, first + width_); ++i) alone_.push_back(i);
        continue;
      }
      blocks_.push_back(first);
      std::vector<double>& p = parameters_.emplace_back();
      for (int j = 0; j < width_; ++j) {
        Mech m = mechs[first + j];  // for_each_parameter hands out its numbers to write
        std::size_t c = std::size_t(j);
        for_each_parameter(m, [&](double x) {
          if (c >= p.size()) p.resize(c + std::size_t(width_));
          p[c] = x, c += std::size_t(width_);
        });
      }
    }
  }

  /// Blocks and mechanisms alone.
  index_t units() const { return index_t(blocks_.size() + alone_.size()); }
  /// The mechanisms in lanes.
  index_t mechanisms_in_lanes() const { return index_t(blocks_.size()) * width_; }

  /// f(i) for each mechanism i of unit u.
  template <class F>
  void for_each_member(index_t u, F&& f) const {
    if (u >= index_t(blocks_.size())) return f(alone_[std::size_t(u) - blocks_.size()]);
    for (int j = 0; j < width_; ++j) f(blocks_[std::size_t(u)] + j);
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
    if (u >= index_t(blocks_.size())) {
      const index_t i = alone_[std::size_t(u) - blocks_.size()];
      return mechanism::advance_mechanism(method, mechs[i], states, record, i, t0, h, first_step, steps, out);
    }
    if constexpr (has_lanes && !adaptive) advance_block(u, method, mechs, states, record, t0, h, first_step, steps, out);
  }

  /// Unit u through the samples of `out`'s window with adaptive steps, as
  /// mechanism::advance_mechanism_adaptive steps each of its mechanisms (its step records in `steps`):
  /// the lanes of a block run to each output time, then each mechanism's dense output there is written.
  void advance_adaptive(index_t u, const Stepper& stepper, const std::vector<Mech>& mechs, State* states,
                        const BodyRecord& record, const AdaptiveRecord<double>& steps, double t0, double h,
                        const SampleView<double>& out) const {
    if (u >= index_t(blocks_.size())) {
      const index_t i = alone_[std::size_t(u) - blocks_.size()];
      return mechanism::advance_mechanism_adaptive(stepper, mechs[i], states, record, steps, i, t0, h, out);
    }
    if constexpr (has_lanes && adaptive) {
      const index_t i0 = blocks_[std::size_t(u)];
      const int w = width_;
      std::vector<double> block = gather(states + i0);
      const BodyRecord members = record_of(record, i0);
      MechanismBlockJob<double> job{{isa_, Model::free_rigid_body, parameters_[std::size_t(u)].data(), {}, block.data(), w,
                                     0, members, t0, h, 0, 0,
                                     AdaptiveRecord<double>{steps.accepted_steps + i0, steps.rejected_steps + i0,
                                                            steps.smallest_step + i0, steps.largest_step + i0}},
                                    &mechs[i0]};
      std::vector<index_t> before(static_cast<std::size_t>(w));
      for (index_t j = out.first_sample; j < out.first_sample + out.samples; ++j) {
        std::copy(members.newton_iterations, members.newton_iterations + w, before.begin());
        job.block.steps = j * out.stride;  // through t_j = t0 + (j·stride)·h
        MechanismLaneForm<Stepper>::advance(stepper, job);
        scatter(block, states + i0);
        const double tj = t0 + double(j * out.stride) * h;
        for (int l = 0; l < w; ++l)
          mechanism::write_mechanism_sample(out, j, i0 + l, stepper.integrator, mechs[i0 + l],
                                            stepper.sample(mechs[i0 + l], states[i0 + l], tj), tj,
                                            members.newton_iterations[l] - before[std::size_t(l)],
                                            members.status[l] == Status::ok);
      }
    }
  }

 private:
  void advance_block(index_t u, const Stepper& method, const std::vector<Mech>& mechs, State* states,
                     const BodyRecord& record, double t0, double h, index_t first_step, index_t steps,
                     const SampleView<double>& out) const {
    const index_t i0 = blocks_[std::size_t(u)];
    const int w = width_;
    std::vector<double> block = gather(states + i0);
    const BodyRecord members = record_of(record, i0);
    MechanismBlockJob<double> job{
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
        scatter(block, states + i0);
        for (int j = 0; j < w; ++j)
          mechanism::write_mechanism_sample(out, k / out.stride, i0 + j, method, mechs[i0 + j], states[i0 + j],
                                            t0 + double(k) * h, members.newton_iterations[j] - at_sample[j],
                                            members.status[j] == Status::ok);
      }
      std::copy(members.newton_iterations, members.newton_iterations + w, at_sample.begin());
    }
    scatter(block, states + i0);
  }

  /// The states of a block's mechanisms, [component][lane], and back.
  std::vector<double> gather(const State* states) const {
    std::vector<double> block(std::size_t(State::size * width_));
    for (int j = 0; j < width_; ++j)
      for (int c = 0; c < State::size; ++c) block[std::size_t(c * width_ + j)] = states[j][c];
    return block;
  }
  void scatter(const std::vector<double>& block, State* states) const {
    for (int j = 0; j < width_; ++j)
      for (int c = 0; c < State::size; ++c) states[j][c] = block[std::size_t(c * width_ + j)];
  }
  /// The records from mechanism i0 on.
  static BodyRecord record_of(const BodyRecord& record, index_t i0) {
    return {record.status + i0, record.newton_iterations + i0, record.failed_step + i0};
  }

  Isa isa_;
  int width_;
  std::vector<index_t> blocks_;                 ///< each block's first mechanism
  std::vector<std::vector<double>> parameters_;  ///< each block's parameters, [parameter][lane]
  std::vector<index_t> alone_;                  ///< the mechanisms stepped alone
};

}  // namespace quatstep::lanes
