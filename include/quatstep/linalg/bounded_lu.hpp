// Dense LU with partial pivoting of the leading n×n block of a Capacity×Capacity matrix, n chosen
// at run time: for systems whose size is data (the constraint-space matrix of a mechanism,
// mechanism/kkt.hpp), in device code as well (no heap; a fixed-size matrix).
//
// Sparse-aware: an elimination step skips the rows whose multiplier is exactly zero and updates
// only the columns where the pivot row is non-zero. A matrix ordered so that its fill stays small
// (leaves of a tree first, builder.hpp) then costs roughly its fill, not n³. The arithmetic on the
// entries it does touch is lu.hpp's, in the same order.
#pragma once

#include <cmath>

#include "quatstep/config.hpp"

namespace quatstep {

template <class S, int Capacity>
struct BoundedLu {
  /// Row-major: an elimination step walks rows.
  Eigen::Matrix<S, Capacity, Capacity, Eigen::RowMajor> lu;
  int n = 0;
  int pivot[Capacity];
  bool singular = false;

  /// Factorise the leading n×n block held in `lu`, in place: A = Pᵀ L U. A zero or non-finite pivot
  /// marks the matrix singular.
  QS_HD void factorize(int size) {
    using std::abs;
    n = size;
    singular = false;
    int columns[Capacity];  // the non-zero columns right of the pivot in the pivot row
    for (int k = 0; k < n; ++k) {
      int p = k;
      S best = abs(lu(k, k));
      for (int i = k + 1; i < n; ++i) {
        const S v = abs(lu(i, k));
        if (v > best) best = v, p = i;
      }
      pivot[k] = p;
      if (!(best > S(0)) || !(best < S(INFINITY))) {
        singular = true;
        return;
      }
      if (p != k) lu.row(k).head(n).swap(lu.row(p).head(n));
      int nc = 0;
      for (int j = k + 1; j < n; ++j)
        if (lu(k, j) != S(0)) columns[nc++] = j;
      const S inv_pivot = S(1) / lu(k, k);
      for (int i = k + 1; i < n; ++i) {
        if (lu(i, k) == S(0)) continue;
        lu(i, k) *= inv_pivot;  // l_ik = a_ik / u_kk
        const S l = lu(i, k);
        for (int c = 0; c < nc; ++c) lu(i, columns[c]) -= l * lu(k, columns[c]);  // a_ij -= l_ik u_kj
      }
    }
  }

  /// Solve A x = b over the first n entries (the others of x are zero).
  QS_HD Vec<S, Capacity> solve(const Vec<S, Capacity>& b) const {
    Vec<S, Capacity> x = Vec<S, Capacity>::Zero();
    x.head(n) = b.head(n);
    for (int k = 0; k < n; ++k) {  // x = P b, the exchanges in their order
      const S t = x[k];
      x[k] = x[pivot[k]];
      x[pivot[k]] = t;
    }
    for (int i = 1; i < n; ++i) {  // forward: L y = P b
      S s = x[i];
      for (int j = 0; j < i; ++j) s -= lu(i, j) * x[j];
      x[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) {  // backward: U x = y
      S s = x[i];
      for (int j = i + 1; j < n; ++j) s -= lu(i, j) * x[j];
      x[i] = s / lu(i, i);
    }
    return x;
  }
};

}  // namespace quatstep
