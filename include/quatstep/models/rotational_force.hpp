// The generalized force on one Euler-parameter block — the gyroscopic force of Sherif eq. (9)
// plus the torque of RigidBodyLoads, 2 G(e)ᵀ τ(e, t) — at (e, ė, t) and linearised there: the
// Q_e δe + Q_ė δė that the HHT Newton matrix (Sherif eq. 65) applies to a direction, without
// forming either matrix. Shared by the rigid-body models. It refers to the model's inertia and
// loads: a linearisation lives no longer than the model it came from.
#pragma once

#include "quatstep/models/euler_parameter_block.hpp"
#include "quatstep/models/rigid_body_loads.hpp"

namespace quatstep {

template <class S>
struct RotationalForce {
  euler_parameters::GyroscopicForce<S> gyro;
  const RigidBodyLoads<S>& loads;  // the model's, like gyro.J (held by value, the double HHT kernels spilled)
  S t;
  Vec3<S> tau;    ///< body-frame torque τ(e, t)
  Vec4<S> value;  ///< the generalized force

  QS_HD RotationalForce(const Mat3<S>& inertia, const RigidBodyLoads<S>& l, const Vec4<S>& e, const Vec4<S>& ed,
                        S time)
      : gyro(inertia, e, ed), loads(l), t(time), tau(l.torque(e, time)),
        value(gyro.force + euler_parameters::torque_force(e, tau)) {}

  /// ∂value/∂e δe + ∂value/∂ė δė is the sum of derivative_term<T>(δe, δė) over T < terms: the
  /// gyroscopic term (T = 0) and the torque term (T = 1). The HHT Newton matrix takes them in
  /// separate passes, so that the values either shares between columns are not live in the other.
  static constexpr int terms = 2;
  template <int T>
  QS_HD Vec4<S> derivative_term(const Vec4<S>& de, const Vec4<S>& ded) const {
    static_assert(T == 0 || T == 1);
    if constexpr (T == 0) {
      return gyro.derivative(de, ded);
    } else {
      const Vec4<S>& e = gyro.e;
      return euler_parameters::torque_force_derivative(e, de, tau, loads.torque_derivative(e, t, de));
    }
  }
};

}  // namespace quatstep
