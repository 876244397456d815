// One HHT-family step for W bodies at once (lanes = bodies), bit for bit the scalar step of each
// body. The residual/Jacobian (HhtFamily::Step) is the core's, instantiated with Lanes<W>; what the
// core writes with data-dependent branches is redone here lane-wise, with masks and blends:
//   LaneLu        linalg/lu.hpp's partial pivoting (pivot search and row swap per lane),
//   lane_newton   newton.hpp's driver, stopping rule and Jacobian reuse (a lane stops when its own
//                 rule is met; the loop runs until every lane has stopped, stopped lanes keep their
//                 iterate),
//   lane_hht_step HhtFamily::step and ::check (finite state, velocity-constraint drift).
// reml_step.hpp does the same for REML.
#pragma once

#include "quatstep/integrators/hht.hpp"
#include "simd_lanes.hpp"

namespace quatstep::bench {

template <int W>
Mask<W> lanes_of(bool b) {
  return Mask<W>(b);
}
template <int W>
bool all(const Mask<W>& m) {
  return stdx::all_of(m);
}
template <int W>
Mask<W> is_finite(const Lanes<W>& a) {
  return abs(a).v <= INFINITY;
}

/// Lu<double, N> lane by lane: same pivots, same swaps, same operation order.
template <int W, int N>
struct LaneLu {
  using L = Lanes<W>;
  Eigen::Matrix<L, N, N> lu;
  LaneInts<W> perm[N];
  Mask<W> singular = lanes_of<W>(false);

  explicit LaneLu(const Eigen::Matrix<L, N, N>& a) : lu(a) {
    for (int i = 0; i < N; ++i) perm[i] = i;
    for (int k = 0; k < N; ++k) {
      LaneInts<W> p = k;
      L best = abs(lu(k, k));
      for (int i = k + 1; i < N; ++i) {  // first largest |a_ik|, as the scalar strict '>'
        const L v = abs(lu(i, k));
        const Mask<W> larger = v.v > best.v;
        best = select<W>(larger, v, best);
        p = select<W>(larger, LaneInts<W>(i), p);
      }
      singular |= !(best.v > 0.0) || !(best.v < INFINITY);
      for (int i = k + 1; i < N; ++i) {  // swap rows k and p where p = i
        const Mask<W> swap = lanes_where<W>(p, i);
        for (int j = 0; j < N; ++j) {
          const L t = lu(k, j);
          lu(k, j) = select<W>(swap, lu(i, j), t);
          lu(i, j) = select<W>(swap, t, lu(i, j));
        }
        const LaneInts<W> t = perm[k];
        perm[k] = select<W>(swap, perm[i], t);
        perm[i] = select<W>(swap, t, perm[i]);
      }
      const L inv_pivot = L(1) / lu(k, k);
      for (int i = k + 1; i < N; ++i) {
        lu(i, k) *= inv_pivot;  // l_ik = a_ik / u_kk
        const L l = lu(i, k);
        for (int j = k + 1; j < N; ++j) lu(i, j) -= l * lu(k, j);  // a_ij -= l_ik u_kj
      }
    }
  }

  /// This factorisation's lanes `which` from `other`.
  void take(const Mask<W>& which, const LaneLu& other) {
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) lu(i, j) = select<W>(which, other.lu(i, j), lu(i, j));
      perm[i] = select<W>(which, other.perm[i], perm[i]);
    }
    singular = (which && other.singular) || (!which && singular);
  }

  Vec<L, N> solve(const Vec<L, N>& b) const {
    Vec<L, N> x;
    for (int i = 0; i < N; ++i) {  // x_i = b_{perm_i}, lane by lane
      x[i] = b[0];
      for (int r = 1; r < N; ++r) x[i] = select<W>(lanes_where<W>(perm[i], r), b[r], x[i]);
    }
    for (int i = 1; i < N; ++i)
      for (int j = 0; j < i; ++j) x[i] -= lu(i, j) * x[j];
    for (int i = N - 1; i >= 0; --i) {
      for (int j = i + 1; j < N; ++j) x[i] -= lu(i, j) * x[j];
      x[i] /= lu(i, i);
    }
    return x;
  }
};

/// Per-lane result of a step: Status code and Newton iterations.
template <int W>
struct LaneOutcome {
  LaneInts<W> status = 0;
  LaneInts<W> iterations = 0;
};

