#include "merge.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "hdf5_handle.hpp"
#include "hdf5_output.hpp"
#include "mechanism_run.hpp"
#include "run.hpp"
#include "scenario.hpp"
#include "shard.hpp"

namespace quatstep {
namespace {

constexpr double window_bytes = 64 << 20;  // samples of all bodies held at a time
constexpr index_t block_bodies = index_t(1) << 16;  // missing bodies filled a block at a time
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

template <class T> hid_t memory_type();
template <> hid_t memory_type<double>() { return H5T_NATIVE_DOUBLE; }
template <> hid_t memory_type<std::int64_t>() { return H5T_NATIVE_INT64; }
template <> hid_t memory_type<std::int32_t>() { return H5T_NATIVE_INT32; }

/// A shard file, read a block of rows at a time.
class ShardFile {
 public:
  explicit ShardFile(const std::string& path) : path_(path), file_(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose) {
    if (!file_.valid()) throw std::runtime_error(path + ": cannot open");
  }
  /// The extent of a dataset (std::runtime_error naming it when absent).
  std::vector<hsize_t> dims(const std::string& name) const {
    const Handle d = open(name);
    const Handle space(H5Dget_space(d.get()), H5Sclose);
    std::vector<hsize_t> extent(std::size_t(std::max(0, H5Sget_simple_extent_ndims(space.get()))));
    H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr);
    return extent;
  }
  /// Rows [first, first + count) along the first axis, every column.
  template <class T>
  std::vector<T> rows(const std::string& name, index_t first, index_t count) const {
    const Handle d = open(name);
    const Handle space(H5Dget_space(d.get()), H5Sclose);
    std::vector<hsize_t> start(std::size_t(H5Sget_simple_extent_ndims(space.get())), 0), size(start.size());
    H5Sget_simple_extent_dims(space.get(), size.data(), nullptr);
    if (size.empty() || hsize_t(first + count) > size[0])
      throw std::runtime_error(path_ + ": '" + name + "' has " + std::to_string(size.empty() ? 0 : size[0]) +
                               " rows, " + std::to_string(first + count) + " needed");
    start[0] = hsize_t(first), size[0] = hsize_t(count);
    std::size_t n = 1;
    for (hsize_t s : size) n *= std::size_t(s);
    std::vector<T> values(n);
    if (n == 0) return values;
    const Handle memory(H5Screate_simple(int(size.size()), size.data(), nullptr), H5Sclose);
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, size.data(), nullptr) < 0 ||
        H5Dread(d.get(), memory_type<T>(), memory.get(), space.get(), H5P_DEFAULT, values.data()) < 0)
      throw std::runtime_error(path_ + ": cannot read '" + name + "'");
    return values;
  }
  std::int64_t integer_attribute(const char* name) const {
    std::int64_t value = 0;
    const Handle a(H5Aopen(file_.get(), name, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Aread(a.get(), H5T_NATIVE_INT64, &value) < 0)
      throw std::runtime_error(path_ + ": no integer attribute '" + std::string(name) + "'");
    return value;
  }

 private:
  Handle open(const std::string& name) const {
    Handle d(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.valid()) throw std::runtime_error(path_ + ": no dataset '" + name + "'");
    return d;
  }
  std::string path_;
  Handle file_;
};

/// A shard that is merged, with what its file says of the run.
struct UsableShard {
  std::size_t report;  ///< in MergeResult::shards
  StoredRun run;
  std::unique_ptr<ShardFile> file;
  index_t trajectory_row = 0, trajectory_rows = 0;  ///< its rows of the full run's trajectory datasets
  index_t bodies() const { return run.shard->end - run.shard->first; }
};

/// "cpu" or "cuda": backends whose results may differ in the last bits.
std::string backend_family(const std::string& backend) { return backend.substr(0, backend.find_first_of(": (")); }

/// Throws unless `b` is a shard of the run of `a`.
void check_same_run(const UsableShard& a, const UsableShard& b, const std::vector<MergedShard>& reports) {
  const std::string& fa = reports[a.report].file;
  const std::string& fb = reports[b.report].file;
  const auto differ = [&](const std::string& what) {
    throw std::runtime_error(fb + " is not a shard of the run of " + fa + ": " + what + " differs");
  };
  if (a.run.scenario != b.run.scenario) differ("the scenario (TOML text)");
  if (!(a.run.t_end == b.run.t_end)) differ("t_end");
  if (a.run.stride != b.run.stride) differ("the stride of the samples");
  if (a.run.precision != b.run.precision) differ("the precision");
  if (a.run.ensemble_bodies != b.run.ensemble_bodies) differ("the ensemble size");
  if (a.run.version != b.run.version) differ("the quatstep version");
  if (backend_family(a.run.backend) != backend_family(b.run.backend)) differ("the backend (cpu / cuda)");
}

