// Floating-point operations of one mechanism step, counted by running the core's mechanism code with
// the counting scalar (counting_scalar.hpp): the mechanism, built in double (problems/), is copied into
// the counting scalar field by field, and every counted step is checked to give the double step's
// bits (the project builds with -ffp-contract=off, so both round every operation alike): a field the
// copy missed would show. bench_mechanism_flops prints them per case; bench_gpu's mechanism
// benchmarks turn them into fractions of the GPU's peak.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "counting_scalar.hpp"
#include "mechanisms.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"

namespace quatstep::bench {

namespace mechanism_scalar {
using namespace quatstep::mechanism;



// ---------------------------------------------------------------- a mechanism in another scalar
template <class T, class S>
TimeProfile<T> cast(const TimeProfile<S>& p) {
  TimeProfile<T> r;
  r.constant = p.constant.template cast<T>();
  r.ramp = p.ramp.template cast<T>();
  r.amplitude = p.amplitude.template cast<T>();
  r.frequency = T(p.frequency), r.phase = T(p.phase), r.begin = T(p.begin), r.end = T(p.end);
  return r;
}
template <class T, class S>
FreeRigidBody<T> cast(const FreeRigidBody<S>& b) {
  FreeRigidBody<T> r;
  r.inertia = b.inertia.template cast<T>();
  r.mass = T(b.mass);
  r.gravity = b.gravity.template cast<T>();
  r.force_profile = cast<T>(b.force_profile);
  r.loads.gravity = b.loads.gravity.template cast<T>();
  r.loads.lever = b.loads.lever.template cast<T>();
  r.loads.mass = T(b.loads.mass);
  r.loads.body_torque = cast<T>(b.loads.body_torque);
  r.loads.spatial_torque = cast<T>(b.loads.spatial_torque);
  return r;
}
template <class T, class S>
Joint<T> cast(const Joint<S>& j) {
  Joint<T> r;
  r.type = j.type, r.driven = j.driven, r.rows = j.rows, r.offset = j.offset;
  for (int s = 0; s < 2; ++s) {
    r.body[s] = j.body[s];
    r.frame[s].origin = j.frame[s].origin.template cast<T>();
    r.frame[s].axes = j.frame[s].axes.template cast<T>();
  }
  r.angle = cast<T>(j.angle);
  return r;
}
template <class T, class S, class Cap>
Mechanism<T, Cap> cast(const Mechanism<S, Cap>& m) {
  Mechanism<T, Cap> r;
  r.n_bodies = m.n_bodies, r.n_joints = m.n_joints, r.n_rows = m.n_rows, r.n_springs = m.n_springs;
  r.n_loads = m.n_loads;
  for (int b = 0; b < Cap::bodies; ++b) {
    r.bodies[b] = cast<T>(m.bodies[b]);
    r.n_incident[b] = m.n_incident[b];
    for (int k = 0; k < Cap::joints; ++k) r.incident[b][k] = m.incident[b][k];
  }
  for (int k = 0; k < Cap::joints; ++k) r.joints[k] = cast<T>(m.joints[k]);
  for (int k = 0; k < Cap::springs; ++k) {
    const SpringDamper<S>& s = m.springs[k];
    SpringDamper<T>& t = r.springs[k];
    for (int e = 0; e < 2; ++e) t.body[e] = s.body[e], t.point[e] = s.point[e].template cast<T>();
    t.stiffness = T(s.stiffness), t.damping = T(s.damping), t.rest_length = T(s.rest_length);
  }
  for (int l = 0; l < Cap::loads; ++l)
    r.loads[l].body = m.loads[l].body, r.loads[l].kind = m.loads[l].kind, r.loads[l].profile = cast<T>(m.loads[l].profile);
  r.length_scale = T(m.length_scale);
  return r;
}
template <class T, class S, int B>
MechanismKinematics<T, B> cast(const MechanismKinematics<S, B>& k) {
  MechanismKinematics<T, B> r;
  for (int b = 0; b < B; ++b)
    r.body[b] = RigidBodyKinematics<T>::of(k.body[b].quaternion.template cast<T>(), k.body[b].omega_body.template cast<T>(),
                                           k.body[b].position.template cast<T>(), k.body[b].velocity.template cast<T>());
  return r;
}

/// Whether two kinematics hold the same bits (the counted one's values against the double one's).
template <int B>
bool same(const MechanismKinematics<double, B>& a, const MechanismKinematics<Counted, B>& b, int bodies) {
  const auto eq = [](const auto& x, const auto& y) {
    for (int i = 0; i < x.size(); ++i)
      if (!(x[i] == y[i].v)) return false;
    return true;
  };
  for (int i = 0; i < bodies; ++i)
    if (!eq(a.body[i].quaternion, b.body[i].quaternion) || !eq(a.body[i].omega_body, b.body[i].omega_body) ||
        !eq(a.body[i].position, b.body[i].position) || !eq(a.body[i].velocity, b.body[i].velocity))
      return false;
  return true;
}

}  // namespace mechanism_scalar

/// What mechanism_step_flops measured, and the double integrator's state after the counted steps.
template <class State>
struct MechanismStepFlops {
  double flops = 0;       ///< per step
  double iterations = 0;  ///< Newton iterations per step
  State before;           ///< the double state the counted steps started from (step 10)
};

/// Method M (an integrator template) on the test mechanism, its settings made by settings(S{}) for
/// each scalar S: 10 steps of h from the initial state, then `counted` steps counted and checked bit
/// for bit against the double steps (the process stops with a message if they differ).
template <template <class> class M, class Cap, class MakeSettings>
MechanismStepFlops<typename M<mechanism::Mechanism<double, Cap>>::State> mechanism_step_flops(
    const testing::TestMechanism<Cap>& tm, double h, const MakeSettings& settings, int counted = 20) {
  using namespace mechanism_scalar;
  using D = M<Mechanism<double, Cap>>;
  using C = M<Mechanism<Counted, Cap>>;
  const D d(settings(double{}));
  const C c(settings(Counted{}));
  const Mechanism<Counted, Cap> mc = cast<Counted>(tm.mech);
  typename D::State sd;
  typename C::State sc;
  d.initialize(tm.mech, tm.initial, 0.0, sd);
  c.initialize(mc, cast<Counted>(tm.initial), Counted(0.0), sc);
  for (int k = 0; k < 10; ++k) {
    d.step(tm.mech, sd, k * h, h);
    c.step(mc, sc, Counted(k * h), Counted(h));
  }
  MechanismStepFlops<typename D::State> r;
  r.before = sd;
  flop_counts = {};
  for (int k = 10; k < 10 + counted; ++k) {
    r.iterations += d.step(tm.mech, sd, k * h, h).iterations;
    c.step(mc, sc, Counted(k * h), Counted(h));
  }
  r.flops = double(flop_counts.flops()) / counted;
  r.iterations /= counted;
  if (!same(d.kinematics(tm.mech, sd), c.kinematics(mc, sc), tm.mech.n_bodies)) {
    std::fprintf(stderr, "mechanism_step_flops: the counted steps left the double steps' bits (the scalar copy "
                         "misses a field)\n");
    std::exit(1);
  }
  return r;
}

}  // namespace quatstep::bench
