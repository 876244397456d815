// Fixed-size dense LU with partial pivoting, usable in device code (Eigen's PartialPivLU is
// host-only there). Shared by every implicit integrator.
#pragma once

#include <cmath>

#include "quatstep/config.hpp"

namespace quatstep {

template <class S, int N>
struct Lu {
  Eigen::Matrix<S, N, N> lu;  // unit-lower L below the diagonal, U on and above
  int perm[N];
  bool singular = false;

  QS_HD Lu() = default;
  QS_HD explicit Lu(const Eigen::Matrix<S, N, N>& a) { factorize(a); }

  /// Factorise A = Pᵀ L U. A pivot that is exactly zero, or non-finite, marks the matrix singular
  /// (the caller reports it as a per-body failure).
  QS_HD void factorize(const Eigen::Matrix<S, N, N>& a) {
    using std::abs;
    lu = a;
    singular = false;
    for (int i = 0; i < N; ++i) perm[i] = i;
    for (int k = 0; k < N; ++k) {
      int p = k;
      S best = abs(lu(k, k));
      for (int i = k + 1; i < N; ++i) {
        const S v = abs(lu(i, k));
        if (v > best) best = v, p = i;
      }
      if (!(best > S(0)) || !(best < S(INFINITY))) {
        singular = true;
        return;
      }
      if (p != k) {
        for (int j = 0; j < N; ++j) {
          const S t = lu(k, j);
          lu(k, j) = lu(p, j);
          lu(p, j) = t;
        }
        const int t = perm[k];
        perm[k] = perm[p];
        perm[p] = t;
      }
      const S inv_pivot = S(1) / lu(k, k);
      for (int i = k + 1; i < N; ++i) {
        lu(i, k) *= inv_pivot;  // l_ik = a_ik / u_kk
        const S l = lu(i, k);
        for (int j = k + 1; j < N; ++j) lu(i, j) -= l * lu(k, j);  // a_ij -= l_ik u_kj
      }
    }
  }

  /// Solve A x = b.
  QS_HD Vec<S, N> solve(const Vec<S, N>& b) const {
    Vec<S, N> x;
    for (int i = 0; i < N; ++i) x[i] = b[perm[i]];
    for (int i = 1; i < N; ++i)  // forward: L y = P b
      for (int j = 0; j < i; ++j) x[i] -= lu(i, j) * x[j];
    for (int i = N - 1; i >= 0; --i) {  // backward: U x = y
      for (int j = i + 1; j < N; ++j) x[i] -= lu(i, j) * x[j];
      x[i] /= lu(i, i);
    }
    return x;
  }
};

}  // namespace quatstep
