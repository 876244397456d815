// Which body each thread of the adaptive kernel steps: the bodies ordered by their next step size,
// so that the 32 bodies of a warp take about as many steps through an output interval — a warp
// runs until its slowest lane is done, and on an H200 the kernel accepted 4.1× fewer steps per
// second when every warp mixed fast and slow tops than when the ensemble came sorted by spin
// (bench/adaptive.md, section 8). Every body keeps its index in every array (state, records,
// samples); only the thread that steps it changes, so the results are the same bits. Sorted anew
// before every launch of the adaptive kernel: a CUB radix sort of the step sizes with the body
// indices, about the cost of stepping every body once. The first launch, where every body still has
// h_initial, is ordered by the bodies' initial spin instead (initial_order_keys). The implementation
// is kernels/step_order.cu; this header is plain C++.
#pragma once

#include <memory>
#include <vector>

#include "quatstep/ensemble.hpp"

namespace quatstep::cuda {

/// Keys for StepOrder::sort that order the first adaptive launch: every body starts from the same
/// h_initial, so the step sizes cannot order it yet, and a body's initial spin stands in for them —
/// the faster it turns, the smaller its steps and the more of them. −|ω(0)|², so the fastest body
/// comes first, as the smallest step does later (ties by index). Measured on the CPU
/// (tests/step_order_test.cpp; bench/adaptive.md, section 8): on log-uniform spins the first output
/// interval's lanes take 21–32 % of the steps their warps issue in index order, 99.9 % in this one.
template <class Kinematics>
auto initial_order_keys(const std::vector<Kinematics>& initial) {
  std::vector<decltype(initial.front().omega_body.squaredNorm())> keys;
  keys.reserve(initial.size());
  for (const Kinematics& k : initial) keys.push_back(-k.omega_body.squaredNorm());
  return keys;
}

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
