// CPU backend: the same advance_body as the GPU kernel, walked by an OpenMP loop over bodies.
// Bodies are independent and each is advanced by one thread, so results are bitwise identical
// whatever the thread count. Over an adaptive stepper (AdaptiveHht<Integrator>) it walks
// advance_body_adaptive instead (include/quatstep/adaptive/adaptive_ensemble.hpp): h is then the
// spacing of the output times, each body keeps its own t and h, and its step records are kept.
// Where the integrator has a lane step and the CPU has AVX2 (cpu_lanes.hpp), blocks of
// lanes::width<S>(isa) bodies (AVX2: 4 in double, 8 in float; AVX-512 twice that) take it instead of
// advance_body, with the same bits: blocks of consecutive bodies, or with adaptive steps blocks of
// bodies of like step size, sorted anew between output times (lanes::SortedBlocks).
#pragma once

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "body_validation.hpp"
#include "cpu_lanes.hpp"
#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/settings_keys.hpp"
#include "step_records.hpp"

namespace quatstep {

template <class Integrator>
class CpuEnsemble {
 public:
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  using State = typename Integrator::State;
  using Kinematics = KinematicsOf<Integrator>;
  /// Scalars per body and sample of the SampleViews this ensemble writes.
  static constexpr int sample_scalars = quatstep::sample_scalars<Integrator>();
  /// Per-body adaptive steps (AdaptiveHht): h is the output spacing.
  static constexpr bool adaptive = is_adaptive_stepper<Integrator>::value;
  /// Blocks of bodies in SIMD lanes where the CPU has them (cpu_lanes.hpp).
  static constexpr bool has_lanes = lanes::LaneForm<Integrator>::exists;
  /// How they are formed: consecutive bodies, or (adaptive steps) bodies sorted by their next step.
  using LaneBlocks = std::conditional_t<adaptive, lanes::SortedBlocks<Model>, lanes::Blocks<Model>>;

  /// One model (per-body parameters) and one initial state per body. The settings are checked
  /// against their declared ranges (std::invalid_argument naming the key), t0 and h (finite, h > 0)
  /// likewise.
  CpuEnsemble(const Integrator& integrator, std::vector<Model> models, S t0, S h)
      : integrator_((check_settings(integrator), check_time(t0, h), integrator)),
        models_(std::move(models)),
        t0_(t0),
        h_(h),
        state_(State::size * models_.size()),
        status_(models_.size(), Status::ok),
        iterations_(models_.size(), 0),
        failed_step_(models_.size(), -1) {
    if constexpr (adaptive) {
      accepted_.resize(models_.size()), rejected_.resize(models_.size());
      smallest_.resize(models_.size()), largest_.resize(models_.size());
    }
    use_lanes(true);
  }

  index_t bodies() const { return static_cast<index_t>(models_.size()); }
  index_t steps_done() const { return steps_done_; }

  /// Consistent initial accelerations/multipliers; writes sample 0 if `out` holds it.
  /// Bad per-body input (non-unit quaternion, NaN, singular inertia, …) throws std::invalid_argument
  /// naming the bodies and fields, before any body is touched; with skip_invalid the bad bodies are
  /// instead marked Status::invalid_input (their state NaN) and the others run unchanged. Quaternions
  /// within 1e-6 of unit norm are taken as given: normalise them first.
  void initialize(const std::vector<Kinematics>& initial, const SampleView<S>& out, bool skip_invalid = false) {
    check_layout(out);
    for (index_t i : invalid_bodies(models_, initial, skip_invalid)) mark_failed(i, Status::invalid_input);
    const index_t n = bodies();
    const SoaView<S> soa{state_.data(), n};
    const BodyRecord rec = record();
    [[maybe_unused]] const AdaptiveRecord<S> taken = adaptive_record();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) {
      if constexpr (adaptive) initialize_body_adaptive(integrator_, models_[i], initial[i], soa, rec, taken, i, t0_, out);
      else initialize_body(integrator_, models_[i], initial[i], soa, rec, i, t0_, out);
    }
    steps_done_ = 0;
    initialized_ = true;
  }

