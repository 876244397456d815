// Carlson's symmetric elliptic integrals R_F, R_C, R_J and the Jacobi elliptic functions sn, cn, dn,
// for float and double, with only + − × ÷ and sqrt (plus math::sin/cos), so that g++ and nvcc give
// the same bits (strict mode), as trig.hpp. The exact free rigid-body flow (exact_free_flow.hpp) is
// their user; docs/exact_free_flow.md gives the formulas it takes from them.
//
// R_F, R_C, R_J: Carlson's duplication algorithms (B. C. Carlson, "Numerical computation of real or
// complex elliptic integrals", Numer. Algorithms 10 (1995) 13–26; DLMF §19.36(i)): each duplication
// step moves the arguments towards their mean by a factor 4, and once they agree to ~ r^{1/8} the
// seventh-order Taylor expansion about the mean (DLMF 19.36.1, 19.36.2, and Carlson's for R_C) gives
// the value with relative error ≲ r, r the unit roundoff. The stopping rule is Carlson's,
// 4^{-m} Q < |A_m|, with Q = (3r)^{-1/8} (R_F, R_C), (r/4)^{-1/8} (R_J) times the initial spread:
// his fifth-order rules' constants with the seventh order's exponent, which stops one duplication
// (four square roots) earlier than the fifth-order series would. The truncation error left,
// C·ε⁸ for a relative spread ε < 1/Q, has C ≈ 0.016 (R_F) and 0.15 (R_J), so that these Q leave it
// below r/20 in float and double (C measured with mpmath in 60 digits; tests/exact_free_flow_test.cpp
// checks the series' order and the integrals against Boost.Math).
//
// Written for a lane type too (simd/: four bodies at once, each lane the scalar bits): where a body's
// numbers decide, the code says so through math/choose.hpp (select, choose), and the duplication and
// AGM loops run while any lane needs another step, each lane's updates made only while it does.
//
// sn, cn, dn: Gauss's descending transformation (the arithmetic–geometric mean of 1 and k') run to
// convergence, the circular functions of u·AGM, and the transformation undone on the ratio cn/sn
// (R. Bulirsch, "Numerical calculation of elliptic integrals and elliptic functions", Numer. Math. 7
// (1965) 78–90). The argument should be reduced to |u| ≤ K by the caller (sin of a large u·AGM loses
// what the reduction of trig.hpp cannot give back: u itself is uncertain by ulp(u)).
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/math/choose.hpp"
#include "quatstep/math/element.hpp"
#include "quatstep/math/trig.hpp"

