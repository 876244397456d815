// LivensMidpoint (MPL): the midpoint discretization of Livens' equations, Kinon & Betsch 2024
// App. B eq. (132) — the non-conserving reference of the EML scheme (same unknowns and variants).
#pragma once

#include "quatstep/integrators/livens_integrator.hpp"

namespace quatstep {

template <class Model, LivensVariant Variant = LivensVariant::reduced>
using LivensMidpoint = LivensIntegrator<Model, LivensRule::midpoint, Variant>;

}  // namespace quatstep
