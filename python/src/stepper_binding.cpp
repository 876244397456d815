// The Python class BatchStepper: a CpuBatchStepper (host/cpu_batch_stepper.hpp) on NumPy arrays, or
// cuda::BatchStepper (kernels/batch_stepper.cuh) on any CUDA array that speaks DLPack or
// __cuda_array_interface__ (CuPy, PyTorch, JAX), on the caller's stream. The arrays are used in
// place: nothing is copied and nothing is synchronised.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>  // the optional arrays: without it no call can bind
#include <nanobind/stl/pair.h>      // make_batch_stepper's (stepper, backend)
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "coupled_stepper.hpp"
#include "host/ensemble_factory.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace quatstep::python {
namespace {

using Array = nb::ndarray<nb::c_contig>;        ///< written: the kinematics
using Loads = nb::ndarray<nb::ro, nb::c_contig>;  ///< read: the loads, read-only arrays welcome

/// Where the stepper's arrays live, in the words of an error message.
std::string memory_of(const CoupledStepper& s) {
  return s.device() < 0 ? "a host (NumPy) array" : "a CUDA array on device " + std::to_string(s.device());
}

/// The data pointer of `a` after checking it is a (rows, bodies) array of the stepper's precision in
/// the stepper's memory (the host's, or its CUDA device's); null for None.
template <class A>
auto data_pointer(const CoupledStepper& s, const std::optional<A>& a, std::size_t rows, const char* name)
    -> decltype(a->data()) {
  if (!a) return nullptr;
  const bool single = s.precision() == Precision::single_precision;
  const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(s.bodies()) + ")";
  const bool on_host = a->device_type() == nb::device::cpu::value;
  const bool on_cuda = a->device_type() == nb::device::cuda::value;
  if (s.device() < 0 ? !on_host : !(on_cuda && a->device_id() == s.device()))
    throw std::invalid_argument(std::string(name) + ": expected " + memory_of(s) + " (the stepper's state is there)");
  if (a->ndim() != 2 || a->shape(0) != rows || a->shape(1) != std::size_t(s.bodies()))
    throw std::invalid_argument(std::string(name) + ": expected " + memory_of(s) + " of shape " + shape +
                                " (component-major, C-contiguous)");
  if (a->dtype() != (single ? nb::dtype<float>() : nb::dtype<double>()))
    throw std::invalid_argument(std::string(name) + ": expected " + (single ? "float32" : "float64") +
                                " (the stepper's precision)");
  return a->data();
}

/// An output array of kinematics(): its data (null: none), rows and name.
struct Output {
  const void* data;
  std::size_t rows;
  const char* name;
};

/// std::invalid_argument naming two outputs whose memory overlaps (each would overwrite the other).
void check_apart(const CoupledStepper& s, std::initializer_list<Output> outputs) {
  const std::size_t scalar = s.precision() == Precision::single_precision ? sizeof(float) : sizeof(double);
  for (auto a = outputs.begin(); a != outputs.end(); ++a)
    for (auto b = a + 1; b != outputs.end(); ++b) {
      if (!a->data || !b->data) continue;
      const auto begin = [](const Output& o) { return reinterpret_cast<std::uintptr_t>(o.data); };
      const auto end = [&](const Output& o) { return begin(o) + o.rows * std::size_t(s.bodies()) * scalar; };
      if (begin(*a) < end(*b) && begin(*b) < end(*a))
        throw std::invalid_argument(std::string("kinematics: ") + a->name + " and " + b->name +
                                    " share memory (each is written in full)");
    }
}

/// The stepper's records in its memory, read-only and without a copy, kept alive by `owner`: a NumPy
/// array on the host, on the GPU a DLPack capsule (cupy.from_dlpack, torch.from_dlpack).
nb::object records(nb::handle owner, const void* data, nb::dlpack::dtype dtype) {
  const CoupledStepper& s = nb::cast<const CoupledStepper&>(owner);
  const std::size_t n = std::size_t(s.bodies());
  if (s.device() < 0)
    return nb::cast(nb::ndarray<nb::numpy, nb::ro>(data, {n}, owner, {1}, dtype, nb::device::cpu::value, 0));
  return nb::cast(nb::ndarray<nb::ro>(data, {n}, owner, {1}, dtype, nb::device::cuda::value, s.device()));
}

}  // namespace

LoadTiming load_timing_named(const std::string& name) {
  if (name == "at_start") return LoadTiming::at_start;
  if (name == "held") return LoadTiming::held;
  throw std::invalid_argument("BatchStepper: loads = \"" + name +
                              "\": expected \"at_start\" (the loads of the state each step starts from) or "
                              "\"held\" (the loads of the whole step)");
}