/// A shard's rows of the per-body datasets, a block of bodies at a time.
void copy_bodies(Hdf5Output& out, const OutputLayout& layout, const UsableShard& s) {
  const ShardFile& f = *s.file;
  const index_t first = s.run.shard->first, n = s.bodies();
  for (index_t b = 0; b < n; b += block_bodies) {
    const index_t count = std::min(block_bodies, n - b);
    out.write_body_results(first + b, f.rows<std::int32_t>("status", b, count), f.rows<std::int64_t>("newton_iterations", b, count),
                           f.rows<std::int64_t>("failed_step", b, count));
    for (std::size_t p = 0; p < layout.parameters.size(); ++p)
      out.write_parameters(int(p), first + b, count, f.rows<double>("parameters/" + layout.parameters[p].name, b, count).data());
    if (layout.redraws) out.write_redraws(first + b, count, f.rows<std::int32_t>("redraws", b, count).data());
    if (layout.step_records)
      out.write_step_records(first + b, {f.rows<std::int64_t>("accepted_steps", b, count), f.rows<std::int64_t>("rejected_steps", b, count),
                                         f.rows<double>("smallest_step", b, count), f.rows<double>("largest_step", b, count)});
    for (const std::string& name : layout.body_values) out.write_body_values(name, first + b, f.rows<double>(name, b, count));
  }
}

/// The per-body rows of missing bodies [first, end): status −1, parameters, step sizes and other
/// values NaN, Newton iterations and step counts −1 (hdf5_output.hpp).
void mark_missing(Hdf5Output& out, const OutputLayout& layout, index_t first, index_t end) {
  for (index_t b = first; b < end; b += block_bodies) {
    const std::size_t count = std::size_t(std::min(block_bodies, end - b));
    out.write_body_results(b, std::vector<std::int32_t>(count, -1), std::vector<index_t>(count, -1),
                           std::vector<index_t>(count, -1));
    for (std::size_t p = 0; p < layout.parameters.size(); ++p)
      out.write_parameters(int(p), b, index_t(count), std::vector<double>(count * std::size_t(layout.parameters[p].size), nan).data());
    if (layout.redraws) out.write_redraws(b, index_t(count), std::vector<std::int32_t>(count, -1).data());
    if (layout.step_records)
      out.write_step_records(b, {std::vector<index_t>(count, -1), std::vector<index_t>(count, -1),
                                 std::vector<double>(count, nan), std::vector<double>(count, nan)});
    for (const std::string& name : layout.body_values) out.write_body_values(name, b, std::vector<double>(count, nan));
  }
}

/// Trajectory rows of the missing bodies: NaN.
void mark_missing_trajectories(Hdf5Output& out, const OutputLayout& layout, index_t first_row, index_t rows) {
  if (rows == 0) return;
  for (std::size_t d = 0; d < layout.written.size(); ++d) {
    const auto channel = std::find_if(layout.channels.begin(), layout.channels.end(),
                                      [&](const Channel& c) { return c.name == layout.written[d]; });
    const index_t width = rows * channel->size;
    const index_t window = std::max<index_t>(1, index_t(window_bytes / 8 / double(width)));
    for (index_t j = 0; j < layout.samples; j += window) {
      const index_t count = std::min(window, layout.samples - j);
      out.write_trajectory_rows(d, j, count, first_row, rows, std::vector<double>(std::size_t(count * width), nan).data());
    }
  }
}

