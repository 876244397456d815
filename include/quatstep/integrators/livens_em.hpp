// LivensEm (EML): the Livens-principle energy-momentum scheme of Kinon & Betsch 2024, eqs. (86a)–(86d)
// with the G-equivariant discrete derivatives (87)–(88) for rigid bodies, eqs. (72a)–(72d) with
// App. A for other models. It conserves the generalized energy (74), the momentum maps of the
// symmetries (64) and the constraints to round-off at any step size. REML (§4.5) is the default;
// the template parameter Variant (livens_variant.hpp) selects the full or the null-space
// (Remark 4.11) form.
#pragma once

#include "quatstep/integrators/livens_integrator.hpp"

namespace quatstep {

template <class Model, LivensVariant Variant = LivensVariant::reduced>
using LivensEm = LivensIntegrator<Model, LivensRule::energy_momentum, Variant>;

}  // namespace quatstep
