// DeviceStatistics (device_statistics.hpp): per sample, one kernel evaluates every observable of
// every healthy body and adds it to its observable's exact sums, extremes and histogram (block-wide
// in shared memory, then once per block into global memory, all with integer atomics); with
// quantiles, the finite values are also written out as total_order_key integers (doubles would not
// sort as the CPU's total_less does: CUB orders a negative NaN first and takes ±0 as equal),
// radix-sorted per observable (CUB), and the order statistics the levels need gathered. The host
// turns the integers into summaries with the CPU's code. Compiled with --fmad=false
// (kernels/CMakeLists.txt): the values are the CPU's bits.
#include "kernels/device_statistics.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/scenario.hpp"  // newton_iterations_channel
#include "host/statistics/accumulator.hpp"
#include "host/statistics/observable_formula.hpp"
#include "kernels/device_array.cuh"

namespace quatstep::cuda {
namespace {

using statistics::ObservableFormula;
constexpr int limbs = statistics::ExactSum::limbs;
constexpr int max_scalars_read = 8;
constexpr int reduce_block = 256;

/// One observable's integers over the healthy bodies of one sample. The limbs are int64 added as
/// unsigned (two's complement): bodies < 2^30 values of at most two pieces < 2^32 per limb cannot
/// overflow them.
struct DeviceAccumulator {
  unsigned long long sum[limbs], sum_of_squares[limbs];
  unsigned long long count, nonfinite, below, above;
  long long min_key, max_key;
  int squares_overflow;  ///< some x² overflowed: the sum of squares is +inf (ExactSum's special)
};

/// What the kernel needs of one observable.
struct ObservableOnDevice {
  ObservableFormula formula;
  int bins;              ///< 0: no histogram
  const double* edges;   ///< bins + 1
  double* initial;       ///< bodies × formula.initial_width(): the drifts' x₀
};

__global__ void clear_accumulators(DeviceAccumulator* acc, int observables) {
  const int k = blockIdx.x;
  if (k >= observables) return;
  DeviceAccumulator& a = acc[k];
  for (int l = threadIdx.x; l < limbs; l += blockDim.x) a.sum[l] = a.sum_of_squares[l] = 0;
  if (threadIdx.x == 0) {
    a.count = a.nonfinite = a.below = a.above = 0;
    a.min_key = statistics::total_order_key(INFINITY);
    a.max_key = statistics::total_order_key(-INFINITY);
    a.squares_overflow = 0;
  }
}

__device__ void add_pieces(unsigned long long* limb, double x) {
  const statistics::LimbPieces v = statistics::limb_pieces(x);
  for (int k = 0; k < 3; ++k)
    if (v.d[k]) atomicAdd(&limb[v.limb + k], static_cast<unsigned long long>(v.negative ? -v.d[k] : v.d[k]));
}

/// Observable blockIdx.y of bodies blockIdx.x, blockIdx.x + gridDim.x, … (in blocks of
/// reduce_block) of one sample (`sample`: [scalar][body]); bodies are healthy as in
/// EnsembleStatistics::add. `keys` (observables × n; null without quantiles) receives each body's
/// finite value as its total_order_key, INT64_MAX for the others (sorted last).
template <class S>
__global__ void __launch_bounds__(reduce_block)
    reduce_sample(const S* __restrict__ sample, index_t n, const ObservableOnDevice* __restrict__ observables,
                  const Status* __restrict__ status, const index_t* __restrict__ failed_step, index_t last_valid_step,
                  bool first_sample, DeviceAccumulator* acc, unsigned long long* histograms, int histogram_stride,
                  long long* keys) {
  extern __shared__ unsigned long long bin_count[];  // this observable's bins
  __shared__ unsigned long long sum[limbs], squares[limbs], counts[4];  // count, nonfinite, below, above
  __shared__ long long lowest, highest;
  __shared__ int overflow;
  const int k = blockIdx.y;
  const ObservableOnDevice o = observables[k];
  for (int l = threadIdx.x; l < limbs; l += blockDim.x) sum[l] = squares[l] = 0;
  for (int b = threadIdx.x; b < o.bins; b += blockDim.x) bin_count[b] = 0;
  if (threadIdx.x < 4) counts[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    lowest = statistics::total_order_key(INFINITY);
    highest = statistics::total_order_key(-INFINITY);
    overflow = 0;
  }
  __syncthreads();

  ObservableFormula f = o.formula;  // reading a local copy of the scalars it needs
  const int offset = f.offset, width = f.initial_width();
  f.offset = 0;
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    long long key = INT64_MAX;
    if (status[i] == Status::ok || failed_step[i] >= last_valid_step) {
      double body[max_scalars_read];
      for (int c = 0; c < f.components; ++c) body[c] = double(sample[(offset + c) * n + i]);
      double* initial = o.initial + i * width;
      if (first_sample) f.capture_initial(body, 1, initial);
      const double x = f.evaluate(body, 1, initial);
      if (!isfinite(x)) {
        atomicAdd(&counts[1], 1ull);
      } else {
        atomicAdd(&counts[0], 1ull);
        add_pieces(sum, x);
        double p, e;
        statistics::square_terms(x, p, e);
        if (isfinite(p)) {
          add_pieces(squares, p);
          add_pieces(squares, e);
        } else {
          overflow = 1;
        }
        key = statistics::total_order_key(x);
        atomicMin(&lowest, key);
        atomicMax(&highest, key);
        if (o.bins) {
          const int b = statistics::locate_bin(o.edges, o.bins, x);
          atomicAdd(b < 0 ? &counts[2] : b >= o.bins ? &counts[3] : &bin_count[b], 1ull);
        }
      }
    }
    if (keys) keys[k * n + i] = key;
  }
  __syncthreads();

