// The registry: every integrator and every model quatstep runs from a scenario, one line each.
// The scenario names and keys, the runtime → template dispatch, the CUDA instantiations, the GPU
// test lists and `quatstep docs` all come from these two lists and the entries they name
// (registry/entry.hpp).
//
// Adding an integrator: write its header (the class, its settings struct with describe(), and a
// method entry at the end, as hht.hpp does), include it here and add the entry to Methods.
// Adding a model: the same with a model entry (heavy_top.hpp) in Models.
#pragma once

#include "quatstep/integrators/exact_free_flow.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hamiltonian_em.hpp"
#include "quatstep/integrators/hamiltonian_midpoint.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/symmetric_splitting.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "quatstep/registry/type_list.hpp"

namespace quatstep {

using Models = TypeList<HeavyTopModel, FreeRigidBodyModel>;

using Methods = TypeList<HhtMethod, ModifiedHhtMethod, SimoVuQuocMethod, Zupan3Method, ExplicitNewmarkLieMethod,
                         MidpointLieMethod, LivensEmMethod, LivensMidpointMethod, HamiltonianEmMethod,
                         HamiltonianMidpointMethod, NoSquishMethod, SymmetricSplittingMethod, ExactFreeSplittingMethod>;

}  // namespace quatstep
