// The CPU half of make_ensemble, split as its CUDA half is (kernels/cuda_ensemble_shards.hpp): shard
// k of precision S holds the CPU ensembles of the registry's methods whose index is k modulo
// cpu_shards, in its own translation unit (generated from host/cpu_ensemble_shard.cpp.in once per
// precision and shard by host/CMakeLists.txt), so that the compiler runs them in parallel: they are
// most of the command's build time. make_ensemble (ensemble_factory.cpp) picks the shard of a
// scenario's method.
#pragma once

#include <memory>

#include "ensemble_factory.hpp"

namespace quatstep {

inline constexpr int cpu_shards = QUATSTEP_CPU_SHARDS;

/// The scenario's ensemble on the CPU in precision S, for a method of shard Shard.
template <class S, int Shard>
std::unique_ptr<Ensemble> make_cpu_ensemble_shard(const Scenario& scenario);

}  // namespace quatstep
