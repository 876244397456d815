// The coupled-step API on the CPU: cuda::BatchStepper's batch (kernels/batch_stepper.cuh, which
// says what the loads stand for) in host memory, advanced one step at a time with the caller's
// torques and forces, bit for bit the GPU's in strict mode (the same per-body step_body_coupled, the
// same clock). A DEM code without a GPU links it as it would the GPU's; one with a GPU checks its
// coupling against it.
//
//   using Integrator = quatstep::NoSquish<quatstep::HeavyTop<double>>;
//   const Integrator integrator(quatstep::SplittingSettings<double>{2});  // order 2 with loads at the start
//   quatstep::CpuBatchStepper<Integrator> batch(integrator, models, initial, t0);
//   for (each DEM step) {
//     compute_contacts(…, torque, force);        // 3 × N host arrays, component-major
//     batch.step(h, torque, force);
//     batch.kinematics(quaternion, omega, nullptr, nullptr);
//   }
//
// An OpenMP loop over blocks of lanes::width bodies, each stepped by one thread: the same bits for
// any thread count. From the second step on, a block whose bodies, with this step's loads, take the
// same branches (lane_branches: the same loads acting — a body with a zero torque among bodies with
// torques steps alone) is stepped in SIMD lanes (cpu_lanes.hpp), bit for bit the scalar step of each
// body. The blocks' parameters stay packed for the lanes between steps, each step adding its loads
// in place (cpu_coupled_blocks.hpp). Where the state holds the last step's loads (holds_loads),
// they are evaluated anew first (take_loads): in the lanes too (cpu_coupled_lanes.hpp), but
// Zupan3's body by body. The first step initializes the bodies anew with its loads, body by body;
// every body steps alone where the lanes are not there (lanes::available()).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "coupled_batch.hpp"
#include "cpu_coupled_blocks.hpp"
#include "cpu_coupled_lanes.hpp"
#include "cpu_lanes.hpp"

namespace quatstep {

template <class Integrator>
class CpuBatchStepper {
 public:
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  using State = typename Integrator::State;
  using Kinematics = KinematicsOf<Integrator>;

  /// Checks the batch (checked_coupled_batch: std::invalid_argument naming the key, or the body and
  /// its field) and computes every body's consistent initial state at t0 with the models' own loads
  /// (the first step computes it anew with its loads: step_body_coupled; `initial` is kept until then).
  CpuBatchStepper(const Integrator& integrator, std::vector<Model> models, std::vector<Kinematics> initial,
                  S t0, LoadTiming timing = LoadTiming::at_start)
      : integrator_(checked_coupled_batch(integrator, models, initial)),
        models_(std::move(models)),
        inertial_(coupled_inertial(models_)),
        clock_(t0),
        timing_(checked_timing(timing)),
        state_(State::size * models_.size()),
        status_(models_.size(), Status::ok),
        iterations_(models_.size(), 0),
        failed_step_(models_.size(), -1),
        initial_(std::move(initial)) {
    const index_t n = bodies();
    const SoaView<S> soa{state_.data(), n};
    const BodyRecord rec = record();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i)
      initialize_body(integrator_, models_[i], initial_[i], soa, rec, i, t0, SampleView<S>{nullptr, n, 0, 0, 1, 0});
  }

  index_t bodies() const { return static_cast<index_t>(models_.size()); }
  index_t steps_done() const { return clock_.steps_done(); }
  /// t0 plus the steps taken (CoupledClock, the GPU's bits).
  S time() const { return clock_.time(); }
  LoadTiming load_timing() const { return timing_; }

  /// One step of size h of every body. `torque`: spatial torques, `force`: spatial forces at the
  /// centre of mass (free bodies only), host arrays of 3 × bodies() (component c of body i at
  /// [c · bodies() + i]), or null for none; at the state the step starts from unless the batch was
  /// made with LoadTiming::held.
  void step(S h, const S* torque, const S* force) {
    check_coupled_force<Model>(force, "CpuBatchStepper::step");
    clock_.take(h, "CpuBatchStepper::step", [&](index_t k, S t, S h_previous) {
      if constexpr (redoes_end_impulse<Integrator>::value) {
        if (timing_ == LoadTiming::at_start) return step_all<LoadTiming::at_start>(k, t, h, torque, force, h_previous);
      }
      step_all<LoadTiming::held>(k, t, h, torque, force, h_previous);
    });
    std::vector<Kinematics>().swap(initial_);  // the first step has read them
  }

