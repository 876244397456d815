// The GPU tests' ensembles: a scenario per model × method with random inertia, orientations
// (uniform over SO(3)), spins and torques — constant, ramped and sinusoidal, so the step's sin/cos
// are on the compared path — drawn by the scenario's own reproducible random tables. The lists of
// integrators and models come from the registry (host/registry_views.hpp): a method or model added
// there is tested here without an edit.
#pragma once

#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "scenario.hpp"

namespace quatstep::testing {

using quatstep::IntegratorCase;
/// gtest prints a test's parameter by this (instead of the struct's bytes).
inline void PrintTo(const IntegratorCase& c, std::ostream* os) { *os << c.name; }

inline std::vector<IntegratorCase> all_integrators() { return integrator_cases(); }

/// Every model, by its index in model_views().
inline std::vector<int> all_models() {
  std::vector<int> models;
  for (const ModelView& m : model_views()) models.push_back(m.index);
  return models;
}

inline std::string model_name(int model) { return names_of(model_views()).at(model); }
inline int model_index(const std::string& name) { return index_of(names_of(model_views()), name); }

/// The case of a method with its default settings.
inline IntegratorCase default_case(const std::string& method) {
  for (const IntegratorCase& c : all_integrators())
    if (method_views()[c.method].info.name == method && c.keys.empty()) return c;
  throw std::logic_error("no test case for method " + method);
}

/// Whether the case's method runs on the model (in the case's variant).
inline bool runs_on(const IntegratorCase& c, int model) { return method_views()[c.method].applies[model][c.variant]; }

/// Every integrator case × model × precision, the parameters of the tests that cover the registry.
using EveryCase = std::tuple<IntegratorCase, int, const char*>;
inline auto every_case() {
  return ::testing::Combine(::testing::ValuesIn(all_integrators()), ::testing::ValuesIn(all_models()),
                            ::testing::Values("double", "float"));
}
/// A test's name for its EveryCase parameter: "modified_hht_shift_heavy_top_float".
inline std::string every_case_name(const ::testing::TestParamInfo<EveryCase>& info) {
  return std::get<0>(info.param).name + "_" + model_name(std::get<1>(info.param)) + "_" + std::get<2>(info.param);
}

/// `bodies` random bodies, `steps` steps of dt = 1e-3 (|ω| up to ~25 rad/s: ≤ 0.025 rad per step),
/// one sample every `stride` steps.
inline std::string random_ensemble_toml(const IntegratorCase& integrator, int model, int bodies, int steps,
                                        int stride, const char* precision = "double") {
  std::ostringstream s;
  s << "[model]\ntype = \"" << model_name(model) << "\"\ninertia = [2.0, 2.5, 3.0]\nmass = 1.5\n"
    << model_views().at(model).info.example  // the model's own keys (registry/entry.hpp)
    << "body_torque = [0.2, -0.1, 0.05]\n"
       "[model.body_torque_profile]\namplitude = [0.3, 0.2, 0.1]\nfrequency = 7.0\nphase = 0.4\n"
       "[model.spatial_torque_profile]\nramp = [0.01, 0.02, -0.01]\n"
       "[integrator]\nmethod = \"" << method_views()[integrator.method].info.name << "\"\n" << integrator.keys
    << "[run]\nprecision = \"" << precision << "\"\n"
    << "[time]\ndt = 1e-3\nt_end = " << steps * 1e-3 << "\n"
    << "[ensemble]\nsize = " << bodies << "\n"
       "[[ensemble.random]]\nkey = \"model.inertia\"\ndistribution = \"uniform\"\nlow = 2.0\nhigh = 3.0\nseed = 1\n"
       "[[ensemble.random]]\nkey = \"initial.quaternion\"\ndistribution = \"uniform_rotation\"\nseed = 2\n"
       "[[ensemble.random]]\nkey = \"initial.omega_body\"\ndistribution = \"normal\"\nmean = 0.0\nstddev = 8.0\nseed = 3\n"
       "[[ensemble.random]]\nkey = \"model.body_torque\"\ndistribution = \"uniform\"\nlow = -0.5\nhigh = 0.5\nseed = 4\n"
       "[output]\nstride = " << stride << "\n";
  return s.str();
}

}  // namespace quatstep::testing
