// The layout of the types that g++ objects and nvcc objects both use (models, kinematics,
// integrators, mechanisms): inline functions over them are shared by the linker between the two compilers'
// objects, so a type laid out differently by the two (Eigen's static alignment did this, config.hpp)
// corrupts memory without any compiler noticing. shared_layout_here() measures it in whichever
// compiler includes this header; shared_layout_in_nvcc_objects() is the same measure compiled by
// nvcc (shared_layout.cu), for a g++ test to compare.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>

#include "quatstep/integrators/hamiltonian_em.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/mechanism/registry.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep::cuda {

/// sizeof and alignof of each type below, in this order.
inline constexpr const char* shared_layout_types[] = {
    "RigidBodyKinematics<double>", "RigidBodyKinematics<float>", "HeavyTop<double>",
    "FreeRigidBody<double>",       "FreeRigidBody<float>",       "ModifiedHht<HeavyTop<double>>",
    "LivensEm<FreeRigidBody<double>>", "Zupan3<FreeRigidBody<double>>", "HamiltonianEm<HeavyTop<double>>",
    "SmallMechanism",               "MechanismModifiedHht<SmallMechanism>",
    "MechanismModifiedHht<SmallMechanism>::State", "MechanismLivensEm<SmallMechanism>",
    "MechanismLivensEm<SmallMechanism>::State"};
/// The mechanisms the GPU runs (kernels/cuda_mechanisms.cuh).
using SmallMechanism = mechanism::Mechanism<double, mechanism::SmallCapacity>;
using SharedLayout = std::array<std::size_t, 2 * std::size(shared_layout_types)>;

namespace {  // internal linkage: each compiler's own answer, never one shared by the linker
template <class... T>
constexpr SharedLayout layout_of() {
  SharedLayout l{};
  std::size_t k = 0;
  ((l[k] = sizeof(T), l[sizeof...(T) + k] = alignof(T), ++k), ...);
  return l;
}
constexpr SharedLayout shared_layout_here() {
  return layout_of<RigidBodyKinematics<double>, RigidBodyKinematics<float>, HeavyTop<double>, FreeRigidBody<double>,
                   FreeRigidBody<float>, ModifiedHht<HeavyTop<double>>, LivensEm<FreeRigidBody<double>>,
                   Zupan3<FreeRigidBody<double>>, HamiltonianEm<HeavyTop<double>>, SmallMechanism,
                   mechanism::MechanismModifiedHht<SmallMechanism>,
                   mechanism::MechanismModifiedHht<SmallMechanism>::State,
                   mechanism::MechanismLivensEm<SmallMechanism>, mechanism::MechanismLivensEm<SmallMechanism>::State>();
}
}  // namespace

SharedLayout shared_layout_in_nvcc_objects();

}  // namespace quatstep::cuda
