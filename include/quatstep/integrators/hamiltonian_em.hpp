// HamiltonianEm (EMH): the Betsch–Siebert energy-momentum scheme for Euler parameters with the
// augmented regular mass matrix, Kinon & Betsch 2024 App. D eqs. (138)–(146).
#pragma once

#include "quatstep/integrators/hamiltonian_quaternion.hpp"

namespace quatstep {

template <class Model>
using HamiltonianEm = HamiltonianQuaternion<Model, LivensRule::energy_momentum>;

}  // namespace quatstep