  /// Orientation (4 × bodies), body angular velocity (3 × bodies) and, for free bodies, position
  /// and velocity (3 × bodies each; asked of a top: std::invalid_argument) into the caller's host
  /// arrays; null pointers are skipped. In SIMD lanes, block by block, once a step has packed the
  /// blocks (cpu_coupled_lanes.hpp), for the integrators with a coupled lane step; the same bits.
  void kinematics(S* quaternion, S* omega_body, S* position, S* velocity) const {
    check_coupled_kinematics<Model>(position, velocity, "CpuBatchStepper::kinematics");
    const index_t n = bodies();
    const SoaView<const S> soa{state_.data(), n};
    using Coupled = lanes::CoupledLaneForm<Integrator>;
    const index_t width = blocks_ ? blocks_->width() : 1, blocks = (n + width - 1) / width;
#pragma omp parallel for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
      const index_t first = b * width, end = std::min(n, first + width);
      if constexpr (Coupled::exists) {
        if (end - first == width && width > 1) {
          Coupled::kinematics(integrator_, {lanes::best_isa(), lanes::model_of<Model>, blocks_->block_parameters(b),
                                            state_.data(), n, first, quaternion, omega_body, position, velocity});
          continue;
        }
      }
      for (index_t i = first; i < end; ++i)
        write_body_kinematics(integrator_, models_[i], soa, i, quaternion, omega_body, position, velocity);
    }
  }

  /// Per body: ok until its step fails; a failed body keeps the state of its last good step and is
  /// not advanced again.
  const std::vector<Status>& status() const { return status_; }
  /// Step index at which each body failed, −1 while none.
  const std::vector<index_t>& failed_step() const { return failed_step_; }
  /// Newton iterations per body, summed over all steps.
  const std::vector<index_t>& newton_iterations() const { return iterations_; }
  /// The bodies the last step took in SIMD lanes (0 on the first step, or without lanes).
  index_t bodies_in_lanes() const { return bodies_in_lanes_; }

 private:
  using Lanes = lanes::LaneForm<Integrator>;

  template <LoadTiming Timing>
  void step_all(index_t k, S t, S h, const S* torque, const S* force, S h_previous) {
    const index_t n = bodies();
    const CoupledModels<Model> models{models_.data(), SoaView<const S>{inertial_.empty() ? nullptr : inertial_.data(), n}};
    const SoaView<S> soa{state_.data(), n};
    const BodyRecord rec = record();
    const Kinematics* initial = k == 0 ? initial_.data() : nullptr;
    const bool in_lanes = Lanes::exists && k > 0 && lanes::available();
    const lanes::Isa isa = lanes::best_isa();
    const index_t width = in_lanes ? lanes::width<S>(isa) : 1, blocks = (n + width - 1) / width;
    if constexpr (Lanes::exists) {
      if (in_lanes && n >= width && !blocks_) blocks_.emplace(models, n, int(width));
    }
    index_t laned = 0;
#pragma omp parallel for schedule(static) reduction(+ : laned)
    for (index_t b = 0; b < blocks; ++b) {
      const index_t first = b * width, end = std::min(n, first + width);
      if (in_lanes && end - first == width &&
          step_block<Timing>(isa, models, soa, rec, first, k, t, h, torque, force, h_previous)) {
        laned += width;
        continue;
      }
      for (index_t i = first; i < end; ++i)
        step_body_coupled<Timing>(integrator_, models, soa, rec, i, k, t, h, torque, force, h_previous, initial);
    }
    bodies_in_lanes_ = laned;
  }

  /// Step k of the block of bodies first … first + width − 1 in lanes (step_body_coupled of each,
  /// after the first step), if their models with this step's loads take the same branches; false
  /// (nothing done) if not.
  template <LoadTiming Timing>
  bool step_block(lanes::Isa isa, const CoupledModels<Model>& models, const SoaView<S>& soa, const BodyRecord& rec,
                  index_t first, index_t k, S t, S h, const S* torque, const S* force, S h_previous) {
    if constexpr (!Lanes::exists) {
      return false;
    } else {
      const int width = lanes::width<S>(isa);
      const LaneBranches branches = blocks_->take_loads(models, first / width, torque, force);
      if (!branches.laneable) return false;
      const S h_taken = redoes_at_start<Integrator, Timing> ? h_previous : S(0);  // take_loads' h_previous
      using Coupled = lanes::CoupledLaneForm<Integrator>;
      bool was_ok[lanes::max_width<S>];
      for (int j = 0; j < width; ++j) {
        const index_t i = first + j;
        if (rec.status[i] == Status::ok && !finite_loads(i, soa.bodies, torque, force))
          rec.status[i] = Status::non_finite, rec.failed_step[i] = k;  // step_body_coupled's check
        was_ok[j] = rec.status[i] == Status::ok;
        if constexpr (holds_loads<Integrator>::value && !Coupled::exists) {
          if (!was_ok[j]) continue;
          State s;
          load_state(soa, i, s);
          take_loads(integrator_, models.with_loads(i, soa.bodies, torque, force), s, t, h_taken);
          store_state(s, soa, i);
        }
      }
      // one step from t (t + 0·h: t's bits); a body that fails in it failed at step k
      const lanes::BlockJob<S> job{isa, lanes::model_of<Model>, blocks_->block_parameters(first / width),
                                   branches, soa.data, soa.bodies, first, rec, t, h, 0, 1, {}};
      if constexpr (Coupled::exists) Coupled::advance(integrator_, job, h_taken);
      else Lanes::advance(integrator_, job);
      for (int j = 0; j < width; ++j)
        if (was_ok[j] && rec.status[first + j] != Status::ok) rec.failed_step[first + j] = k;
      return true;
    }
  }
  BodyRecord record() { return BodyRecord{status_.data(), iterations_.data(), failed_step_.data()}; }

  Integrator integrator_;
  std::vector<Model> models_;
  std::vector<S> inertial_;  ///< CoupledModels' inertia and mass where no body has loads of its own, else empty
  CoupledClock<S> clock_;
  LoadTiming timing_;
  std::vector<S> state_;  ///< SoA [component][body]
  std::vector<Status> status_;
  std::vector<index_t> iterations_, failed_step_;
  std::vector<Kinematics> initial_;  ///< the initial kinematics until the first step
  index_t bodies_in_lanes_ = 0;
  std::optional<lanes::CoupledBlocks<Model>> blocks_;  ///< the full blocks' parameters, from the first step in lanes
};

}  // namespace quatstep
