// Ensemble statistics reduced on the GPU, where the samples are written (issue 16): a run on the
// CUDA backend hands its statistics to the ensemble (Ensemble::attach_statistics), which reduces each
// sample of a launch in device memory; only the summaries leave the GPU, and a statistics-only run
// copies no samples at all. The numbers are the CPU's bit for bit (host/statistics.hpp), for the
// same samples:
//   values      the CPU's lines (statistics/observable_formula.hpp), no FMA contraction
//   mean, std   the exact sums of statistics/exact_sum.hpp, as 64-bit integer atomics on the
//               superaccumulator's limbs, each thread's values summed in registers first
//               (statistics/limb_window.hpp; integer addition is associative: any order, same bits),
//               rounded on the host by the CPU's code (Accumulator::from_state … summary)
//   min, max    integer atomics on total_order_key (the CPU's total order, −0 before +0)
//   histogram   locate_bin, the CPU's binning, counted with integer atomics
//   quantiles   exact order statistics from a CUB radix sort of the finite values' total_order_keys
//               (integers in total_less's order; a radix sort of the doubles themselves would put a
//               negative NaN first and take ±0 as equal), gathered on the device at the CPU's ranks,
//               interpolated on the host by the CPU's quantile_value
// tests/gpu/device_statistics_test.cu checks the identity on buffers with NaN, ±inf, ±0, subnormals
// and failed bodies. The implementation is kernels/device_statistics.cu; this header is plain C++.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "host/statistics/ensemble_statistics.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/status.hpp"

namespace quatstep::cuda {

class DeviceStatistics {
 public:
  /// Whether `spec`, bound to `layout`, can be reduced on the GPU over `bodies` bodies: every
  /// observable reads at most 8 scalars, has at most max_bins bins, and bodies < 2^30 (so that no
  /// limb's sum can overflow). StatisticsError for an observable that does not bind.
  static bool supports(const statistics::StatisticsSpec& spec, const statistics::ChannelLayout& layout, index_t bodies);
  static constexpr int max_bins = 4096;

  /// The observables of `sampled` bound to the run's sampled channels `layout`, and those of
  /// `newton` to the channel newton_iterations (iterations per step since the previous sample, from
  /// the bodies' running totals, as the CPU's run loop computes them), over `bodies` bodies whose
  /// samples are `steps_per_sample` steps apart. Needs supports(sampled, layout, bodies) and a
  /// current device. At most `max_pending` samples (0: as many as 64 MB of slots hold, 1 … 64) are
  /// reduced on the device before the host collects their integers in one copy.
  DeviceStatistics(const statistics::StatisticsSpec& sampled, const statistics::ChannelLayout& layout,
                   const statistics::StatisticsSpec& newton, index_t bodies, index_t steps_per_sample,
                   int max_pending = 0);
  ~DeviceStatistics();
  DeviceStatistics(const DeviceStatistics&) = delete;
  DeviceStatistics& operator=(const DeviceStatistics&) = delete;

  /// The bodies' records on the device, as of the samples reduced next.
  struct Records {
    const Status* status;
    const index_t* failed_step;
    const index_t* newton_iterations;  ///< running totals
  };
  /// Samples [first, first + count) of a device buffer in SampleView's layout ([sample][scalar][body],
  /// `scalars` scalars per body), over the bodies healthy at each sample by `records` (as
  /// EnsembleStatistics::add): one ReducedSample per sample, kept for take(). The work is
  /// enqueued on the default stream after what reads `samples` and `records`; the host waits only
  /// when the slots are full. Sample 0 also stores
  /// the drifts' x₀. With Newton observables, one sample per call (count 1: the totals are the
  /// sample's).
  void reduce(const double* samples, index_t first, index_t count, int scalars, const Records& records);
  void reduce(const float* samples, index_t first, index_t count, int scalars, const Records& records);

  /// The samples reduced since the last take and below sample `end`, from sample `first` on
  /// (first = −1 when there are none); waits for their reductions alone, not for later work on the
  /// GPU (the next launch of a pipelined run).
  std::vector<statistics::ReducedSample> take(index_t& first, index_t end = std::numeric_limits<index_t>::max());
  /// The GPU time of the reductions taken so far (CUDA events around each sample's work).
  double gpu_seconds() const;

  /// The drifts' x₀ of sampled observable k (EnsembleStatistics::initial_values' layout) and the
  /// bodies' iteration totals at the last sample, and back from a checkpoint.
  std::vector<double> initial_values(std::size_t k) const;
  void restore_initial_values(std::size_t k, const std::vector<double>& values);
  std::vector<index_t> iterations_at_sample() const;
  void restore_iterations_at_sample(const std::vector<index_t>& totals);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quatstep::cuda
