// The Python class BatchStepper: cuda::BatchStepper (kernels/batch_stepper.cuh) on any CUDA array
// that speaks DLPack or __cuda_array_interface__ (CuPy, PyTorch, JAX), on the caller's stream. The
// arrays are used in place: nothing is copied and nothing is synchronised.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>  // the optional arrays: without it no call can bind
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "device_stepper.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace quatstep::python {
namespace {

using DeviceArray = nb::ndarray<nb::device::cuda, nb::c_contig>;

/// The device pointer of `a` after checking it is a (rows, bodies) array of the stepper's precision
/// on the stepper's device; null for None.
void* device_pointer(const DeviceStepper& s, const std::optional<DeviceArray>& a, std::size_t rows, const char* name) {
  if (!a) return nullptr;
  const bool single = s.precision() == Precision::single_precision;
  const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(s.bodies()) + ")";
  if (a->ndim() != 2 || a->shape(0) != rows || a->shape(1) != std::size_t(s.bodies()))
    throw std::invalid_argument(std::string(name) + ": expected a CUDA array of shape " + shape + " (component-major)");
  if (a->dtype() != (single ? nb::dtype<float>() : nb::dtype<double>()))
    throw std::invalid_argument(std::string(name) + ": expected " + (single ? "float32" : "float64") +
                                " (the stepper's precision)");
  if (a->device_id() != s.device())
    throw std::invalid_argument(std::string(name) + ": on CUDA device " + std::to_string(a->device_id()) +
                                ", the stepper's state is on device " + std::to_string(s.device()));
  return a->data();
}

/// A device array of the stepper's records as a DLPack-capable array (no copy), kept alive by `owner`.
nb::ndarray<nb::ro> records(nb::handle owner, const void* data, nb::dlpack::dtype dtype) {
  const DeviceStepper& s = nb::cast<const DeviceStepper&>(owner);
  const std::size_t n = std::size_t(s.bodies());
  return nb::ndarray<nb::ro>(data, {n}, owner, {1}, dtype, nb::device::cuda::value, s.device());
}

}  // namespace

LoadTiming load_timing_named(const std::string& name) {
  if (name == "at_start") return LoadTiming::at_start;
  if (name == "held") return LoadTiming::held;
  throw std::invalid_argument("BatchStepper: loads = \"" + name +
                              "\": expected \"at_start\" (the loads of the state each step starts from) or "
                              "\"held\" (the loads of the whole step)");
}

void bind_device_stepper(nb::module_& m) {
  m.attr("has_cuda") = has_cuda_stepper;
  nb::class_<DeviceStepper>(m, "DeviceStepper",
                            "cuda::BatchStepper: the coupled-step API (quatstep.BatchStepper wraps it).")
      .def_prop_ro("bodies", &DeviceStepper::bodies)
      .def_prop_ro("steps_done", &DeviceStepper::steps_done)
      .def_prop_ro("time", &DeviceStepper::time, "t_start plus the sum of the steps taken")
      .def_prop_ro("translates", &DeviceStepper::translates)
      .def_prop_ro("device", &DeviceStepper::device)
      .def_prop_ro("precision", [](const DeviceStepper& s) { return std::string(to_string(s.precision())); })
      .def(
          "step",
          [](DeviceStepper& s, double h, std::optional<DeviceArray> torque, std::optional<DeviceArray> force,
             std::uintptr_t stream) {
            const void* t = device_pointer(s, torque, 3, "torque");
            const void* f = device_pointer(s, force, 3, "force");
            s.step(h, t, f, stream);
          },
          "h"_a, "torque"_a = nb::none(), "force"_a = nb::none(), "stream"_a = 0,
          "One step of every body with spatial torques and forces (3 × bodies CUDA arrays) held over the step; "
          "asynchronous on `stream` (a cudaStream_t as an integer).")
      .def(
          "kinematics",
          [](const DeviceStepper& s, std::optional<DeviceArray> quaternion, std::optional<DeviceArray> omega_body,
             std::optional<DeviceArray> position, std::optional<DeviceArray> velocity, std::uintptr_t stream) {
            if ((position || velocity) && !s.translates())
              throw std::invalid_argument("kinematics: position/velocity given, but this model does not translate");
            s.kinematics(device_pointer(s, quaternion, 4, "quaternion"), device_pointer(s, omega_body, 3, "omega_body"),
                         device_pointer(s, position, 3, "position"), device_pointer(s, velocity, 3, "velocity"), stream);
          },
          "quaternion"_a = nb::none(), "omega_body"_a = nb::none(), "position"_a = nb::none(),
          "velocity"_a = nb::none(), "stream"_a = 0,
          "Write the kinematics into the caller's CUDA arrays (4, 3, 3, 3 × bodies), asynchronous on `stream`.")
      .def(
          "status", [](nb::handle self) {
            return records(self, nb::cast<const DeviceStepper&>(self).status(), nb::dtype<std::int32_t>());
          },
          "Per-body status codes on the device (int32, DLPack, no copy).")
      .def(
          "failed_step", [](nb::handle self) {
            return records(self, nb::cast<const DeviceStepper&>(self).failed_step(), nb::dtype<std::int64_t>());
          },
          "Per-body step of failure on the device (int64, -1 for none).")
      .def(
          "newton_iterations", [](nb::handle self) {
            return records(self, nb::cast<const DeviceStepper&>(self).newton_iterations(), nb::dtype<std::int64_t>());
          },
          "Per-body Newton iterations on the device (int64).");

  m.def(
      "make_device_stepper",
      [](const std::string& model, const std::string& method, const std::string& variant, nb::dict settings,
         const std::string& precision, double t_start,
         const ParameterArray& parameters, std::vector<std::string> given, std::uintptr_t stream,
         const std::string& loads) -> std::unique_ptr<DeviceStepper> {
        const LoadTiming timing = load_timing_named(loads);
#ifdef QUATSTEP_PYTHON_CUDA
        // dt is not the stepper's (each step gives its h); 1 passes the spec's check.
        const BodyEnsembleSpec spec = ensemble_spec(model, method, variant, settings, precision, "cuda", 1.0, t_start,
                                                    parameters, std::move(given));
        nb::gil_scoped_release release;
        return make_device_stepper(spec, stream, timing);
#else
        (void)model, (void)method, (void)variant, (void)settings, (void)precision, (void)t_start, (void)parameters,
            (void)given, (void)stream, (void)timing;
        throw std::runtime_error("BatchStepper needs a CUDA build of quatstep (this one was built without CUDA: "
                                 "QUATSTEP_CUDA=OFF or nvcc not found)");
#endif
      },
      "model"_a, "method"_a, "variant"_a, "settings"_a, "precision"_a, "t_start"_a, "parameters"_a, "given"_a,
      "stream"_a = 0, "loads"_a = "at_start", "The core of quatstep.BatchStepper (CUDA builds).");
}

}  // namespace quatstep::python
