// An independent reference for the mechanism tests: classical RK4 on the index-1 form of the DAE,
// q̈ = a(q, q̇, t) from the consistent-acceleration solve (consistent_state.hpp), in the redundant
// coordinates. The constraints then drift by O(h⁴) per step (nothing projects them back), which at
// the reference steps used stays at round-off level; the tests check it.
#pragma once

#include <cmath>
#include <vector>

#include "quatstep/mechanism/consistent_state.hpp"
#include "quatstep/mechanism/observables.hpp"

namespace quatstep::testing {

/// One RK4 step of h from (q, q̇) at t; `status` is set when a consistent-acceleration solve fails.
template <class Mech, class VecN>
void rk4_step(const Mech& m, VecN& q, VecN& v, double t, double h, Status& status) {
  typename mechanism::Dae<Mech>::VecM lambda;
  const auto f = [&](const VecN& x, const VecN& xd, double tt, VecN& a) {
    const Status s = mechanism::solve_accelerations(m, x, xd, tt, a, lambda);
    if (s != Status::ok) status = s;
  };
  VecN a1, a2, a3, a4;
  f(q, v, t, a1);
  const VecN q2 = q + 0.5 * h * v, v2 = v + 0.5 * h * a1;
  f(q2, v2, t + 0.5 * h, a2);
  const VecN q3 = q + 0.5 * h * v2, v3 = v + 0.5 * h * a2;
  f(q3, v3, t + 0.5 * h, a3);
  const VecN q4 = q + h * v3, v4 = v + h * a3;
  f(q4, v4, t + h, a4);
  q += h / 6 * (v + 2 * v2 + 2 * v3 + v4);
  v += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
}

template <class Mech>
struct Rk4Reference {
  using D = mechanism::Dae<Mech>;
  using VecN = typename D::VecN;

  /// The state after `steps` steps of h from (q, q̇) at t0; every `stride` steps a sample.
  struct Sample {
    double t;
    VecN q, v;
  };
  std::vector<Sample> samples;
  Status status = Status::ok;

  Rk4Reference(const Mech& m, const mechanism::MechanismKinematics<double, Mech::max_bodies>& k, double h,
               long steps, long stride) {
    VecN q, v;
    mechanism::dae_from_kinematics(m, k, q, v);
    samples.push_back({0.0, q, v});
    for (long i = 0; i < steps && status == Status::ok; ++i) {
      rk4_step(m, q, v, i * h, h, status);
      if ((i + 1) % stride == 0) samples.push_back({(i + 1) * h, q, v});
    }
  }
};

/// RK4's state at t_end in steps of h (the accuracy tests' reference); `status` says whether every
/// consistent-acceleration solve worked.
template <class Mech>
typename Rk4Reference<Mech>::Sample rk4_end(const Mech& m,
                                             const mechanism::MechanismKinematics<double, Mech::max_bodies>& k,
                                             double h, double t_end, Status& status) {
  const long steps = std::lround(t_end / h);
  const Rk4Reference<Mech> ref(m, k, h, steps, steps);
  status = ref.status;
  return ref.samples.back();
}

/// The largest |ω − ω_ref| (body axes) over the bodies of two states of m.
template <class Mech, class VecN>
double max_omega_error(const Mech& m, const VecN& q, const VecN& v, const VecN& q_ref, const VecN& v_ref) {
  const auto k = mechanism::kinematics_from_dae(m, q, v), kr = mechanism::kinematics_from_dae(m, q_ref, v_ref);
  double e = 0;
  for (int b = 0; b < m.n_bodies; ++b) e = std::max(e, (k.body[b].omega_body - kr.body[b].omega_body).norm());
  return e;
}

}  // namespace quatstep::testing
