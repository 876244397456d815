// Portable atan2(s, c) for s ≥ 0 — the angle of the point (c, s), in [0, π] — for float and double:
// only + − × ÷ and sqrt (all correctly rounded in IEEE arithmetic on both sides), no FMA, no library
// call, so g++ (-ffp-contract=off) and nvcc (--fmad=false) return the same bits (strict mode). The
// quaternion log (quaternion.hpp) uses it: the null-space Livens step takes its Newton guess from one,
// where the library atan2 gave different last bits on the CPU and the GPU (found on the first H100 run).
//
// Method: with r = |(c, s)|, the half angle is atan(u), u = s/(r + c) ∈ [0, 1] for c ≥ 0; for c < 0
// the angle is π − 2 atan(u), u = s/(r − c) (no cancellation either way). Two more halvings,
// atan(u) = 2 atan(u/(1 + √(1 + u²))), bring u below tan(π/16) ≈ 0.199, where the Taylor series
// x − x³/3 + x⁵/5 − … is taken to x²¹ in double (truncation < 0.02 ulp) and x⁹ in float.
// Accuracy (tests/trig_test.cpp, against long double atan2l): a few ulps, measured figure there.
// Domain: |s|, |c| ≤ 1e150 (s² + c² must not overflow); NaN in → NaN out; angle(0, 0) = 0.
#pragma once

#include <cmath>
#include <type_traits>

#include "quatstep/config.hpp"
#include "quatstep/math/choose.hpp"
#include "quatstep/math/element.hpp"

namespace quatstep::math {

/// atan(x) for 0 ≤ x ≤ 1: two halvings, then the series.
template <class S>
QS_HD S atan_unit_interval(S x) {
  using std::sqrt;
  constexpr int terms = std::is_same_v<element_t<S>, float> ? 5 : 11;  // x, x³, …, x^(2·terms − 1)
  for (int halving = 0; halving < 2; ++halving) x = x / (S(1) + sqrt(S(1) + x * x));
  const S z = x * x;
  S p = S(1) / S(2 * terms - 1);
  for (int k = terms - 2; k >= 0; --k) p = S(1) / S(2 * k + 1) - z * p;
  return S(4) * (x * p);
}

/// atan2(s, c) for s ≥ 0, in [0, π]. The branches are choose's (choose.hpp: lane by lane for a lane
/// type); r ≤ 0 is r = 0 here (r ≥ 0, and false for NaN as r == 0 is).
template <class S>
QS_HD S angle(S s, S c) {
  using std::sqrt;
  const S r = sqrt(s * s + c * c);
  return choose(
      is_less_equal(r, S(0)), [] { return S(0); },
      [&] {
        return choose(
            is_less_equal(S(0), c), [&] { return S(2) * atan_unit_interval(s / (r + c)); },
            [&] { return S(3.14159265358979323846264338327950288) - S(2) * atan_unit_interval(s / (r - c)); });
      });
}

}  // namespace quatstep::math
