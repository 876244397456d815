// A Livens scheme (Kinon & Betsch 2024) on ZupanPrescribedBody. LivensIntegrator reads a rigid
// body's torques only from `model.loads` (RigidBodyForces, built once per step at t^{n+½}, the
// choice of docs/errata.md K5), as TimeProfiles; the body's exact torque M(t) is no TimeProfile, and its `loads`
// are zero, so LivensEm<ZupanPrescribedBody> would silently integrate the torque-free body.
// Since M depends on time only and the scheme evaluates it at t^{n+½} alone, each step runs on a
// HeavyTop whose spatial torque is the constant M(t^{n+½}): the same step as a profile equal to M
// would give (F = 2E(q^{n+½})ᵀM(t^{n+½}), Kinon eq. 86b with rigid_body_forces.hpp).
#pragma once

#include "quatstep/integrators/livens_em.hpp"
#include "zupan_rotation_field.hpp"

namespace quatstep::testing {

template <class Inner = LivensEm<HeavyTop<double>>>
class ZupanLivens {
 public:
  using Scalar = double;
  using ModelType = ZupanPrescribedBody;
  using State = typename Inner::State;

  Inner inner;

  explicit ZupanLivens(const Inner& i = Inner()) : inner(i) {}

  Status initialize(const ZupanPrescribedBody& body, const RigidBodyKinematics<double>& k, double t0,
                    State& s) const {
    return inner.initialize(frozen(body, t0), k, t0, s);
  }
  NewtonOutcome step(const ZupanPrescribedBody& body, State& s, double t, double h) const {
    return inner.step(frozen(body, t + 0.5 * h), s, t, h);
  }
  RigidBodyKinematics<double> kinematics(const ZupanPrescribedBody& body, const State& s) const {
    return inner.kinematics(body, s);
  }

 private:
  /// The body with its torque frozen at time t, as a constant spatial TimeProfile.
  static HeavyTop<double> frozen(const ZupanPrescribedBody& body, double t) {
    HeavyTop<double> top;
    top.inertia = body.inertia;
    top.loads.spatial_torque.constant = body.spatial_torque(t);
    return top;
  }
};

using ZupanLivensEm = ZupanLivens<>;

}  // namespace quatstep::testing
