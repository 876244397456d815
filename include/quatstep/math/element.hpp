// The number type a scalar is made of: S itself for float and double; a SIMD lane type
// (simd/lanes.hpp: Lanes<T, W> holds W numbers of type T) names its T. The core's choices per
// precision — the trig and elliptic constants, the atan2 series length, the x − sin x series switch,
// float's renormalised orientation — are made on element_t<S>, so a block of float lanes makes
// float's choices and each lane computes its body's scalar bits.
#pragma once

namespace quatstep::math {

template <class S>
struct Element {
  using type = S;
};
template <class S>
using element_t = typename Element<S>::type;

}  // namespace quatstep::math