void copy_trajectories(Hdf5Output& out, const OutputLayout& layout, const UsableShard& s) {
  if (s.trajectory_rows == 0) return;
  for (std::size_t d = 0; d < layout.written.size(); ++d) {
    const std::string& name = layout.written[d];
    const std::vector<hsize_t> dims = s.file->dims(name);
    if (dims.size() < 2 || index_t(dims[0]) != layout.samples || index_t(dims[1]) != s.trajectory_rows)
      throw std::runtime_error("'" + name + "' of a shard holds other bodies than the run's trajectories of its range");
    const double width = double(dims[1]) * (dims.size() > 2 ? double(dims[2]) : 1.0);
    const index_t window = std::max<index_t>(1, index_t(window_bytes / 8 / width));
    for (index_t j = 0; j < layout.samples; j += window) {
      const index_t count = std::min(window, layout.samples - j);
      out.write_trajectory_rows(d, j, count, s.trajectory_row, s.trajectory_rows, s.file->rows<double>(name, j, count).data());
    }
  }
}

/// The statistics of every sample (at `times`), merged from the shards' accumulators a window of
/// samples at a time; the histograms' worst misses over all the samples into `misses`.
void merge_statistics(Hdf5Output& out, const statistics::StatisticsSpec& spec, const std::vector<double>& times,
                      index_t bodies, const std::vector<UsableShard>& shards, std::vector<HistogramMiss>& misses) {
  const index_t nt = index_t(times.size());
  const bool keep = !spec.quantile_levels.empty();
  std::vector<std::shared_ptr<const statistics::Bins>> bins;
  for (const statistics::ObservableSpec& o : spec.observables)
    bins.push_back(o.bins ? std::make_shared<const statistics::Bins>(*o.bins) : nullptr);
  const index_t window = std::max<index_t>(1, index_t(window_bytes / 8 / double(std::max<index_t>(bodies, 1))));
  const std::size_t limbs = statistics::ExactSum::limbs;
  for (index_t j0 = 0; j0 < nt; j0 += window) {
    const index_t w = std::min(window, nt - j0);
    std::vector<std::vector<statistics::Summary>> rows(static_cast<std::size_t>(w));
    for (std::size_t k = 0; k < spec.observables.size(); ++k) {
      std::vector<statistics::Accumulator> total(static_cast<std::size_t>(w), statistics::Accumulator(keep, bins[k]));
      for (const UsableShard& s : shards) {
        const ShardFile& f = *s.file;
        const std::string at = "statistics/" + spec.observables[k].observable.name() + "/";
        const std::string state = "shard/" + at;
        const auto count = f.rows<std::int64_t>(at + "count", j0, w), nonfinite = f.rows<std::int64_t>(at + "nonfinite", j0, w);
        const auto min = f.rows<double>(at + "min", j0, w), max = f.rows<double>(at + "max", j0, w);
        const auto sum = f.rows<std::int64_t>(state + "sum", j0, w), sum2 = f.rows<std::int64_t>(state + "sum_of_squares", j0, w);
        const auto sum_special = f.rows<double>(state + "sum_special", j0, w);
        const auto sum2_special = f.rows<double>(state + "sum_of_squares_special", j0, w);
        const int nb = bins[k] ? bins[k]->count() : 0;
        std::vector<std::int64_t> histogram, below, above;
        if (nb > 0)
          histogram = f.rows<std::int64_t>(at + "histogram", j0, w), below = f.rows<std::int64_t>(at + "below", j0, w),
          above = f.rows<std::int64_t>(at + "above", j0, w);
        std::vector<double> values;
        index_t width = 0;
        if (keep) values = f.rows<double>(state + "values", j0, w), width = index_t(values.size()) / w;
        for (index_t j = 0; j < w; ++j) {
          statistics::AccumulatorState a;
          a.count = count[j], a.nonfinite = nonfinite[j];
          std::copy_n(sum.begin() + j * limbs, limbs, a.sum.limb.begin());
          std::copy_n(sum2.begin() + j * limbs, limbs, a.sum_of_squares.limb.begin());
          a.sum.special = sum_special[j], a.sum_of_squares.special = sum2_special[j];
          a.min = a.count ? min[j] : std::numeric_limits<double>::infinity();  // the summary's NaN: no values
          a.max = a.count ? max[j] : -std::numeric_limits<double>::infinity();
          if (keep) {
            if (a.count > width) throw std::runtime_error("a shard's statistics hold more values than bodies");
            a.values.assign(values.begin() + j * width, values.begin() + j * width + a.count);
          }
          if (nb > 0) a.histogram.assign(histogram.begin() + j * nb, histogram.begin() + (j + 1) * nb), a.below = below[j], a.above = above[j];
          total[std::size_t(j)].merge(statistics::Accumulator::from_state(std::move(a), keep, bins[k]));
        }
      }
      for (index_t j = 0; j < w; ++j) rows[std::size_t(j)].push_back(total[std::size_t(j)].summary(spec.quantile_levels));
    }
    out.write_statistics(j0, rows);
    track_histogram_misses(spec, StatisticsRows{std::move(rows), {}}, times.data() + j0, misses);
  }
}

