// HDF5 result file (layout in hdf5_output.hpp), HDF5 C API.
#include "hdf5_output.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <string>
#include <utility>
#include <vector>
#include <stdexcept>

#include "hdf5_handle.hpp"
#include "quatstep/config.hpp"
#include "quatstep/status.hpp"

namespace quatstep {
namespace {

/// Why HDF5 could not create (or open) the file at `path`, in words, for its message.
std::string file_problem(const std::string& path, bool create) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return "it is a directory";
  if (create) {
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec)) return "its directory " + dir.string() + " does not exist";
    return "not writable there (permissions, or the disk)";
  }
  if (!fs::exists(p, ec)) return "no such file";
  return "not an HDF5 file, or a truncated one";
}

/// One sampled dataset: a channel written, `size` scalars from scalar `offset` of a sample.
struct SampledDataset {
  Channel channel;
  int offset;
};

/// The datasets of one observable's statistics (statistics.hpp).
struct StatisticsGroup {
  Handle count, nonfinite, mean, std, min, max, quantiles, histogram, below, above;
};

/// What a shard file adds to them, to be merged exactly (hdf5_output.hpp).
struct ShardStatisticsGroup {
  Handle sum, sum_special, sum_of_squares, sum_of_squares_special, values;
};

constexpr hsize_t chunk_elements = 32768;  // 256 KiB of doubles per chunk

}  // namespace

struct Hdf5Output::Impl {
  std::string path;
  index_t bodies, samples;
  Handle file;
  Handle time;
  int scalars = 0;  // per body and sample in the buffers passed to write_samples
  std::vector<SampledDataset> sampled;
  std::vector<Handle> data;
  std::vector<index_t> rows;  // the bodies with trajectories
  std::vector<double> scratch;
  std::vector<ParameterDataset> parameter_info;
  std::vector<Handle> parameters;
  Handle redraws;
  std::size_t quantile_levels = 0;
  std::vector<std::size_t> bins;  // per observable
  std::vector<StatisticsGroup> statistics;
  std::vector<ShardStatisticsGroup> shard_statistics;
  Handle status, newton_iterations, failed_step;
  Handle accepted_steps, rejected_steps, smallest_step, largest_step;  // adaptive runs
  std::vector<std::pair<std::string, Handle>> body_values;           // OutputLayout::body_values
  bool resuming = false;  // the datasets and attributes exist: open them, write only the values

  void check(bool ok, const std::string& what) const {
    if (!ok) throw std::runtime_error(path + ": HDF5 error: " + what);
  }

