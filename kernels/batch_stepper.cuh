// The coupled-step API for granular (DEM) codes: a batch of bodies living on the GPU, advanced one
// step at a time with the caller's torques and forces for that step, on the caller's CUDA stream.
// The state never leaves the device; the caller reads orientations and angular velocities back
// into its own device arrays.
//
//   quatstep::cuda::BatchStepper<quatstep::ModifiedHht<quatstep::FreeRigidBody<double>>>
//       batch(integrator, models, initial, t0, stream);
//   for (each DEM step) {
//     compute_contacts<<<…, stream>>>(…, torque, force);   // 3 × N arrays, component-major
//     batch.step(h, torque, force, stream);
//     batch.kinematics(quaternion, omega, position, velocity, stream);
//   }
//
// The external loads are by default those at the state the step starts from (LoadTiming::at_start,
// coupled_step.hpp: what the caller computes from the kinematics it just read); they also complete
// the last step's end impulse, so a splitting of order 2 (NoSquish, SymmetricSplitting,
// ExactFreeSplitting with order = 2) and ExplicitNewmarkLie are velocity Verlet: second order in
// loads that depend on the state. LoadTiming::held takes them as the step's own (zero-order hold:
// a time signal sampled at the step's midpoint). The models' own loads (gravity, torque profiles) act
// as usual; a model whose own spatial torque or force has a window is refused (the caller's loads
// are added to it and would not act outside the window: models/external_load.hpp). The first step
// initializes every body anew with its loads (step_body_coupled), so the HHT family's initial
// accelerations include them: a constant load given every step is then, bit for bit, that load in
// the model for every integrator (until the first step, kinematics() reads the state of the
// models' own loads; the initial kinematics are kept on the device for that step). From C++
// the splittings keep their default order 4, which is first order in loads that depend on the state
// at LoadTiming::at_start: pass SplittingSettings order = 2 (Python's BatchStepper warns).
// When no body has loads of its own (FreeRigidBody::has_own_loads, HeavyTop::has_own_loads), a step
// reads each body's inertia and mass instead of its whole model (coupled_step.hpp); a DEM code that
// integrates its particles' orientations alone steps HeavyTop::unloaded bodies, tops about their
// centre of mass, of which a step reads nothing but the state and the torque. Integrators that keep the
// end torque of a step for the next one (the splittings, explicit Newmark, Zupan3) evaluate it anew
// with the step's loads (ensemble.hpp, step_body_with_loads), so every step sees only its own. Every
// call is asynchronous on the given stream except the first step, which synchronises it once to free
// the initial kinematics; failures are per body (status()), never a stalled launch.
#pragma once

#include <vector>

#include "device_array.cuh"
#include "ensemble_kernels.cuh"
#include "host/coupled_batch.hpp"

namespace quatstep::cuda {

template <class Integrator>
class BatchStepper {
 public:
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  using State = typename Integrator::State;
  using Kinematics = KinematicsOf<Integrator>;

  /// Validates every body (std::invalid_argument naming body and field), uploads the models and
  /// the initial kinematics, and computes the consistent initial state of the models' own loads on
  /// the device (the first step computes it anew with its loads). Synchronises `stream` once.
  BatchStepper(const Integrator& integrator, const std::vector<Model>& models,
               const std::vector<Kinematics>& initial, S t0, cudaStream_t stream = nullptr,
               LoadTiming timing = LoadTiming::at_start)
      : integrator_(checked_coupled_batch(integrator, models, initial)),
        n_(static_cast<index_t>(models.size())),
        clock_(t0),
        timing_(checked_timing(timing)),
        models_(models),
        inertial_(coupled_inertial(models)),
        state_(State::size * models.size()),
        status_(std::vector<Status>(models.size(), Status::ok)),
        iterations_(models.size()),
        failed_step_(models.size()),
        initial_(initial) {
    if (n_) {
      initialize_bodies<<<blocks_for(n_), block_size, 0, stream>>>(integrator_, models_.data(), initial_.data(), soa(),
                                                                   record(), t0, SampleView<S>{nullptr, n_, 0, 0, 1, 0});
      check(cudaGetLastError(), "initialize_bodies launch");
    }
    check(cudaStreamSynchronize(stream), "BatchStepper initialisation");
  }

