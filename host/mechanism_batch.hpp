// The mechanisms of a run on a backend that keeps them (the GPU: kernels/cuda_mechanisms.cuh),
// stepped window by window with fixed or adaptive steps; host/mechanism_run.cpp drives it and writes
// each window, and its MechanismEnsemble on the GPU steps them by step ranges and coupled steps. The CPU steps its mechanisms in place (mechanism_run.cpp's OpenMP loop) with the same
// per-mechanism functions, mechanism::advance_mechanism and advance_mechanism_adaptive
// (include/quatstep/mechanism/batch.hpp), or in blocks of SIMD lanes with the same bits
// (cpu_mechanism_lanes.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "step_records.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/mechanism/batch.hpp"
#include "quatstep/status.hpp"

namespace quatstep {

class MechanismBatch {
 public:
  virtual ~MechanismBatch() = default;
  /// Samples [first, first + count) of every mechanism into `window` (host memory,
  /// [sample][scalar][mechanism], the layout of SampleView).
  virtual void advance(index_t first, index_t count, double* window) = 0;
  /// Each mechanism's status, Newton iterations over all its steps and failed step (−1 if none), and
  /// with adaptive steps its step records (`steps` is left as it is with fixed steps).
  virtual void records(std::vector<Status>& status, std::vector<index_t>& iterations, std::vector<index_t>& failed_step,
                       StepRecords& steps) const = 0;
  /// Every mechanism's integrator state into `states` (host memory for as many of the integrator's
  /// State): what a checkpoint keeps.
  virtual void states(void* states) const = 0;

  // A mechanism ensemble's calls (fixed steps only; a batch of adaptive steps throws std::logic_error).
  /// Every mechanism from step `first_step` by `steps` steps, with `loads` (host arrays, or arrays on
  /// the batch's device, as MechanismEnsemble::step takes them; none: no loads) held over each, writing the samples of
  /// `out`'s window into out.data (host memory; nothing when out.samples is 0).
  virtual void advance_steps(index_t first_step, index_t steps, const SampleView<double>& out,
                             const MechanismLoads& loads) = 0;
  /// Replaces every mechanism's state (host memory, as states() writes them), status and failed step.
  virtual void upload(const void* states, const std::vector<Status>& status, const std::vector<index_t>& failed_step) = 0;

  // Loads in device memory (MechanismLoads::device), the caller's arrays read in place.
  /// The CUDA device of the batch's arrays.
  virtual int device() const = 0;
  /// The first of `count` doubles at `data` (device memory) that is not finite: its index (−1: every
  /// one is finite) and its value.
  virtual std::pair<std::int64_t, double> first_nonfinite(const double* data, std::size_t count) const = 0;
  /// `count` doubles from `data` (device memory) into `host`.
  virtual void download(const double* data, std::size_t count, double* host) const = 0;
};

}  // namespace quatstep