  /// Advance every body by `steps` steps (adaptive: through the next `steps` output times).
  void advance(index_t steps, const SampleView<S>& out) {
    if (!initialized_) throw std::logic_error("CpuEnsemble::advance: initialize() first");
    check_layout(out);
    const index_t n = bodies();
    const SoaView<S> soa{state_.data(), n};
    const BodyRecord rec = record();
    const index_t first = steps_done_;
    if (uses_lanes()) {
      advance_lanes(first, steps, out);
    } else if constexpr (adaptive) {
      const AdaptiveRecord<S> taken = adaptive_record();
#pragma omp parallel for schedule(dynamic, 64)  // bodies take different numbers of steps
      for (index_t i = 0; i < n; ++i)
        advance_body_adaptive(integrator_, models_[i], soa, rec, taken, i, t0_, h_, first, steps, out);
    } else {
#pragma omp parallel for schedule(static)
      for (index_t i = 0; i < n; ++i) advance_body(integrator_, models_[i], soa, rec, i, t0_, h_, first, steps, out);
    }
    steps_done_ += steps;
  }

  /// Whether advance() steps blocks of bodies in SIMD lanes (the same bits either way).
  bool uses_lanes() const { return lanes_ != nullptr; }
  /// How many bodies it steps in lanes (the others take the scalar step).
  index_t bodies_in_lanes() const {
    if constexpr (has_lanes) return lanes_ ? lanes_->bodies() : 0;
    else return 0;
  }
  /// Turn the lanes off (every body its scalar step) or back on where this build and CPU have them,
  /// in the widest instruction set here (lanes::best_isa()) or in AVX2.
  void use_lanes(bool on, lanes::Isa isa = lanes::best_isa()) {
    if constexpr (has_lanes) {
      if (isa != lanes::Isa::avx2) isa = lanes::best_isa();  // AVX-512 only where the CPU has it
      lanes_ = on && lanes::available() ? std::make_shared<LaneBlocks>(models_, isa) : nullptr;
    }
  }
  /// The instruction set of the lanes (meaningful where uses_lanes()).
  lanes::Isa lanes_isa() const {
    if constexpr (has_lanes) return lanes_ ? lanes_->isa : lanes::Isa::avx2;
    else return lanes::Isa::avx2;
  }

  /// Mark a body failed before it starts (bad per-body input); it then never advances.
  void mark_failed(index_t i, Status s) {
    status_[i] = s;
    failed_step_[i] = 0;
  }

  const std::vector<Status>& status() const { return status_; }
  const std::vector<index_t>& newton_iterations() const { return iterations_; }
  const std::vector<index_t>& failed_step() const { return failed_step_; }
  State state(index_t i) const {
    State s;
    for (int c = 0; c < State::size; ++c) s[c] = state_[c * bodies() + i];
    return s;
  }
  Kinematics kinematics(index_t i) const { return integrator_.kinematics(models_[i], state(i)); }
  /// Every body's state, State::size components per body, component c of body i at [c·bodies() + i]:
  /// with the records and steps_done(), a checkpoint.
  const std::vector<S>& state_data() const { return state_; }
  /// Continue from a checkpoint (state_data(), the records, steps_done()) taken of the same bodies.
  void import_state(std::vector<S> state, std::vector<Status> status, std::vector<index_t> iterations,
                    std::vector<index_t> failed_step, index_t steps_done) {
    const std::size_t n = models_.size();
    if (state.size() != state_.size() || status.size() != n || iterations.size() != n || failed_step.size() != n)
      throw std::invalid_argument("import_state: a checkpoint of " + std::to_string(status.size()) + " bodies, " +
                                  std::to_string(state.size()) + " state values for an ensemble of " + std::to_string(n));
    state_ = std::move(state), status_ = std::move(status), iterations_ = std::move(iterations);
    failed_step_ = std::move(failed_step), steps_done_ = steps_done;
    initialized_ = true;
  }
  const Model& model(index_t i) const { return models_[i]; }
  const Integrator& integrator() const { return integrator_; }
  /// Sample k's time, t0 + k·h (adaptive steps: where advance() samples each body by dense output).
  S sample_time(index_t k) const { return t0_ + S(k) * h_; }