  index_t bodies() const { return n_; }
  index_t steps_done() const { return clock_.steps_done(); }
  /// t0 plus the steps taken (CoupledClock: CpuEnsemble's t0 + k·h, the same bits, where h never changes).
  S time() const { return clock_.time(); }

  /// One step of size h of every body. `torque`: spatial torques, `force`: spatial forces at the
  /// centre of mass (free bodies only), device arrays of 3 × bodies() (component c of body i at
  /// [c · bodies() + i]), or null for none; at the state the step starts from unless the batch was
  /// made with LoadTiming::held. Asynchronous on `stream`.
  void step(S h, const S* torque, const S* force, cudaStream_t stream = nullptr) {
    check_coupled_force<Model>(force, "BatchStepper::step");
    clock_.take(h, "BatchStepper::step", [&](index_t k, S t, S h_previous) {
      if (!n_) return;
      const CoupledModels<Model> models{models_.data(), SoaView<const S>{inertial_.data(), n_}};
      const Kinematics* initial = k == 0 ? initial_.data() : nullptr;
      bool at_start = false;  // a second kernel only where the timings differ (an integrator that redoes its end impulse)
      if constexpr (redoes_end_impulse<Integrator>::value) {
        at_start = timing_ == LoadTiming::at_start;
        if (at_start)
          step_bodies_with_loads<LoadTiming::at_start><<<blocks_for(n_), block_size, 0, stream>>>(
              integrator_, models, soa(), record(), k, t, h, torque, force, h_previous, initial);
      }
      if (!at_start)
        step_bodies_with_loads<LoadTiming::held><<<blocks_for(n_), block_size, 0, stream>>>(
            integrator_, models, soa(), record(), k, t, h, torque, force, h_previous, initial);
      check(cudaGetLastError(), "step_bodies_with_loads launch");
    });
    if (initial_.size()) {  // the first step has read them
      check(cudaStreamSynchronize(stream), "BatchStepper first step");
      initial_ = DeviceArray<Kinematics>();
    }
  }

  LoadTiming load_timing() const { return timing_; }

  /// Orientation (4 × bodies), body angular velocity (3 × bodies) and, for free bodies, position
  /// and velocity (3 × bodies each; asked of a top: std::invalid_argument) into the caller's device
  /// arrays; null pointers are skipped.
  void kinematics(S* quaternion, S* omega_body, S* position, S* velocity, cudaStream_t stream = nullptr) const {
    check_coupled_kinematics<Model>(position, velocity, "BatchStepper::kinematics");
    if (!n_) return;
    write_kinematics<<<blocks_for(n_), block_size, 0, stream>>>(integrator_, models_.data(), soa(), quaternion,
                                                                omega_body, position, velocity);
    check(cudaGetLastError(), "write_kinematics launch");
  }

  /// Per-body status (device array, bodies() entries): ok until a body's step fails; a failed body
  /// keeps the state of its last good step and is not advanced again.
  const Status* status() const { return status_.data(); }
  /// Step index at which each body failed, −1 while none (device array).
  const index_t* failed_step() const { return failed_step_.data(); }
  /// Newton iterations per body, summed over all steps (device array).
  const index_t* newton_iterations() const { return iterations_.data(); }

 private:
  SoaView<S> soa() const { return SoaView<S>{state_.data(), n_}; }
  BodyRecord record() const { return BodyRecord{status_.data(), iterations_.data(), failed_step_.data()}; }

  Integrator integrator_;
  index_t n_;
  CoupledClock<S> clock_;
  LoadTiming timing_;
  DeviceArray<Model> models_;
  DeviceArray<S> inertial_;  ///< CoupledModels' inertia and mass where no body has loads of its own, else empty
  DeviceArray<S> state_;
  DeviceArray<Status> status_;
  DeviceArray<index_t> iterations_, failed_step_;
  DeviceArray<Kinematics> initial_;  ///< the initial kinematics until the first step
};

}  // namespace quatstep::cuda
