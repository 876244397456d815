// HDF5 result file (layout in hdf5_output.hpp), HDF5 C API.
#include "hdf5_output.hpp"

#include <hdf5.h>

#include <algorithm>
#include <stdexcept>

#include "quatstep/config.hpp"
#include "quatstep/status.hpp"

namespace quatstep {
namespace {

/// An HDF5 identifier closed by its own close function.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~Handle() { reset(); }
  herr_t reset() {
    const herr_t r = id_ >= 0 ? close_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return r;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

/// One sampled dataset: a channel written, `size` scalars from scalar `offset` of a sample.
struct SampledDataset {
  Channel channel;
  int offset;
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
  std::vector<double> scratch;

  void check(bool ok, const std::string& what) const {
    if (!ok) throw std::runtime_error(path + ": HDF5 error: " + what);
  }

  Handle dataset(const char* name, hid_t type, std::vector<hsize_t> dims, std::vector<hsize_t> chunk) {
    Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    check(space.valid() && dcpl.valid() && H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) >= 0,
          std::string("cannot lay out '/") + name + "'");
    Handle d(H5Dcreate2(file.get(), name, type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
    check(d.valid(), std::string("cannot create '/") + name + "'");
    return d;
  }

  /// Chunks of ~256 KiB: whole sample rows when one fits, otherwise one sample and an equal share
  /// of the bodies (no mostly empty chunk at the end of a row).
  std::vector<hsize_t> sample_chunk(int components) const {
    const hsize_t nt = std::max<index_t>(samples, 1), n = std::max<index_t>(bodies, 1), c = components;
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
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(owner, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && write(a.get(), type) >= 0, std::string("cannot write attribute '") + name + "'");
  }

  void write(const Handle& d, hid_t type, const void* buffer, std::vector<hsize_t> start, std::vector<hsize_t> count,
             const char* name) {
    Handle file_space(H5Dget_space(d.get()), H5Sclose);
    Handle mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
    check(file_space.valid() && mem_space.valid() &&
              H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) >= 0 &&
              H5Dwrite(d.get(), type, mem_space.get(), file_space.get(), H5P_DEFAULT, buffer) >= 0,
          std::string("cannot write '/") + name + "'");
  }
};

Hdf5Output::Hdf5Output(const std::string& path, index_t bodies, index_t samples, const OutputAttributes& attributes,
                       const std::vector<Channel>& layout, const std::vector<std::string>& written)
    : impl_(std::make_unique<Impl>()) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported as exceptions, not printed
  Impl& m = *impl_;
  m.path = path;
  m.bodies = bodies;
  m.samples = samples;
  m.file = Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!m.file.valid()) throw std::runtime_error(path + ": cannot create the output file");

  const hsize_t nt = samples, n = bodies;
  m.time = m.dataset("time", H5T_IEEE_F64LE, {nt}, {std::min<hsize_t>(std::max<hsize_t>(nt, 1), chunk_elements)});
  for (const Channel& c : layout) {
    if (std::find(written.begin(), written.end(), c.name) != written.end()) {
      std::vector<hsize_t> dims = {nt, n};
      if (c.size > 1) dims.push_back(c.size);
      m.sampled.push_back({c, m.scalars});
      m.data.push_back(m.dataset(c.name, H5T_IEEE_F64LE, dims, m.sample_chunk(c.size)));
      m.string_attribute(m.data.back().get(), "description", c.doc);
    }
    m.scalars += c.size;
  }

  m.string_attribute(m.file.get(), "scenario", attributes.scenario);
  m.string_attribute(m.file.get(), "quatstep_version", version);
  m.string_attribute(m.file.get(), "method", attributes.method);
  m.string_attribute(m.file.get(), "model", attributes.model);
  m.string_attribute(m.file.get(), "backend", attributes.backend);
  m.string_attribute(m.file.get(), "precision", attributes.precision);
  const auto number = [&](const char* name, hid_t type, const void* value) {
    m.attribute(m.file.get(), name, type, [&](hid_t a, hid_t t) { return H5Awrite(a, t, value); });
  };
  number("dt", H5T_NATIVE_DOUBLE, &attributes.dt);
  number("t_start", H5T_NATIVE_DOUBLE, &attributes.t_start);
  const std::int64_t stride = attributes.stride;
  number("stride", H5T_NATIVE_INT64, &stride);
}

Hdf5Output::~Hdf5Output() = default;

void Hdf5Output::write_samples(index_t first, index_t count, const double* samples, const double* times) {
  if (count == 0) return;
  Impl& m = *impl_;
  const hsize_t f = first, k = count, n = m.bodies;
  m.write(m.time, H5T_NATIVE_DOUBLE, times, {f}, {k}, "time");
  for (std::size_t d = 0; d < m.sampled.size(); ++d) {
    const int c = m.sampled[d].channel.size, offset = m.sampled[d].offset;
    // [sample][scalar][body] → [sample][body][component]
    m.scratch.resize(static_cast<std::size_t>(count * m.bodies * c));
    for (index_t s = 0; s < count; ++s)
      for (index_t i = 0; i < m.bodies; ++i)
        for (int j = 0; j < c; ++j)
          m.scratch[(s * m.bodies + i) * c + j] = samples[(s * m.scalars + offset + j) * m.bodies + i];
    std::vector<hsize_t> start = {f, 0}, size = {k, n};
    if (c > 1) start.push_back(0), size.push_back(c);
    m.write(m.data[d], H5T_NATIVE_DOUBLE, m.scratch.data(), start, size, m.sampled[d].channel.name);
  }
}

void Hdf5Output::write_body_results(const std::vector<Status>& status, const std::vector<index_t>& newton_iterations,
                                    const std::vector<index_t>& failed_step) {
  Impl& m = *impl_;
  const hsize_t n = m.bodies, chunk = std::min<hsize_t>(std::max<hsize_t>(n, 1), chunk_elements);
  std::vector<std::int32_t> codes(status.size());
  std::transform(status.begin(), status.end(), codes.begin(), [](Status s) { return static_cast<std::int32_t>(s); });
  const Handle s = m.dataset("status", H5T_STD_I32LE, {n}, {chunk});
  m.write(s, H5T_NATIVE_INT32, codes.data(), {0}, {n}, "status");
  std::string meaning;  // "0 ok, 1 newton_not_converged, …" from status.hpp
  for (std::int32_t c = 0; std::string(to_string(static_cast<Status>(c))) != "unknown"; ++c)
    meaning += (c ? ", " : "") + std::to_string(c) + " " + to_string(static_cast<Status>(c));
  m.string_attribute(s.get(), "codes", meaning);
  static_assert(sizeof(index_t) == sizeof(std::int64_t));
  m.write(m.dataset("newton_iterations", H5T_STD_I64LE, {n}, {chunk}), H5T_NATIVE_INT64, newton_iterations.data(), {0},
          {n}, "newton_iterations");
  m.write(m.dataset("failed_step", H5T_STD_I64LE, {n}, {chunk}), H5T_NATIVE_INT64, failed_step.data(), {0}, {n},
          "failed_step");
}

void Hdf5Output::close() {
  Impl& m = *impl_;
  if (!m.file.valid()) return;
  m.time.reset();
  for (Handle& d : m.data) d.reset();
  m.check(H5Fflush(m.file.get(), H5F_SCOPE_LOCAL) >= 0 && m.file.reset() >= 0, "cannot flush and close the file");
}

}  // namespace quatstep