namespace quatstep::math {
namespace detail {

/// The stopping rules' constants; a scalar other than float (bench/counting_scalar.hpp's counter of
/// operations) takes double's.
template <class S>
struct EllipticTolerances;
template <>
struct EllipticTolerances<double> {
  static constexpr double rf = 87.0;     // (3r)^{-1/8}, r = 2^-53 (86.04 rounded up)
  static constexpr double rj = 118.0;    // (r/4)^{-1/8}
  static constexpr double rc = 87.0;     // (3r)^{-1/8}
  static constexpr double agm = 1e-8;    // |a − b| ≤ agm·a: the next mean is exact to (agm)²/8
  static constexpr int max_agm_steps = 16;
  static constexpr int max_duplications = 64;  // a guard: each duplication shrinks the spread 4×
};
template <>
struct EllipticTolerances<float> {
  static constexpr float rf = 7.0f;  // r = 2^-24
  static constexpr float rj = 9.6f;
  static constexpr float rc = 7.0f;
  static constexpr float agm = 2.5e-4f;
  static constexpr int max_agm_steps = 16;
  static constexpr int max_duplications = 64;
};
template <class S>
struct EllipticTolerances : EllipticTolerances<double> {};

/// x < 0 ? −x : x (−0 stays −0).
template <class S>
QS_HD S abs(S x) {
  return select(is_less(x, S(0)), S(-x), x);
}
/// a < b ? b : a.
template <class S>
QS_HD S max(S a, S b) {
  return select(is_less(a, b), b, a);
}

}  // namespace detail

/// R_C(x, y) = ½ ∫₀^∞ (t + x)^{-1/2} (t + y)^{-1} dt for x ≥ 0, y > 0 (DLMF 19.16.6).
template <class S>
QS_HD S carlson_rc(S x, S y) {
  using std::sqrt;
  const S a0 = (x + S(2) * y) / S(3), y0 = y;
  S a = a0, q = S(detail::EllipticTolerances<element_t<S>>::rc) * detail::abs(a0 - x), scale = S(1);
  // 4^{-m} Q < |A_m| ends it; the cap only guards invalid arguments (two zeros: an infinite integral)
  for (int m = 0; m < detail::EllipticTolerances<element_t<S>>::max_duplications; ++m) {
    const auto more = is_less_equal(detail::abs(a), scale * q);
    if (!any(more)) break;
    const S lambda = S(2) * sqrt(x) * sqrt(y) + y;
    x = select(more, S(S(0.25) * (x + lambda)), x), y = select(more, S(S(0.25) * (y + lambda)), y);
    a = select(more, S(S(0.25) * (a + lambda)), a), scale = select(more, S(S(0.25) * scale), scale);
  }
  const S s = (y0 - a0) * scale / a;  // Carlson's s = (y₀ − A₀)/(4^m A_m)
  const S poly =
      S(3) / S(10) +
      s * (S(1) / S(7) + s * (S(3) / S(8) + s * (S(9) / S(22) + s * (S(159) / S(208) + s * (S(9) / S(8))))));
  return (S(1) + s * s * poly) / sqrt(a);
}

/// R_C(1, 1 + e) for e > −1, what R_J's duplication sums: for |e| ≤ 1e-3 (every step after the first
/// one or two, since e shrinks by ≥ 64 per step) the series Σ_j (−e)^j/(2j + 1) to j = 5 (remainder
/// < e⁶/13 ≈ 1e-19 relative), else the duplication.
template <class S>
QS_HD S carlson_rc_one_plus(S e) {
  return choose(
      is_less(S(1e-3), detail::abs(e)), [&] { return carlson_rc(S(1), S(1) + e); },
      [&] {
        return S(1) -
               e * (S(1) / S(3) - e * (S(1) / S(5) - e * (S(1) / S(7) - e * (S(1) / S(9) - e * (S(1) / S(11))))));
      });
}

namespace detail {

/// The seventh-order series of R_F about the mean A_m of the duplicated arguments, given
/// X = (A₀ − x₀)/(4^m A_m) and Y likewise (DLMF 19.36.1).
template <class S>
QS_HD S rf_series(S xx, S yy, S a) {
  using std::sqrt;
  const S zz = -(xx + yy);
  const S e2 = xx * yy - zz * zz, e3 = xx * yy * zz;
  // the coefficients are constant quotients (folded at compile time): multiplications only
  const S series = S(1) - (S(1) / S(10)) * e2 + (S(1) / S(14)) * e3 + (S(1) / S(24)) * e2 * e2 -
                   (S(3) / S(44)) * e2 * e3 - (S(5) / S(208)) * e2 * e2 * e2 + (S(3) / S(104)) * e3 * e3 +
                   (S(1) / S(16)) * e2 * e2 * e3;
  return series / sqrt(a);
}

/// The seventh-order series of R_J about the mean A_m = (x + y + z + 2p)/5 of the duplicated
/// arguments, given X, Y, Z as for R_F and P = −(X + Y + Z)/2 (DLMF 19.36.2).
template <class S>
QS_HD S rj_series(S xx, S yy, S zz, S a) {
  using std::sqrt;
  const S pp = S(-0.5) * (xx + yy + zz);
  const S e2 = xx * yy + xx * zz + yy * zz - S(3) * pp * pp;
  const S e3 = xx * yy * zz + S(2) * e2 * pp + S(4) * pp * pp * pp;
  const S e4 = (S(2) * xx * yy * zz + e2 * pp + S(3) * pp * pp * pp) * pp;
  const S e5 = xx * yy * zz * pp * pp;
  const S series = S(1) - (S(3) / S(14)) * e2 + (S(1) / S(6)) * e3 + (S(9) / S(88)) * e2 * e2 -
                   (S(3) / S(22)) * e4 - (S(9) / S(52)) * e2 * e3 + (S(3) / S(26)) * e5 -
                   (S(1) / S(16)) * e2 * e2 * e2 + (S(3) / S(40)) * e3 * e3 + (S(3) / S(20)) * e2 * e4 +
                   (S(45) / S(272)) * e2 * e2 * e3 - (S(9) / S(68)) * (e3 * e4 + e2 * e5);
  return series / (a * sqrt(a));
}

}  // namespace detail

/// R_F(x, y, z) = ½ ∫₀^∞ ((t + x)(t + y)(t + z))^{-1/2} dt for x, y, z ≥ 0, at most one zero (DLMF 19.16.1).
template <class S>
QS_HD S carlson_rf(S x, S y, S z) {
  using std::sqrt;
  const S a0 = (x + y + z) / S(3), x0 = x, y0 = y;
  S a = a0, scale = S(1);
  const S q = S(detail::EllipticTolerances<element_t<S>>::rf) *
              detail::max(detail::abs(a0 - x), detail::max(detail::abs(a0 - y), detail::abs(a0 - z)));
  for (int m = 0; m < detail::EllipticTolerances<element_t<S>>::max_duplications; ++m) {
    const auto more = is_less_equal(detail::abs(a), scale * q);
    if (!any(more)) break;
    const S sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
    const S lambda = sx * sy + sx * sz + sy * sz;
    x = select(more, S(S(0.25) * (x + lambda)), x), y = select(more, S(S(0.25) * (y + lambda)), y);
    z = select(more, S(S(0.25) * (z + lambda)), z), a = select(more, S(S(0.25) * (a + lambda)), a);
    scale = select(more, S(S(0.25) * scale), scale);
  }
  const S spread = scale / a;
  return detail::rf_series((a0 - x0) * spread, (a0 - y0) * spread, a);
}

/// R_F(x, y, z) and R_J(x, y, z, p) together.
template <class S>
struct CarlsonPair {
  S rf, rj;
};

/// R_J(x, y, z, p) = (3/2) ∫₀^∞ ((t + x)(t + y)(t + z))^{-1/2} (t + p)^{-1} dt for x, y, z ≥ 0 (at
/// most one zero) and p > 0 (DLMF 19.16.2), by the duplication of DLMF 19.36.9–19.36.10: the sum of
/// 4^{-m} R_C(1, 1 + e_m)/d_m collects what each step moves out of the integral. R_J's duplication
/// moves x, y, z exactly as R_F's does (the same λ), so R_F(x, y, z) comes with it for the cost of
/// its series: the loop runs until both stopping rules hold.
template <class S>
QS_HD CarlsonPair<S> carlson_rf_rj(S x, S y, S z, S p) {
  using std::sqrt;
  using Tol = detail::EllipticTolerances<S>;
  const S a0 = (x + y + z + S(2) * p) / S(5), f0 = (x + y + z) / S(3), x0 = x, y0 = y, z0 = z;
  const S delta = (p - x) * (p - y) * (p - z);
  S a = a0, f = f0, scale = S(1), cube = S(1), sum = S(0);  // scale = 4^{-m}, cube = 4^{-3m}
  const S q = S(Tol::rj) * detail::max(detail::max(detail::abs(a0 - x), detail::abs(a0 - y)),
                                    detail::max(detail::abs(a0 - z), detail::abs(a0 - p)));
  const S qf = S(Tol::rf) * detail::max(detail::abs(f0 - x), detail::max(detail::abs(f0 - y), detail::abs(f0 - z)));
  for (int m = 0; m < Tol::max_duplications; ++m) {
    const auto more = is_less_equal(detail::abs(a), scale * q) || is_less_equal(detail::abs(f), scale * qf);
    if (!any(more)) break;
    const S sx = sqrt(x), sy = sqrt(y), sz = sqrt(z), sp = sqrt(p);
    const S lambda = sx * sy + sx * sz + sy * sz;
    const S inverse_d = S(1) / ((sp + sx) * (sp + sy) * (sp + sz));
    const S e = cube * delta * (inverse_d * inverse_d);
    sum = select(more, S(sum + scale * carlson_rc_one_plus(e) * inverse_d), sum);
    x = select(more, S(S(0.25) * (x + lambda)), x), y = select(more, S(S(0.25) * (y + lambda)), y);
    z = select(more, S(S(0.25) * (z + lambda)), z), p = select(more, S(S(0.25) * (p + lambda)), p);
    a = select(more, S(S(0.25) * (a + lambda)), a), f = select(more, S(S(0.25) * (f + lambda)), f);
    scale = select(more, S(S(0.25) * scale), scale), cube = select(more, S(cube * (S(1) / S(64))), cube);
  }
  const S spread = scale / a, spread_f = scale / f;
  return {detail::rf_series((f0 - x0) * spread_f, (f0 - y0) * spread_f, f),
          scale * detail::rj_series((a0 - x0) * spread, (a0 - y0) * spread, (a0 - z0) * spread, a) + S(6) * sum};
}

/// R_J(x, y, z, p) alone (carlson_rf_rj).
template <class S>
QS_HD S carlson_rj(S x, S y, S z, S p) {
  return carlson_rf_rj(x, y, z, p).rj;
}

/// sn, cn, dn of u for the parameter m = k² = 1 − mc, 0 < mc ≤ 1 (Bulirsch's descending
/// transformation; see the file comment). For |u| ≤ K(m) the results are accurate to a few ulps.
template <class S>
QS_HD void jacobi_sncndn(S u, S mc, S& sn, S& cn, S& dn) {
  using std::sqrt;
  using Tol = detail::EllipticTolerances<S>;
  S means[Tol::max_agm_steps], roots[Tol::max_agm_steps];  // a_i and b_i of the AGM of 1 and √mc
  S a = S(1), b = mc, c = S(1);
  S last = S(0);  // the body's last step i (a lane's own)
  int top = 0;    // the last step of any body
  auto more = always<S>();
  for (int i = 0; i < Tol::max_agm_steps; ++i) {
    top = i;
    last = select(more, S(i), last);
    means[i] = a;
    const S root = sqrt(b);
    roots[i] = root;
    c = select(more, S(S(0.5) * (a + root)), c);  // a_{i+1}
    more = more && !is_less_equal(detail::abs(a - root), S(Tol::agm) * a);
    if (!any(more)) break;
    b = select(more, S(root * a), b);  // b_{i+1}² = a_i b_i
    a = select(more, c, a);
  }
  const S v = u * c;  // u · AGM(1, k'): the amplitude of the fully transformed modulus
  using math::sincos;  // a custom scalar's own sincos by argument-dependent lookup
  S s, co;
  sincos(v, s, co);
  const Vec3<S> r = choose(
      is_equal(s, S(0)), [&] { return Vec3<S>(s, co, S(1)); },
      [&] {
        // Bulirsch's recurrence back through the transformations from each body's last step:
        // `ratio` ends as cn/sn of the given modulus, `t` and `d` are its auxiliaries
        S ratio = c * (co / s), t = co / s, d = S(1);
        for (int i = top; i >= 0; --i) {
          const auto on = is_less_equal(S(i), last);
          const S t1 = t * ratio, ratio1 = ratio * d;
          const S d1 = (roots[i] + t1) / (means[i] + t1);
          t = select(on, S(ratio1 / means[i]), t), ratio = select(on, ratio1, ratio), d = select(on, d1, d);
        }
        const S inv = S(1) / sqrt(ratio * ratio + S(1));
        const S sn1 = select(is_less(s, S(0)), S(-inv), inv);
        return Vec3<S>(sn1, ratio * sn1, d);
      });
  sn = r[0], cn = r[1], dn = r[2];
}

}  // namespace quatstep::math
