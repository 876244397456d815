// The gravitational potential of RigidBodyLoads as a quadratic form in the Euler parameters,
// V(q) = ½ qᵀ H q, valid off the unit sphere (R(q) as the polynomial of Kinon eq. 51).
// The energy-momentum schemes need V and ∇V separately from the torque (Kinon eqs. 48a, 115–116).
#pragma once

#include "quatstep/models/rigid_body_loads.hpp"

namespace quatstep {

/// H with V(q) = −m g·R(q)ℓ = ½ qᵀHq:  g·R(q)ℓ = (E(q)ᵀg)·(G(q)ᵀℓ) (Kinon eq. 50),
/// E(q)ᵀg = (0,g)∘q = A q and G(q)ᵀℓ = q∘(0,ℓ) = B q, so H = −m (AᵀB + BᵀA); for pure
/// quaternions Aᵀ = −A, Bᵀ = −B, and left and right products commute: H = 2m A B, where
/// (0,g)∘x∘(0,ℓ) = (−x₀ g·ℓ + x·(g×ℓ), x₀ g×ℓ + (g·ℓ)x − ℓ(g·x) − g(ℓ·x)).
template <class S>
QS_HD Mat4<S> gravity_potential_hessian(const RigidBodyLoads<S>& loads) {
  const Vec3<S>& g = loads.gravity;
  const Vec3<S>& l = loads.lever;
  const Vec3<S> c = g.cross(l);
  Mat4<S> ab;
  ab(0, 0) = -g.dot(l);
  ab.template block<1, 3>(0, 1) = c.transpose();
  ab.template block<3, 1>(1, 0) = c;
  ab.template block<3, 3>(1, 1) = g.dot(l) * Mat3<S>::Identity() - l * g.transpose() - g * l.transpose();
  return (S(2) * loads.mass) * ab;
}

}  // namespace quatstep
