// The CPU runners of the peer benchmarks (measure.hpp's Runner): the same ensemble
// (free_rotation_ensemble.hpp) through quatstep's CpuEnsemble (quatstep_runner.hpp), or through a
// peer's per-body step in an OpenMP loop over bodies (body_loop.hpp). OdeintRk4 (odeint_rk4.hpp) is
// the third kind.
#pragma once

#include <cmath>
#include <vector>

#include "cpu_ensemble.hpp"
#include "free_rotation_ensemble.hpp"
#include "quatstep_runner.hpp"

namespace quatstep::peers {

/// quatstep's integrator on the CPU.
template <class Integrator>
using CpuQuatstepRunner = QuatstepRunner<CpuEnsemble<Integrator>, Integrator>;

/// A peer's per-body step (Rk4Step, SemiImplicitEulerStep) in scalar S, OpenMP over bodies.
template <class Step, class S>
class CpuPeerLoop {
 public:
  CpuPeerLoop(const FreeRotationSpec& spec, index_t bodies, double h)
      : initial_(peer_arrays<S>(spec, bodies)), current_(initial_), h_(S(h)) {}

  void reset() { current_ = initial_; }
  void advance(index_t steps) {
    const SoaView<S> x = current_.state_view(), p = current_.params_view();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < x.bodies; ++i) advance_peer_body(Step(), x, p, i, h_, steps);
  }
  RotationState<double> state(index_t i) {
    const RotationState<S> s = load_state(current_.state_view(), i);
    return {s.q.template cast<double>(), s.w.template cast<double>()};
  }

 private:
  PeerArrays<S> initial_, current_;
  S h_;
};

}  // namespace quatstep::peers
