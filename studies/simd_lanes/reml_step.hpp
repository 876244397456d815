// One REML step (LivensEm, reduced: Kinon & Betsch eq. 103 with λ eliminated) for W heavy tops at
// once, bit for bit the scalar LivensIntegrator::step of each body. The Newton system
// (livens::EliminatedSystem) and the end point are the core's, instantiated with Lanes<W>; redone
// here lane-wise are what the core writes with data-dependent branches:
//   lane_discretization  RigidBodyDiscretization's constructor, whose RigidBodyForces decides "is
//                        there gravity, are there torques" once per body: here for a block whose
//                        bodies all have gravity and no torques (Sherif's top; a production version
//                        would group bodies by these flags or step mixed blocks one body at a time);
//   lane_reml_step       the step: lane_newton (simd_step.hpp), project_normal_components with a
//                        blend, the finite check, the commit of accepted lanes.
#pragma once

#include <limits>

#include "quatstep/integrators/livens_em.hpp"
#include "simd_step.hpp"

namespace quatstep::bench {

template <int W>
using LaneReml = LivensEm<HeavyTop<Lanes<W>>>;
template <int W>
using LaneRemlDiscretization = livens::RigidBodyDiscretization<Lanes<W>, LivensRule::energy_momentum>;

/// RigidBodyDiscretization(model, q, v, p, t, h) for bodies with gravity and no prescribed torque.
template <int W>
LaneRemlDiscretization<W> lane_discretization(const HeavyTop<Lanes<W>>& model, const Vec4<Lanes<W>>& q,
                                              const Vec4<Lanes<W>>& v, const Vec4<Lanes<W>>& p, Lanes<W> h) {
  using L = Lanes<W>;
  LaneRemlDiscretization<W> d;
  d.q0 = q, d.v0 = v, d.p0 = p, d.h = h, d.inertia = model.inertia;
  d.half_omega0 = G_times<L>(q, v);
  d.forces.gravity = true;
  d.forces.torques = false;
  d.forces.hessian = gravity_potential_hessian(model.loads);
  const Vec4<L> a = (L(8) / h) * q + L(4) * v;  // EML: A = G(a)
  d.jb4 = model.inertia * Vec3<L>(L(4) * d.half_omega0);
  d.ja4.col(0) = model.inertia * Vec3<L>(-a[1], -a[2], -a[3]);
  d.ja4.col(1) = model.inertia * Vec3<L>(a[0], -a[3], a[2]);
  d.ja4.col(2) = model.inertia * Vec3<L>(a[3], a[0], -a[1]);
  d.ja4.col(3) = model.inertia * Vec3<L>(-a[2], a[1], a[0]);
  d.force_jac = -h * d.forces.force_dq1();
  d.force_q0 = d.force_jac * q;
  return d;
}

/// LivensIntegrator<HeavyTop, energy_momentum, reduced>::step for W bodies; lanes outside `active`
/// are not advanced.
template <int W>
QS_FLATTEN LaneOutcome<W> lane_reml_step(const LaneReml<W>& integrator, const HeavyTop<Lanes<W>>& model,
                              typename LaneReml<W>::State& s, Lanes<W> /*t: no time-dependent load*/, Lanes<W> h,
                              Mask<W> active) {
  using L = Lanes<W>;
  const LaneRemlDiscretization<W> d = lane_discretization<W>(model, s.q, s.v, s.p, h);
  const livens::EliminatedSystem<LaneRemlDiscretization<W>> sys(d);
  Vec4<L> x = sys.predictor(d.predictor(), s.lambda);
  LaneOutcome<W> out = lane_newton<W>(sys, x, integrator.settings.newton, active);
  const livens::EndPoint<L, 4, 1> e = sys.end_point(x);
  typename LaneReml<W>::State next = s;
  next.q = e.q, next.v = e.v, next.p = e.p, next.lambda = e.lambda;
  if (integrator.settings.project_normal_components) {  // Problem::project_normal_components, per lane
    const L qq = next.q.squaredNorm(), nu = next.q.dot(next.v) / qq, a = next.q.dot(next.p) / qq;
    const Mask<W> project =
        (abs(a * nu) * qq).v <= (L(std::numeric_limits<double>::epsilon()) * abs(next.p.dot(next.v))).v;
    for (int i = 0; i < 4; ++i) {
      next.v[i] = select<W>(project, next.v[i] - nu * next.q[i], next.v[i]);
      next.p[i] = select<W>(project, next.p[i] - a * next.q[i], next.p[i]);
    }
  }
  Mask<W> finite = lanes_of<W>(true);
  for (int i = 0; i < LaneReml<W>::State::size; ++i) finite &= is_finite(next[i]);
  const Mask<W> converged = active && lanes_where<W>(out.status, 0);
  out.status = select<W>(converged && !finite, LaneInts<W>(double(Status::non_finite)), out.status);
  const Mask<W> accept = active && lanes_where<W>(out.status, 0);
  for (int i = 0; i < LaneReml<W>::State::size; ++i) s[i] = select<W>(accept, next[i], s[i]);
  return out;
}

}  // namespace quatstep::bench
