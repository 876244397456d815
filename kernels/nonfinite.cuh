// Where device memory holds a value that is not finite: the check a caller's loads in device memory
// (MechanismLoads::device) get before a mechanism ensemble on the GPU steps with them, as host loads
// get it on the host. Each thread checks its elements; the least index of a non-finite one is kept
// with an integer atomic. A template kernel, so that every unit that includes it has its own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda_error.hpp"

namespace quatstep::cuda {

template <class T>
__global__ void least_nonfinite(const T* __restrict__ data, std::size_t count, unsigned long long* least) {
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < count; k += std::size_t(gridDim.x) * blockDim.x)
    if (!isfinite(data[k])) {
      atomicMin(least, static_cast<unsigned long long>(k));
      return;  // this thread's later elements come after k
    }
}

/// The first of `count` values at `data` (current device) that is NaN or ±inf: its index, −1 when
/// every one is finite, and its value; `least` is one integer of device memory to work in. Waits for
/// the default stream's work before it.
template <class T>
std::pair<std::int64_t, T> first_nonfinite(const T* data, std::size_t count, unsigned long long* least) {
  constexpr unsigned long long none = ~0ull;
  if (count == 0) return {-1, T(0)};
  check(cudaMemcpy(least, &none, sizeof none, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  constexpr int block = 256;
  const unsigned blocks = unsigned(std::min<std::size_t>((count + block - 1) / block, 1024));
  least_nonfinite<T><<<blocks, block>>>(data, count, least);
  check(cudaGetLastError(), "least_nonfinite launch");
  unsigned long long k = none;
  check(cudaMemcpy(&k, least, sizeof k, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  if (k == none) return {-1, T(0)};
  T value{};
  check(cudaMemcpy(&value, data + k, sizeof value, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  return {std::int64_t(k), value};
}

}  // namespace quatstep::cuda
