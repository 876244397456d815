// quatstep — batched rigid-body rotation integrators (umbrella header).
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hamiltonian_em.hpp"
#include "quatstep/integrators/hamiltonian_midpoint.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "quatstep/quaternion.hpp"
