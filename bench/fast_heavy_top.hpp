// HeavyTop with the proposals.hpp forms of its hottest terms, so that whole steps of the unchanged
// integrators (ModifiedHht<FastHeavyTop>, SimoVuQuoc<FastHeavyTop>, …) measure what the proposals
// would save. The integrators call the model's members by name, so hiding them is enough.
#pragma once

#include "proposals.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep::bench {

template <class S>
struct FastHeavyTop : HeavyTop<S> {
  FastHeavyTop() = default;
  explicit FastHeavyTop(const HeavyTop<S>& top) : HeavyTop<S>(top) {}

  /// HeavyTop::force_jacobians with proposals::gyroscopic and proposals::torque_and_derivative.
  QS_HD void force_jacobians(const Vec4<S>& q, const Vec4<S>& v, S t, Vec4<S>& Q, Mat4<S>& dq, Mat4<S>& dv) const {
    const auto gyro = proposals::gyroscopic(this->inertia, q, v);
    Vec3<S> tau;
    Mat34<S> dtau;
    proposals::torque_and_derivative(this->loads, q, t, tau, dtau);
    Q = gyro.force + euler_parameters::torque_force(q, tau);
    dq = gyro.d_e + euler_parameters::torque_force_de(q, tau, dtau);
    dv = gyro.d_edot;
  }
  QS_HD Mat3<S> body_torque_dphi(const Vec4<S>& e, S t) const {
    return proposals::body_torque_dphi(this->loads, e, t);
  }
};

}  // namespace quatstep::bench
