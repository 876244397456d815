// Which body each thread of the adaptive kernel steps: the bodies ordered by their next step size,
// so that the 32 bodies of a warp take about as many steps through an output interval — a warp
// runs until its slowest lane is done, and on an H200 the kernel accepted 4.1× fewer steps per
// second when every warp mixed fast and slow tops than when the ensemble came sorted by spin
// (bench/adaptive.md, section 8). Every body keeps its index in every array (state, records,
// samples); only the thread that steps it changes, so the results are the same bits. Sorted anew
// before every launch of the adaptive kernel: a CUB radix sort of the step sizes with the body
// indices, about the cost of stepping every body once. The implementation is kernels/step_order.cu;
// this header is plain C++.
#pragma once

#include <memory>

#include "quatstep/ensemble.hpp"

namespace quatstep::cuda {

class StepOrder {
 public:
  /// For `bodies` bodies, on the current device.
  explicit StepOrder(index_t bodies);
  ~StepOrder();
  StepOrder(StepOrder&&) noexcept;
  StepOrder& operator=(StepOrder&&) noexcept;

  /// The bodies by `next_step` (device memory, one per body) ascending, ties by index: thread t
  /// steps body order[t]. Queued on the default stream; the array stays valid until the next sort.
  const index_t* sort(const double* next_step);
  const index_t* sort(const float* next_step);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quatstep::cuda
