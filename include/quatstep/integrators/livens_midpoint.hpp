// LivensMidpoint (MPL): the midpoint discretization of Livens' equations, Kinon & Betsch 2024
// App. B eq. (132) — the non-conserving reference of the EML scheme (same unknowns and variants).
#pragma once

#include "quatstep/integrators/livens_integrator.hpp"

namespace quatstep {

template <class Model, LivensVariant Variant = LivensVariant::reduced>
using LivensMidpoint = LivensIntegrator<Model, LivensRule::midpoint, Variant>;

struct LivensMidpointMethod {
  static constexpr MethodInfo info{"livens_midpoint", "LivensMidpoint<Model>", "livens_midpoint.hpp",
                                   "Kinon & Betsch App. B eq. 132", "2", "unity constraint"};
  template <class Model, int>
  using Integrator = LivensMidpoint<Model>;
};

}  // namespace quatstep
