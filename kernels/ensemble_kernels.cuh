// The kernels: one thread per body, each calling the core's per-body functions of ensemble.hpp and
// adaptive/adaptive_ensemble.hpp (the same ones the CPU backend calls from its OpenMP loop). Nothing
// numerical lives here.
#pragma once

#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/coupled_step.hpp"
#include "quatstep/ensemble.hpp"

namespace quatstep::cuda {

/// Threads per block. 128 keeps the register budget at the architectural 255 per thread (no spills
/// forced by the bounds) while a block still fills four warps.
inline constexpr int block_size = 128;

inline unsigned blocks_for(index_t n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

template <class Integrator, class Kinematics>
__global__ void __launch_bounds__(block_size)
    initialize_bodies(Integrator integrator, const typename Integrator::ModelType* __restrict__ models,
                      const Kinematics* __restrict__ initial,
                      SoaView<typename Integrator::Scalar> state, BodyRecord record, typename Integrator::Scalar t0,
                      SampleView<typename Integrator::Scalar> out) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < state.bodies) initialize_body(integrator, models[i], initial[i], state, record, i, t0, out);
}

/// Steps [first_step, first_step + steps) of every body, state in registers throughout.
/// MinBlocks: the blocks an SM must hold at once (__launch_bounds__), which caps the registers a
/// thread may use; 1 leaves ptxas 255 (bench/launch_bounds.cu measures others).
template <class Integrator, int MinBlocks = 1>
__global__ void __launch_bounds__(block_size, MinBlocks)
    advance_bodies(Integrator integrator, const typename Integrator::ModelType* __restrict__ models,
                   SoaView<typename Integrator::Scalar> state, BodyRecord record, typename Integrator::Scalar t0,
                   typename Integrator::Scalar h, index_t first_step, index_t steps,
                   SampleView<typename Integrator::Scalar> out) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < state.bodies) advance_body(integrator, models[i], state, record, i, t0, h, first_step, steps, out);
}

/// Adaptive steps: the consistent initial state and step records of every body, and sample 0.
template <class Stepper, class Kinematics>
__global__ void __launch_bounds__(block_size)
    initialize_bodies_adaptive(Stepper stepper, const typename Stepper::ModelType* __restrict__ models,
                               const Kinematics* __restrict__ initial, SoaView<typename Stepper::Scalar> state,
                               BodyRecord record, AdaptiveRecord<typename Stepper::Scalar> steps,
                               typename Stepper::Scalar t0, SampleView<typename Stepper::Scalar> out) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < state.bodies) initialize_body_adaptive(stepper, models[i], initial[i], state, record, steps, i, t0, out);
}

/// Adaptive steps through the output times t0 + j·interval, j = first + 1 … first + count, every
/// body with its own t and h; thread t steps body order[t] (step_order.hpp: bodies of alike step
/// sizes together, so that the lanes of a warp diverge less).
template <class Stepper>
__global__ void __launch_bounds__(block_size)
    advance_bodies_adaptive(Stepper stepper, const typename Stepper::ModelType* __restrict__ models,
                            SoaView<typename Stepper::Scalar> state, BodyRecord record,
                            AdaptiveRecord<typename Stepper::Scalar> steps, const index_t* __restrict__ order,
                            typename Stepper::Scalar t0, typename Stepper::Scalar interval, index_t first,
                            index_t count, SampleView<typename Stepper::Scalar> out) {
  const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (t >= state.bodies) return;
  const index_t i = order[t];
  advance_body_adaptive(stepper, models[i], state, record, steps, i, t0, interval, first, count, out);
}

/// One step (step index k, from t to t + h; the last one of size h_previous) of every body with the
/// external spatial torque and force of this step (3 × bodies arrays, component-major; null for
/// none), given as Timing says (coupled_step.hpp); on the first step, initialized anew from
/// `initial` with those loads first (null on the others).
template <LoadTiming Timing, class Integrator>
__global__ void __launch_bounds__(block_size)
    step_bodies_with_loads(Integrator integrator, CoupledModels<typename Integrator::ModelType> models,
                           SoaView<typename Integrator::Scalar> state, BodyRecord record, index_t k,
                           typename Integrator::Scalar t, typename Integrator::Scalar h,
                           const typename Integrator::Scalar* __restrict__ torque,
                           const typename Integrator::Scalar* __restrict__ force,
                           typename Integrator::Scalar h_previous, const KinematicsOf<Integrator>* __restrict__ initial) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < state.bodies)
    step_body_coupled<Timing>(integrator, models, state, record, i, k, t, h, torque, force, h_previous, initial);
}

/// write_body_kinematics (coupled_step.hpp) of every body.
template <class Integrator>
__global__ void __launch_bounds__(block_size)
    write_kinematics(Integrator integrator, const typename Integrator::ModelType* __restrict__ models,
                     SoaView<typename Integrator::Scalar> state, typename Integrator::Scalar* quaternion,
                     typename Integrator::Scalar* omega_body, typename Integrator::Scalar* position,
                     typename Integrator::Scalar* velocity) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < state.bodies) write_body_kinematics(integrator, models[i], state, i, quaternion, omega_body, position, velocity);
}

}  // namespace quatstep::cuda
