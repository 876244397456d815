// sin, cos and sincos of Lanes, lane by lane the bits of math::sin/cos/sincos (math/trig.hpp) for
// each lane's argument, and the lane forms of the core's per-body branches (math/choose.hpp's
// is_less, is_less_equal and choose). The core calls them by argument-dependent lookup (`using
// math::sincos; sincos(x, s, c)`): the splittings' exact rotations (free_rotation_flows.hpp), the
// sinusoidal loads (TimeProfile), the series-or-closed-form functions of quaternion.hpp.
// The scalar code branches on its argument (|x| ≤ π/4 needs no reduction, |x| < tiny is returned as
// it is, |x| > max_argument or NaN gives NaN, the quadrant picks the kernel and the sign); here every
// lane takes every path and keeps its own by a blend. The reduction and the kernels are trig.hpp's
// (nearest_quadrant, subtract_quadrants, sin_kernel, cos_kernel), instantiated with Lanes; the
// quadrant k mod 4 is k − 4⌊k/4⌋, exact in a double for |k| < 2^51 and in a float for |k| < 2^22
// (|x| ≤ max_argument keeps k there), where the scalar code converts k to an integer. The constants
// are T's (TrigConstants<Lanes<T, W>> is TrigConstants<T>).
#pragma once

#include <limits>

#include "quatstep/math/trig.hpp"
#include "quatstep/simd/lanes.hpp"

namespace quatstep::math::detail {
template <class T, int W, class A>
struct TrigConstants<simd::Lanes<T, W, A>> : TrigConstants<T> {};
}  // namespace quatstep::math::detail

namespace quatstep::simd {

template <class T, int W, class A>
inline void sincos(const Lanes<T, W, A>& x, Lanes<T, W, A>& s, Lanes<T, W, A>& c) {
  using L = Lanes<T, W, A>;
  using C = math::detail::TrigConstants<T>;
  const L a = abs(x);
  L hi, lo;
  const L k = math::detail::nearest_quadrant(x);
  math::detail::subtract_quadrants(x, k, hi, lo);
  const typename L::Mask unreduced = a.v <= C::pi_4;  // reduce(): r = x, quadrant 0
  hi = select(unreduced, x, hi);
  lo = select(unreduced, L(0), lo);
  const typename L::V quadrant = select(unreduced, L(0), k - L(4) * L(stdx::floor((L(0.25) * k).v))).v;
  const L sk = math::detail::sin_kernel(hi, lo), ck = math::detail::cos_kernel(hi, lo);
  const typename L::Mask odd = quadrant == T(1) || quadrant == T(3);
  const L sv = select(odd, ck, sk), cv = select(odd, sk, ck);
  s = select(quadrant >= T(2), -sv, sv);                    // (q & 2)
  c = select(quadrant == T(1) || quadrant == T(2), -cv, cv);  // ((q + 1) & 2)
  const typename L::Mask tiny = a.v < C::tiny;
  s = select(tiny, x, s);
  c = select(tiny, L(1), c);
  const typename L::Mask outside = !(a.v <= C::max_argument);  // NaN and ±∞ too
  s = select(outside, L(std::numeric_limits<T>::quiet_NaN()), s);
  c = select(outside, L(std::numeric_limits<T>::quiet_NaN()), c);
}

template <class T, int W, class A>
inline Lanes<T, W, A> sin(const Lanes<T, W, A>& x) {
  Lanes<T, W, A> s, c;
  sincos(x, s, c);
  return s;
}

template <class T, int W, class A>
inline Lanes<T, W, A> cos(const Lanes<T, W, A>& x) {
  Lanes<T, W, A> s, c;
  sincos(x, s, c);
  return c;
}

/// A condition per lane (math/choose.hpp's is_less, is_less_equal for Lanes), for choose.
template <class Mask>
struct LaneCondition {
  Mask holds;
};
template <class Mask>
inline LaneCondition<Mask> operator&&(const LaneCondition<Mask>& a, const LaneCondition<Mask>& b) {
  return {a.holds && b.holds};
}
template <class Mask>
inline LaneCondition<Mask> operator||(const LaneCondition<Mask>& a, const LaneCondition<Mask>& b) {
  return {a.holds || b.holds};
}
template <class Mask>
inline LaneCondition<Mask> operator!(const LaneCondition<Mask>& a) {
  return {!a.holds};
}
template <class T, int W, class A>
inline LaneCondition<typename Lanes<T, W, A>::Mask> is_equal(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) {
  return {a.v == b.v};
}
template <class T, int W, class A>
inline LaneCondition<typename Lanes<T, W, A>::Mask> is_less(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) {
  return {a.v < b.v};
}
template <class T, int W, class A>
inline LaneCondition<typename Lanes<T, W, A>::Mask> is_less_equal(const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) {
  return {a.v <= b.v};
}

/// m ? a : b lane by lane, for Lanes and Eigen matrices of them.
template <class Mask, class T, int W, class A>
inline Lanes<T, W, A> blend(const Mask& m, const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) {
  return select(m, a, b);
}
template <class Mask, class T, int R, int C>
inline Eigen::Matrix<T, R, C> blend(const Mask& m, const Eigen::Matrix<T, R, C>& a, const Eigen::Matrix<T, R, C>& b) {
  Eigen::Matrix<T, R, C> out;
  for (int i = 0; i < R * C; ++i) out(i) = select(m, a(i), b(i));
  return out;
}

/// math::select and math::any lane by lane.
template <class Mask, class T, int W, class A>
inline Lanes<T, W, A> select(const LaneCondition<Mask>& c, const Lanes<T, W, A>& a, const Lanes<T, W, A>& b) {
  return select(c.holds, a, b);
}
template <class Mask>
inline bool any(const LaneCondition<Mask>& c) {
  return stdx::any_of(c.holds);
}

/// math::choose lane by lane: one side where every lane agrees, both sides and a blend otherwise.
template <class Mask, class Then, class Else>
inline auto choose(const LaneCondition<Mask>& c, Then then_, Else else_) {
  if (stdx::all_of(c.holds)) return then_();
  if (stdx::none_of(c.holds)) return else_();
  return blend(c.holds, then_(), else_());
}

}  // namespace quatstep::simd
