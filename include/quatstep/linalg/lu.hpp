// Fixed-size dense LU with partial pivoting, usable in device code (Eigen's PartialPivLU is
// host-only there). Shared by every implicit integrator.
//
// Written so that, with the loops unrolled (QS_UNROLL_UP_TO, N ≤ 8), every matrix and vector index is a
// compile-time constant: the row exchange selects between row k and each candidate row, and the
// permutation is kept as LAPACK-style pivots, never used as an index. On the GPU the matrix then
// lives in registers, not in local memory. The exchange is a select, not a branch: under
// `if (i == p)` the compiler substitutes p for i and indexes the rows by p, which had put the
// matrix of every implicit kernel in local memory (PTX local depot of N² doubles). Every inner loop
// runs over all N indices and skips those outside the triangle: with `for (i = k + 1; …)` its trip
// count depends on k, the compiler processes it before the k loop is unrolled, unrolls it partially
// and marks it done, and the row index stays a variable (the classical HHT heavy-top kernel kept
// its whole 5×5 Lu in a 224 B stack frame that way). The arithmetic is the textbook one, in the same
// order, so the results are those of the plain loops bit for bit.
//
// A zero or non-finite pivot sets `singular` and the factorisation runs on to its end (its numbers
// are then meaningless, and no caller solves with them): an early return was an exit path for which
// the compiler kept registers, ≈ 100 of the 883 instructions of a Newton iteration of the REML
// heavy-top kernel (bench/README.md, "The LU in the Newton loop").
#pragma once

#include <cmath>
#include <utility>

#include "quatstep/config.hpp"

namespace quatstep {

template <class S, int N>
struct Lu {
  Eigen::Matrix<S, N, N> lu;  // unit-lower L below the diagonal, U on and above
  int pivot[N];               // step k exchanged rows k and pivot[k] (≥ k)
  bool singular = false;
  /// Whether solve() holds (a condition of math/choose.hpp: a lane type's LaneLu says it per lane).
  QS_HD bool solvable() const { return !singular; }

  QS_HD Lu() = default;
  QS_HD explicit Lu(const Eigen::Matrix<S, N, N>& a) : lu(a) { factorize(); }

  /// Factorise A = Pᵀ L U of the matrix already held in `lu`, in place (the Newton driver assembles
  /// its Jacobian there, so no second copy of the matrix is live). A pivot that is exactly zero, or
  /// non-finite, marks the matrix singular (the caller reports it as a per-body failure).
  QS_HD void factorize() {
    using std::abs;
    singular = false;
    QS_UNROLL_UP_TO(N) for (int k = 0; k < N; ++k) {
      int p = k;
      S best = abs(lu(k, k));
      QS_UNROLL_UP_TO(N) for (int i = 0; i < N; ++i) {
        if (i <= k) continue;
        const S v = abs(lu(i, k));
        if (v > best) best = v, p = i;
      }
      pivot[k] = p;
      singular = singular || !(best > S(0)) || !(best < S(INFINITY));
      QS_UNROLL_UP_TO(N) for (int i = 0; i < N; ++i) {
        if (i <= k) continue;
        const bool exchange = i == p;
        QS_UNROLL_UP_TO(N) for (int j = 0; j < N; ++j) {
          const S a = lu(k, j), b = lu(i, j);
          lu(k, j) = exchange ? b : a;
          lu(i, j) = exchange ? a : b;
        }
      }
      const S inv_pivot = S(1) / lu(k, k);
      QS_UNROLL_UP_TO(N) for (int i = 0; i < N; ++i) {
        if (i <= k) continue;
        lu(i, k) *= inv_pivot;  // l_ik = a_ik / u_kk
        const S l = lu(i, k);
        QS_UNROLL_UP_TO(N) for (int j = 0; j < N; ++j)
          if (j > k) lu(i, j) -= l * lu(k, j);  // a_ij -= l_ik u_kj
      }
    }
  }

  /// Solve A x = b.
  QS_HD Vec<S, N> solve(const Vec<S, N>& b) const {
    Vec<S, N> x = b;
    QS_UNROLL_UP_TO(N) for (int k = 0; k < N; ++k) {  // x = P b, the exchanges in their order
      QS_UNROLL_UP_TO(N) for (int i = 0; i < N; ++i) {
        if (i <= k) continue;
        const bool exchange = i == pivot[k];
        const S a = x[k], b = x[i];
        x[k] = exchange ? b : a;
        x[i] = exchange ? a : b;
      }
    }
    QS_UNROLL_UP_TO(N) for (int i = 1; i < N; ++i) {  // forward: L y = P b
      QS_UNROLL_UP_TO(N) for (int j = 0; j < N; ++j)
        if (j < i) x[i] -= lu(i, j) * x[j];
    }
    QS_UNROLL_UP_TO(N) for (int i = N - 1; i >= 0; --i) {  // backward: U x = y
      QS_UNROLL_UP_TO(N) for (int j = 0; j < N; ++j)
        if (j > i) x[i] -= lu(i, j) * x[j];
      x[i] /= lu(i, i);
    }
    return x;
  }
};

}  // namespace quatstep
