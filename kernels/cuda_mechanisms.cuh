// cuda::CudaMechanisms<Integrator>: the mechanisms of a run in device memory, advanced one window
// of samples per launch of advance_mechanisms (mechanism_kernels.cuh), the window copied back for
// the host to write. The state stays on the device between windows.
#pragma once

#include "kernels/cuda_error.hpp"
#include "kernels/cuda_mechanisms.hpp"
#include "kernels/device_array.cuh"
#include "kernels/mechanism_kernels.cuh"

namespace quatstep::cuda {

template <class Integrator>
class CudaMechanisms final : public MechanismBatch {
 public:
  explicit CudaMechanisms(const MechanismBatchInput<Integrator>& in)
      : integrator_(in.integrator), n_(index_t(in.mechanisms.size())), t0_(in.t0), h_(in.h), stride_(in.stride),
        scalars_(in.scalars), mechanisms_(in.mechanisms), states_(in.states), status_(in.status),
        iterations_(in.iterations), failed_step_(in.failed_step) {}

  void advance(index_t first, index_t count, double* window) override {
    const std::size_t size = std::size_t(count * scalars_ * n_);
    if (window_.size() < size) window_ = DeviceArray<double>(size);
    const SampleView<double> out{window_.data(), n_, first, count, stride_, scalars_};
    advance_mechanisms<<<blocks_for(n_), block_size>>>(integrator_, mechanisms_.data(), states_.data(), record(), n_,
                                                       t0_, h_, out);
    check(cudaGetLastError(), "advance_mechanisms launch");
    window_.download(window, size);  // synchronises: a failed kernel reports here
  }

  void records(std::vector<Status>& status, std::vector<index_t>& iterations,
               std::vector<index_t>& failed_step) const override {
    status_.download(status);
    iterations_.download(iterations);
    failed_step_.download(failed_step);
  }

  void states(void* states) const override {
    states_.download(static_cast<typename Integrator::State*>(states), std::size_t(n_));
  }

 private:
  BodyRecord record() const { return {status_.data(), iterations_.data(), failed_step_.data()}; }

  Integrator integrator_;
  index_t n_;
  double t0_, h_;
  index_t stride_;
  int scalars_;
  DeviceArray<typename Integrator::ModelType> mechanisms_;
  DeviceArray<typename Integrator::State> states_;
  DeviceArray<Status> status_;
  DeviceArray<index_t> iterations_, failed_step_;
  DeviceArray<double> window_;
};

template <class Integrator>
std::unique_ptr<MechanismBatch> make_cuda_mechanisms(const MechanismBatchInput<Integrator>& input) {
  return std::make_unique<CudaMechanisms<Integrator>>(input);
}

}  // namespace quatstep::cuda