  DeviceAccumulator& a = acc[k];
  for (int l = threadIdx.x; l < limbs; l += blockDim.x) {
    if (sum[l]) atomicAdd(&a.sum[l], sum[l]);
    if (squares[l]) atomicAdd(&a.sum_of_squares[l], squares[l]);
  }
  for (int b = threadIdx.x; b < o.bins; b += blockDim.x)
    if (bin_count[b]) atomicAdd(&histograms[k * histogram_stride + b], bin_count[b]);
  if (threadIdx.x == 0) {
    atomicAdd(&a.count, counts[0]), atomicAdd(&a.nonfinite, counts[1]);
    atomicAdd(&a.below, counts[2]), atomicAdd(&a.above, counts[3]);
    atomicMin(&a.min_key, lowest), atomicMax(&a.max_key, highest);
    if (overflow) a.squares_overflow = 1;
  }
}

__global__ void gather(const long long* __restrict__ sorted, const index_t* __restrict__ at, index_t count, long long* out) {
  const index_t t = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (t < count) out[t] = sorted[at[t]];
}

unsigned blocks(index_t n, int size) { return unsigned((n + size - 1) / size); }

/// Per sample and body: iterations per step since the previous sample (NaN at sample 0, before any
/// step), as host/run.cpp's RunStatistics computes them; the totals become the new reference.
__global__ void iterations_per_step(const index_t* __restrict__ total, index_t* at_sample, index_t n, bool first_sample,
                                    index_t stride, double* per_step) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  per_step[i] = first_sample ? std::numeric_limits<double>::quiet_NaN() : double(total[i] - at_sample[i]) / double(stride);
  at_sample[i] = total[i];
}

