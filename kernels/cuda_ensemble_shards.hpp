// The CUDA half of make_ensemble, split into shards: shard k of precision S instantiates the batch
// kernels (kernels/ensemble_kernels.cuh) of the registry's methods whose index is k modulo `shards`,
// in its own translation unit generated from cuda_ensemble_shard.cu.in, so nvcc compiles them in
// parallel. make_cuda_ensemble (host/ensemble_factory.cpp) picks the shard of a scenario's method.
#pragma once

#include <memory>

#include "host/ensemble_factory.hpp"

namespace quatstep::cuda {

inline constexpr int shards = QUATSTEP_CUDA_SHARDS;

/// The scenario's ensemble on the GPU in precision S, for a method of shard Shard.
template <class S, int Shard>
std::unique_ptr<Ensemble> make_ensemble_shard(const Scenario& scenario);

}  // namespace quatstep::cuda
