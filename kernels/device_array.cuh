// An owning, fixed-size array in device memory (cudaMalloc/cudaFree), with explicit copies to and
// from host vectors. Movable, not copyable.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_error.hpp"

namespace quatstep::cuda {

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t size) : size_(size) {
    if (size_) check(cudaMalloc(&data_, size_ * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
  DeviceArray(DeviceArray&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (data_) cudaFree(data_);  // no throw from a destructor; a failed free leaks only
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }

  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  void upload(const T* host, std::size_t count) {
    if (count)  // an empty array has no device memory
      check(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  void download(T* host, std::size_t count) const {
    check(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  }
  /// Elements [first, first + count) into `host`, queued on `stream` (the host waits only when
  /// `host` is pageable or when it synchronises the stream).
  void download_async(T* host, std::size_t first, std::size_t count, cudaStream_t stream) const {
    check(cudaMemcpyAsync(host, data_ + first, count * sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync to host");
  }
  T at(std::size_t i) const {
    T value;
    check(cudaMemcpy(&value, data_ + i, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return value;
  }
  void download(std::vector<T>& host) const {
    host.resize(size_);
    download(host.data(), size_);
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace quatstep::cuda
