// BoundedLu<T, Capacity> (linalg/bounded_lu.hpp) for W mechanisms at once, lane by lane: the same
// pivots, row exchanges and operation order, so every lane holds the bits of its mechanism's scalar
// factorisation. The size n is the block's (its mechanisms share their joints). The scalar
// elimination skips the rows whose multiplier is exactly zero and the columns where the pivot row is
// zero; a lane skips exactly those of its own (the update is a blend where they are non-zero), and
// the block skips a row or a column that is zero in every lane, so a matrix whose zeros come from
// the joints' structure keeps the sparse cost.
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/linalg/bounded_lu.hpp"
#include "quatstep/simd/lanes.hpp"

namespace quatstep::simd {

template <class L, int Capacity>
struct LaneBoundedLu {
  using Mask = typename L::Mask;
  using Ints = typename L::V;
  using Element = typename L::Element;
  Eigen::Matrix<L, Capacity, Capacity, Eigen::RowMajor> lu;
  int n = 0;
  Ints pivot[Capacity];  // step k exchanged rows k and pivot[k] (≥ k), per lane
  Mask singular = Mask(false);

  /// Factorise the leading n×n block held in `lu`, in place (BoundedLu::factorize lane by lane).
  void factorize(int size) {
    n = size;
    singular = Mask(false);
    Mask column[Capacity];  // per lane: the pivot row is non-zero in column j
    for (int k = 0; k < n; ++k) {
      Ints p = k;
      L best = abs(lu(k, k));
      for (int i = k + 1; i < n; ++i) {  // the first largest |a_ik|, as the scalar strict '>'
        const L v = abs(lu(i, k));
        const Mask larger = v.v > best.v;
        best = select(larger, v, best);
        p = select(larger, Ints(i), p);
      }
      pivot[k] = p;
      singular |= !(best.v > L(0).v) || !(best.v < INFINITY);
      for (int i = k + 1; i < n; ++i) {  // exchange rows k and p where p = i
        const Mask exchange = lanes_where(p, i);
        if (stdx::none_of(exchange)) continue;
        for (int j = 0; j < n; ++j) {
          const L t = lu(k, j);
          lu(k, j) = select(exchange, lu(i, j), t);
          lu(i, j) = select(exchange, t, lu(i, j));
        }
      }
      for (int j = k + 1; j < n; ++j) column[j] = lu(k, j).v != Element(0);
      const L inv_pivot = L(1) / lu(k, k);
      for (int i = k + 1; i < n; ++i) {
        const Mask row = lu(i, k).v != Element(0);
        if (stdx::none_of(row)) continue;
        lu(i, k) = select(row, lu(i, k) * inv_pivot, lu(i, k));  // l_ik = a_ik / u_kk
        const L l = lu(i, k);
        for (int j = k + 1; j < n; ++j) {
          const Mask update = row && column[j];
          if (stdx::any_of(update)) lu(i, j) = select(update, lu(i, j) - l * lu(k, j), lu(i, j));  // a_ij -= l_ik u_kj
        }
      }
    }
  }

  /// Solve A x = b over the first n entries (the others of x are zero).
  Vec<L, Capacity> solve(const Vec<L, Capacity>& b) const {
    Vec<L, Capacity> x = Vec<L, Capacity>::Zero();
    x.head(n) = b.head(n);
    for (int k = 0; k < n; ++k)  // x = P b, the exchanges in their order
      for (int i = k + 1; i < n; ++i) {
        const Mask exchange = lanes_where(pivot[k], i);
        if (stdx::none_of(exchange)) continue;
        const L t = x[k];
        x[k] = select(exchange, x[i], t);
        x[i] = select(exchange, t, x[i]);
      }
    for (int i = 1; i < n; ++i) {  // forward: L y = P b
      L s = x[i];
      for (int j = 0; j < i; ++j) s -= lu(i, j) * x[j];
      x[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) {  // backward: U x = y
      L s = x[i];
      for (int j = i + 1; j < n; ++j) s -= lu(i, j) * x[j];
      x[i] = s / lu(i, i);
    }
    return x;
  }

  /// This factorisation's lanes `which` replaced by those of `other` (of the same size).
  void take(const Mask& which, const LaneBoundedLu& other) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) lu(i, j) = select(which, other.lu(i, j), lu(i, j));
      pivot[i] = select(which, other.pivot[i], pivot[i]);
    }
    singular = (which && other.singular) || (!which && singular);
  }
};

}  // namespace quatstep::simd

namespace quatstep {
/// The core's BoundedLu for lane scalars (a mechanism's Schur complement, mechanism/kkt.hpp).
template <class T, int W, class A, int Capacity>
struct BoundedLu<simd::Lanes<T, W, A>, Capacity> : simd::LaneBoundedLu<simd::Lanes<T, W, A>, Capacity> {};
}  // namespace quatstep