  Handle dataset(const std::string& name, hid_t type, std::vector<hsize_t> dims, std::vector<hsize_t> chunk,
                 hid_t parent = H5I_INVALID_HID) {
    Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    for (std::size_t d = 0; d < chunk.size(); ++d) chunk[d] = std::max<hsize_t>(1, std::min(chunk[d], std::max<hsize_t>(dims[d], 1)));
    if (resuming) {
      Handle d(H5Dopen2(parent >= 0 ? parent : file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
      check(d.valid(), "no dataset '" + name + "' to resume");
      return d;
    }
    // The same bytes for the same results (tests/shard_merge_test.cpp, CommandLineShardsAndMerge): no
    // modification times in the object headers (here and for groups), and every chunk placed when its
    // dataset is created, so that the order of the writes (a run's sample windows, a merge's shards)
    // does not decide where chunks go. Nothing is written there until the values are (no fill): the
    // file has its whole size from the start, as a sparse file (10⁶ bodies × 10³ samples of a
    // quaternion: 33.6 GB long, 2 MB on disk, created in 0.05 s; with the fill, 133 s and 33.6 GB).
    check(space.valid() && dcpl.valid() && H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) >= 0 &&
              H5Pset_obj_track_times(dcpl.get(), false) >= 0 && H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY) >= 0 &&
              H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) >= 0,
          "cannot lay out '" + name + "'");
    Handle d(H5Dcreate2(parent >= 0 ? parent : file.get(), name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(),
                        H5P_DEFAULT),
             H5Dclose);
    check(d.valid(), "cannot create '" + name + "'");
    return d;
  }

  /// A per-body dataset (N, or N×size) of `type`.
  Handle per_body(const std::string& name, hid_t type, int size = 1, hid_t parent = H5I_INVALID_HID) {
    const hsize_t n = bodies;
    if (size == 1) return dataset(name, type, {n}, {chunk_elements}, parent);
    return dataset(name, type, {n, hsize_t(size)}, {std::max<hsize_t>(1, chunk_elements / hsize_t(size)), hsize_t(size)},
                   parent);
  }

  /// A per-sample dataset (nt, or nt×width) of `type`.
  Handle per_sample(hid_t parent, const char* name, hid_t type, std::size_t width = 0) {
    const hsize_t nt = samples;
    if (width == 0) return dataset(name, type, {nt}, {chunk_elements}, parent);
    return dataset(name, type, {nt, hsize_t(width)}, {std::max<hsize_t>(1, chunk_elements / width), hsize_t(width)}, parent);
  }

  Handle group(hid_t parent, const std::string& name) {
    Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    check(gcpl.valid() && H5Pset_obj_track_times(gcpl.get(), false) >= 0, "cannot lay out the group '" + name + "'");
    Handle g(resuming ? H5Gopen2(parent, name.c_str(), H5P_DEFAULT)
                      : H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
             H5Gclose);
    check(g.valid(), "cannot create the group '" + name + "'");
    return g;
  }

  /// A 1-D float64 attribute.
  void array_attribute(hid_t owner, const char* name, const std::vector<double>& values) {
    if (resuming) return;
    const hsize_t n = values.size();
    Handle space(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL), H5Sclose);
    Handle a(H5Acreate2(owner, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && (n == 0 || H5Awrite(a.get(), H5T_NATIVE_DOUBLE, values.data()) >= 0),
          std::string("cannot write attribute '") + name + "'");
  }

  /// Created or replaced, also when resuming (the run's progress: complete, samples_written, …).
  void integer_attribute(hid_t owner, const char* name, std::int64_t value) {
    if (H5Aexists(owner, name) > 0) check(H5Adelete(owner, name) >= 0, std::string("cannot replace attribute '") + name + "'");
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(owner, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && H5Awrite(a.get(), H5T_NATIVE_INT64, &value) >= 0, std::string("cannot write attribute '") + name + "'");
  }

  /// Chunks of ~256 KiB: whole sample rows when one fits, otherwise one sample and an equal share
  /// of the bodies (no mostly empty chunk at the end of a row).
  std::vector<hsize_t> sample_chunk(index_t rows, int components) const {
    const hsize_t nt = std::max<index_t>(samples, 1), n = std::max<index_t>(rows, 1), c = components;
    std::vector<hsize_t> chunk;
    if (n * c <= chunk_elements) {
      chunk = {std::min(nt, chunk_elements / (n * c)), n};
    } else {
      const hsize_t pieces = (n * c + chunk_elements - 1) / chunk_elements;
      chunk = {1, (n + pieces - 1) / pieces};
    }
    if (components > 1) chunk.push_back(c);
    return chunk;
  }

  /// A variable-length UTF-8 string (h5py reads it as str).
  void string_attribute(hid_t owner, const char* name, const std::string& value) {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    check(type.valid() && H5Tset_size(type.get(), H5T_VARIABLE) >= 0 && H5Tset_cset(type.get(), H5T_CSET_UTF8) >= 0,
          "string type");
    attribute(owner, name, type.get(), [&](hid_t a, hid_t t) {
      const char* s = value.c_str();
      return H5Awrite(a, t, &s);
    });
  }

  template <class Write>
  void attribute(hid_t owner, const char* name, hid_t type, Write write) {
    if (resuming) return;
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(owner, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && write(a.get(), type) >= 0, std::string("cannot write attribute '") + name + "'");
  }

  void write(const Handle& d, hid_t type, const void* buffer, std::vector<hsize_t> start, std::vector<hsize_t> count,
             const std::string& name) {
    if (std::find(count.begin(), count.end(), hsize_t(0)) != count.end()) return;
    Handle file_space(H5Dget_space(d.get()), H5Sclose);
    Handle mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
    check(file_space.valid() && mem_space.valid() &&
              H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) >= 0 &&
              H5Dwrite(d.get(), type, mem_space.get(), file_space.get(), H5P_DEFAULT, buffer) >= 0,
          "cannot write '" + name + "'");
  }

  /// Rows [first, first + values.size()/width) of a per-sample dataset.
  template <class T>
  void write_rows(const Handle& d, hid_t type, index_t first, const std::vector<T>& values, std::size_t width,
                  const std::string& name) {
    const hsize_t rows = values.size() / std::max<std::size_t>(width, 1);
    if (width == 0) write(d, type, values.data(), {hsize_t(first)}, {values.size()}, name);
    else write(d, type, values.data(), {hsize_t(first), 0}, {rows, hsize_t(width)}, name);
  }
};