/// The observables of one spec over one channel layout: the device side of EnsembleStatistics.
class Reduction {
 public:
  Reduction(const statistics::StatisticsSpec& spec, const statistics::ChannelLayout& layout, index_t bodies,
            index_t steps_per_sample)
      : n_(bodies), steps_per_sample_(steps_per_sample), levels_(spec.quantile_levels) {
    std::vector<ObservableOnDevice> on_device;
    for (const statistics::ObservableSpec& o : spec.observables) {
      const ObservableFormula f = o.observable.bind(layout).formula();
      bins_.push_back(o.bins ? std::make_shared<const statistics::Bins>(*o.bins) : nullptr);
      const int nb = o.bins ? o.bins->count() : 0;
      histogram_stride_ = std::max(histogram_stride_, nb);
      edges_.emplace_back(o.bins ? o.bins->edges() : std::vector<double>{});
      initial_.emplace_back(std::vector<double>(std::size_t(f.initial_width() * bodies), std::numeric_limits<double>::quiet_NaN()));
      on_device.push_back({f, nb, edges_.back().data(), initial_.back().data()});
    }
    observables_ = DeviceArray<ObservableOnDevice>(on_device);
    accumulators_ = DeviceArray<DeviceAccumulator>(on_device.size());
    histograms_ = DeviceArray<unsigned long long>(on_device.size() * std::size_t(histogram_stride_));
    int device = 0, sms = 1;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    // About 16 blocks per SM over all observables: each block folds many bodies before its global atomics.
    grid_x_ = std::max(1u, std::min(blocks(bodies, reduce_block), unsigned(16 * sms / std::max<std::size_t>(1, on_device.size()))));
    if (!levels_.empty() && bodies > 0 && !on_device.empty()) {
      keys_ = DeviceArray<long long>(on_device.size() * std::size_t(bodies));
      sorted_ = DeviceArray<long long>(on_device.size() * std::size_t(bodies));
      check(cub::DeviceRadixSort::SortKeys(static_cast<void*>(nullptr), sort_bytes_, keys_.data(), sorted_.data(),
                                           int(bodies)),
            "cub::DeviceRadixSort::SortKeys (size)");
      sort_storage_ = DeviceArray<unsigned char>(std::max<std::size_t>(sort_bytes_, 1));
    }
  }

  std::size_t size() const { return bins_.size(); }
  DeviceArray<double>& initial(std::size_t k) { return initial_.at(k); }

  /// Sample j ([scalar][body] at `sample`): one summary per observable.
  template <class S>
  std::vector<statistics::Summary> reduce(const S* sample, index_t j, const Status* status, const index_t* failed_step) {
    const int k_count = int(size());
    if (k_count == 0) return {};
    clear_accumulators<<<k_count, 128>>>(accumulators_.data(), k_count);
    if (histograms_.size()) check(cudaMemset(histograms_.data(), 0, histograms_.size() * sizeof(unsigned long long)), "cudaMemset");
    reduce_sample<S><<<dim3(grid_x_, k_count), reduce_block, histogram_stride_ * sizeof(unsigned long long)>>>(
        sample, n_, observables_.data(), status, failed_step, j * steps_per_sample_, j == 0, accumulators_.data(),
        histograms_.data(), histogram_stride_, keys_.data());
    check(cudaGetLastError(), "reduce_sample launch");
    std::vector<DeviceAccumulator> acc;
    std::vector<unsigned long long> hist;
    accumulators_.download(acc);
    histograms_.download(hist);

    std::vector<statistics::Summary> row;
    for (int k = 0; k < k_count; ++k) {
      const DeviceAccumulator& a = acc[std::size_t(k)];
      statistics::AccumulatorState st;
      st.count = std::int64_t(a.count), st.nonfinite = std::int64_t(a.nonfinite);
      for (int l = 0; l < limbs; ++l)
        st.sum.limb[l] = std::int64_t(a.sum[l]), st.sum_of_squares.limb[l] = std::int64_t(a.sum_of_squares[l]);
      statistics::propagate_carries(st.sum.limb.data(), limbs);
      statistics::propagate_carries(st.sum_of_squares.limb.data(), limbs);
      st.sum_of_squares.special = a.squares_overflow ? std::numeric_limits<double>::infinity() : 0.0;
      st.min = statistics::from_total_order_key(a.min_key), st.max = statistics::from_total_order_key(a.max_key);
      if (bins_[k]) {
        const auto* h = hist.data() + std::size_t(k) * histogram_stride_;
        st.histogram.assign(h, h + bins_[k]->count());
        st.below = std::int64_t(a.below), st.above = std::int64_t(a.above);
      }
      row.push_back(statistics::Accumulator::from_state(std::move(st), false, bins_[k]).summary({}));
    }
    if (!levels_.empty()) add_quantiles(row);
    return row;
  }

