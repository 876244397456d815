// DeviceStatistics (device_statistics.hpp): per sample, one kernel evaluates every observable of
// every healthy body and adds it to its observable's exact sums, extremes and histogram (each
// thread's bodies first in registers — LimbWindow for the sums —, then block-wide in shared memory,
// then once per block into global memory, all with integer atomics); with quantiles, the finite
// values are also written out as total_order_key integers (doubles would not sort as the CPU's
// total_less does: CUB orders a negative NaN first and takes ±0 as equal), radix-sorted per
// observable (CUB), and the order statistics the levels need gathered on the device. Each sample's
// integers go to a slot of their own; the host copies the slots of every sample reduced so far in
// one transfer when it takes them (or when the slots are full) and turns them into summaries with
// the CPU's code, so reducing a sample costs the GPU no wait on the host. Compiled with
// --fmad=false (kernels/CMakeLists.txt): the values are the CPU's bits.
#include "kernels/device_statistics.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/scenario.hpp"  // newton_iterations_channel
#include "host/statistics/accumulator.hpp"
#include "host/statistics/limb_window.hpp"
#include "host/statistics/observable_formula.hpp"
#include "kernels/cuda_stream.hpp"
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

  // This thread's bodies, held in registers until the end: the sums in limb windows, handed on to
  // the block's limbs only when a value leaves its window.
  const auto to_sum = [&](int l, std::int64_t s) { atomicAdd(&sum[l], static_cast<unsigned long long>(s)); };
  const auto to_squares = [&](int l, std::int64_t s) { atomicAdd(&squares[l], static_cast<unsigned long long>(s)); };
  statistics::LimbWindow values, square_parts, square_errors;
  unsigned long long finite = 0, nonfinite = 0, below = 0, above = 0;
  long long low = statistics::total_order_key(INFINITY), high = statistics::total_order_key(-INFINITY);
  bool squares_overflow = false;

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
        ++nonfinite;
      } else {
        ++finite;
        values.add(statistics::limb_pieces(x), to_sum);
        double p, e;
        statistics::square_terms(x, p, e);
        if (isfinite(p)) {  // x² = p + e, both added (ExactSum::add_square)
          square_parts.add(statistics::limb_pieces(p), to_squares);
          square_errors.add(statistics::limb_pieces(e), to_squares);
        } else {
          squares_overflow = true;
        }
        key = statistics::total_order_key(x);
        low = key < low ? key : low;
        high = key > high ? key : high;
        if (o.bins) {
          const int b = statistics::locate_bin(o.edges, o.bins, x);
          if (b < 0) ++below;
          else if (b >= o.bins) ++above;
          else atomicAdd(&bin_count[b], 1ull);
        }
      }
    }
    if (keys) keys[k * n + i] = key;
  }
  values.drain(to_sum), square_parts.drain(to_squares), square_errors.drain(to_squares);
  if (finite) atomicAdd(&counts[0], finite), atomicMin(&lowest, low), atomicMax(&highest, high);
  if (nonfinite) atomicAdd(&counts[1], nonfinite);
  if (below) atomicAdd(&counts[2], below);
  if (above) atomicAdd(&counts[3], above);
  if (squares_overflow) overflow = 1;
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