Hdf5Output::Hdf5Output(const std::string& path, const OutputLayout& layout, const OutputAttributes& attributes,
                       Mode mode)
    : impl_(std::make_unique<Impl>()) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported as exceptions, not printed
  Impl& m = *impl_;
  m.path = path;
  m.bodies = layout.bodies;
  m.samples = layout.samples;
  m.rows = layout.trajectory_rows;
  m.resuming = mode == Mode::resume;
  if (m.resuming) {
    m.file = Handle(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!m.file.valid())
      throw std::runtime_error(path + ": cannot open the file to resume: " + file_problem(path, false));
  } else {
    m.file = Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!m.file.valid())
      throw std::runtime_error(path + ": cannot create the output file: " + file_problem(path, true));
  }

  const hsize_t nt = layout.samples, rows = layout.trajectory_rows.size();
  m.time = m.dataset("time", H5T_IEEE_F64LE, {nt}, {chunk_elements});
  m.string_attribute(m.time.get(), "description", "model time of each sample [s]; NaN where a run stopped before it");
  for (const Channel& c : layout.channels) {
    if (rows > 0 && std::find(layout.written.begin(), layout.written.end(), c.name) != layout.written.end()) {
      std::vector<hsize_t> dims = {nt, rows};
      if (c.size > 1) dims.push_back(c.size);
      m.sampled.push_back({c, m.scalars});
      m.data.push_back(m.dataset(c.name, H5T_IEEE_F64LE, dims, m.sample_chunk(index_t(rows), c.size)));
      m.string_attribute(m.data.back().get(), "description", c.doc);
    }
    m.scalars += c.size;
  }
  static_assert(sizeof(index_t) == sizeof(std::int64_t));
  const auto indices = [&](const char* name, const std::vector<index_t>& values) {
    const hsize_t count = values.size();
    const Handle d = m.dataset(name, H5T_STD_I64LE, {count}, {chunk_elements});
    if (!m.resuming) m.write(d, H5T_NATIVE_INT64, values.data(), {0}, {count}, name);
  };
  if (!layout.trajectory_bodies.empty()) indices("trajectory_bodies", layout.trajectory_bodies);
  if (!layout.body_indices.empty()) indices("bodies", layout.body_indices);
  if (!layout.parameters.empty()) {
    const Handle g = m.group(m.file.get(), "parameters");
    m.parameter_info = layout.parameters;
    for (const ParameterDataset& p : layout.parameters) m.parameters.push_back(m.per_body(p.name, H5T_IEEE_F64LE, p.size, g.get()));
  }
  if (layout.redraws) m.redraws = m.per_body("redraws", H5T_STD_I32LE);
  if (!layout.statistics.empty()) {
    const Handle g = m.group(m.file.get(), "statistics");
    m.array_attribute(g.get(), "levels", layout.quantile_levels);
    if (!m.resuming) m.integer_attribute(g.get(), "bodies", layout.bodies);
    m.quantile_levels = layout.quantile_levels.size();
    for (const StatisticsDataset& o : layout.statistics) {
      const Handle og = m.group(g.get(), o.name);
      m.string_attribute(og.get(), "definition", o.definition);
      const hid_t at = og.get();
      StatisticsGroup sg;
      sg.count = m.per_sample(at, "count", H5T_STD_I64LE);
      sg.nonfinite = m.per_sample(at, "nonfinite", H5T_STD_I64LE);
      sg.mean = m.per_sample(at, "mean", H5T_IEEE_F64LE);
      sg.std = m.per_sample(at, "std", H5T_IEEE_F64LE);
      sg.min = m.per_sample(at, "min", H5T_IEEE_F64LE);
      sg.max = m.per_sample(at, "max", H5T_IEEE_F64LE);
      if (m.quantile_levels > 0) {
        sg.quantiles = m.per_sample(at, "quantiles", H5T_IEEE_F64LE, m.quantile_levels);
        m.array_attribute(sg.quantiles.get(), "levels", layout.quantile_levels);
      }
      m.bins.push_back(o.edges.empty() ? 0 : o.edges.size() - 1);
      if (!o.edges.empty()) {
        sg.histogram = m.per_sample(at, "histogram", H5T_STD_I64LE, o.edges.size() - 1);
        m.array_attribute(sg.histogram.get(), "edges", o.edges);
        sg.below = m.per_sample(at, "below", H5T_STD_I64LE);
        sg.above = m.per_sample(at, "above", H5T_STD_I64LE);
      }
      m.statistics.push_back(std::move(sg));
    }
  }
  if (layout.shard_statistics) {
    const Handle shard = m.group(m.file.get(), "shard");
    const Handle g = m.group(shard.get(), "statistics");
    const std::size_t limbs = statistics::ExactSum::limbs;
    for (const StatisticsDataset& o : layout.statistics) {
      const Handle og = m.group(g.get(), o.name);
      const hid_t at = og.get();
      ShardStatisticsGroup sg;
      sg.sum = m.per_sample(at, "sum", H5T_STD_I64LE, limbs);
      sg.sum_special = m.per_sample(at, "sum_special", H5T_IEEE_F64LE);
      sg.sum_of_squares = m.per_sample(at, "sum_of_squares", H5T_STD_I64LE, limbs);
      sg.sum_of_squares_special = m.per_sample(at, "sum_of_squares_special", H5T_IEEE_F64LE);
      if (m.quantile_levels > 0) sg.values = m.per_sample(at, "values", H5T_IEEE_F64LE, std::size_t(std::max<index_t>(m.bodies, 1)));
      m.shard_statistics.push_back(std::move(sg));
    }
  }

  m.status = m.per_body("status", H5T_STD_I32LE);
  std::string meaning = "-1 missing (a merge without its shard)";  // then "0 ok, 1 newton_not_converged, …"
  for (std::int32_t c = 0; std::string(to_string(static_cast<Status>(c))) != "unknown"; ++c)
    meaning += ", " + std::to_string(c) + " " + to_string(static_cast<Status>(c));
  m.string_attribute(m.status.get(), "codes", meaning);
  m.newton_iterations = m.per_body("newton_iterations", H5T_STD_I64LE);
  m.failed_step = m.per_body("failed_step", H5T_STD_I64LE);
  if (layout.step_records) {
    m.accepted_steps = m.per_body("accepted_steps", H5T_STD_I64LE);
    m.rejected_steps = m.per_body("rejected_steps", H5T_STD_I64LE);
    m.smallest_step = m.per_body("smallest_step", H5T_IEEE_F64LE);
    m.largest_step = m.per_body("largest_step", H5T_IEEE_F64LE);
  }
  for (const std::string& name : layout.body_values) m.body_values.emplace_back(name, m.per_body(name, H5T_IEEE_F64LE));

  m.string_attribute(m.file.get(), "scenario", attributes.scenario);
  m.string_attribute(m.file.get(), "quatstep_version", version);
  m.string_attribute(m.file.get(), "method", attributes.method);
  m.string_attribute(m.file.get(), "model", attributes.model);
  m.string_attribute(m.file.get(), "backend", attributes.backend);
  m.string_attribute(m.file.get(), "precision", attributes.precision);
  m.string_attribute(m.file.get(), "trajectories", attributes.trajectories);
  const auto number = [&](const char* name, hid_t type, const void* value) {
    m.attribute(m.file.get(), name, type, [&](hid_t a, hid_t t) { return H5Awrite(a, t, value); });
  };
  number("dt", H5T_NATIVE_DOUBLE, &attributes.dt);
  number("t_start", H5T_NATIVE_DOUBLE, &attributes.t_start);
  number("t_end", H5T_NATIVE_DOUBLE, &attributes.t_end);
  if (!m.resuming) {
    m.integer_attribute(m.file.get(), "stride", attributes.stride);
    m.integer_attribute(m.file.get(), "bodies", layout.bodies);
    m.integer_attribute(m.file.get(), "complete", 0);
    m.integer_attribute(m.file.get(), "samples_written", 0);
  }
}

