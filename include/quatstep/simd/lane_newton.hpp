// newton.hpp's driver for W bodies at once (lanes = bodies), bit for bit the scalar newton_solve of
// each body: the same iterates, the same stopping rule and Jacobian reuse (newton.hpp's
// newton_converged and newton_reuses_jacobian, instantiated with lanes). A lane stops when its
// own rule is met and keeps its iterate from then on; the loop runs until every lane has stopped. A
// fresh Jacobian is evaluated when some lane needs one and taken only by those lanes.
#pragma once

#include "quatstep/newton.hpp"
#include "quatstep/simd/lane_lu.hpp"
#include "quatstep/simd/lane_settings.hpp"

namespace quatstep::simd {

/// Per-lane result of a step: the Status code and the Newton iterations (NewtonOutcome per lane).
template <class L>
struct LaneOutcome {
  typename L::V status = 0;
  typename L::V iterations = 0;
};

/// newton_solve lane by lane, with the caller's factorisation f (kept after the call: in each lane
/// the last one that lane used), as newton_solve's: the dense Lu<L, K> (lane_lu.hpp) or a structured
/// one (mechanism/kkt.hpp with lane_kkt.hpp), for which `take(which, f, g)` moves lanes `which` of g
/// into f. Lanes outside `active` are left alone (status ok, 0 iterations).
template <class L, int K, class System, class Factorization>
LaneOutcome<L> lane_newton(const System& sys, Vec<L, K>& x, const NewtonSettings<L>& settings,
                           typename L::Mask active, Factorization& f) {
  using Mask = typename L::Mask;
  using Ints = typename L::V;
  LaneOutcome<L> out;
  Mask done = !active;
  const auto finish = [&](Mask which, Status s, int k) {
    which = which && !done;
    out.status = select(which, Ints(int(s)), out.status);
    out.iterations = select(which, Ints(k), out.iterations);
    done |= which;
  };
  L previous(0), first(0);
  Vec<L, K> r;
  for (int k = 1; k <= settings.max_iterations && !stdx::all_of(done); ++k) {
    Mask reuse(false);
    bool residual_only = false;
    if constexpr (has_residual<System, Vec<L, K>>::value) {
      if (k > 1) reuse = newton_reuses_jacobian(first, settings).holds;
      residual_only = stdx::all_of(reuse || done);
      if (residual_only) sys.residual(x, r);
    }
    if (!residual_only) {
      const Mask fresh = !reuse && !done;  // the lanes that take this iteration's factorisation
      if (k == 1 || stdx::all_of(fresh)) {
        detail::linearize(sys, x, r, f);
      } else {
        Factorization g;
        detail::linearize(sys, x, r, g);
        take(fresh, f, g);
      }
      finish(!reuse && f.singular, Status::singular_jacobian, k);
    }
    const Vec<L, K> dx = f.solve(-r);
    for (int i = 0; i < K; ++i) x[i] = select(done, x[i], x[i] + dx[i]);
    const L d = sys.correction_norm(dx, x);
    finish(!(d.v < INFINITY), Status::non_finite, k);
    if (k == 1) first = d;
    finish(newton_converged(sys, x, k, d, previous, settings.tolerance).holds, Status::ok, k);
    previous = d;
  }
  finish(!done, Status::newton_not_converged, settings.max_iterations);
  return out;
}

/// The same with the dense LU of the K×K Jacobian.
template <class L, int K, class System>
LaneOutcome<L> lane_newton(const System& sys, Vec<L, K>& x, const NewtonSettings<L>& settings,
                           typename L::Mask active) {
  Lu<L, K> lu;  // LaneLu: the Jacobian is assembled in lu.lu and factorised in place
  return lane_newton(sys, x, settings, active, lu);
}

/// Commit a step: s takes `next` in the lanes that are active and whose step succeeded so far, and a
/// lane whose Newton iteration converged to a non-finite state fails with Status::non_finite (the
/// end of every scalar step: `if (!all_finite(next)) return non_finite; s = next`). `extra_failure`
/// lanes fail with `extra` (HHT's velocity-constraint drift), after the finite check.
template <class L, class State>
void lane_commit(State& s, State next, typename L::Mask active, LaneOutcome<L>& out,
                 typename L::Mask extra_failure = typename L::Mask(false), Status extra = Status::ok) {
  using Ints = typename L::V;
  typename L::Mask finite(true);
  for (int i = 0; i < State::size; ++i) finite &= is_finite(next[i]);
  const typename L::Mask converged = active && lanes_where(out.status, 0);
  out.status = select(converged && !finite, Ints(int(Status::non_finite)), out.status);
  out.status = select(converged && finite && extra_failure, Ints(int(extra)), out.status);
  const typename L::Mask accept = active && lanes_where(out.status, 0);
  for (int i = 0; i < State::size; ++i) s[i] = select(accept, next[i], s[i]);
}

}  // namespace quatstep::simd
