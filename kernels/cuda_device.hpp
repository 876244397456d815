// Whether this process can use a CUDA device, and which one — for `backend = "auto"` and for the
// GPU tests' skip messages. Host code only (cudart); safe on machines without a driver.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace quatstep::cuda {

/// Empty when device 0 is usable; otherwise why not ("no usable CUDA device: CUDA driver version is
/// insufficient for CUDA runtime version"). cudaGetDeviceCount reports a missing driver as an error,
/// not as zero devices (docs/toolchain.md), so both count.
inline std::string device_unusable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device present";
  return {};
}

/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, device 0)" for the current device.
inline std::string device_description() {
  int device = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) return "unknown CUDA device";
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, device " + std::to_string(device) + ")";
}

}  // namespace quatstep::cuda
