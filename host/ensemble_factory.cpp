// Backend choice and the scenario → ensemble dispatch to the backend, precision and shard (the
// instantiations are in cpu_ensemble_shard.cpp.in and kernels/cuda_ensemble_shard.cu.in).
#include "ensemble_factory.hpp"

#include <algorithm>
#include <stdexcept>

#include "cpu_ensemble_shards.hpp"
#include "quatstep/registry/type_list.hpp"
#ifdef QUATSTEP_WITH_CUDA
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_ensemble_shards.hpp"
#endif

namespace quatstep {

std::string select_cuda_device(int ordinal) {
#ifdef QUATSTEP_WITH_CUDA
  const std::string reason = cuda::device_unusable_reason();
  if (!reason.empty()) return reason;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1 || cudaSetDevice(ordinal % count) != cudaSuccess)
    return "cannot select CUDA device " + std::to_string(ordinal % std::max(count, 1));
  return cuda::device_description();
#else
  (void)ordinal;
  return "this quatstep was built without CUDA";
#endif
}

BackendChoice choose_backend(Backend requested) {
  if (requested == Backend::cpu) return {Backend::cpu, "cpu"};
#ifdef QUATSTEP_WITH_CUDA
  const std::string reason = cuda::device_unusable_reason();
  if (reason.empty()) return {Backend::cuda, "cuda: " + cuda::device_description()};
#else
  const std::string reason = "this quatstep was built without CUDA (QUATSTEP_CUDA=OFF or nvcc not found)";
#endif
  if (requested == Backend::cuda) throw std::runtime_error("backend \"cuda\" requested, but " + reason);
  return {Backend::cpu, "cpu (auto: " + reason + ")"};
}

/// A float run on the CPU needs the float CPU ensembles, which a build with QUATSTEP_CPU_FLOAT=OFF
/// (scripts/setup.sh's first build) leaves out: said before anything is written.
static void require_cpu_precision(const Scenario& sc) {
  if (sc.precision == Precision::single_precision && !QUATSTEP_CPU_FLOAT)
    throw std::runtime_error((sc.source.empty() ? std::string("scenario") : sc.source) +
                             ": [run] precision = \"float\" runs on the CPU here, but this quatstep was built "
                             "without the CPU's float ensembles (QUATSTEP_CPU_FLOAT=OFF: scripts/setup.sh's first "
                             "build compiles only what README's first command runs); build them with: cmake -S . "
                             "-B build -DQUATSTEP_CPU_FLOAT=ON && cmake --build build --target quatstep (or "
                             "scripts/setup.sh --tests)");
}

BackendChoice choose_backend(Backend requested, const std::string& source) {
  try {
    return choose_backend(requested);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(source + ": key 'run.backend' (or --backend): " + e.what());
  }
}

BackendChoice choose_backend(const Scenario& sc) {
  const BackendChoice choice = choose_backend(sc.backend, sc.source);
  if (choice.backend == Backend::cpu) require_cpu_precision(sc);
  return choice;
}

#ifdef QUATSTEP_WITH_CUDA
std::unique_ptr<Ensemble> make_cuda_ensemble(const Scenario& sc) {
  return with_int<cuda::shards>(sc.integrator.method % cuda::shards, [&](auto shard) {
    constexpr int k = decltype(shard)::value;
    if (sc.precision == Precision::single_precision) return cuda::make_ensemble_shard<float, k>(sc);
    return cuda::make_ensemble_shard<double, k>(sc);
  });
}
#endif

HostBuffer Ensemble::host_buffer(std::size_t count) const {
  return HostBuffer(new double[count], [](double* p) { delete[] p; });
}

std::unique_ptr<Ensemble> make_ensemble(const Scenario& sc, const BackendChoice& backend) {
#ifdef QUATSTEP_WITH_CUDA
  if (backend.backend == Backend::cuda) return make_cuda_ensemble(sc);
#endif
  if (backend.backend != Backend::cpu) throw std::logic_error("make_ensemble: backend not resolved by choose_backend");
  require_cpu_precision(sc);
  return with_int<cpu_shards>(sc.integrator.method % cpu_shards, [&](auto shard) {
    constexpr int k = decltype(shard)::value;
#if QUATSTEP_CPU_FLOAT
    if (sc.precision == Precision::single_precision) return make_cpu_ensemble_shard<float, k>(sc);
#endif
    return make_cpu_ensemble_shard<double, k>(sc);
  });
}

}  // namespace quatstep