/// Per observable (block k): the order statistics x_(k), x_(k+1) that each level's type-7 quantile
/// needs (quantile_rank_of_checked_level, as the CPU) of its `count` finite values, sorted first in `sorted`
/// (n per observable), into out[(k·levels + l)·2 + {0, 1}]; nothing for an observable without values.
__global__ void gather_order_statistics(const long long* __restrict__ sorted, index_t n,
                                        const DeviceAccumulator* __restrict__ acc, const double* __restrict__ levels,
                                        int level_count, long long* out) {
  const int k = blockIdx.x;
  const std::size_t count = std::size_t(acc[k].count);
  if (count == 0) return;
  for (int l = threadIdx.x; l < level_count; l += blockDim.x) {
    const statistics::QuantileRank r = statistics::quantile_rank_of_checked_level(count, levels[l]);
    long long* x = out + (std::size_t(k) * level_count + l) * 2;
    x[0] = sorted[k * n + index_t(r.k)];
    x[1] = sorted[k * n + index_t(r.interpolates ? r.k + 1 : r.k)];
  }
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
/// Sample reductions are enqueued into slots (one sample each) and collected in one copy.
class Reduction {
 public:
  Reduction(const statistics::StatisticsSpec& spec, const statistics::ChannelLayout& layout, index_t bodies,
            index_t steps_per_sample, int slots)
      : n_(bodies), steps_per_sample_(steps_per_sample), slots_(slots), levels_(spec.quantile_levels) {
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
    const std::size_t k_count = on_device.size();
    observables_ = DeviceArray<ObservableOnDevice>(on_device);
    accumulators_ = DeviceArray<DeviceAccumulator>(std::size_t(slots_) * k_count);
    histograms_ = DeviceArray<unsigned long long>(std::size_t(slots_) * k_count * std::size_t(histogram_stride_));
    order_statistics_ = DeviceArray<long long>(std::size_t(slots_) * k_count * levels_.size() * 2);
    int device = 0, sms = 1;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    // About 16 blocks per SM over all observables: each block folds many bodies before its global atomics.
    grid_x_ = std::max(1u, std::min(blocks(bodies, reduce_block), unsigned(16 * sms / std::max<std::size_t>(1, k_count))));
    if (!levels_.empty() && bodies > 0 && k_count) {
      levels_on_device_ = DeviceArray<double>(levels_);
      keys_ = DeviceArray<long long>(k_count * std::size_t(bodies));
      sorted_ = DeviceArray<long long>(k_count * std::size_t(bodies));
      check(cub::DeviceRadixSort::SortKeys(static_cast<void*>(nullptr), sort_bytes_, keys_.data(), sorted_.data(),
                                           int(bodies)),
            "cub::DeviceRadixSort::SortKeys (size)");
      sort_storage_ = DeviceArray<unsigned char>(std::max<std::size_t>(sort_bytes_, 1));
    }
  }

  std::size_t size() const { return bins_.size(); }
  DeviceArray<double>& initial(std::size_t k) { return initial_.at(k); }
  /// Device bytes of one slot.
  static std::size_t slot_bytes(std::size_t observables, int most_bins, std::size_t levels) {
    return observables * (sizeof(DeviceAccumulator) + std::size_t(most_bins) * 8 + levels * 2 * 8);
  }

  /// Enqueues the reduction of sample j ([scalar][body] at `sample`) into `slot`: no wait on the host.
  template <class S>
  void enqueue(const S* sample, index_t j, const Status* status, const index_t* failed_step, int slot) {
    const int k_count = int(size());
    if (k_count == 0) return;
    DeviceAccumulator* acc = accumulators_.data() + std::size_t(slot) * k_count;
    unsigned long long* hist = histograms_.data() + std::size_t(slot) * k_count * histogram_stride_;
    clear_accumulators<<<k_count, 128>>>(acc, k_count);
    if (histogram_stride_)
      check(cudaMemsetAsync(hist, 0, std::size_t(k_count) * histogram_stride_ * sizeof(unsigned long long)), "cudaMemsetAsync");
    reduce_sample<S><<<dim3(grid_x_, k_count), reduce_block, histogram_stride_ * sizeof(unsigned long long)>>>(
        sample, n_, observables_.data(), status, failed_step, j * steps_per_sample_, j == 0, acc, hist,
        histogram_stride_, keys_.data());
    check(cudaGetLastError(), "reduce_sample launch");
    if (levels_.empty() || !keys_.size()) return;
    for (int k = 0; k < k_count; ++k)  // the sorted keys of an observable without values are never read
      check(cub::DeviceRadixSort::SortKeys(sort_storage_.data(), sort_bytes_, keys_.data() + k * n_,
                                           sorted_.data() + k * n_, int(n_)),
            "cub::DeviceRadixSort::SortKeys");
    gather_order_statistics<<<k_count, 32>>>(sorted_.data(), n_, acc, levels_on_device_.data(), int(levels_.size()),
                                              order_statistics_.data() + std::size_t(slot) * k_count * levels_.size() * 2);
    check(cudaGetLastError(), "gather_order_statistics launch");
  }

  /// The summaries of slots [first, first + count), in order: one copy of each kind of integer on
  /// `stream`, which the caller has made wait for their reductions, turned into summaries by the
  /// CPU's code.
  std::vector<std::vector<statistics::Summary>> collect(int first, int count, const Stream& stream) {
    const std::size_t k_count = size(), levels = levels_.size(), stride = std::size_t(histogram_stride_);
    std::vector<std::vector<statistics::Summary>> rows(static_cast<std::size_t>(count));
    if (k_count == 0 || count == 0) return rows;
    const std::size_t from = std::size_t(first) * k_count, values = std::size_t(count) * k_count;
    std::vector<DeviceAccumulator> acc(values);
    std::vector<unsigned long long> hist(values * stride);
    std::vector<long long> order(values * levels * 2);
    accumulators_.download_async(acc.data(), from, values, stream.get());
    if (!hist.empty()) histograms_.download_async(hist.data(), from * stride, hist.size(), stream.get());
    if (!order.empty()) order_statistics_.download_async(order.data(), from * levels * 2, order.size(), stream.get());
    stream.synchronize("statistics reduction");
    for (std::size_t s = 0; s < std::size_t(count); ++s)
      for (std::size_t k = 0; k < k_count; ++k) {
        const std::size_t at = s * k_count + k;
        rows[s].push_back(summary(acc[at], hist.data() + at * stride, order.data() + at * levels * 2, k));
      }
    return rows;
  }

 private:
  /// Observable k's summary from its integers (hist: its bins; order: its levels' order statistics).
  statistics::Summary summary(const DeviceAccumulator& a, const unsigned long long* hist, const long long* order,
                              std::size_t k) const {
    statistics::AccumulatorState st;
    st.count = std::int64_t(a.count), st.nonfinite = std::int64_t(a.nonfinite);
    for (int l = 0; l < limbs; ++l)
      st.sum.limb[l] = std::int64_t(a.sum[l]), st.sum_of_squares.limb[l] = std::int64_t(a.sum_of_squares[l]);
    statistics::propagate_carries(st.sum.limb.data(), limbs);
    statistics::propagate_carries(st.sum_of_squares.limb.data(), limbs);
    st.sum_of_squares.special = a.squares_overflow ? std::numeric_limits<double>::infinity() : 0.0;
    st.min = statistics::from_total_order_key(a.min_key), st.max = statistics::from_total_order_key(a.max_key);
    if (bins_[k]) {
      st.histogram.assign(hist, hist + bins_[k]->count());
      st.below = std::int64_t(a.below), st.above = std::int64_t(a.above);
    }
    statistics::Summary row = statistics::Accumulator::from_state(std::move(st), false, bins_[k]).summary({});
    if (!levels_.empty()) {
      row.quantiles.assign(levels_.size(), std::numeric_limits<double>::quiet_NaN());
      if (row.count > 0)
        for (std::size_t l = 0; l < levels_.size(); ++l)
          row.quantiles[l] = statistics::quantile_value(statistics::quantile_rank(std::size_t(row.count), levels_[l]),
                                                        statistics::from_total_order_key(order[2 * l]),
                                                        statistics::from_total_order_key(order[2 * l + 1]));
    }
    return row;
  }

  index_t n_, steps_per_sample_;
  int slots_;
  std::vector<double> levels_;
  std::vector<std::shared_ptr<const statistics::Bins>> bins_;
  int histogram_stride_ = 0;  // the most bins of an observable
  unsigned grid_x_ = 1;
  std::vector<DeviceArray<double>> edges_, initial_;
  DeviceArray<ObservableOnDevice> observables_;
  DeviceArray<DeviceAccumulator> accumulators_;      // [slot][observable]
  DeviceArray<unsigned long long> histograms_;       // [slot][observable][bin]
  DeviceArray<long long> order_statistics_;          // [slot][observable][level][2]
  DeviceArray<double> levels_on_device_;
  DeviceArray<long long> keys_, sorted_;  // quantiles only: observables × n total_order_keys
  DeviceArray<unsigned char> sort_storage_;
  std::size_t sort_bytes_ = 0;
};

/// Samples reduced on the device at once before the host collects them: as many as fit in
/// `budget` bytes of slots, at least 1, at most 64.
int slot_count(const statistics::StatisticsSpec& sampled, const statistics::StatisticsSpec& newton, int max_pending) {
  if (max_pending > 0) return max_pending;
  constexpr std::size_t budget = std::size_t(64) << 20;
  int most_bins = 0;
  for (const statistics::StatisticsSpec* spec : {&sampled, &newton})
    for (const statistics::ObservableSpec& o : spec->observables) most_bins = std::max(most_bins, o.bins ? o.bins->count() : 0);
  const std::size_t bytes = Reduction::slot_bytes(sampled.observables.size() + newton.observables.size(), most_bins,
                                                  sampled.quantile_levels.size());
  return int(std::clamp<std::size_t>(budget / std::max<std::size_t>(bytes, 1), 1, 64));
}

}  // namespace

