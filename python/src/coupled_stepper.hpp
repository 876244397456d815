// The coupled-step API for Python, behind a plain C++ interface so that the nanobind module is
// compiled by the host compiler alone: host_stepper.cpp makes a CpuBatchStepper
// (host/cpu_batch_stepper.hpp) and device_stepper.cu (CUDA builds only) a cuda::BatchStepper
// (kernels/batch_stepper.cuh) of any registered model × method × precision from a BodyEnsembleSpec.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "host/session.hpp"
#include "quatstep/coupled_step.hpp"

namespace quatstep::python {

#ifdef QUATSTEP_PYTHON_CUDA
inline constexpr bool has_cuda_stepper = true;
#else
inline constexpr bool has_cuda_stepper = false;
#endif

/// A batch stepper with untyped pointers (of the stepper's precision) into host memory (device()
/// −1) or the stepper's CUDA device, and streams as the integers Python libraries hand out
/// (cudaStream_t; 0 is the legacy default stream; ignored on the host).
class CoupledStepper {
 public:
  virtual ~CoupledStepper() = default;
  virtual index_t bodies() const = 0;
  virtual Precision precision() const = 0;
  virtual bool translates() const = 0;
  virtual index_t steps_done() const = 0;
  virtual double time() const = 0;
  virtual int device() const = 0;  ///< the CUDA device the state lives on, −1 for host memory
  /// One step of size h with spatial torques and forces (3 × bodies arrays, component-major; null
  /// for none), on the GPU asynchronous on `stream`.
  virtual void step(double h, const void* torque, const void* force, std::uintptr_t stream) = 0;
  /// Kinematics into the caller's arrays (4, 3, 3, 3 × bodies, component-major; null: skipped).
  virtual void kinematics(void* quaternion, void* omega_body, void* position, void* velocity,
                          std::uintptr_t stream) const = 0;
  /// Arrays of bodies() entries: status codes (int32), failed step and Newton iterations (int64).
  virtual const void* status() const = 0;
  virtual const void* failed_step() const = 0;
  virtual const void* newton_iterations() const = 0;
};

/// Checks the spec (check_spec), builds the models and uploads them; the consistent initial state is
/// computed on `stream`, which is synchronised once; each step's loads are taken as `timing` says
/// (coupled_step.hpp). CUDA builds only (device_stepper.cu).
std::unique_ptr<CoupledStepper> make_device_stepper(const BodyEnsembleSpec& spec, std::uintptr_t stream,
                                                    LoadTiming timing);

/// The same on the CPU, in host memory (host_stepper.cpp); float where the build has the CPU's float
/// ensembles (QUATSTEP_CPU_FLOAT), else a std::runtime_error saying how to build them.
std::unique_ptr<CoupledStepper> make_host_stepper(const BodyEnsembleSpec& spec, LoadTiming timing);

/// The LoadTiming named "at_start" or "held" (BatchStepper's `loads`); std::invalid_argument naming
/// the choices for another name.
LoadTiming load_timing_named(const std::string& name);

}  // namespace quatstep::python
