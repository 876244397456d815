// Owning handles for what the GPU backend queues work with: a CUDA event, a stream of its own, and
// page-locked (pinned) host memory, into which a copy from the device runs without the host
// waiting (into pageable memory cudaMemcpyAsync returns only when the copy is done). Movable, not
// copyable; host code only (cudart).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_error.hpp"

namespace quatstep::cuda {

class Event {
 public:
  /// `timing`: cudaEventElapsedTime may measure from or to it.
  explicit Event(bool timing = true) {
    check(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
  }
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream = nullptr) const { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  /// Waits for the work recorded before it; an error of that work (a kernel's) is thrown, named `what`.
  void wait(const char* what) const { check(cudaEventSynchronize(event_), what); }
  /// Seconds of GPU time from `start` to this event, both completed.
  double seconds_since(const Event& start) const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime");
    return 1e-3 * double(ms);
  }

 private:
  cudaEvent_t event_ = nullptr;
};

/// A stream that does not wait for the legacy default stream, on which the kernels run: copies on
/// it overlap them, ordered against them by events.
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(stream_, o.stream_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }
  /// Work queued on this stream from now on waits for what `event` follows.
  void wait_for(const Event& event) const { check(cudaStreamWaitEvent(stream_, event.get(), 0), "cudaStreamWaitEvent"); }
  void synchronize(const char* what) const { check(cudaStreamSynchronize(stream_), what); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// std::allocator's interface over cudaMallocHost: std::vector<T, PinnedAllocator<T>> is a vector
/// in page-locked memory.
template <class T>
struct PinnedAllocator {
  using value_type = T;
  PinnedAllocator() = default;
  template <class U>
  PinnedAllocator(const PinnedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    void* p = nullptr;
    check(cudaMallocHost(&p, n * sizeof(T)), "cudaMallocHost");
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { cudaFreeHost(p); }
  template <class U>
  bool operator==(const PinnedAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const PinnedAllocator<U>&) const noexcept { return false; }
};

template <class T>
using PinnedVector = std::vector<T, PinnedAllocator<T>>;

}  // namespace quatstep::cuda
