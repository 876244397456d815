// The mechanism kernel: one thread per mechanism, calling the core's advance_mechanism
// (include/quatstep/mechanism/batch.hpp), the function the CPU backend calls from its OpenMP loop.
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

}  // namespace quatstep::cuda