/// newton_solve lane by lane. Lanes outside `active` are left alone (status ok, 0 iterations).
/// As newton.hpp, a System with a residual-only path keeps its first Jacobian and LU for the later
/// iterations of a lane whose first correction is at most jacobian_reuse_below; a fresh Jacobian is
/// evaluated when some lane needs one, and taken only by those lanes.
template <int W, int K, class System>
LaneOutcome<W> lane_newton(const System& sys, Vec<Lanes<W>, K>& x, const NewtonSettings<Lanes<W>>& settings,
                           Mask<W> active) {
  using L = Lanes<W>;
  LaneOutcome<W> out;
  Mask<W> done = !active;
  const auto finish = [&](Mask<W> which, Status s, int k) {
    which = which && !done;
    out.status = select<W>(which, LaneInts<W>(double(s)), out.status);
    out.iterations = select<W>(which, LaneInts<W>(k), out.iterations);
    done |= which;
  };
  L previous(0), first(0);
  Vec<L, K> r;
  Eigen::Matrix<L, K, K> jac;
  LaneLu<W, K> lu(Eigen::Matrix<L, K, K>::Identity());
  for (int k = 1; k <= settings.max_iterations && !all<W>(done); ++k) {
    Mask<W> reuse = lanes_of<W>(false);
    if constexpr (has_residual<System, Vec<L, K>>::value)
      if (k > 1) reuse = first.v <= settings.jacobian_reuse_below.v;
    if (all<W>(reuse || done)) {
      sys.residual(x, r);
    } else {
      sys.evaluate(x, r, jac);
      const LaneLu<W, K> fresh(jac);
      lu.take(!reuse, fresh);
      finish(!reuse && lu.singular, Status::singular_jacobian, k);
    }
    const Vec<L, K> dx = lu.solve(-r);
    for (int i = 0; i < K; ++i) x[i] = select<W>(done, x[i], x[i] + dx[i]);
    const L d = sys.correction_norm(dx, x);
    finish(!(d.v <= INFINITY), Status::non_finite, k);
    if (k == 1) {
      first = d;
      finish(d.v <= (L(1e-3) * settings.tolerance).v, Status::ok, k);
    } else {
      const L xi = d / previous;  // convergence rate estimate
      finish((xi.v < 1.0) && ((xi / (L(1) - xi) * d).v <= settings.tolerance.v), Status::ok, k);
      finish(d.v == 0.0, Status::ok, k);
      if constexpr (has_round_off_norm<System, Vec<L, K>>::value)
        finish(d.v <= sys.round_off_norm(x).v, Status::ok, k);
    }
    previous = d;
  }
  finish(!done, Status::newton_not_converged, settings.max_iterations);
  return out;
}

/// HhtFamily::step for W bodies; lanes outside `active` (failed earlier) are not advanced.
template <class Integrator, int W = sizeof(typename Integrator::Scalar) / sizeof(double)>
QS_FLATTEN LaneOutcome<W> lane_hht_step(const Integrator& integrator, const typename Integrator::ModelType& model,
                         typename Integrator::State& s, Lanes<W> t, Lanes<W> h, Mask<W> active) {
  using L = Lanes<W>;
  using Model = typename Integrator::ModelType;
  const typename Integrator::Step sys(model, integrator, s, t, h);
  Vec<L, Integrator::K> x = Integrator::unknowns(s);  // predictor: q̈_{n+1}⁽⁰⁾ = q̈_n, λ⁽⁰⁾ = λ_n
  LaneOutcome<W> out = lane_newton<W>(sys, x, integrator.settings.newton, active);
  typename Integrator::State next;
  next.a = sys.accelerations(x);
  next.lambda = x.template tail<Integrator::m>();
  sys.kinematics(next.a, next.q, next.v);
  // HhtFamily::check: non-finite first, then |eᵀė| ≤ drift_tolerance·|ė| per quaternion block.
  Mask<W> finite = lanes_of<W>(true);
  for (int i = 0; i < Integrator::State::size; ++i) finite &= is_finite(next[i]);
  Mask<W> drift = lanes_of<W>(false);
  for (int b = 0; b < Model::n_quaternions; ++b) {
    const int o = Model::quaternion_offset(b);
    const Vec4<L> e = next.q.template segment<4>(o), ed = next.v.template segment<4>(o);
    drift |= abs(e.dot(ed)).v > (integrator.settings.drift_tolerance * sqrt(ed.squaredNorm())).v;
  }
  const Mask<W> converged = active && lanes_where<W>(out.status, 0);
  out.status = select<W>(converged && !finite, LaneInts<W>(double(Status::non_finite)), out.status);
  out.status = select<W>(converged && finite && drift, LaneInts<W>(double(Status::constraint_drift)), out.status);
  const Mask<W> accept = active && lanes_where<W>(out.status, 0);
  for (int i = 0; i < Integrator::State::size; ++i) s[i] = select<W>(accept, next[i], s[i]);
  return out;
}

}  // namespace quatstep::bench