Hdf5Output::~Hdf5Output() = default;

void gather_trajectories(const double* samples, index_t count, index_t bodies, int scalars, int offset, int size,
                         const std::vector<index_t>& rows, double* out) {
  const index_t m = index_t(rows.size());
#pragma omp parallel for schedule(static) if (count * m * size >= 65536)
  for (index_t s = 0; s < count; ++s)  // [sample][scalar][body] → [sample][trajectory row][component]
    for (index_t r = 0; r < m; ++r)
      for (int j = 0; j < size; ++j)
        out[(s * m + r) * size + j] = samples[(s * scalars + offset + j) * bodies + rows[r]];
}

std::vector<std::int32_t> status_codes(const std::vector<Status>& status) {
  std::vector<std::int32_t> codes(status.size());
  std::transform(status.begin(), status.end(), codes.begin(), [](Status s) { return static_cast<std::int32_t>(s); });
  return codes;
}

void Hdf5Output::write_samples(index_t first, index_t count, const double* samples, const double* times) {
  if (count == 0) return;
  Impl& m = *impl_;
  const hsize_t f = first, k = count, rows = m.rows.size();
  const index_t n = m.bodies;
  write_times(first, count, times);
  for (std::size_t d = 0; d < m.sampled.size(); ++d) {
    const int c = m.sampled[d].channel.size, offset = m.sampled[d].offset;
    m.scratch.resize(static_cast<std::size_t>(k * rows * c));
    gather_trajectories(samples, count, n, m.scalars, offset, c, m.rows, m.scratch.data());
    std::vector<hsize_t> start = {f, 0}, size = {k, rows};
    if (c > 1) start.push_back(0), size.push_back(c);
    m.write(m.data[d], H5T_NATIVE_DOUBLE, m.scratch.data(), start, size, m.sampled[d].channel.name);
  }
}

void Hdf5Output::write_times(index_t first, index_t count, const double* times) {
  impl_->write(impl_->time, H5T_NATIVE_DOUBLE, times, {hsize_t(first)}, {hsize_t(count)}, "time");
}

void Hdf5Output::write_trajectory_rows(std::size_t d, index_t first, index_t count, index_t first_row, index_t rows,
                                       const double* values) {
  Impl& m = *impl_;
  const SampledDataset& info = m.sampled.at(d);
  std::vector<hsize_t> start = {hsize_t(first), hsize_t(first_row)}, size = {hsize_t(count), hsize_t(rows)};
  if (info.channel.size > 1) start.push_back(0), size.push_back(hsize_t(info.channel.size));
  m.write(m.data[d], H5T_NATIVE_DOUBLE, values, start, size, info.channel.name);
}