  /// Adaptive: every body's step records (empty for fixed steps), and back from a checkpoint.
  StepRecords step_records() const {
    return {accepted_, rejected_, std::vector<double>(smallest_.begin(), smallest_.end()),
            std::vector<double>(largest_.begin(), largest_.end())};
  }
  void import_step_records(const StepRecords& r) {
    if (r.accepted.size() != accepted_.size() || r.rejected.size() != accepted_.size() ||
        r.smallest.size() != accepted_.size() || r.largest.size() != accepted_.size())
      throw std::invalid_argument("import_step_records: records of " + std::to_string(r.accepted.size()) +
                                  " bodies for an ensemble of " + std::to_string(accepted_.size()) + " adaptive bodies");
    accepted_ = r.accepted, rejected_ = r.rejected;
    smallest_.assign(r.smallest.begin(), r.smallest.end()), largest_.assign(r.largest.begin(), r.largest.end());
  }

 private:
  static void check_settings(const Integrator& integrator) {
    if constexpr (adaptive) integrator.validate();
    else keys::check(integrator.settings);
  }
  BodyRecord record() { return BodyRecord{status_.data(), iterations_.data(), failed_step_.data()}; }

  /// advance() in blocks: a block in lanes steps to each sample it must write, and writes it from the
  /// stored state as advance_body would; the other bodies advance_body.
  void advance_lanes(index_t first, index_t steps, const SampleView<S>& out) {
    if constexpr (adaptive) {
      advance_sorted_lanes(first, steps, out);
    } else if constexpr (has_lanes) {
      const index_t n = bodies(), last = first + steps;
      const SoaView<S> soa{state_.data(), n};
      const BodyRecord rec = record();
      const index_t width = lanes_->width;
#pragma omp parallel for schedule(static)
      for (index_t b = 0; b < (n + width - 1) / width; ++b) {
        const index_t i0 = b * width;
        if (!lanes_->lanes(b)) {
          for (index_t i = i0; i < std::min(n, i0 + width); ++i)
            advance_body(integrator_, models_[i], soa, rec, i, t0_, h_, first, steps, out);
          continue;
        }
        S parameters[LaneBlocks::max_parameters_per_block];
        lanes_->pack(&models_[i0], parameters);
        lanes::BlockJob<S> job = lanes_->job(b, parameters, state_.data(), n, rec, t0_, h_, first);
        while (job.first_step < last) {
          const index_t next = next_sample(out, job.first_step, last);
          job.steps = next - job.first_step;
          lanes::LaneForm<Integrator>::advance(integrator_, job);
          if (out.holds(next))
            for (index_t i = i0; i < i0 + width; ++i)
              write_sample(out, next, i, integrator_, models_[i], state(i), status_[i] == Status::ok);
          job.first_step = next;
        }
      }
    }
  }

