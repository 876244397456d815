// The GPU half of a mechanism run (host/mechanism_run.cpp): a MechanismBatch on device storage for
// an integrator of the mechanism registry on Mechanism<double, SmallCapacity> or
// Mechanism<double, LargeCapacity>, with fixed steps, or for AdaptiveHht over one (adaptive steps).
// Defined in cuda_mechanisms.cuh, instantiated for every registry entry and capacity in the shards
// generated from cuda_mechanisms_shard.cu.in.
#pragma once

#include <memory>
#include <vector>

#include "host/mechanism_batch.hpp"

namespace quatstep::cuda {

/// What a mechanism run hands the GPU: the built mechanisms, their states and records (initial
/// ones, or a checkpoint's; a mechanism whose status is not ok never advances), the steps and the
/// layout of a sample. `Stepper` is a mechanism integrator (fixed steps of h) or an AdaptiveHht over
/// one (is_adaptive_stepper: each mechanism keeps its own t and h, sampled every stride·h, and
/// `steps` holds its step records).
template <class Stepper>
struct MechanismBatchInput {
  Stepper integrator;
  std::vector<typename Stepper::ModelType> mechanisms;
  std::vector<typename Stepper::State> states;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  StepRecords steps;  ///< adaptive steps only
  double t0, h;
  index_t stride;
  int scalars;  ///< per mechanism and sample
};

template <class Stepper>
std::unique_ptr<MechanismBatch> make_cuda_mechanisms(const MechanismBatchInput<Stepper>& input);

}  // namespace quatstep::cuda
