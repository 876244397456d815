// Which Newton system a Livens scheme solves per step (Kinon & Betsch 2024 §4, livens_system.hpp):
// a template parameter of LivensIntegrator, so that a kernel holds only the system it runs, and the
// one switch that turns a runtime choice (a scenario's [integrator] variant) into it.
#pragma once

#include <stdexcept>
#include <type_traits>

namespace quatstep {

/// reduced: unknowns (q¹, λ), eq. (103) — REML (§4.5); for rigid bodies with λ eliminated
///          (livens_rigid_body.hpp), 4 unknowns;
/// full:    unknowns (q¹, v¹, p¹, λ), eqs. (72a)–(72d);
/// nullspace: unknowns ϑ ∈ R³, Remark 4.11, eqs. (104)–(105) (rigid bodies only).
enum class LivensVariant { reduced, full, nullspace };

template <LivensVariant V>
using LivensVariantTag = std::integral_constant<LivensVariant, V>;

/// f(LivensVariantTag<v>{}): the runtime variant as a compile-time constant (host code).
template <class F>
decltype(auto) with_livens_variant(LivensVariant v, F&& f) {
  switch (v) {
    case LivensVariant::reduced: return f(LivensVariantTag<LivensVariant::reduced>{});
    case LivensVariant::full: return f(LivensVariantTag<LivensVariant::full>{});
    case LivensVariant::nullspace: return f(LivensVariantTag<LivensVariant::nullspace>{});
  }
  throw std::logic_error("unknown Livens variant");
}

}  // namespace quatstep