  /// advance() with adaptive steps in lanes, one output time after the other: the bodies in blocks by
  /// their next step size (lanes::SortedBlocks, sorted anew now and then), each block's state and
  /// records gathered into a block of its own, stepped to that time, and scattered back; a body
  /// outside the blocks in lanes advance_body_adaptive. Samples by dense output, as
  /// advance_body_adaptive writes them.
  void advance_sorted_lanes(index_t first, index_t steps, const SampleView<S>& out) {
    if constexpr (has_lanes && adaptive) {
      constexpr int size = State::size, w_max = lanes::max_width<S>;
      const index_t n = bodies(), last = first + steps;
      const SoaView<S> soa{state_.data(), n};
      const BodyRecord rec = record();
      const AdaptiveRecord<S> taken = adaptive_record();
      LaneBlocks& blocks = *lanes_;
      const int width = blocks.width;
      for (index_t done = first; done < last; ++done) {
        const index_t next = done + 1;  // the output time the blocks step to
        // Sorting 10⁶ bodies takes about as long as stepping each of them once (studies/README.md):
        // anew once they have taken 16 steps each on average since the last sort.
        const index_t steps_taken = std::accumulate(accepted_.begin(), accepted_.end(), index_t(0));
        if (steps_taken - accepted_at_sort_ >= 16 * n) {
          blocks.sort(&state_[State::next_step_component * n]);
          accepted_at_sort_ = steps_taken;
        }
#pragma omp parallel for schedule(dynamic, 4)  // blocks take different numbers of steps
        for (index_t b = 0; b < blocks.blocks(); ++b) {
          const index_t* ids = blocks.bodies_of(b);
          if (!blocks.lanes(b)) {
            for (index_t j = 0; j < blocks.size_of(b); ++j)
              advance_body_adaptive(integrator_, models_[ids[j]], soa, rec, taken, ids[j], t0_, h_, done, 1, out);
            continue;
          }
          S parameters[LaneBlocks::max_parameters_per_block], block_state[size * w_max];
          S smallest[w_max], largest[w_max];
          Status status[w_max];
          index_t iterations[w_max], failed[w_max], accepted[w_max], rejected[w_max];
          const BodyRecord lane_rec{status, iterations, failed};
          const AdaptiveRecord<S> lane_taken{accepted, rejected, smallest, largest};
          for (int j = 0; j < width; ++j) {  // gather
            const index_t i = ids[j];
            for (int c = 0; c < size; ++c) block_state[c * width + j] = state_[c * n + i];
            status[j] = status_[i], iterations[j] = 0, failed[j] = failed_step_[i];
            accepted[j] = accepted_[i], rejected[j] = rejected_[i];
            smallest[j] = smallest_[i], largest[j] = largest_[i];
          }
          blocks.pack(models_, b, parameters);
          lanes::LaneForm<Integrator>::advance(
              integrator_, blocks.job(b, parameters, block_state, lane_rec, lane_taken, t0_, h_, done, 1));
          for (int j = 0; j < width; ++j) {  // scatter
            const index_t i = ids[j];
            for (int c = 0; c < size; ++c) state_[c * n + i] = block_state[c * width + j];
            status_[i] = status[j], iterations_[i] += iterations[j], failed_step_[i] = failed[j];
            accepted_[i] = accepted[j], rejected_[i] = rejected[j];
            smallest_[i] = smallest[j], largest_[i] = largest[j];
            if (out.holds(next)) {
              const auto at_output = integrator_.sample(models_[i], state(i), t0_ + S(next) * h_);
              write_sample(out, next, i, integrator_.integrator, models_[i], at_output, status_[i] == Status::ok);
            }
          }
        }
      }
    }
  }
  /// The first step after k, up to `last`, whose sample `out` holds (else `last`).
  static index_t next_sample(const SampleView<S>& out, index_t k, index_t last) {
    if (out.samples <= 0) return last;
    const index_t sample = std::max(k / out.stride + 1, out.first_sample);
    if (sample >= out.first_sample + out.samples) return last;
    return std::min(last, sample * out.stride);
  }
  AdaptiveRecord<S> adaptive_record() { return {accepted_.data(), rejected_.data(), smallest_.data(), largest_.data()}; }
  /// A view that holds samples must be laid out for this ensemble: its scalars, its bodies (a wrong
  /// count writes into other bodies' and channels' slots) and a stride of at least one step. One
  /// that holds none (samples = 0) writes nothing and may be anything else.
  void check_layout(const SampleView<S>& out) const {
    if (out.samples <= 0) return;
    if (out.scalars != sample_scalars)
      throw std::invalid_argument("SampleView holds " + std::to_string(out.scalars) + " scalars per sample, this "
                                  "integrator writes " + std::to_string(sample_scalars));
    if (out.bodies != bodies())
      throw std::invalid_argument("SampleView holds " + std::to_string(out.bodies) + " bodies per sample, the ensemble has " +
                                  std::to_string(bodies()));
    if (out.bodies == 0) return;  // an empty shard's: nothing to write
    if (out.stride < 1 || out.data == nullptr)
      throw std::invalid_argument("SampleView: stride " + std::to_string(out.stride) + (out.data ? "" : " and no data") +
                                  " for " + std::to_string(out.samples) + " samples (stride >= 1 and a buffer needed)");
  }
  static void check_time(S t0, S h) {
    if (!(std::abs(t0) < S(INFINITY)))
      throw std::invalid_argument("t0: " + validation::format(double(t0)) + ", must be finite");
    if (!(h > S(0) && h < S(INFINITY)))
      throw std::invalid_argument("h: " + validation::format(double(h)) + ", must be finite and > 0");
  }

  Integrator integrator_;
  std::vector<Model> models_;
  S t0_, h_;
  bool initialized_ = false;
  std::vector<S> state_;  // SoA [component][body]
  std::vector<Status> status_;
  std::vector<index_t> iterations_;
  std::vector<index_t> failed_step_;
  std::vector<index_t> accepted_, rejected_;  // adaptive only: AdaptiveRecord
  std::vector<S> smallest_, largest_;
  index_t steps_done_ = 0;
  index_t accepted_at_sort_ = 0;  // adaptive lanes: the steps the bodies had accepted when last sorted
  std::shared_ptr<LaneBlocks> lanes_;  // null: every body its scalar step
};

}  // namespace quatstep
