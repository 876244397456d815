// The HDF5 result file of a run (nt = samples, N = bodies; row-major, as h5py shows it):
//   /time (nt)
//   /<channel> (nt×N for a one-scalar channel, nt×N×k for k scalars) for every channel written
//     ([output] channels; the model's and the method's channels, channels.hpp: quaternion (scalar
//     first), omega_body, position, velocity, energy, angular_momentum, constraint_violation,
//     local_error, generalized_energy, …), each with a "description" attribute
//   /status (N, int32; attribute "codes" lists the meanings)            /newton_iterations (N, int64)
//   /failed_step (N, int64, −1 if none)
//   root attributes: scenario (TOML text), quatstep_version, method, model, backend (what ran it,
//   e.g. "cuda: NVIDIA H100 …"), precision ("double" | "float"), dt, t_start, stride.
// The sampled datasets are chunked and written a window of samples at a time, so a long run never
// sits in memory whole.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quatstep/channels.hpp"
#include "quatstep/ensemble.hpp"

namespace quatstep {

struct OutputAttributes {
  std::string scenario, method, model, backend, precision;
  double dt = 0, t_start = 0;
  index_t stride = 1;
};

class Hdf5Output {
 public:
  /// Creates (truncates) `path` with a dataset sized for `samples` × `bodies` for each channel of
  /// `layout` (the channels of a sample, in buffer order) named in `written`; throws
  /// std::runtime_error naming the file when HDF5 cannot.
  Hdf5Output(const std::string& path, index_t bodies, index_t samples, const OutputAttributes& attributes,
             const std::vector<Channel>& layout, const std::vector<std::string>& written);
  ~Hdf5Output();
  Hdf5Output(const Hdf5Output&) = delete;
  Hdf5Output& operator=(const Hdf5Output&) = delete;

  /// Samples [first, first + count): `samples` in the SampleView layout [sample][scalar][body]
  /// (ensemble.hpp), `times` one per sample.
  void write_samples(index_t first, index_t count, const double* samples, const double* times);
  void write_body_results(const std::vector<Status>& status, const std::vector<index_t>& newton_iterations,
                          const std::vector<index_t>& failed_step);
  /// Flush and close; errors surface here rather than in the destructor.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quatstep
