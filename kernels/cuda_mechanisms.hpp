// The GPU half of a mechanism run (host/mechanism_run.cpp): a MechanismBatch on device storage for
// an integrator of the mechanism registry on Mechanism<double, SmallCapacity>, with fixed steps.
// Defined in cuda_mechanisms.cuh, instantiated for every registry entry in the shards generated from
// cuda_mechanisms_shard.cu.in.
#pragma once

#include <memory>
#include <vector>

#include "host/mechanism_batch.hpp"

namespace quatstep::cuda {

/// What a mechanism run hands the GPU: the built mechanisms, their integrator states and records
/// (initial ones, or a checkpoint's; a mechanism whose status is not ok never advances), the steps
/// and the layout of a sample.
template <class Integrator>
struct MechanismBatchInput {
  Integrator integrator;
  std::vector<typename Integrator::ModelType> mechanisms;
  std::vector<typename Integrator::State> states;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  double t0, h;
  index_t stride;
  int scalars;  ///< per mechanism and sample
};

template <class Integrator>
std::unique_ptr<MechanismBatch> make_cuda_mechanisms(const MechanismBatchInput<Integrator>& input);

}  // namespace quatstep::cuda
