// HHT-α parameters shared by the classical, modified and Lie-group HHT schemes.
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/settings_keys.hpp"

namespace quatstep {

template <class S>
struct HhtParameters {
  S alpha, beta, gamma;

  /// β = (1−α)²/4, γ = (1−2α)/2 (Sherif eq. 19). α ∈ [−1/3, 0] is checked on the host before a
  /// run (alpha_range, keys::check), so that device code never throws.
  QS_HD explicit HhtParameters(S a)
      : alpha(a), beta(S(0.25) * (S(1) - a) * (S(1) - a)), gamma(S(0.5) * (S(1) - S(2) * a)) {}
};

/// α outside [−1/3, 0] loses the HHT stability and accuracy properties (Sherif §4).
inline constexpr keys::Range alpha_range = keys::between(-1.0 / 3, 0.0, "in [-1/3, 0]");

}  // namespace quatstep
