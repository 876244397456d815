// cuda::CudaMechanisms<Stepper>: the mechanisms of a run in device memory, advanced one window of
// samples per launch of advance_mechanisms or, with adaptive steps, advance_mechanisms_adaptive
// (mechanism_kernels.cuh), the window copied back for the host to write; for a MechanismEnsemble on
// the GPU, step ranges and coupled steps with the caller's loads by advance_mechanism_steps. The
// states and records stay on the device between launches.
#pragma once

#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "kernels/cuda_error.hpp"
#include "kernels/cuda_mechanisms.hpp"
#include "kernels/device_array.cuh"
#include "kernels/mechanism_kernels.cuh"
#include "kernels/nonfinite.cuh"

namespace quatstep::cuda {

/// Checks the launch of a mechanism kernel. Each thread steps a whole mechanism in its own local
/// memory (≈ 200–240 kB a thread for LargeCapacity: the structured Newton solve), and the CUDA driver
/// reserves that frame for every thread the device can hold at once, (frame + 512 B) ×
/// maxThreadsPerMultiProcessor × multiProcessorCount, whatever the launch size; where the device
/// cannot, the error says so with the figures.
template <class Kernel>
void check_mechanism_launch(Kernel* kernel, const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaErrorMemoryAllocation) {
    check(err, what);
    return;
  }
  cudaFuncAttributes attributes{};
  int device = 0, threads = 0, sms = 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaFuncGetAttributes(&attributes, kernel), what);
  check(cudaGetDevice(&device), what);
  check(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device), what);
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), what);
  check(cudaMemGetInfo(&free_bytes, &total_bytes), what);
  std::ostringstream os;
  os << std::setprecision(3) << "CUDA: " << what << ": the device cannot reserve the kernel's local memory ("
     << attributes.localSizeBytes / 1024 << " kB a thread for " << threads << " x " << sms
     << " resident threads: " << 1e-9 * double(attributes.localSizeBytes + 512) * threads * sms << " GB; "
     << 1e-9 * double(free_bytes) << " GB free of " << 1e-9 * double(total_bytes)
     << "); run these mechanisms on the CPU ([run] backend = \"cpu\")";
  throw CudaError(os.str());
}

template <class Stepper>
class CudaMechanisms final : public MechanismBatch {
 public:
  static constexpr bool adaptive = is_adaptive_stepper<Stepper>::value;

  explicit CudaMechanisms(const MechanismBatchInput<Stepper>& in)
      : stepper_(in.integrator), n_(index_t(in.mechanisms.size())), t0_(in.t0), h_(in.h), stride_(in.stride),
        scalars_(in.scalars), mechanisms_(in.mechanisms), states_(in.states), status_(in.status),
        iterations_(in.iterations), failed_step_(in.failed_step),
        mechanisms_bodies_(in.mechanisms.empty() ? 0 : in.mechanisms.front().n_bodies) {
    check(cudaGetDevice(&device_), "cudaGetDevice");
    if constexpr (adaptive) {
      if (in.steps.accepted.size() != in.mechanisms.size())
        throw std::invalid_argument("CudaMechanisms: adaptive steps need the step records of every mechanism");
      accepted_ = DeviceArray<index_t>(in.steps.accepted);
      rejected_ = DeviceArray<index_t>(in.steps.rejected);
      smallest_ = DeviceArray<double>(in.steps.smallest);
      largest_ = DeviceArray<double>(in.steps.largest);
    }
  }

  void advance(index_t first, index_t count, double* window) override {
    const std::size_t size = std::size_t(count * scalars_ * n_);
    if (window_.size() < size) window_ = DeviceArray<double>(size);
    const SampleView<double> out{window_.data(), n_, first, count, stride_, scalars_};
    if constexpr (adaptive) {
      advance_mechanisms_adaptive<<<blocks_for(n_), block_size>>>(stepper_, mechanisms_.data(), states_.data(), record(),
                                                                  step_records(), n_, t0_, h_, out);
      check_mechanism_launch(advance_mechanisms_adaptive<Stepper>, "advance_mechanisms_adaptive launch");
    } else {
      advance_mechanisms<<<blocks_for(n_), block_size>>>(stepper_, mechanisms_.data(), states_.data(), record(), n_, t0_,
                                                         h_, out);
      check_mechanism_launch(advance_mechanisms<Stepper>, "advance_mechanisms launch");
    }
    window_.download(window, size);  // synchronises: a failed kernel reports here
  }

