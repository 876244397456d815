// Zupan §IV.A: a body (J = diag(5, 5, 1)) whose rotation vector is a given function of time,
//   case (i)  ϑ(t) = [t², 0, t/5],   case (ii)  ϑ(t) = [t + sin t, 0, cos t],
// driven by the spatial torque M(t) that produces exactly that motion (Zupan eq. 21:
// J Ω̇ + Ω × JΩ = q* ∘ M ∘ q). Ω = 2 vec(q* ∘ q̇) and Ω̇ = 2 vec(q* ∘ q̈) (q̇*∘q̇ is real) come
// from forward-mode jets of q(t) = exp((0, ϑ(t)/2)), so the torque is exact to round-off.
// The model is a HeavyTop with the torque replaced, so the DAE integrators can run it too.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>

#include "jet.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "quatstep/status.hpp"

namespace quatstep::testing {

struct ZupanPrescribedBody : HeavyTop<double> {
  int load_case = 2;  ///< 1: ϑ = [t², 0, t/5], 2: ϑ = [t + sin t, 0, cos t]
  /// Calls of spatial_torque, through which every torque and force below passes (the jets are
  /// a large share of a step's cost; bench/zupan_work_precision.cpp reports them per step).
  /// Shared by copies, so the copy an implicit step holds (held_at) counts into the same total.
  std::shared_ptr<long> torque_evaluations = std::make_shared<long>(0);

  explicit ZupanPrescribedBody(int c = 2) : load_case(c) { inertia = Vec3<double>(5, 5, 1).asDiagonal(); }

  /// The torque is a closed-form function of time with no profile to freeze: the body held at t
  /// is the body itself (HeavyTop::held_at would slice it to a plain top).
  ZupanPrescribedBody held_at(double) const { return *this; }

  /// ϑ(t) as jets.
  void rotation_vector_jet(double time, Jet th[3]) const {
    const Jet t = Jet::variable(time);
    if (load_case == 1) {
      th[0] = t * t;
      th[1] = Jet::constant(0);
      th[2] = 0.2 * t;
    } else {
      th[0] = t + sin(t);
      th[1] = Jet::constant(0);
      th[2] = cos(t);
    }
  }

  /// q = (cos(φ/2), sin(φ/2)/φ · ϑ), φ = |ϑ|; both factors as series in φ² near φ = 0 (eq. 8).
  void quaternion_jet(double t, Jet q[4]) const {
    Jet th[3];
    rotation_vector_jet(t, th);
    const Jet x = th[0] * th[0] + th[1] * th[1] + th[2] * th[2];
    Jet c, k;
    if (x.v > 1e-2) {
      const Jet phi = sqrt(x);
      c = cos(0.5 * phi);
      k = sin(0.5 * phi) / phi;
    } else {  // cos(√x/2) and sin(√x/2)/√x, Taylor in x to x⁴ (remainder < 1e-17)
      const Jet one = Jet::constant(1);
      c = one - x * (Jet::constant(1.0 / 8) - x * (Jet::constant(1.0 / 384) - x * (Jet::constant(1.0 / 46080) - (1.0 / 10321920) * x)));
      k = 0.5 * (one - x * (Jet::constant(1.0 / 24) - x * (Jet::constant(1.0 / 1920) - x * (Jet::constant(1.0 / 322560) - (1.0 / 92897280) * x))));
    }
    q[0] = c;
    for (int i = 0; i < 3; ++i) q[i + 1] = k * th[i];
  }

  struct Motion {
    Vec4<double> q;
    Vec3<double> omega, omega_dot;  // body frame
  };
  Motion exact(double t) const {
    Jet qj[4];
    quaternion_jet(t, qj);
    Vec4<double> q, qd, qdd;
    for (int i = 0; i < 4; ++i) q[i] = qj[i].v, qd[i] = qj[i].d, qdd[i] = qj[i].dd;
    const Vec4<double> w = 2.0 * quat_mul<double>(quat_conj(q), qd), wd = 2.0 * quat_mul<double>(quat_conj(q), qdd);
    return {q, w.tail<3>(), wd.tail<3>()};
  }
  RigidBodyKinematics<double> exact_kinematics(double t) const {
    const Motion m = exact(t);
    RigidBodyKinematics<double> k;
    k.quaternion = m.q;
    k.omega_body = m.omega;
    return k;
  }

  /// M(t) = R(q) (J Ω̇ + Ω × JΩ), Zupan eq. (21).
  Vec3<double> spatial_torque(double t) const {
    ++*torque_evaluations;
    const Motion m = exact(t);
    return rotation_matrix(m.q) * (inertia * m.omega_dot + m.omega.cross(inertia * m.omega));
  }

  // ---------------------------------------------------------------- Lie-group interface
  Vec3<double> body_torque(const Vec4<double>& e, double t) const { return to_body(e, spatial_torque(t)); }
  /// T(e ∘ exp(φ/2)) = R(φ)ᵀ T(e) ≈ T + T × φ.
  Mat3<double> body_torque_dphi(const Vec4<double>& e, double t) const { return skew(body_torque(e, t)); }

  // ---------------------------------------------------------------- DAE interface (torque replaced)
  /// Q(q, q̇, t) linearised (HeavyTop::linearized_force): a top whose spatial torque is M(t).
  /// The result refers to `prescribed`, which the next call overwrites.
  RotationalForce<double> linearized_force(const Vec4<double>& q, const Vec4<double>& v, double t) const {
    prescribed.spatial_torque.constant = spatial_torque(t);
    return RotationalForce<double>(inertia, prescribed, q, v, t);
  }
  Vec4<double> force(const Vec4<double>& q, const Vec4<double>& v, double t) const {
    return linearized_force(q, v, t).value;
  }

 private:
  mutable RigidBodyLoads<double> prescribed;
};

/// Zupan §IV.A error (docs/errata.md Z6): the geodesic error maximised over the N = floor(T/h) steps of
/// [0, T] started from the exact state; NaN if a step fails.
template <class Integrator>
double max_geodesic_error(const Integrator& integrator, const ZupanPrescribedBody& body, double h,
                          double T = 5 * M_PI) {
  typename Integrator::State s;
  if (integrator.initialize(body, body.exact_kinematics(0), 0, s) != Status::ok) return NAN;
  const long n = static_cast<long>(std::floor(T / h));
  double worst = 0;
  for (long k = 0; k < n; ++k) {
    if (integrator.step(body, s, k * h, h).status != Status::ok) return NAN;
    worst = std::max(worst, geodesic_angle(body.exact((k + 1) * h).q, integrator.kinematics(body, s).quaternion));
  }
  return worst;
}

}  // namespace quatstep::testing