void Hdf5Output::write_parameters(int p, index_t first, index_t count, const double* values) {
  Impl& m = *impl_;
  const ParameterDataset& info = m.parameter_info.at(std::size_t(p));
  std::vector<hsize_t> start = {hsize_t(first)}, size = {hsize_t(count)};
  if (info.size > 1) start.push_back(0), size.push_back(hsize_t(info.size));
  m.write(m.parameters[std::size_t(p)], H5T_NATIVE_DOUBLE, values, start, size, "parameters/" + info.name);
}

void Hdf5Output::write_redraws(index_t first, index_t count, const std::int32_t* redraws) {
  Impl& m = *impl_;
  m.write(m.redraws, H5T_NATIVE_INT32, redraws, {hsize_t(first)}, {hsize_t(count)}, "redraws");
}

void Hdf5Output::write_statistics(index_t first, const std::vector<std::vector<statistics::Summary>>& rows) {
  Impl& m = *impl_;
  const std::size_t nr = rows.size();
  for (std::size_t k = 0; k < m.statistics.size(); ++k) {
    const StatisticsGroup& g = m.statistics[k];
    const auto column = [&](auto field) {
      using T = std::decay_t<decltype(field(rows[0][k]))>;
      std::vector<T> v(nr);
      for (std::size_t j = 0; j < nr; ++j) v[j] = field(rows[j][k]);
      return v;
    };
    const auto flat = [&](auto field, std::size_t width) {
      using T = typename std::decay_t<decltype(field(rows[0][k]))>::value_type;
      std::vector<T> v;
      v.reserve(nr * width);
      for (std::size_t j = 0; j < nr; ++j) {
        const auto& row = field(rows[j][k]);
        v.insert(v.end(), row.begin(), row.end());
      }
      return v;
    };
    const std::string at = "statistics/" + std::to_string(k);
    using statistics::Summary;
    m.write_rows(g.count, H5T_NATIVE_INT64, first, column([](const Summary& s) { return s.count; }), 0, at);
    m.write_rows(g.nonfinite, H5T_NATIVE_INT64, first, column([](const Summary& s) { return s.nonfinite; }), 0, at);
    m.write_rows(g.mean, H5T_NATIVE_DOUBLE, first, column([](const Summary& s) { return s.mean; }), 0, at);
    m.write_rows(g.std, H5T_NATIVE_DOUBLE, first, column([](const Summary& s) { return s.std; }), 0, at);
    m.write_rows(g.min, H5T_NATIVE_DOUBLE, first, column([](const Summary& s) { return s.min; }), 0, at);
    m.write_rows(g.max, H5T_NATIVE_DOUBLE, first, column([](const Summary& s) { return s.max; }), 0, at);
    if (m.quantile_levels > 0)
      m.write_rows(g.quantiles, H5T_NATIVE_DOUBLE, first, flat([](const Summary& s) -> const std::vector<double>& { return s.quantiles; }, m.quantile_levels),
                   m.quantile_levels, at);
    if (m.bins[k] > 0) {
      m.write_rows(g.histogram, H5T_NATIVE_INT64, first,
                   flat([](const Summary& s) -> const std::vector<std::int64_t>& { return s.histogram; }, m.bins[k]), m.bins[k], at);
      m.write_rows(g.below, H5T_NATIVE_INT64, first, column([](const Summary& s) { return s.below; }), 0, at);
      m.write_rows(g.above, H5T_NATIVE_INT64, first, column([](const Summary& s) { return s.above; }), 0, at);
    }
  }
}

void Hdf5Output::write_statistics_states(index_t first,
                                         const std::vector<std::vector<statistics::AccumulatorState>>& rows) {
  Impl& m = *impl_;
  const std::size_t limbs = statistics::ExactSum::limbs;
  for (std::size_t k = 0; k < m.shard_statistics.size(); ++k) {
    const ShardStatisticsGroup& g = m.shard_statistics[k];
    std::vector<std::int64_t> sum, sum_of_squares;
    std::vector<double> sum_special, sum_of_squares_special;
    for (const auto& row : rows) {
      const statistics::AccumulatorState& a = row[k];
      sum.insert(sum.end(), a.sum.limb.begin(), a.sum.limb.end());
      sum_of_squares.insert(sum_of_squares.end(), a.sum_of_squares.limb.begin(), a.sum_of_squares.limb.end());
      sum_special.push_back(a.sum.special);
      sum_of_squares_special.push_back(a.sum_of_squares.special);
    }
    const std::string at = "shard/statistics/" + std::to_string(k);
    m.write_rows(g.sum, H5T_NATIVE_INT64, first, sum, limbs, at);
    m.write_rows(g.sum_special, H5T_NATIVE_DOUBLE, first, sum_special, 0, at);
    m.write_rows(g.sum_of_squares, H5T_NATIVE_INT64, first, sum_of_squares, limbs, at);
    m.write_rows(g.sum_of_squares_special, H5T_NATIVE_DOUBLE, first, sum_of_squares_special, 0, at);
    if (!g.values.valid()) continue;
    for (std::size_t j = 0; j < rows.size(); ++j) {  // row first + j: its count finite values, then unused
      const std::vector<double>& values = rows[j][k].values;
      m.write(g.values, H5T_NATIVE_DOUBLE, values.data(), {hsize_t(first) + j, 0}, {1, values.size()}, at + "/values");
    }
  }
}