 private:
  /// Each observable's finite values sorted (as total_order_key: INT64_MAX marks the others, sorted
  /// last), then the order statistics the levels need at ranks of its count.
  void add_quantiles(std::vector<statistics::Summary>& row) {
    std::vector<index_t> at;
    for (std::size_t k = 0; k < size(); ++k) {
      const std::int64_t count = row[k].count;
      row[k].quantiles.assign(levels_.size(), std::numeric_limits<double>::quiet_NaN());
      if (count == 0) continue;
      check(cub::DeviceRadixSort::SortKeys(sort_storage_.data(), sort_bytes_, keys_.data() + k * n_,
                                           sorted_.data() + k * n_, int(n_)),
            "cub::DeviceRadixSort::SortKeys");
      for (double p : levels_) {
        const statistics::QuantileRank r = statistics::quantile_rank(std::size_t(count), p);
        at.push_back(index_t(k) * n_ + index_t(r.k));
        at.push_back(index_t(k) * n_ + index_t(r.interpolates ? r.k + 1 : r.k));
      }
    }
    if (at.empty()) return;
    const DeviceArray<index_t> d_at(at);
    DeviceArray<long long> d_out(at.size());
    gather<<<blocks(index_t(at.size()), 128), 128>>>(sorted_.data(), d_at.data(), index_t(at.size()), d_out.data());
    check(cudaGetLastError(), "gather launch");
    std::vector<long long> keys;
    d_out.download(keys);
    std::vector<double> out;
    for (long long key : keys) out.push_back(statistics::from_total_order_key(key));
    std::size_t t = 0;
    for (std::size_t k = 0; k < size(); ++k) {
      if (row[k].count == 0) continue;
      for (std::size_t l = 0; l < levels_.size(); ++l, t += 2)
        row[k].quantiles[l] = statistics::quantile_value(statistics::quantile_rank(std::size_t(row[k].count), levels_[l]),
                                                         out[t], out[t + 1]);
    }
  }

  index_t n_, steps_per_sample_;
  std::vector<double> levels_;
  std::vector<std::shared_ptr<const statistics::Bins>> bins_;
  int histogram_stride_ = 0;  // the most bins of an observable
  unsigned grid_x_ = 1;
  std::vector<DeviceArray<double>> edges_, initial_;
  DeviceArray<ObservableOnDevice> observables_;
  DeviceArray<DeviceAccumulator> accumulators_;
  DeviceArray<unsigned long long> histograms_;
  DeviceArray<long long> keys_, sorted_;  // quantiles only: observables × n total_order_keys
  DeviceArray<unsigned char> sort_storage_;
  std::size_t sort_bytes_ = 0;
};

}  // namespace

struct DeviceStatistics::Impl {
  Impl(const statistics::StatisticsSpec& sampled_spec, const statistics::ChannelLayout& layout,
       const statistics::StatisticsSpec& newton_spec, index_t bodies, index_t steps_per_sample)
      : n(bodies),
        stride(steps_per_sample),
        sampled(sampled_spec, layout, bodies, steps_per_sample),
        newton(newton_spec, statistics::ChannelLayout({{newton_iterations_channel, 0, 1}}), bodies, steps_per_sample),
        at_sample(newton_spec.observables.empty() ? 0 : std::size_t(bodies)),
        per_step(newton_spec.observables.empty() ? 0 : std::size_t(bodies)) {
    if (at_sample.size()) check(cudaMemset(at_sample.data(), 0, at_sample.size() * sizeof(index_t)), "cudaMemset");
  }