/// What the merged file holds, from the shards' scenario: single bodies' or mechanisms'.
struct MergedRun {
  index_t bodies = 0;  ///< the ensemble's
  std::vector<std::string> channel_docs;  ///< a mechanism layout's channel descriptions point here
  TrajectorySelection trajectories;
  OutputLayout layout;
  OutputAttributes attributes;
  std::optional<statistics::StatisticsSpec> statistics;
  bool redraws = false;  ///< the shards count redrawn bodies (root attributes)
};

/// The single run's file of the reference shard's scenario, as its backend ran it; `source` names the
/// scenario in messages.
MergedRun merged_run(const StoredRun& reference, const std::string& source) {
  ScenarioOverrides o;
  o.t_end = reference.t_end;
  o.stride = reference.stride;  // a --stride the shards ran with (their samples are at it)
  o.backend = Backend::cpu;     // nothing runs: no device probed
  MergedRun m;
  if (is_mechanism_text(reference.scenario, source)) {
    const MechanismScenario sc = parse_mechanism_scenario(reference.scenario, source, o);
    MechanismOutput file = mechanism_output(sc, reference.backend);
    m.bodies = sc.ensemble_size;
    m.channel_docs = std::move(file.channel_docs);  // a move keeps the strings where the layout points
    m.trajectories = std::move(file.trajectories);
    m.layout = std::move(file.layout);
    m.attributes = std::move(file.attributes);
    m.statistics = sc.statistics;
    m.redraws = sc.redraws;
    return m;
  }
  o.precision = parse_precision(reference.precision);
  const Scenario sc = parse_scenario(reference.scenario, source, o);
  m.bodies = sc.ensemble_size;
  m.trajectories = select_trajectories(sc);
  m.layout = output_layout(sc, m.trajectories);
  m.attributes = output_attributes(sc, reference.backend, m.trajectories);
  m.statistics = sc.statistics;
  m.redraws = sc.redraws;
  return m;
}

}  // namespace

index_t MergeResult::missing_bodies() const {
  index_t n = 0;
  for (const auto& [first, end] : missing) n += end - first;
  return n;
}