void Hdf5Output::write_missing_bodies(const std::vector<std::pair<index_t, index_t>>& ranges) {
  Impl& m = *impl_;
  std::vector<std::int64_t> flat;
  index_t missing = 0;
  for (const auto& [first, end] : ranges) flat.push_back(first), flat.push_back(end), missing += end - first;
  const hsize_t r = ranges.size();
  const Handle d = m.dataset("missing_bodies", H5T_STD_I64LE, {r, 2}, {chunk_elements / 2, 2});
  m.write(d, H5T_NATIVE_INT64, flat.data(), {0, 0}, {r, 2}, "missing_bodies");
  m.integer_attribute(m.file.get(), "missing_bodies", missing);
  if (!m.statistics.empty()) {
    const Handle g(H5Gopen2(m.file.get(), "statistics", H5P_DEFAULT), H5Gclose);
    m.check(g.valid(), "cannot open '/statistics'");
    m.integer_attribute(g.get(), "missing_bodies", missing);
  }
}

void Hdf5Output::integer_attribute(const std::string& name, std::int64_t value) {
  impl_->integer_attribute(impl_->file.get(), name.c_str(), value);
}

void Hdf5Output::write_body_results(const std::vector<Status>& status, const std::vector<index_t>& newton_iterations,
                                    const std::vector<index_t>& failed_step) {
  write_body_results(0, status_codes(status), newton_iterations, failed_step);
}

void Hdf5Output::write_body_results(index_t first, const std::vector<std::int32_t>& status,
                                    const std::vector<index_t>& newton_iterations, const std::vector<index_t>& failed_step) {
  Impl& m = *impl_;
  const hsize_t f = first, n = status.size();
  if (newton_iterations.size() != n || failed_step.size() != n) throw std::logic_error("write_body_results: sizes differ");
  m.write(m.status, H5T_NATIVE_INT32, status.data(), {f}, {n}, "status");
  m.write(m.newton_iterations, H5T_NATIVE_INT64, newton_iterations.data(), {f}, {n}, "newton_iterations");
  m.write(m.failed_step, H5T_NATIVE_INT64, failed_step.data(), {f}, {n}, "failed_step");
}

void Hdf5Output::write_step_records(const StepRecords& steps) { write_step_records(0, steps); }

void Hdf5Output::write_step_records(index_t first, const StepRecords& steps) {
  Impl& m = *impl_;
  const hsize_t f = first, n = steps.accepted.size();
  if (steps.rejected.size() != n || steps.smallest.size() != n || steps.largest.size() != n)
    throw std::logic_error("write_step_records: sizes differ");
  m.write(m.accepted_steps, H5T_NATIVE_INT64, steps.accepted.data(), {f}, {n}, "accepted_steps");
  m.write(m.rejected_steps, H5T_NATIVE_INT64, steps.rejected.data(), {f}, {n}, "rejected_steps");
  m.write(m.smallest_step, H5T_NATIVE_DOUBLE, steps.smallest.data(), {f}, {n}, "smallest_step");
  m.write(m.largest_step, H5T_NATIVE_DOUBLE, steps.largest.data(), {f}, {n}, "largest_step");
}

void Hdf5Output::write_body_values(const std::string& name, const std::vector<double>& values) {
  if (index_t(values.size()) != impl_->bodies) throw std::logic_error("write_body_values: one value per body");
  write_body_values(name, 0, values);
}

void Hdf5Output::write_body_values(const std::string& name, index_t first, const std::vector<double>& values) {
  Impl& m = *impl_;
  const auto d = std::find_if(m.body_values.begin(), m.body_values.end(), [&](const auto& v) { return v.first == name; });
  if (d == m.body_values.end()) throw std::logic_error("write_body_values: '" + name + "' is not in the layout");
  m.write(d->second, H5T_NATIVE_DOUBLE, values.data(), {hsize_t(first)}, {values.size()}, name);
}

