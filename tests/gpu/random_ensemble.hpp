// The GPU tests' ensembles: a scenario per model × method with random inertia, orientations
// (uniform over SO(3)), spins and torques — constant, ramped and sinusoidal, so the step's sin/cos
// are on the compared path — drawn by the scenario's own reproducible random tables.
#pragma once

#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "methods.hpp"
#include "scenario.hpp"

namespace quatstep::testing {

/// Every integrator the scenario factory can build: each method with its default settings, plus
/// the settings that select other code paths (the second-order HHT shift, the two other EM forms).
struct IntegratorCase {
  const char* name;  ///< test-name suffix
  Method method;
  const char* keys;  ///< extra [integrator] lines
};
inline constexpr IntegratorCase all_integrators[] = {
    {"hht", Method::hht, ""},
    {"modified_hht", Method::modified_hht, ""},
    {"modified_hht_shift", Method::modified_hht, "inertia_shift = true\n"},
    {"simo_vu_quoc", Method::simo_vu_quoc, ""},
    {"zupan3", Method::zupan3, ""},
    {"explicit_newmark_lie", Method::explicit_newmark_lie, ""},
    {"midpoint_lie", Method::midpoint_lie, ""},
    {"livens_em_reml", Method::livens_em, ""},
    {"livens_em_full", Method::livens_em, "variant = \"full\"\n"},
    {"livens_em_nullspace", Method::livens_em, "variant = \"nullspace\"\n"},
    {"livens_midpoint", Method::livens_midpoint, ""},
    {"livens_hamiltonian_em", Method::livens_hamiltonian_em, ""},
    {"hamiltonian_midpoint", Method::hamiltonian_midpoint, ""},
};
/// gtest prints a test's parameter by this (instead of the struct's bytes).
inline void PrintTo(const IntegratorCase& c, std::ostream* os) { *os << c.name; }
inline constexpr ModelKind all_models[] = {ModelKind::heavy_top, ModelKind::free_rigid_body};

/// The case of a method with its default settings.
inline const IntegratorCase& default_case(Method method) {
  for (const IntegratorCase& c : all_integrators)
    if (c.method == method) return c;
  throw std::logic_error("no test case for the method");
}

/// `bodies` random bodies, `steps` steps of dt = 1e-3 (|ω| up to ~25 rad/s: ≤ 0.025 rad per step),
/// one sample every `stride` steps.
inline std::string random_ensemble_toml(const IntegratorCase& integrator, ModelKind model, int bodies, int steps,
                                        int stride, const char* precision = "double") {
  const bool top = model == ModelKind::heavy_top;
  std::ostringstream s;
  s << "[model]\ntype = \"" << to_string(model) << "\"\ninertia = [2.0, 2.5, 3.0]\nmass = 1.5\n";
  if (top) s << "center_of_mass = [0.0, 0.0, 0.3]\ngravity = [0.0, 0.0, -9.81]\n";
  else s << "gravity = [0.0, 0.0, -9.81]\nforce = [0.1, 0.0, 0.0]\n";
  s << "body_torque = [0.2, -0.1, 0.05]\n"
       "[model.body_torque_profile]\namplitude = [0.3, 0.2, 0.1]\nfrequency = 7.0\nphase = 0.4\n"
       "[model.spatial_torque_profile]\nramp = [0.01, 0.02, -0.01]\n"
       "[integrator]\nmethod = \"" << to_string(integrator.method) << "\"\n" << integrator.keys
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
