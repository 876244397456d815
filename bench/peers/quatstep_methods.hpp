// quatstep's integrators in the peer comparisons, one list for every peer program (CPU, GPU,
// long-run drift), with the settings the tables state: defaults everywhere (Newton tolerance: the
// default, 1e-12 since 2026-11-22 — the CPU peer tables of bench/README.md were measured just before,
// with 1e-10, LivensEm 1e-12; α = −0.2 for the HHT family and Simo–Vu-Quoc); ModifiedHht with the
// inertia shift (second order).
#pragma once

#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/models/free_rigid_body.hpp"

namespace quatstep::peers {

/// f(name, integrator) for each of quatstep's integrators compared with the peers, on FreeRigidBody<double>.
template <class F>
void for_each_quatstep_method(F&& f) {
  using Body = FreeRigidBody<double>;
  HhtSettings<double> second_order;
  second_order.inertia_shift = true;
  f("ModifiedHht+shift", ModifiedHht<Body>(second_order));
  f("SimoVuQuoc", SimoVuQuoc<Body>());
  f("Zupan3", Zupan3<Body>());
  f("ExplicitNewmarkLie", ExplicitNewmarkLie<Body>());
  f("LivensEm", LivensEm<Body>());
  f("MidpointLie", MidpointLie<Body>());
}

}  // namespace quatstep::peers
