// The structured saddle-point solve of a mechanism (mechanism/kkt.hpp) for W mechanisms at once:
// StructuredKkt instantiated with Lanes, its body blocks factorised by LaneLu (lane_lu.hpp) and its
// Schur complement by LaneBoundedLu (lane_bounded_lu.hpp), each lane the bits of its mechanism's
// scalar solve. take() is lane_newton's (lane_newton.hpp): a fresh factorisation for the lanes whose
// Newton iteration needs one, the others keeping theirs.
#pragma once

#include "quatstep/mechanism/kkt.hpp"
#include "quatstep/simd/lane_bounded_lu.hpp"
#include "quatstep/simd/lane_lu.hpp"
#include "quatstep/simd/lane_trig.hpp"

namespace quatstep::simd {

/// Lanes `which` of `from` into `into`: the blocks of the mechanism both were assembled for.
template <class L, class Cap, bool Symmetric>
void take(const typename L::Mask& which, mechanism::StructuredKkt<L, Cap, Symmetric>& into,
          const mechanism::StructuredKkt<L, Cap, Symmetric>& from) {
  const auto& m = *from.mech;
  for (int b = 0; b < m.n_bodies; ++b) into.body[b].take(which, from.body[b]);
  for (int k = 0; k < m.n_joints; ++k)
    for (int s = 0; s < 2; ++s) {
      into.jac[k][s] = blend(which, from.jac[k][s], into.jac[k][s]);
      into.y[k][s] = blend(which, from.y[k][s], into.y[k][s]);
      if constexpr (!Symmetric) into.col[k][s] = blend(which, from.col[k][s], into.col[k][s]);
    }
  into.schur.take(which, from.schur);
  into.singular = (which && from.singular) || (!which && into.singular);
  into.mech = from.mech;
}

}  // namespace quatstep::simd
