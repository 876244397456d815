// The HDF5 result file of a run (nt = samples, N = bodies; row-major, as h5py shows it):
//   /time (nt)                     /quaternion (nt×N×4, scalar first)   /omega_body (nt×N×3)
//   /energy (nt×N)                 /angular_momentum (nt×N×3, spatial)  /constraint_violation (nt×N)
//   /status (N, int32; attribute "codes" lists the meanings)            /newton_iterations (N, int64)
//   /failed_step (N, int64, −1 if none)
//   optional (OptionalDatasets): /local_error (nt×N), /generalized_energy (nt×N)
//   root attributes: scenario (TOML text), quatstep_version, method, model, backend (what ran it,
//   e.g. "cuda: NVIDIA H100 …"), precision ("double" | "float"), dt, t_start, stride.
// The sampled datasets are chunked and written a window of samples at a time, so a long run never
// sits in memory whole.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quatstep/ensemble.hpp"

namespace quatstep {

struct OutputAttributes {
  std::string scenario, method, model, backend, precision;
  double dt = 0, t_start = 0;
  index_t stride = 1;
};

/// The sampled datasets written only for some methods.
struct OptionalDatasets {
  bool local_error = false;         ///< channel::local_error (Zupan3's estimate, errata Z7)
  bool generalized_energy = false;  ///< channel::generalized_energy (Kinon eq. 74 / H of eqs. 138–139)
};

class Hdf5Output {
 public:
  /// Creates (truncates) `path` with every dataset sized for `samples` × `bodies` (the optional ones
  /// where asked); throws std::runtime_error naming the file when HDF5 cannot.
  Hdf5Output(const std::string& path, index_t bodies, index_t samples, const OutputAttributes& attributes,
             const OptionalDatasets& optional = {});
  ~Hdf5Output();
  Hdf5Output(const Hdf5Output&) = delete;
  Hdf5Output& operator=(const Hdf5Output&) = delete;

  /// Samples [first, first + count): `samples` in the SampleView layout [sample][channel][body]
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
