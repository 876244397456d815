// The prediction stage of Negrut et al. §3.5: the Newton starting value of a step is the polynomial
// through the unknowns (accelerations and multipliers) of the last accepted points, extrapolated to
// t_{n+1}. Newton's divided differences give the polynomials of every degree at once,
//   P_d(t) = P_{d−1}(t) + x[t_n, …, t_{n−d}] · (t − t_n)…(t − t_{n−d+1}),
// and the degree is adapted to the smoothness of the solution: after each accepted step the degree
// whose extrapolation came closest to the converged unknowns is used for the next one (a kink in a
// load, where old points mislead, brings the degree down; a smooth stretch brings it back up).
// Degree 0 is the start of Sherif's and quatstep's fixed steps, x⁽⁰⁾ = x_n.
//
// The history (the unknowns at the 3 accepted points before t_n, their ages, how many are valid
// and the degree to use) persists between launches: it is part of the adaptive state, stored
// struct-of-arrays like an integrator's State.
#pragma once

#include "quatstep/config.hpp"
#include "quatstep/math/choose.hpp"

namespace quatstep {

inline constexpr int max_predictor_degree = 3;  ///< Negrut §3.5: "a polynomial of order up to three"

/// The past points of the predictor; x_n itself is the integrator's state. Times are kept as ages
/// relative to t_n (sums of a few steps), so that the node spacings keep their precision however
/// large t is (float runs).
template <class S, int K>
struct PredictorHistory {
  static constexpr int points = max_predictor_degree;
  Vec<S, K> x[points];  ///< unknowns at t_{n−1}, t_{n−2}, t_{n−3}
  S age[points];        ///< t_n − t_{n−1}, t_n − t_{n−2}, t_n − t_{n−3}
  S count;   ///< how many of them are valid (0 after initialization)
  S degree;  ///< the degree to extrapolate with at the next step

  static constexpr int size = points * (K + 1) + 2;
  QS_HD S& operator[](int i) {
    if (i < points * K) return x[i / K][i % K];
    if (i < points * (K + 1)) return age[i - points * K];
    return i == points * (K + 1) ? count : degree;
  }
  QS_HD S operator[](int i) const { return const_cast<PredictorHistory&>(*this)[i]; }

  QS_HD void reset() {
    QS_UNROLL for (int j = 0; j < points; ++j) x[j].setZero(), age[j] = S(0);
    count = S(0);
    degree = S(0);
  }

  /// The extrapolations of degree 0 … max_degree (at most count) from x_n and the history to
  /// t_n + h: p[d] = P_d(t_n + h) (the higher degrees repeat the highest available). Returns that
  /// degree. The loops have constant bounds, so every index is a constant once unrolled (GPU
  /// registers); the degrees are numbers of S and the branches on them math::choose, so that a lane
  /// type takes them lane by lane (simd/lane_adaptive.hpp).
  QS_HD S extrapolate(const Vec<S, K>& xn, S h, S max_degree, Vec<S, K> (&p)[points + 1]) const {
    using math::choose;
    using math::is_less;
    using math::is_less_equal;
    using math::select;
    const S available = select(is_less(count, max_degree), count, max_degree);
    S nodes[points + 1];         // t − t_n
    Vec<S, K> diff[points + 1];  // divided differences, in place: diff[k] = x[t_n, …, t_{n−k}]
    nodes[0] = S(0);
    diff[0] = xn;
    QS_UNROLL for (int k = 1; k <= points; ++k) nodes[k] = -age[k - 1], diff[k] = x[k - 1];
    QS_UNROLL for (int k = 1; k <= points; ++k) {
      QS_UNROLL for (int j = points; j >= k; --j) {
        diff[j] = choose(
            is_less_equal(S(j), available),
            [&] { return Vec<S, K>((diff[j - 1] - diff[j]) / (nodes[j - k] - nodes[j])); }, [&] { return diff[j]; });
      }
    }
    p[0] = diff[0];
    S w = S(1);
    QS_UNROLL for (int d = 1; d <= points; ++d) {
      w *= h - nodes[d - 1];
      p[d] = choose(is_less_equal(S(d), available), [&] { return Vec<S, K>(p[d - 1] + w * diff[d]); },
                    [&] { return p[d - 1]; });
    }
    return available;
  }

  /// The Newton starting value at t_n + h, extrapolated with the current degree.
  QS_HD Vec<S, K> predict(const Vec<S, K>& xn, S h) const {
    using math::choose;
    using math::is_equal;
    Vec<S, K> p[points + 1];
    extrapolate(xn, h, degree, p);
    Vec<S, K> x1 = p[0];
    QS_UNROLL for (int d = 1; d <= points; ++d) {
      x1 = choose(is_equal(S(d), degree), [&] { return p[d]; }, [&] { return x1; });
    }
    return x1;
  }

  /// After the step of size h from t_n was accepted with the unknowns x1: choose the next degree,
  /// the one whose extrapolation came closest to x1 in the first `compared` components (the
  /// accelerations), and make x_n the newest past point.
  template <int compared>
  QS_HD void accept(const Vec<S, K>& xn, S h, const Vec<S, K>& x1, int max_degree) {
    using math::is_less;
    using math::is_less_equal;
    using math::select;
    Vec<S, K> p[points + 1];
    const S available = extrapolate(xn, h, S(max_degree), p);
    S best = S(0), best_error = S(INFINITY);
    QS_UNROLL for (int d = 0; d <= points; ++d) {
      const S error = (p[d] - x1).template head<compared>().template lpNorm<Eigen::Infinity>();
      const auto closer = is_less_equal(S(d), available) && is_less(error, best_error);
      best_error = select(closer, error, best_error), best = select(closer, S(d), best);
    }
    QS_UNROLL for (int j = points - 1; j > 0; --j) x[j] = x[j - 1], age[j] = age[j - 1] + h;
    x[0] = xn;
    age[0] = h;
    count = select(is_less(count, S(points)), S(count + S(1)), count);
    degree = best;
  }
};

}  // namespace quatstep
