// HamiltonianMidpoint (MPH): the midpoint rule for the Hamiltonian equations (143) with the
// augmented mass matrix, Kinon & Betsch 2024 App. B eq. (133).
#pragma once

#include "quatstep/integrators/hamiltonian_quaternion.hpp"

namespace quatstep {

template <class Model>
using HamiltonianMidpoint = HamiltonianQuaternion<Model, LivensRule::midpoint>;

struct HamiltonianMidpointMethod {
  static constexpr MethodInfo info{"hamiltonian_midpoint", "HamiltonianMidpoint<Model>", "hamiltonian_midpoint.hpp",
                                   "Kinon & Betsch App. B eq. 133", "2", "unity constraint"};
  template <class Model, int>
  using Integrator = HamiltonianMidpoint<Model>;
};

}  // namespace quatstep
