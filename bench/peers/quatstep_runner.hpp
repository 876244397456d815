// The peer benchmarks' Runner (measure.hpp) for quatstep: the free-rotation ensemble through one of
// quatstep's ensembles — CpuEnsemble, or cuda::CudaEnsemble, the production GPU path, one launch
// per advance (whose time includes the copy of the per-body records to the host).
#pragma once

#include <cmath>
#include <vector>

#include "free_rotation_ensemble.hpp"

namespace quatstep::peers {

/// Ensemble: CpuEnsemble<Integrator> or cuda::CudaEnsemble<Integrator> (the same interface).
template <class Ensemble, class Integrator>
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
  Ensemble ensemble_;
  std::vector<RigidBodyKinematics<double>> initial_;
};

}  // namespace quatstep::peers
