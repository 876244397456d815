// HamiltonianEm (EMH): the Betsch–Siebert energy-momentum scheme for Euler parameters with the
// augmented regular mass matrix, Kinon & Betsch 2024 App. D eqs. (138)–(146).
#pragma once

#include "quatstep/integrators/hamiltonian_quaternion.hpp"

namespace quatstep {

template <class Model>
using HamiltonianEm = HamiltonianQuaternion<Model, LivensRule::energy_momentum>;

struct HamiltonianEmMethod {
  static constexpr MethodInfo info{"hamiltonian_em", "HamiltonianEm<Model>", "hamiltonian_em.hpp",
                                   "Kinon & Betsch App. D eqs. 138–146 (Betsch & Siebert's EM with the augmented "
                                   "mass matrix)",
                                   "2", "energy (H)"};
  template <class Model, int>
  using Integrator = HamiltonianEm<Model>;
};

}  // namespace quatstep
