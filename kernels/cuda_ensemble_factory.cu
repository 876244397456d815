// The CUDA half of make_ensemble: every model × method × precision of a scenario as a
// cuda::CudaEnsemble. This is the translation unit where all the batch kernels are instantiated
// (its resource usage is what bench/gpu_resources.sh reports).
#include "cuda_ensemble.cuh"
#include "host/ensemble_builder.hpp"
#include "shared_layout.hpp"

namespace quatstep {

std::unique_ptr<Ensemble> make_cuda_ensemble(const Scenario& sc) { return build::ensemble_on<cuda::CudaEnsemble>(sc); }

cuda::SharedLayout cuda::shared_layout_in_nvcc_objects() { return shared_layout_here(); }

}  // namespace quatstep
