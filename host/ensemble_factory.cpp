// Backend choice and the CPU half of the scenario → ensemble dispatch (ensemble_builder.hpp).
#include "ensemble_factory.hpp"

#include <stdexcept>

#include "cpu_ensemble.hpp"
#include "ensemble_builder.hpp"
#ifdef QUATSTEP_WITH_CUDA
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_ensemble_shards.hpp"
#endif

namespace quatstep {

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

#ifdef QUATSTEP_WITH_CUDA
std::unique_ptr<Ensemble> make_cuda_ensemble(const Scenario& sc) {
  return with_int<cuda::shards>(sc.integrator.method % cuda::shards, [&](auto shard) {
    constexpr int k = decltype(shard)::value;
    if (sc.precision == Precision::single_precision) return cuda::make_ensemble_shard<float, k>(sc);
    return cuda::make_ensemble_shard<double, k>(sc);
  });
}
#endif

std::unique_ptr<Ensemble> make_ensemble(const Scenario& sc, const BackendChoice& backend) {
#ifdef QUATSTEP_WITH_CUDA
  if (backend.backend == Backend::cuda) return make_cuda_ensemble(sc);
#endif
  if (backend.backend != Backend::cpu) throw std::logic_error("make_ensemble: backend not resolved by choose_backend");
  if (sc.precision == Precision::single_precision) return build::ensemble_in<CpuEnsemble, float>(sc);
  return build::ensemble_in<CpuEnsemble, double>(sc);
}

}  // namespace quatstep