  template <class S>
  void reduce(const S* samples, index_t first_sample, index_t count, int scalars, const Records& r) {
    if (newton.size() && count > 1)
      throw std::logic_error("DeviceStatistics: Newton iterations need one sample per reduce");
    for (index_t j = 0; j < count; ++j) {
      const index_t sample = first_sample + j;
      if (first < 0) first = sample;
      if (sample != first + index_t(rows.size()))
        throw std::logic_error("DeviceStatistics: sample " + std::to_string(sample) + " out of order");
      statistics::ReducedSample row;
      row.sampled = sampled.reduce(samples + j * scalars * n, sample, r.status, r.failed_step);
      if (newton.size()) {
        iterations_per_step<<<blocks(n, 256), 256>>>(r.newton_iterations, at_sample.data(), n, sample == 0, stride,
                                                     per_step.data());
        check(cudaGetLastError(), "iterations_per_step launch");
        row.newton = newton.reduce(per_step.data(), sample, r.status, r.failed_step);
      }
      rows.push_back(std::move(row));
    }
  }

  index_t n, stride;
  Reduction sampled, newton;
  DeviceArray<index_t> at_sample;  // newton only: the totals at the last sample
  DeviceArray<double> per_step;
  index_t first = -1;
  std::vector<statistics::ReducedSample> rows;
};

bool DeviceStatistics::supports(const statistics::StatisticsSpec& spec, const statistics::ChannelLayout& layout,
                                index_t bodies) {
  if (bodies >= (index_t(1) << 30)) return false;
  for (const statistics::ObservableSpec& o : spec.observables) {
    const ObservableFormula f = o.observable.bind(layout).formula();
    if (f.components > max_scalars_read || (o.bins && o.bins->count() > max_bins)) return false;
  }
  return true;
}

DeviceStatistics::DeviceStatistics(const statistics::StatisticsSpec& sampled, const statistics::ChannelLayout& layout,
                                   const statistics::StatisticsSpec& newton, index_t bodies, index_t steps_per_sample) {
  if (!supports(sampled, layout, bodies)) throw std::invalid_argument("DeviceStatistics: a spec the GPU reduction does not support");
  impl_ = std::make_unique<Impl>(sampled, layout, newton, bodies, steps_per_sample);
}

DeviceStatistics::~DeviceStatistics() = default;

void DeviceStatistics::reduce(const double* samples, index_t first, index_t count, int scalars, const Records& records) {
  impl_->reduce(samples, first, count, scalars, records);
}
void DeviceStatistics::reduce(const float* samples, index_t first, index_t count, int scalars, const Records& records) {
  impl_->reduce(samples, first, count, scalars, records);
}

std::vector<statistics::ReducedSample> DeviceStatistics::take(index_t& first) {
  first = impl_->first;
  impl_->first = -1;
  return std::exchange(impl_->rows, {});
}

std::vector<double> DeviceStatistics::initial_values(std::size_t k) const {
  std::vector<double> v;
  impl_->sampled.initial(k).download(v);
  return v;
}

void DeviceStatistics::restore_initial_values(std::size_t k, const std::vector<double>& values) {
  DeviceArray<double>& d = impl_->sampled.initial(k);
  if (values.size() != d.size())
    throw std::invalid_argument("DeviceStatistics: " + std::to_string(values.size()) + " initial values for observable " +
                                std::to_string(k) + ", needs " + std::to_string(d.size()));
  d.upload(values);
}

std::vector<index_t> DeviceStatistics::iterations_at_sample() const {
  std::vector<index_t> v;
  impl_->at_sample.download(v);
  return v;
}

void DeviceStatistics::restore_iterations_at_sample(const std::vector<index_t>& totals) {
  if (totals.size() != impl_->at_sample.size())
    throw std::invalid_argument("DeviceStatistics: " + std::to_string(totals.size()) + " iteration totals, needs " +
                                std::to_string(impl_->at_sample.size()));
  impl_->at_sample.upload(totals);
}

}  // namespace quatstep::cuda