// Sample s is reduced into slot s mod slots; samples [collected, enqueued) are in their slots,
// reduced or queued for it, the rows of those before `collected` wait in `rows` to be taken.
struct DeviceStatistics::Impl {
  Impl(const statistics::StatisticsSpec& sampled_spec, const statistics::ChannelLayout& layout,
       const statistics::StatisticsSpec& newton_spec, index_t bodies, index_t steps_per_sample, int max_pending)
      : n(bodies),
        stride(steps_per_sample),
        slots(slot_count(sampled_spec, newton_spec, max_pending)),
        sampled(sampled_spec, layout, bodies, steps_per_sample, slots),
        newton(newton_spec, statistics::ChannelLayout({{newton_iterations_channel, 0, 1}}), bodies, steps_per_sample, slots),
        at_sample(newton_spec.observables.empty() ? 0 : std::size_t(bodies)),
        per_step(newton_spec.observables.empty() ? 0 : std::size_t(bodies)),
        started(std::size_t(slots)),
        ended(std::size_t(slots)) {
    if (at_sample.size()) check(cudaMemset(at_sample.data(), 0, at_sample.size() * sizeof(index_t)), "cudaMemset");
  }

  template <class S>
  void reduce(const S* samples, index_t first_sample, index_t count, int scalars, const Records& r) {
    if (newton.size() && count > 1)
      throw std::logic_error("DeviceStatistics: Newton iterations need one sample per reduce");
    for (index_t j = 0; j < count; ++j) {
      const index_t sample = first_sample + j;
      if (enqueued < 0) rows_first = collected = enqueued = sample;
      if (sample != enqueued)
        throw std::logic_error("DeviceStatistics: sample " + std::to_string(sample) + " out of order");
      if (enqueued - collected == slots) collect(enqueued);  // every slot in use: the host waits
      const std::size_t slot = std::size_t(sample % slots);
      started[slot].record();
      sampled.enqueue(samples + j * scalars * n, sample, r.status, r.failed_step, int(slot));
      if (newton.size()) {
        iterations_per_step<<<blocks(n, 256), 256>>>(r.newton_iterations, at_sample.data(), n, sample == 0, stride,
                                                     per_step.data());
        check(cudaGetLastError(), "iterations_per_step launch");
        newton.enqueue(per_step.data(), sample, r.status, r.failed_step, int(slot));
      }
      ended[slot].record();
      ++enqueued;
    }
  }