void bind_batch_stepper(nb::module_& m) {
  m.attr("has_cuda") = has_cuda_stepper;
  nb::class_<CoupledStepper>(m, "CoupledStepper",
                             "CpuBatchStepper or cuda::BatchStepper: the coupled-step API (quatstep.BatchStepper "
                             "wraps it).")
      .def_prop_ro("bodies", &CoupledStepper::bodies)
      .def_prop_ro("steps_done", &CoupledStepper::steps_done)
      .def_prop_ro("time", &CoupledStepper::time, "t_start plus the steps taken (t_base + k·h since h last changed)")
      .def_prop_ro("translates", &CoupledStepper::translates)
      .def_prop_ro("device", &CoupledStepper::device, "The CUDA device holding the state, -1 for host memory.")
      .def_prop_ro("precision", [](const CoupledStepper& s) { return std::string(to_string(s.precision())); })
      .def(
          "step",
          [](CoupledStepper& s, double h, std::optional<Loads> torque, std::optional<Loads> force,
             std::uintptr_t stream) {
            const void* t = data_pointer(s, torque, 3, "torque");
            const void* f = data_pointer(s, force, 3, "force");
            nb::gil_scoped_release release;  // the CPU's steps take a while; the GPU's return at once
            s.step(h, t, f, stream);
          },
          "h"_a, "torque"_a = nb::none(), "force"_a = nb::none(), "stream"_a = 0,
          "One step of every body with spatial torques and forces (3 × bodies arrays in the stepper's memory); on "
          "the GPU asynchronous on `stream` (a cudaStream_t as an integer).")
      .def(
          "kinematics",
          [](const CoupledStepper& s, std::optional<Array> quaternion, std::optional<Array> omega_body,
             std::optional<Array> position, std::optional<Array> velocity, std::uintptr_t stream) {
            if ((position || velocity) && !s.translates())
              throw std::invalid_argument("kinematics: position/velocity given, but this model does not translate");
            void* q = data_pointer(s, quaternion, 4, "quaternion");
            void* w = data_pointer(s, omega_body, 3, "omega_body");
            void* x = data_pointer(s, position, 3, "position");
            void* v = data_pointer(s, velocity, 3, "velocity");
            check_apart(s, {{q, 4, "quaternion"}, {w, 3, "omega_body"}, {x, 3, "position"}, {v, 3, "velocity"}});
            nb::gil_scoped_release release;
            s.kinematics(q, w, x, v, stream);
          },
          // written in place: a non-contiguous array must not be swapped for a contiguous copy
          nb::arg("quaternion").noconvert() = nb::none(), nb::arg("omega_body").noconvert() = nb::none(),
          nb::arg("position").noconvert() = nb::none(), nb::arg("velocity").noconvert() = nb::none(),
          "stream"_a = 0,
          "Write the kinematics into the caller's arrays (4, 3, 3, 3 × bodies, C-contiguous, in the stepper's "
          "memory); on the GPU asynchronous on `stream`.")
      .def(
          "status", [](nb::handle self) {
            return records(self, nb::cast<const CoupledStepper&>(self).status(), nb::dtype<std::int32_t>());
          },
          "Per-body status codes in the stepper's memory (int32, DLPack, no copy).")
      .def(
          "failed_step", [](nb::handle self) {
            return records(self, nb::cast<const CoupledStepper&>(self).failed_step(), nb::dtype<std::int64_t>());
          },
          "Per-body step of failure in the stepper's memory (int64, -1 for none).")
      .def(
          "newton_iterations", [](nb::handle self) {
            return records(self, nb::cast<const CoupledStepper&>(self).newton_iterations(), nb::dtype<std::int64_t>());
          },
          "Per-body Newton iterations in the stepper's memory (int64).");

  m.def(
      "make_batch_stepper",
      [](const std::string& model, const std::string& method, const std::string& variant, nb::dict settings,
         const std::string& precision, const std::string& backend, double t_start, const ParameterArray& parameters,
         std::vector<std::string> given, std::uintptr_t stream, const std::string& loads) {
        const LoadTiming timing = load_timing_named(loads);
        const BackendChoice choice = choose_backend(parse_backend(backend));
        // dt is not the stepper's (each step gives its h); 1 passes the spec's check.
        BodyEnsembleSpec spec = ensemble_spec(model, method, variant, settings, precision, backend, 1.0, t_start,
                                              parameters, std::move(given));
        spec.source = "quatstep.BatchStepper";
        nb::gil_scoped_release release;
        std::unique_ptr<CoupledStepper> stepper;
#ifdef QUATSTEP_PYTHON_CUDA
        if (choice.backend == Backend::cuda) stepper = make_device_stepper(spec, stream, timing);
#else
        (void)stream;
#endif
        if (!stepper) stepper = make_host_stepper(spec, timing);
        return std::make_pair(std::move(stepper), choice.description);
      },
      "model"_a, "method"_a, "variant"_a, "settings"_a, "precision"_a, "backend"_a, "t_start"_a, "parameters"_a,
      "given"_a, "stream"_a = 0, "loads"_a = "at_start",
      "The core of quatstep.BatchStepper: (stepper, what steps it) on `backend` (\"cpu\", \"cuda\", or \"auto\": "
      "the GPU when one is usable).");
}

}  // namespace quatstep::python