void Hdf5Output::write_checkpoint(const Checkpoint& c) {
  Impl& m = *impl_;
  const hid_t f = m.file.get();
  if (H5Lexists(f, "checkpoint", H5P_DEFAULT) > 0) m.check(H5Ldelete(f, "checkpoint", H5P_DEFAULT) >= 0, "cannot replace '/checkpoint'");
  const bool resuming = std::exchange(m.resuming, false);
  const Handle g = m.group(f, "checkpoint");
  const auto array = [&](const std::string& name, hid_t file_type, hid_t memory_type, const void* data, std::size_t count) {
    if (count == 0) return;  // absent: read back as empty
    const hsize_t size = count;
    m.write(m.dataset(name, file_type, {size}, {chunk_elements}, g.get()), memory_type, data, {0}, {size}, "checkpoint/" + name);
  };
  const std::vector<std::int32_t> codes = status_codes(c.status);
  array("state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.state.data(), c.state.size());
  array("status", H5T_STD_I32LE, H5T_NATIVE_INT32, codes.data(), codes.size());
  array("newton_iterations", H5T_STD_I64LE, H5T_NATIVE_INT64, c.newton_iterations.data(), c.newton_iterations.size());
  array("failed_step", H5T_STD_I64LE, H5T_NATIVE_INT64, c.failed_step.data(), c.failed_step.size());
  array("iterations_at_sample", H5T_STD_I64LE, H5T_NATIVE_INT64, c.iterations_at_sample.data(), c.iterations_at_sample.size());
  array("accepted_steps", H5T_STD_I64LE, H5T_NATIVE_INT64, c.steps.accepted.data(), c.steps.accepted.size());
  array("rejected_steps", H5T_STD_I64LE, H5T_NATIVE_INT64, c.steps.rejected.data(), c.steps.rejected.size());
  array("smallest_step", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.steps.smallest.data(), c.steps.smallest.size());
  array("largest_step", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.steps.largest.data(), c.steps.largest.size());
  for (std::size_t k = 0; k < c.statistics_initial.size(); ++k)
    array("statistics_initial_" + std::to_string(k), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.statistics_initial[k].data(),
          c.statistics_initial[k].size());
  m.integer_attribute(g.get(), "steps_done", c.steps_done);
  m.integer_attribute(g.get(), "statistics_observables", std::int64_t(c.statistics_initial.size()));
  m.resuming = resuming;
}

Checkpoint Hdf5Output::read_checkpoint() const {
  const Impl& m = *impl_;
  const hid_t f = m.file.get();
  if (H5Lexists(f, "checkpoint", H5P_DEFAULT) <= 0) throw std::runtime_error(m.path + ": no /checkpoint to resume from");
  Checkpoint c;
  const auto array = [&](const std::string& name, hid_t memory_type, auto& out) {
    if (H5Lexists(f, ("checkpoint/" + name).c_str(), H5P_DEFAULT) <= 0) return;  // written empty
    const Handle d(H5Dopen2(f, ("checkpoint/" + name).c_str(), H5P_DEFAULT), H5Dclose);
    const Handle space(d.valid() ? H5Dget_space(d.get()) : H5I_INVALID_HID, H5Sclose);
    m.check(space.valid(), "cannot open '/checkpoint/" + name + "'");
    out.resize(std::size_t(H5Sget_simple_extent_npoints(space.get())));
    m.check(out.empty() || H5Dread(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0,
            "cannot read '/checkpoint/" + name + "'");
  };
  std::vector<std::int32_t> codes;
  array("state", H5T_NATIVE_DOUBLE, c.state);
  array("status", H5T_NATIVE_INT32, codes);
  array("newton_iterations", H5T_NATIVE_INT64, c.newton_iterations);
  array("failed_step", H5T_NATIVE_INT64, c.failed_step);
  array("iterations_at_sample", H5T_NATIVE_INT64, c.iterations_at_sample);
  array("accepted_steps", H5T_NATIVE_INT64, c.steps.accepted);
  array("rejected_steps", H5T_NATIVE_INT64, c.steps.rejected);
  array("smallest_step", H5T_NATIVE_DOUBLE, c.steps.smallest);
  array("largest_step", H5T_NATIVE_DOUBLE, c.steps.largest);
  std::transform(codes.begin(), codes.end(), std::back_inserter(c.status), [](std::int32_t s) { return static_cast<Status>(s); });
  const auto integer = [&](const char* name) {
    std::int64_t value = 0;
    const Handle a(H5Aopen_by_name(f, "checkpoint", name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    m.check(a.valid() && H5Aread(a.get(), H5T_NATIVE_INT64, &value) >= 0, std::string("cannot read '/checkpoint' ") + name);
    return value;
  };
  c.steps_done = integer("steps_done");
  c.statistics_initial.resize(std::size_t(integer("statistics_observables")));
  for (std::size_t k = 0; k < c.statistics_initial.size(); ++k)
    array("statistics_initial_" + std::to_string(k), H5T_NATIVE_DOUBLE, c.statistics_initial[k]);
  return c;
}

std::int64_t Hdf5Output::read_integer_attribute(const std::string& name) const {
  const Impl& m = *impl_;
  std::int64_t value = 0;
  const Handle a(H5Aopen(m.file.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  m.check(a.valid() && H5Aread(a.get(), H5T_NATIVE_INT64, &value) >= 0, "no integer attribute '" + name + "'");
  return value;
}

StoredRun read_stored_run(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw std::runtime_error(path + ": cannot open: " + file_problem(path, false));
  const auto fail = [&](const std::string& what) -> void {
    throw std::runtime_error(path + ": not a quatstep result file (" + what + ")");
  };
  const auto text = [&](const char* name) {
    const Handle a(H5Aopen(file.get(), name, H5P_DEFAULT), H5Aclose);
    const Handle type(a.valid() ? H5Aget_type(a.get()) : H5I_INVALID_HID, H5Tclose);
    if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0)
      fail(std::string("no attribute '") + name + "'");
    char* s = nullptr;
    if (H5Aread(a.get(), type.get(), &s) < 0 || !s) fail(std::string("cannot read '") + name + "'");
    const std::string value = s;
    H5free_memory(s);
    return value;
  };
  const auto number = [&](const char* name, hid_t memory_type, void* value) {
    const Handle a(H5Aopen(file.get(), name, H5P_DEFAULT), H5Aclose);
    if (!a.valid() || H5Aread(a.get(), memory_type, value) < 0) fail(std::string("no attribute '") + name + "'");
  };
  StoredRun run;
  run.scenario = text("scenario");
  run.precision = text("precision");
  run.backend = text("backend");
  run.version = text("quatstep_version");
  number("t_end", H5T_NATIVE_DOUBLE, &run.t_end);
  std::int64_t complete = 0, samples_written = 0, stride = 0;
  number("stride", H5T_NATIVE_INT64, &stride);
  run.stride = stride;
  number("complete", H5T_NATIVE_INT64, &complete);
  number("samples_written", H5T_NATIVE_INT64, &samples_written);
  run.complete = complete != 0;
  run.samples_written = samples_written;
  if (H5Aexists(file.get(), "shard_index") > 0) {
    std::int64_t index = 0, count = 0;
    ShardRange& shard = run.shard.emplace();
    number("shard_index", H5T_NATIVE_INT64, &index);
    number("shard_count", H5T_NATIVE_INT64, &count);
    number("shard_first", H5T_NATIVE_INT64, &shard.first);
    number("shard_end", H5T_NATIVE_INT64, &shard.end);
    number("ensemble_bodies", H5T_NATIVE_INT64, &run.ensemble_bodies);
    shard.index = int(index), shard.count = int(count);
  }
  if (H5Lexists(file.get(), "bodies", H5P_DEFAULT) > 0) {
    const Handle d(H5Dopen2(file.get(), "bodies", H5P_DEFAULT), H5Dclose);
    const Handle space(d.valid() ? H5Dget_space(d.get()) : H5I_INVALID_HID, H5Sclose);
    if (!space.valid()) fail("cannot open '/bodies'");
    run.bodies.resize(std::size_t(H5Sget_simple_extent_npoints(space.get())));
    if (H5Dread(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, run.bodies.data()) < 0) fail("cannot read '/bodies'");
  }
  return run;
}

void Hdf5Output::mark_progress(bool complete, index_t samples_written) {
  Impl& m = *impl_;
  if (!complete && samples_written < m.samples) {  // the samples not written have no time: NaN, not 0
    const std::vector<double> none(std::size_t(m.samples - samples_written), std::nan(""));
    m.write(m.time, H5T_NATIVE_DOUBLE, none.data(), {hsize_t(samples_written)}, {hsize_t(none.size())}, "time");
  }
  m.integer_attribute(m.file.get(), "complete", complete ? 1 : 0);
  m.integer_attribute(m.file.get(), "samples_written", samples_written);
  if (complete && H5Lexists(m.file.get(), "checkpoint", H5P_DEFAULT) > 0)
    m.check(H5Ldelete(m.file.get(), "checkpoint", H5P_DEFAULT) >= 0, "cannot remove '/checkpoint'");
}

void Hdf5Output::close() {
  Impl& m = *impl_;
  if (!m.file.valid()) return;
  m.time.reset();
  for (Handle& d : m.data) d.reset();
  for (Handle& d : m.parameters) d.reset();
  m.redraws.reset();
  m.statistics.clear();
  m.shard_statistics.clear();
  m.status.reset(), m.newton_iterations.reset(), m.failed_step.reset();
  m.accepted_steps.reset(), m.rejected_steps.reset(), m.smallest_step.reset(), m.largest_step.reset();
  for (auto& v : m.body_values) v.second.reset();
  m.check(H5Fflush(m.file.get(), H5F_SCOPE_LOCAL) >= 0 && m.file.reset() >= 0, "cannot flush and close the file");
}

}  // namespace quatstep
