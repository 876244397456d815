// The CPU runners of the peer benchmarks (measure.hpp's Runner): the same ensemble
// (free_rotation_ensemble.hpp) through quatstep's CpuEnsemble, or through a peer's per-body step in
// an OpenMP loop over bodies (body_loop.hpp). OdeintRk4 (odeint_rk4.hpp) is the third kind.
#pragma once

#include <cmath>
#include <vector>

#include "cpu_ensemble.hpp"
#include "free_rotation_ensemble.hpp"

namespace quatstep::peers {

template <class Integrator>
class QuatstepRunner {
 public:
  QuatstepRunner(const Integrator& integrator, const FreeRotationSpec& spec, index_t bodies, double h)
      : ensemble_(integrator, quatstep_models(spec, bodies), 0.0, h), initial_(quatstep_initial(spec, bodies)) {}

  void reset() { ensemble_.initialize(initial_, none()); }
  void advance(index_t steps) { ensemble_.advance(steps, none()); }
  RotationState<double> state(index_t i) const {
    if (ensemble_.status()[i] != Status::ok) return {Vec4<double>::Constant(NAN), Vec3<double>::Constant(NAN)};
    const RigidBodyKinematics<double> k = ensemble_.kinematics(i);
    return {k.quaternion, k.omega_body};
  }

 private:
  SampleView<double> none() const { return {nullptr, ensemble_.bodies(), 0, 0, 1}; }  // no samples
  CpuEnsemble<Integrator> ensemble_;
  std::vector<RigidBodyKinematics<double>> initial_;
};

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
