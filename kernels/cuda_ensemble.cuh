// GPU backend: the interface of CpuEnsemble (host/cpu_ensemble.hpp) with the bodies' state, models
// and records in device memory (struct of arrays) and one thread per body. A call to advance is
// one launch: every body loads its state once, takes all the steps in registers, writes the samples
// that fall in the window straight into a device sample buffer ([sample][channel][body]) and
// stores its state once; the window is then reduced by the attached DeviceStatistics, if any
// (device_statistics.hpp), and copied to the caller's host SampleView (unless its data is null).
// launch() and complete() split advance in two, so that a run loop keeps the GPU busy: launch
// queues the kernel, the reduction (on the kernels' stream) and the copy (on a copy stream of its
// own, after the kernel), and returns; two launches may be in flight, each with its own device
// sample buffer, so that the copy of one window into pinned host memory overlaps the next launch.
// Over an adaptive stepper (AdaptiveHht<Integrator>) a launch advances every body through the next
// output times with its own t and h, as CpuEnsemble does, and keeps the step records on the device.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_stream.hpp"
#include "device_array.cuh"
#include "device_statistics.hpp"
#include "ensemble_kernels.cuh"
#include "step_order.hpp"
#include "host/body_validation.hpp"
#include "host/step_records.hpp"
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
  /// Per-body adaptive steps (AdaptiveHht): h is the output spacing.
  static constexpr bool adaptive = is_adaptive_stepper<Integrator>::value;
  /// Host memory for sample windows whose copies overlap the next launch.
  template <class T>
  using HostVector = PinnedVector<T>;

  /// One model (per-body parameters) per body, uploaded once; the current CUDA device is used.
  CudaEnsemble(const Integrator& integrator, std::vector<Model> models, S t0, S h)
      : integrator_((check_settings(integrator), integrator)),
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
        failed_step_host_(models_host_.size(), -1),
        accepted_(adaptive ? models_host_.size() : 0),
        rejected_(adaptive ? models_host_.size() : 0),
        smallest_(adaptive ? models_host_.size() : 0),
        largest_(adaptive ? models_host_.size() : 0),
        step_order_(adaptive ? index_t(models_host_.size()) : 0) {
    check(cudaGetDevice(&device_), "cudaGetDevice");
  }

  index_t bodies() const { return n_; }
  index_t steps_done() const { return steps_done_; }

  /// As CpuEnsemble::initialize: bad bodies throw (named with their fields) before anything runs,
  /// or with skip_invalid are marked invalid_input and never advance.
  void initialize(const std::vector<Kinematics>& initial, const SampleView<S>& out, bool skip_invalid = false) {
    complete_all();
    for (index_t i : invalid_bodies(models_host_, initial, skip_invalid)) {
      status_host_[i] = Status::invalid_input;
      failed_step_host_[i] = 0;
    }
    status_.upload(status_host_);
    if constexpr (adaptive) initial_order_ = DeviceArray<S>(initial_order_keys(initial));
    const DeviceArray<Kinematics> d_initial(initial);
    Buffer& b = buffers_[next_];
    const Window window = window_for(b, out, 0, 0);
    b.started.record();
    if (n_) {
      if constexpr (adaptive)
        initialize_bodies_adaptive<<<blocks_for(n_), block_size>>>(integrator_, models_.data(), d_initial.data(), soa(),
                                                                   record(), adaptive_record(), t0_, window.device_view);
      else
        initialize_bodies<<<blocks_for(n_), block_size>>>(integrator_, models_.data(), d_initial.data(), soa(),
                                                          record(), t0_, window.device_view);
      check(cudaGetLastError(), "initialize_bodies launch");
    }
    finish_launch(b, window);
    complete();
    steps_done_ = 0;
  }

  /// Advance every body by `steps` steps (adaptive: through the next `steps` output times) in one
  /// launch; a failed body stops, the others go on. Returns with the window's samples in `out`.
  void advance(index_t steps, const SampleView<S>& out) {
    launch(steps, out);
    complete();
  }

  /// advance() without the wait: the kernel, the reduction of its samples and their copy into
  /// `out` are queued, and `out` holds the samples once complete() has returned for this launch
  /// (launches complete in order). At most two launches are in flight. The copy overlaps the next
  /// launch when `out` is page-locked (HostVector); into pageable memory, launch returns only when
  /// the copy is done.
  void launch(index_t steps, const SampleView<S>& out) {
    if (in_flight_ == 2) throw std::logic_error("CudaEnsemble::launch: two launches in flight already (complete() first)");
    Buffer& b = buffers_[next_];
    const Window window = window_for(b, out, steps_done_ + 1, steps_done_ + steps);
    b.started.record();
    if (n_ && steps > 0) {
      if constexpr (adaptive)
        advance_bodies_adaptive<<<blocks_for(n_), block_size>>>(
            integrator_, models_.data(), soa(), record(), adaptive_record(), step_order_.sort(order_keys()), t0_, h_,
            steps_done_, steps, window.device_view);
      else
        advance_bodies<<<blocks_for(n_), block_size>>>(integrator_, models_.data(), soa(), record(), t0_, h_,
                                                       steps_done_, steps, window.device_view);
      check(cudaGetLastError(), "advance_bodies launch");
    }
    finish_launch(b, window);
    steps_done_ += steps;
  }

  /// Waits for the oldest launch in flight (none: returns): its samples are in its window, reduced
  /// into the attached statistics; a kernel's error is thrown here.
  void complete() {
    if (in_flight_ == 0) return;
    Buffer& b = buffers_[(next_ + in_flight_) % 2];  // two buffers: the oldest is next_ again when both fly
    (b.copying ? b.copied : b.ended).wait("kernel execution");
    kernel_seconds_ += b.ended.seconds_since(b.started);
    --in_flight_;
  }
  /// The GPU's time in the kernels completed so far (CUDA events around each launch).
  double kernel_seconds() const { return kernel_seconds_; }

  /// Every later sample (initialize's and advance's windows) also feeds `statistics` on the device.
  void attach_statistics(DeviceStatistics* statistics) { statistics_ = statistics; }

  const std::vector<Status>& status() const { return fetch_records(), status_host_; }
  const std::vector<index_t>& newton_iterations() const { return fetch_records(), iterations_host_; }
  const std::vector<index_t>& failed_step() const { return fetch_records(), failed_step_host_; }
  const Model& model(index_t i) const { return models_host_[i]; }
  const Integrator& integrator() const { return integrator_; }
  /// Sample k's time, t0 + k·h (adaptive steps: where advance() samples each body by dense output).
  S sample_time(index_t k) const { return t0_ + S(k) * h_; }
  /// Every body's state in device memory, [component][body] (no copy), on CUDA device device().
  const S* device_state() const { return state_.data(); }
  int device() const { return device_; }
  /// Body i's state, copied from the device.
  State state(index_t i) const {
    State s;
    for (int c = 0; c < State::size; ++c) s[c] = state_.at(c * n_ + i);
    return s;
  }
  /// Body i's orientation and rates from its state (as CpuEnsemble::kinematics).
  Kinematics kinematics(index_t i) const { return integrator_.kinematics(models_host_[i], state(i)); }
  /// Every body's state, [component][body], copied from the device: with the records and
  /// steps_done(), a checkpoint (as CpuEnsemble::state_data).
  std::vector<S> state_data() const {
    std::vector<S> host;
    state_.download(host);
    return host;
  }
  /// Continue from a checkpoint taken of the same bodies (as CpuEnsemble::import_state).
  void import_state(const std::vector<S>& state, std::vector<Status> status, std::vector<index_t> iterations,
                    std::vector<index_t> failed_step, index_t steps_done) {
    const std::size_t n = models_host_.size();
    if (state.size() != state_.size() || status.size() != n || iterations.size() != n || failed_step.size() != n)
      throw std::invalid_argument("import_state: a checkpoint of " + std::to_string(status.size()) + " bodies for an "
                                  "ensemble of " + std::to_string(n));
    complete_all();
    state_.upload(state);
    status_host_ = std::move(status), iterations_host_ = std::move(iterations), failed_step_host_ = std::move(failed_step);
    status_.upload(status_host_), iterations_.upload(iterations_host_), failed_step_.upload(failed_step_host_);
    records_on_host_ = true;
    steps_done_ = steps_done;
  }
  /// Adaptive: every body's step records, copied from the device (empty for fixed steps), and back
  /// from a checkpoint (as CpuEnsemble's).
  StepRecords step_records() const {
    StepRecords r;
    if constexpr (adaptive) {  // no copies of empty arrays for fixed steps
      std::vector<S> smallest, largest;
      accepted_.download(r.accepted), rejected_.download(r.rejected);
      smallest_.download(smallest), largest_.download(largest);
      r.smallest.assign(smallest.begin(), smallest.end()), r.largest.assign(largest.begin(), largest.end());
    }
    return r;
  }
  void import_step_records(const StepRecords& r) {
    const std::size_t n = accepted_.size();
    if (r.accepted.size() != n || r.rejected.size() != n || r.smallest.size() != n || r.largest.size() != n)
      throw std::invalid_argument("import_step_records: records of " + std::to_string(r.accepted.size()) +
                                  " bodies for an ensemble of " + std::to_string(n) + " adaptive bodies");
    if constexpr (adaptive) {
      accepted_.upload(r.accepted), rejected_.upload(r.rejected);
      smallest_.upload(std::vector<S>(r.smallest.begin(), r.smallest.end()));
      largest_.upload(std::vector<S>(r.largest.begin(), r.largest.end()));
    }
  }

 private:
  static void check_settings(const Integrator& integrator) {
    if constexpr (adaptive) integrator.validate();
    else keys::check(integrator.settings);
  }
  /// What an adaptive launch orders its bodies by (step_order.hpp): their next step sizes, or before
  /// the first launch, where every h is still h_initial, their initial spin.
  const S* order_keys() const {
    return steps_done_ == 0 && initial_order_.size() ? initial_order_.data()
                                                     : state_.data() + Integrator::State::next_step_component * n_;
  }
  /// The device side of a host sample window for one launch that takes steps [first, last]: the
  /// samples of the window that fall in those steps alone (those the launch writes), in the
  /// ensemble's device sample buffer, copied back into their place in the host window, which keeps
  /// every other sample — as CpuEnsemble writes in place. Copying the whole window back overwrote
  /// the samples of earlier launches with the new buffer's contents (found on the first H100 run).
  struct Window {
    SampleView<S> host_view, device_view;
    index_t begin, end;  ///< samples [begin, end) of the run
    std::size_t size;    ///< scalars of the device window
    /// Where sample `begin` lies in the host window.
    S* host_data() const { return host_view.data + (begin - host_view.first_sample) * host_view.scalars * host_view.bodies; }
  };
  /// One launch's device sample buffer and the events that follow it.
  struct Buffer {
    DeviceArray<S> samples;  ///< [sample][channel][body]
    Event started, ended;    ///< around the kernel
    Event copied{false};     ///< after the copy of its window to the host
    bool copying = false;    ///< a copy of this buffer is queued behind `copied`
  };
  /// The window of `host` for steps [first, last], in buffer `b` (grown when too small: no
  /// allocation per launch), which the kernels' stream may overwrite once its last copy is done.
  Window window_for(Buffer& b, const SampleView<S>& host, index_t first, index_t last) {
    if (host.samples > 0 && host.scalars != sample_scalars)
      throw std::invalid_argument("SampleView holds " + std::to_string(host.scalars) +
                                  " scalars per sample, this integrator writes " + std::to_string(sample_scalars));
    Window w{host, {}, 0, 0, 0};
    w.begin = std::max(host.first_sample, (first + host.stride - 1) / host.stride);
    w.end = std::max(w.begin, std::min(host.first_sample + host.samples, last / host.stride + 1));
    w.size = static_cast<std::size_t>((w.end - w.begin) * host.scalars * host.bodies);
    if (b.copying) check(cudaStreamWaitEvent(nullptr, b.copied.get(), 0), "cudaStreamWaitEvent");
    b.copying = false;
    if (b.samples.size() < w.size) {
      check(cudaDeviceSynchronize(), "kernel execution");  // nothing reads the old buffer any more
      b.samples = DeviceArray<S>(w.size);
    }
    w.device_view = SampleView<S>{b.samples.data(), host.bodies, w.begin, w.end - w.begin, host.stride, host.scalars};
    return w;
  }

  SoaView<S> soa() const { return SoaView<S>{state_.data(), n_}; }
  BodyRecord record() const { return BodyRecord{status_.data(), iterations_.data(), failed_step_.data()}; }
  AdaptiveRecord<S> adaptive_record() const {
    return {accepted_.data(), rejected_.data(), smallest_.data(), largest_.data()};
  }

  /// Queues behind the kernel in `b` the reduction of its window's samples (attached statistics,
  /// on the kernels' stream) and their copy to the host window (a window with data, on the copy
  /// stream); the launch is in flight.
  void finish_launch(Buffer& b, const Window& w) {
    b.ended.record();
    if (statistics_ && w.end > w.begin)
      statistics_->reduce(b.samples.data(), w.begin, w.end - w.begin, sample_scalars,
                          {status_.data(), failed_step_.data(), iterations_.data()});
    if (w.size && w.host_view.data) {
      copies_.wait_for(b.ended);
      b.samples.download_async(w.host_data(), 0, w.size, copies_.get());
      b.copied.record(copies_.get());
      b.copying = true;
    }
    records_on_host_ = false;
    next_ = 1 - next_;
    ++in_flight_;
  }
  void complete_all() {
    while (in_flight_ > 0) complete();
  }
  /// The per-body records on the host, copied when first asked after a launch (a run whose
  /// statistics are reduced on the device asks only at its end).
  void fetch_records() const {
    if (records_on_host_) return;
    status_.download(status_host_);
    iterations_.download(iterations_host_);
    failed_step_.download(failed_step_host_);
    records_on_host_ = true;
  }

  Integrator integrator_;
  std::vector<Model> models_host_;  // for validation messages and host-side kinematics
  index_t n_;
  int device_ = 0;  // where the arrays below live
  S t0_, h_;
  DeviceArray<Model> models_;
  DeviceArray<S> state_;  // [component][body]
  DeviceArray<Status> status_;
  DeviceArray<index_t> iterations_, failed_step_;
  mutable std::vector<Status> status_host_;  // fetch_records()
  mutable std::vector<index_t> iterations_host_, failed_step_host_;
  mutable bool records_on_host_ = true;
  DeviceArray<index_t> accepted_, rejected_;  // adaptive only: AdaptiveRecord
  DeviceArray<S> smallest_, largest_;
  StepOrder step_order_;  // adaptive only: which body each thread steps
  DeviceArray<S> initial_order_;  // adaptive only: the first launch's order keys (initial_order_keys)
  Buffer buffers_[2];  // launch k writes its samples into buffers_[k mod 2]
  int next_ = 0;       // the next launch's buffer
  int in_flight_ = 0;  // launches not yet completed: the last in_flight_ of them
  Stream copies_;      // the windows' copies to the host
  double kernel_seconds_ = 0;
  DeviceStatistics* statistics_ = nullptr;
  index_t steps_done_ = 0;
};

}  // namespace quatstep::cuda
