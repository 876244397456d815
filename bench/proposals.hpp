// Cheaper forms of the three hottest model terms of a heavy-top step, measured against the core's
// (bench/README.md, "Profile"). They are proposals for include/quatstep/, kept here because the core
// is not ours to edit; proposals_test.cpp checks that each equals the core's to round-off.
// All assume a symmetric inertia J (as every physical inertia tensor is).
#pragma once

#include "quatstep/models/euler_parameter_block.hpp"
#include "quatstep/models/rigid_body_loads.hpp"

namespace quatstep::bench::proposals {

/// euler_parameters::gyroscopic with G(e)ᵀG(e) = |e|² I₄ − e eᵀ (the rows e, G(e) are orthogonal
/// with norm |e|) and u = G(ė)ᵀ J G(e) ė = −A e, A = G(ė)ᵀ J G(ė) (from G(e) b = −G(b) e):
///   force = −8 (|e|² u − e eᵀu)                            (Sherif eq. 9, −8 GᵀG Ġᵀ J G ė)
///   ∂/∂e  = −8 (2 u eᵀ − |e|² A − (eᵀu) I − 2 e uᵀ)
///   ∂/∂ė  = −8 (|e|² D − e eᵀD),  D = ∂u/∂ė = [(0,p)]_right + G(ė)ᵀ J G(e),  p = J G(e) ė.
template <class S>
QS_HD euler_parameters::Gyroscopic<S> gyroscopic(const Mat3<S>& J, const Vec4<S>& e, const Vec4<S>& ed) {
  const Mat34<S> g = G(e), gd = G(ed);
  const Mat34<S> B = J * gd;                  // J G(ė)
  const Mat4<S> A = gd.transpose() * B;       // G(ė)ᵀ J G(ė)
  const Vec3<S> p = -(B * e);                 // J G(e) ė
  const Vec4<S> u = -(A * e);                 // G(ė)ᵀ p
  const S ee = e.squaredNorm(), eu = e.dot(u);
  euler_parameters::Gyroscopic<S> r;
  r.force = S(-8) * (ee * u - eu * e);
  r.d_e = S(-8) * (S(2) * (u * e.transpose() - e * u.transpose()) - ee * A - eu * Mat4<S>::Identity());
  const Mat4<S> D = d_Gt_times(p) + (g.transpose() * B).transpose();  // G(ė)ᵀ J G(e) = (G(e)ᵀ J G(ė))ᵀ
  r.d_edot = S(-8) * (ee * D - e * (e.transpose() * D));
  return r;
}

/// R(e)ᵀ f and its derivative in e (3×4), from Rᵀ = (e0² − |ε|²) I + 2 εεᵀ − 2 e0 ε̃ (Sherif eq. 2):
///   Rᵀ f = (e0² − |ε|²) f + 2 (ε·f) ε − 2 e0 (ε × f)
///   ∂/∂e0 = 2 (e0 f − ε × f),   ∂/∂ε = 2 [(ε·f) I + ε fᵀ − f εᵀ + e0 f̃].
template <class S>
QS_HD void to_body_and_derivative(const Vec4<S>& e, const Vec3<S>& f, Vec3<S>& rt_f, Mat34<S>& d) {
  const Vec3<S> eps = e.template tail<3>();
  const S e0 = e[0], ef = eps.dot(f);
  const Vec3<S> exf = eps.cross(f);
  rt_f = (e0 * e0 - eps.squaredNorm()) * f + S(2) * ef * eps - S(2) * e0 * exf;
  d.col(0) = S(2) * (e0 * f - exf);
  d.template rightCols<3>() = S(2) * (eps * f.transpose() - f * eps.transpose() + e0 * skew(f));
  d.template rightCols<3>().diagonal().array() += S(2) * ef;
}

/// RigidBodyLoads::torque and ::torque_de together, with R(e)ᵀ formed once per vector and the
/// time-profile terms skipped when the profile is zero (TimeProfile::is_zero).
template <class S>
QS_HD void torque_and_derivative(const RigidBodyLoads<S>& loads, const Vec4<S>& e, S t, Vec3<S>& tau,
                                 Mat34<S>& dtau) {
  Vec3<S> b;
  to_body_and_derivative(e, Vec3<S>(loads.mass * loads.gravity), b, dtau);
  tau = loads.lever.cross(b);
  for (int c = 0; c < 4; ++c) dtau.col(c) = loads.lever.cross(Vec3<S>(dtau.col(c)));  // skew(lever)·∂b/∂e
  if (!loads.body_torque.is_zero()) tau += loads.body_torque(t);
  if (!loads.spatial_torque.is_zero()) {
    Mat34<S> ds;
    to_body_and_derivative(e, loads.spatial_torque(t), b, ds);
    tau += b;
    dtau += ds;
  }
}

/// HeavyTop::body_torque_dphi for the body-frame perturbation e ∘ exp((0, φ/2)):
/// ∂(Rᵀ f)/∂φ = (Rᵀ f)~, so ∂τ/∂φ = l̃ (Rᵀ m g)~ + (Rᵀ τ_s)~ (no 4-parameter detour).
template <class S>
QS_HD Mat3<S> body_torque_dphi(const RigidBodyLoads<S>& loads, const Vec4<S>& e, S t) {
  Mat3<S> d = skew(loads.lever) * skew(to_body(e, Vec3<S>(loads.mass * loads.gravity)));
  if (!loads.spatial_torque.is_zero()) d += skew(to_body(e, loads.spatial_torque(t)));
  return d;
}

}  // namespace quatstep::bench::proposals
