// GPU backend: the interface of CpuEnsemble (host/cpu_ensemble.hpp) with the bodies' state, models
// and records in device memory (struct of arrays) and one thread per body. A call to advance is
// one launch: every body loads its state once, takes all the steps in registers, writes the samples
// that fall in the window straight into the device sample buffer ([sample][channel][body]) and
// stores its state once; the window is then copied to the caller's host SampleView.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_array.cuh"
#include "ensemble_kernels.cuh"
#include "host/body_validation.hpp"
#include "quatstep/settings_keys.hpp"

namespace quatstep::cuda {

template <class Integrator>
class CudaEnsemble {
 public:
  using S = typename Integrator::Scalar;
  using Model = typename Integrator::ModelType;
  using State = typename Integrator::State;
  using Kinematics = KinematicsOf<Integrator>;
  static constexpr int sample_scalars = quatstep::sample_scalars<Integrator>();

  /// One model (per-body parameters) per body, uploaded once; the current CUDA device is used.
  CudaEnsemble(const Integrator& integrator, std::vector<Model> models, S t0, S h)
      : integrator_((keys::check(integrator.settings), integrator)),
        models_host_(std::move(models)),
        n_(static_cast<index_t>(models_host_.size())),
        t0_(t0),
        h_(h),
        models_(models_host_),
        state_(State::size * models_host_.size()),
        status_(models_host_.size()),
        iterations_(models_host_.size()),
        failed_step_(models_host_.size()),
        status_host_(models_host_.size(), Status::ok),
        iterations_host_(models_host_.size(), 0),
        failed_step_host_(models_host_.size(), -1) {}

  index_t bodies() const { return n_; }
  index_t steps_done() const { return steps_done_; }

  /// As CpuEnsemble::initialize: bad bodies throw (named with their fields) before anything runs,
  /// or with skip_invalid are marked invalid_input and never advance.
  void initialize(const std::vector<Kinematics>& initial, const SampleView<S>& out, bool skip_invalid = false) {
    for (index_t i : invalid_bodies(models_host_, initial, skip_invalid)) {
      status_host_[i] = Status::invalid_input;
      failed_step_host_[i] = 0;
    }
    status_.upload(status_host_);
    const DeviceArray<Kinematics> d_initial(initial);
    const Window window(out, 0, 0);
    if (n_) {
      initialize_bodies<<<blocks_for(n_), block_size>>>(integrator_, models_.data(), d_initial.data(), soa(), record(),
                                                        t0_, window.device_view);
      check(cudaGetLastError(), "initialize_bodies launch");
    }
    finish(window);
    steps_done_ = 0;
  }

  /// Advance every body by `steps` steps in one launch; a failed body stops, the others go on.
  void advance(index_t steps, const SampleView<S>& out) {
    const Window window(out, steps_done_ + 1, steps_done_ + steps);
    if (n_ && steps > 0) {
      advance_bodies<<<blocks_for(n_), block_size>>>(integrator_, models_.data(), soa(), record(), t0_, h_, steps_done_,
                                                     steps, window.device_view);
      check(cudaGetLastError(), "advance_bodies launch");
    }
    finish(window);
    steps_done_ += steps;
  }

  const std::vector<Status>& status() const { return status_host_; }
  const std::vector<index_t>& newton_iterations() const { return iterations_host_; }
  const std::vector<index_t>& failed_step() const { return failed_step_host_; }
  /// Body i's state, copied from the device.
  State state(index_t i) const {
    State s;
    for (int c = 0; c < State::size; ++c) s[c] = state_.at(c * n_ + i);
    return s;
  }
  /// Body i's orientation and rates from its state (as CpuEnsemble::kinematics).
  Kinematics kinematics(index_t i) const { return integrator_.kinematics(models_host_[i], state(i)); }

 private:
  /// The device side of a host sample window for one launch that takes steps [first, last]: a
  /// device buffer of the samples of the window that fall in those steps alone (those the launch
  /// writes), copied back into their place in the host window, which keeps every other sample — as
  /// CpuEnsemble writes in place. Copying the whole window back overwrote the samples of earlier
  /// launches with the new buffer's contents (found on the first H100 run).
  struct Window {
    Window(const SampleView<S>& host, index_t first, index_t last)
        : host_view(host),
          begin(std::max(host.first_sample, (first + host.stride - 1) / host.stride)),
          end(std::max(begin, std::min(host.first_sample + host.samples, last / host.stride + 1))),
          buffer(static_cast<std::size_t>((end - begin) * host.scalars * host.bodies)) {
      if (host.samples > 0 && host.scalars != sample_scalars)
        throw std::invalid_argument("SampleView holds " + std::to_string(host.scalars) +
                                    " scalars per sample, this integrator writes " + std::to_string(sample_scalars));
      device_view = SampleView<S>{buffer.data(), host.bodies, begin, end - begin, host.stride, host.scalars};
    }
    /// Where sample `begin` lies in the host window.
    S* host_data() const { return host_view.data + (begin - host_view.first_sample) * host_view.scalars * host_view.bodies; }
    SampleView<S> host_view, device_view;
    index_t begin, end;  ///< samples [begin, end) of the run
    DeviceArray<S> buffer;
  };

  SoaView<S> soa() const { return SoaView<S>{state_.data(), n_}; }
  BodyRecord record() const { return BodyRecord{status_.data(), iterations_.data(), failed_step_.data()}; }

  /// Waits for the launch, then copies the sample window and the per-body records to the host.
  void finish(const Window& w) {
    check(cudaDeviceSynchronize(), "kernel execution");
    if (w.buffer.size()) w.buffer.download(w.host_data(), w.buffer.size());
    status_.download(status_host_);
    iterations_.download(iterations_host_);
    failed_step_.download(failed_step_host_);
  }

  Integrator integrator_;
  std::vector<Model> models_host_;  // for validation messages
  index_t n_;
  S t0_, h_;
  DeviceArray<Model> models_;
  DeviceArray<S> state_;  // [component][body]
  DeviceArray<Status> status_;
  DeviceArray<index_t> iterations_, failed_step_;
  std::vector<Status> status_host_;
  std::vector<index_t> iterations_host_, failed_step_host_;
  index_t steps_done_ = 0;
};

}  // namespace quatstep::cuda