  /// The rows of the samples below `end` appended to rows: a wait for the last one's reduction
  /// alone (not for later work on the GPU), and one copy per contiguous run of slots.
  void collect(index_t end) {
    end = std::min(end, enqueued);
    if (end <= collected) return;
    copies.wait_for(ended[std::size_t((end - 1) % slots)]);
    while (collected < end) {
      const int slot = int(collected % slots), count = int(std::min<index_t>(end - collected, slots - slot));
      std::vector<std::vector<statistics::Summary>> s = sampled.collect(slot, count, copies),
                                                    t = newton.collect(slot, count, copies);
      for (int j = 0; j < count; ++j) {
        gpu_seconds += ended[std::size_t(slot + j)].seconds_since(started[std::size_t(slot + j)]);
        rows.push_back({std::move(s[std::size_t(j)]), std::move(t[std::size_t(j)])});
      }
      collected += count;
    }
  }

  index_t n, stride;
  int slots;
  Reduction sampled, newton;
  DeviceArray<index_t> at_sample;  // newton only: the totals at the last sample
  DeviceArray<double> per_step;
  std::vector<Event> started, ended;  // per slot: around its sample's reduction
  Stream copies;                      // the slots' copies to the host, apart from the kernels' stream
  index_t rows_first = -1, collected = -1, enqueued = -1;  // −1: nothing reduced yet
  std::deque<statistics::ReducedSample> rows;              // samples rows_first … collected − 1
  double gpu_seconds = 0;
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
                                   const statistics::StatisticsSpec& newton, index_t bodies, index_t steps_per_sample,
                                   int max_pending) {
  if (!supports(sampled, layout, bodies)) throw std::invalid_argument("DeviceStatistics: a spec the GPU reduction does not support");
  impl_ = std::make_unique<Impl>(sampled, layout, newton, bodies, steps_per_sample, max_pending);
}

DeviceStatistics::~DeviceStatistics() = default;

void DeviceStatistics::reduce(const double* samples, index_t first, index_t count, int scalars, const Records& records) {
  impl_->reduce(samples, first, count, scalars, records);
}
void DeviceStatistics::reduce(const float* samples, index_t first, index_t count, int scalars, const Records& records) {
  impl_->reduce(samples, first, count, scalars, records);
}

std::vector<statistics::ReducedSample> DeviceStatistics::take(index_t& first, index_t end) {
  Impl& d = *impl_;
  d.collect(end);
  first = d.rows.empty() ? -1 : d.rows_first;
  std::vector<statistics::ReducedSample> taken;
  for (; !d.rows.empty() && d.rows_first < end; ++d.rows_first) {
    taken.push_back(std::move(d.rows.front()));
    d.rows.pop_front();
  }
  return taken;
}

double DeviceStatistics::gpu_seconds() const { return impl_->gpu_seconds; }

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