  void records(std::vector<Status>& status, std::vector<index_t>& iterations, std::vector<index_t>& failed_step,
               StepRecords& steps) const override {
    status_.download(status);
    iterations_.download(iterations);
    failed_step_.download(failed_step);
    if constexpr (adaptive) {
      accepted_.download(steps.accepted);
      rejected_.download(steps.rejected);
      smallest_.download(steps.smallest);
      largest_.download(steps.largest);
    }
  }

  void states(void* states) const override {
    states_.download(static_cast<typename Stepper::State*>(states), std::size_t(n_));
  }

  void advance_steps(index_t first_step, index_t steps, const SampleView<double>& out,
                     const MechanismLoads& loads) override {
    if constexpr (adaptive) {
      (void)first_step, (void)steps, (void)out, (void)loads;
      throw std::logic_error("CudaMechanisms::advance_steps: a mechanism ensemble takes fixed steps");
    } else {
      const std::size_t size = std::size_t(out.samples * out.scalars * n_);
      if (window_.size() < size) window_ = DeviceArray<double>(size);
      const SampleView<double> device_out{window_.data(), n_, out.first_sample, out.samples, out.stride, out.scalars};
      advance_mechanism_steps<<<blocks_for(n_), block_size>>>(stepper_, mechanisms_.data(), states_.data(), record(), n_,
                                                              t0_, h_, first_step, steps, device_out, held(loads));
      check_mechanism_launch(advance_mechanism_steps<Stepper>, "advance_mechanism_steps launch");
      check(cudaDeviceSynchronize(), "advance_mechanism_steps");  // a failed kernel reports here
      if (size) window_.download(out.data, size);
    }
  }

  void upload(const void* states, const std::vector<Status>& status, const std::vector<index_t>& failed_step) override {
    states_.upload(static_cast<const typename Stepper::State*>(states), std::size_t(n_));
    status_.upload(status);
    failed_step_.upload(failed_step);
  }

  int device() const override { return device_; }
  std::pair<std::int64_t, double> first_nonfinite(const double* data, std::size_t count) const override {
    return cuda::first_nonfinite(data, count, least_.data());
  }
  void download(const double* data, std::size_t count, double* host) const override {
    check(cudaMemcpy(host, data, count * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  }

 private:
  BodyRecord record() const { return {status_.data(), iterations_.data(), failed_step_.data()}; }
  /// `loads` in device memory: host arrays uploaded into the buffer of their kind, arrays on this
  /// device read in place (the caller's work on the default stream comes first).
  MechanismLoads held(const MechanismLoads& loads) {
    if (loads.device >= 0) {
      if (loads.device != device_)
        throw std::invalid_argument("MechanismEnsemble.step: loads on CUDA device " + std::to_string(loads.device) +
                                    ", the mechanisms are on device " + std::to_string(device_));
      return loads;
    }
    const std::size_t size = std::size_t(n_) * std::size_t(mechanisms_bodies_) * 3;
    const auto device = [&](const double* host, DeviceArray<double>& buffer) -> const double* {
      if (!host) return nullptr;
      if (buffer.size() < size) buffer = DeviceArray<double>(size);
      buffer.upload(host, size);
      return buffer.data();
    };
    return {device(loads.force, force_), device(loads.body_torque, body_torque_),
            device(loads.spatial_torque, spatial_torque_)};
  }
  AdaptiveRecord<double> step_records() const {
    return {accepted_.data(), rejected_.data(), smallest_.data(), largest_.data()};
  }

  Stepper stepper_;
  index_t n_;
  double t0_, h_;
  index_t stride_;
  int scalars_;
  DeviceArray<typename Stepper::ModelType> mechanisms_;
  DeviceArray<typename Stepper::State> states_;
  DeviceArray<Status> status_;
  DeviceArray<index_t> iterations_, failed_step_;
  DeviceArray<index_t> accepted_, rejected_;  ///< adaptive steps: the step records
  DeviceArray<double> smallest_, largest_;
  DeviceArray<double> window_;
  int mechanisms_bodies_;  ///< bodies per mechanism (the loads' rows)
  int device_ = 0;         ///< where the arrays live
  DeviceArray<unsigned long long> least_ = DeviceArray<unsigned long long>(1);  ///< first_nonfinite's integer
  DeviceArray<double> force_, body_torque_, spatial_torque_;  ///< a coupled step's loads
};

template <class Stepper>
std::unique_ptr<MechanismBatch> make_cuda_mechanisms(const MechanismBatchInput<Stepper>& input) {
  return std::make_unique<CudaMechanisms<Stepper>>(input);
}

}  // namespace quatstep::cuda
