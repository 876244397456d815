// StepOrder (step_order.hpp): a stable CUB radix sort of (next step size, body index) pairs.
#include "kernels/step_order.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/device_array.cuh"

namespace quatstep::cuda {

struct StepOrder::Impl {
  explicit Impl(index_t bodies) : n(bodies), order(std::size_t(bodies)), keys(std::size_t(bodies) * sizeof(double)) {
    std::vector<index_t> identity(static_cast<std::size_t>(bodies));
    std::iota(identity.begin(), identity.end(), index_t(0));
    indices = DeviceArray<index_t>(identity);
  }

  template <class S>
  const index_t* sort(const S* next_step) {
    if (n == 0) return order.data();
    S* sorted_keys = reinterpret_cast<S*>(keys.data());  // the sorted keys themselves are not used
    std::size_t bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, next_step, sorted_keys, indices.data(), order.data(), n),
          "cub::DeviceRadixSort::SortPairs (size)");
    if (workspace.size() < bytes) workspace = DeviceArray<unsigned char>(bytes);
    check(cub::DeviceRadixSort::SortPairs(workspace.data(), bytes, next_step, sorted_keys, indices.data(), order.data(), n),
          "cub::DeviceRadixSort::SortPairs");
    return order.data();
  }

  index_t n;
  DeviceArray<index_t> indices, order;  // 0 … n − 1; thread → body
  DeviceArray<unsigned char> keys, workspace;
};

StepOrder::StepOrder(index_t bodies) : impl_(std::make_unique<Impl>(bodies)) {}
StepOrder::~StepOrder() = default;
StepOrder::StepOrder(StepOrder&&) noexcept = default;
StepOrder& StepOrder::operator=(StepOrder&&) noexcept = default;

const index_t* StepOrder::sort(const double* next_step) { return impl_->sort(next_step); }
const index_t* StepOrder::sort(const float* next_step) { return impl_->sort(next_step); }

}  // namespace quatstep::cuda
