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

struct LivensEmMethod {
  static constexpr MethodInfo info{"livens_em", "LivensEm<Model, Variant>", "livens_em.hpp",
                                   "Kinon & Betsch 2024 eqs. 86–105 (docs/errata.md K2, K3)", "2",
                                   "energy, momentum maps, unity constraint to round-off"};
  /// In the order of LivensVariant.
  static constexpr VariantInfo variants[] = {
      {"reml", "reduced form (§4.5): unknowns q, lambda eliminated for rigid bodies (4 unknowns)"},
      {"full", "unknowns (q, v, p, lambda), eqs. (72a)-(72d)"},
      {"nullspace", "unknowns the rotation vector (Remark 4.11, eqs. 104-105); rigid bodies only"}};
  template <class Model, int V>
  using Integrator = LivensEm<Model, LivensVariant(V)>;
  template <class Model, int V>
  static constexpr bool applies = livens_variant_applies<Model, LivensVariant(V)>;
};

}  // namespace quatstep