MergeResult merge_shards(const std::string& output, const std::vector<std::string>& paths) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  MergeResult result;
  std::vector<UsableShard> shards;
  for (const std::string& path : paths) {
    MergedShard report{path, {}, false, {}, 0};
    StoredRun run;
    try {
      run = read_stored_run(path);
    } catch (const std::exception& e) {
      report.problem = std::string("unreadable: ") + e.what();
    }
    if (report.problem.empty() && !run.shard)
      throw std::runtime_error(path + ": not a shard file (no shard_index attribute; `quatstep run --shard i/K` writes them)");
    if (run.shard) report.range = *run.shard;
    if (report.problem.empty() && !run.complete)
      report.problem = "incomplete: stopped after sample " + std::to_string(run.samples_written - 1) +
                       " (continue it with: quatstep run --resume " + path + ")";
    if (report.problem.empty()) {
      report.used = true;
      shards.push_back({result.shards.size(), run, std::make_unique<ShardFile>(path)});
    }
    result.shards.push_back(std::move(report));
  }
  if (shards.empty()) {
    std::string why;
    for (const MergedShard& r : result.shards) why += "\n  " + r.file + ": " + r.problem;
    throw std::runtime_error("no complete shard file among the " + std::to_string(paths.size()) + " given:" + why);
  }
  for (const UsableShard& s : shards) check_same_run(shards.front(), s, result.shards);
  // In body order. With more shards than bodies some are empty: a range [k, k) overlaps nothing
  // (sorted by its first body alone it could land after [k, k + 1) and look like an overlap).
  std::sort(shards.begin(), shards.end(), [](const UsableShard& a, const UsableShard& b) {
    const ShardRange &x = *a.run.shard, &y = *b.run.shard;
    return x.first != y.first ? x.first < y.first : x.end < y.end;
  });
  const UsableShard* previous = nullptr;  // the last non-empty shard
  for (const UsableShard& s : shards) {
    const ShardRange& b = *s.run.shard;
    if (b.end == b.first) continue;
    if (previous && b.first < previous->run.shard->end) {
      const ShardRange& a = *previous->run.shard;
      throw std::runtime_error(result.shards[previous->report].file + " (bodies " + std::to_string(a.first) + " … " +
                               std::to_string(a.end - 1) + ") and " + result.shards[s.report].file + " (bodies " +
                               std::to_string(b.first) + " … " + std::to_string(b.end - 1) + ") overlap");
    }
    previous = &s;
  }

  const StoredRun& reference = shards.front().run;
  const std::string& first_file = result.shards[shards.front().report].file;
  const MergedRun run = merged_run(reference, first_file + " (its scenario)");
  result.bodies = run.bodies;
  if (run.bodies != reference.ensemble_bodies)
    throw std::runtime_error(first_file + ": ensemble_bodies " + std::to_string(reference.ensemble_bodies) +
                             " but its scenario has " + std::to_string(run.bodies));
  index_t covered = 0;
  for (const UsableShard& s : shards) {
    if (s.run.shard->first > covered) result.missing.emplace_back(covered, s.run.shard->first);
    covered = s.run.shard->end;
  }
  if (covered < run.bodies) result.missing.emplace_back(covered, run.bodies);

  const std::vector<index_t>& rows = run.trajectories.rows;
  const auto row_of = [&](index_t body) { return index_t(std::lower_bound(rows.begin(), rows.end(), body) - rows.begin()); };
  const OutputLayout& layout = run.layout;
  const OutputAttributes& a = run.attributes;
  Hdf5Output out(output, layout, a);
  std::vector<double> times(std::size_t(layout.samples));
  for (index_t j = 0; j < layout.samples; ++j) times[std::size_t(j)] = a.t_start + double(j * a.stride) * a.dt;  // as the run's
  out.write_times(0, layout.samples, times.data());
  index_t redrawn_bodies = 0, redraws = 0;
  for (UsableShard& s : shards) {
    const std::string& file = result.shards[s.report].file;
    try {
      s.trajectory_row = row_of(s.run.shard->first);
      s.trajectory_rows = row_of(s.run.shard->end) - s.trajectory_row;
      copy_bodies(out, layout, s);
      copy_trajectories(out, layout, s);
      if (run.redraws) redrawn_bodies += s.file->integer_attribute("redrawn_bodies"), redraws += s.file->integer_attribute("redraws");
      for (std::int32_t code : s.file->rows<std::int32_t>("status", 0, s.bodies())) result.shards[s.report].failures += code != 0;
    } catch (const std::exception& e) {
      throw std::runtime_error(file + ": " + e.what());
    }
  }
  for (const auto& [first, end] : result.missing) {
    mark_missing(out, layout, first, end);
    mark_missing_trajectories(out, layout, row_of(first), row_of(end) - row_of(first));
  }
  if (run.statistics) merge_statistics(out, *run.statistics, times, run.bodies, shards, result.histogram_misses);
  if (run.redraws) {
    out.integer_attribute("redrawn_bodies", redrawn_bodies);
    out.integer_attribute("redraws", redraws);
  }
  if (!result.missing.empty()) out.write_missing_bodies(result.missing);
  out.mark_progress(true, layout.samples);
  out.close();
  return result;
}

void print_merge_summary(std::ostream& os, const std::string& output, const MergeResult& r) {
  for (const MergedShard& s : r.shards) {
    os << "  " << s.file;
    if (s.range.count > 0)
      os << ": shard " << s.range.index << "/" << s.range.count << ", " << bodies_text(s.range);
    if (s.used) os << ", " << s.failures << " failed bodies";
    else os << ": MISSING, " << s.problem;
    os << "\n";
  }
  os << output << ": " << r.bodies - r.missing_bodies() << " of " << r.bodies << " bodies";
  if (!r.missing.empty()) {
    os << "; missing bodies";
    for (const auto& [first, end] : r.missing) os << " " << first << " … " << end - 1;
    os << " (/missing_bodies; their status is -1, the statistics count the bodies present only)";
  }
  os << "\n";
  if (const std::string misses = histogram_misses_summary(r.histogram_misses); !misses.empty())
    os << "histogram ranges: " << misses << " ([output.statistics] low, high)\n";
}

}  // namespace quatstep
