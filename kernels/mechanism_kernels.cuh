// The mechanism kernels: one thread per mechanism, calling the core's advance_mechanism,
// advance_mechanism_with_loads or advance_mechanism_adaptive (include/quatstep/mechanism/batch.hpp),
// the functions the CPU backend calls from its OpenMP loop.
// Nothing numerical lives here.
#pragma once

#include "kernels/ensemble_kernels.cuh"
#include "quatstep/mechanism/batch.hpp"

namespace quatstep::cuda {

/// The samples of `out`'s window of every mechanism, fixed steps of size h from t0.
template <class Integrator>
__global__ void __launch_bounds__(block_size)
    advance_mechanisms(Integrator integrator, const typename Integrator::ModelType* __restrict__ mechanisms,
                       typename Integrator::State* __restrict__ states, BodyRecord record, index_t n,
                       typename Integrator::Scalar t0, typename Integrator::Scalar h,
                       SampleView<typename Integrator::Scalar> out) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < n) mechanism::advance_mechanism(integrator, mechanisms[i], states, record, i, t0, h, out);
}

/// A mechanism ensemble's steps (host/mechanism_run.cpp's MechanismEnsembleOf on the GPU): every
/// mechanism from step `first_step` by `steps` steps of size h, writing the samples that fall into
/// `out`'s window, with `loads` held over each step (none: the mechanisms untouched).
template <class Integrator>
__global__ void __launch_bounds__(block_size)
    advance_mechanism_steps(Integrator integrator, typename Integrator::ModelType* __restrict__ mechanisms,
                            typename Integrator::State* __restrict__ states, BodyRecord record, index_t n,
                            typename Integrator::Scalar t0, typename Integrator::Scalar h, index_t first_step,
                            index_t steps, SampleView<typename Integrator::Scalar> out, MechanismLoads loads) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    mechanism::advance_mechanism_with_loads(integrator, mechanisms[i], states, record, i, t0, h, first_step, steps, out,
                                            loads);
}

/// The same with adaptive steps: every mechanism through the output times of `out`'s window, each
/// with its own t and h (their step sizes diverge inside a warp).
template <class Stepper>
__global__ void __launch_bounds__(block_size)
    advance_mechanisms_adaptive(Stepper stepper, const typename Stepper::ModelType* __restrict__ mechanisms,
                                typename Stepper::State* __restrict__ states, BodyRecord record,
                                AdaptiveRecord<typename Stepper::Scalar> steps, index_t n, typename Stepper::Scalar t0,
                                typename Stepper::Scalar h, SampleView<typename Stepper::Scalar> out) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < n) mechanism::advance_mechanism_adaptive(stepper, mechanisms[i], states, record, steps, i, t0, h, out);
}

}  // namespace quatstep::cuda
