// CUDA runtime errors become exceptions that say which call failed and why.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace quatstep::cuda {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw CudaError(std::string("CUDA: ") + what + ": " + cudaGetErrorString(err));
}

}  // namespace quatstep::cuda
