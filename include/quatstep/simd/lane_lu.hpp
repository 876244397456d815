// Lu<T, N> (linalg/lu.hpp) for W bodies at once, lane by lane: the same pivots, the same row
// exchanges, the same operation order, so every lane holds the bits of its body's scalar
// factorisation. The pivot search and the exchange are blends on lane masks; the permutation is kept
// as each lane's row order (LaneInts), applied to the right-hand side by blends.
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/linalg/lu.hpp"
#include "quatstep/simd/lanes.hpp"

namespace quatstep::simd {

template <class L, int N>
struct LaneLu {
  using Mask = typename L::Mask;
  using Ints = typename L::V;
  Eigen::Matrix<L, N, N> lu;
  Ints row[N];  // row i of the factors is row row[i] of A
  Mask singular = Mask(false);
  /// Lu::solvable lane by lane.
  LaneCondition<Mask> solvable() const { return {!singular}; }

  LaneLu() = default;  // to assign to, or to assemble a matrix in `lu` and factorize()
  explicit LaneLu(const Eigen::Matrix<L, N, N>& a) : lu(a) { factorize(); }

  /// Factorise the matrix held in `lu`, in place (Lu::factorize lane by lane).
  void factorize() {
    singular = Mask(false);
    for (int i = 0; i < N; ++i) row[i] = i;
    for (int k = 0; k < N; ++k) {
      Ints p = k;
      L best = abs(lu(k, k));
      for (int i = k + 1; i < N; ++i) {  // the first largest |a_ik|, as the scalar strict '>'
        const L v = abs(lu(i, k));
        const Mask larger = v.v > best.v;
        best = select(larger, v, best);
        p = select(larger, Ints(i), p);
      }
      singular |= !(best.v > L(0).v) || !(best.v < INFINITY);
      for (int i = k + 1; i < N; ++i) {  // exchange rows k and p where p = i
        const Mask exchange = lanes_where(p, i);
        for (int j = 0; j < N; ++j) {
          const L t = lu(k, j);
          lu(k, j) = select(exchange, lu(i, j), t);
          lu(i, j) = select(exchange, t, lu(i, j));
        }
        const Ints t = row[k];
        row[k] = select(exchange, row[i], t);
        row[i] = select(exchange, t, row[i]);
      }
      const L inv_pivot = L(1) / lu(k, k);
      for (int i = k + 1; i < N; ++i) {
        lu(i, k) *= inv_pivot;  // l_ik = a_ik / u_kk
        const L l = lu(i, k);
        for (int j = k + 1; j < N; ++j) lu(i, j) -= l * lu(k, j);  // a_ij -= l_ik u_kj
      }
    }
  }

  /// This factorisation's lanes `which` replaced by those of `other`.
  void take(const Mask& which, const LaneLu& other) {
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) lu(i, j) = select(which, other.lu(i, j), lu(i, j));
      row[i] = select(which, other.row[i], row[i]);
    }
    singular = (which && other.singular) || (!which && singular);
  }
  /// The same as a free function (lane_newton's take for every factorisation).
  friend void take(const Mask& which, LaneLu& into, const LaneLu& from) { into.take(which, from); }

  Vec<L, N> solve(const Vec<L, N>& b) const {
    Vec<L, N> x;
    for (int i = 0; i < N; ++i) {  // x_i = b_{row_i}, lane by lane
      x[i] = b[0];
      for (int r = 1; r < N; ++r) x[i] = select(lanes_where(row[i], r), b[r], x[i]);
    }
    for (int i = 1; i < N; ++i)
      for (int j = 0; j < i; ++j) x[i] -= lu(i, j) * x[j];  // forward: L y = P b
    for (int i = N - 1; i >= 0; --i) {                       // backward: U x = y
      for (int j = i + 1; j < N; ++j) x[i] -= lu(i, j) * x[j];
      x[i] /= lu(i, i);
    }
    return x;
  }
};

}  // namespace quatstep::simd

namespace quatstep {
/// The core's Lu for lane scalars is LaneLu: a step that factorises outside its Newton solve (the
/// Lie-group schemes' predictor, incremental_rotation.hpp) then takes each lane's own pivots.
template <class T, int W, class A, int N>
struct Lu<simd::Lanes<T, W, A>, N> : simd::LaneLu<simd::Lanes<T, W, A>, N> {
  using simd::LaneLu<simd::Lanes<T, W, A>, N>::LaneLu;
};
}  // namespace quatstep
