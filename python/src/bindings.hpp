// The parts of the module _quatstep defined in files of their own.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <vector>

#include "host/session.hpp"

namespace quatstep::python {

using ParameterArray = nanobind::ndarray<const double, nanobind::ndim<2>, nanobind::c_contig, nanobind::device::cpu>;

/// A BodyEnsembleSpec from the arguments the Python wrappers pass (module.cpp): settings as a dict
/// of Python values, `parameters` (bodies, flat parameters of the model), `given` the keys set.
BodyEnsembleSpec ensemble_spec(const std::string& model, const std::string& method, const std::string& variant,
                               nanobind::dict settings, const std::string& precision, const std::string& backend,
                               double dt, double t_start, const ParameterArray& parameters,
                               std::vector<std::string> given);

/// BatchStepper, the coupled-step API on NumPy arrays (the CPU) or CUDA arrays (stepper_binding.cpp);
/// has_cuda is False where the build has no CUDA.
void bind_batch_stepper(nanobind::module_& m);

}  // namespace quatstep::python
