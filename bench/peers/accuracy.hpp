// Accuracy of a run on a set of checked bodies (host code): the error at t_end against a reference
// and the drift of the invariants of torque-free rotation along the run.
//   reference: rk4_step.hpp at h = t_end / 2^16 (ωh ≤ 3e-4 for |ω| ≤ 20; it agrees with 2^15 steps
//              to 1e-13, round-off, peers_test.cpp: errors below ~1e-12 are not resolved);
//   orientation error: geodesic angle |rotation_vector(q_ref* ∘ q)| [rad], max over the bodies;
//   ω error: |ω − ω_ref| / |ω_ref|, max over the bodies;
//   energy drift: |E − E0| / E0 with E = ½ ωᵀJω; momentum drift: |L − L0| / |L0| with the spatial
//   L = R(q) J ω; max over the bodies and the checkpoints (both are invariants only when τ = 0).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "free_rotation_ensemble.hpp"
#include "rk4_step.hpp"

namespace quatstep::peers {

inline constexpr index_t reference_steps = index_t(1) << 16;

struct Invariants {
  double energy;
  Vec3<double> momentum;  ///< spatial
};

inline Invariants invariants(const RotationParams<double>& p, const RotationState<double>& x) {
  const Vec3<double> jw = p.inertia.cwiseProduct(x.w);
  return {0.5 * x.w.dot(jw), rotation_matrix(x.q) * jw};
}

/// Body i of `spec` advanced to t_end by the reference integration.
inline RotationState<double> reference_state(const FreeRotationSpec& spec, index_t i, double t_end,
                                             index_t steps = reference_steps) {
  RotationParams<double> p;
  RotationState<double> x = free_rotation_body(spec, i, p);
  const double h = t_end / double(steps);
  for (index_t k = 0; k < steps; ++k) Rk4Step()(p, x, h);
  return x;
}

/// The checked bodies: their parameters, initial invariants and reference states at t_end.
struct Reference {
  double t_end = 0;
  std::vector<index_t> bodies;
  std::vector<RotationParams<double>> params;
  std::vector<Invariants> initial;
  std::vector<RotationState<double>> final_state;
};

/// The checked bodies with their parameters and initial invariants, no reference states (drift only).
inline Reference checked_bodies(const FreeRotationSpec& spec, std::vector<index_t> bodies) {
  const index_t n = static_cast<index_t>(bodies.size());
  Reference r{0, std::move(bodies), std::vector<RotationParams<double>>(n), std::vector<Invariants>(n), {}};
  for (index_t k = 0; k < n; ++k) r.initial[k] = invariants(r.params[k], free_rotation_body(spec, r.bodies[k], r.params[k]));
  return r;
}

inline Reference make_reference(const FreeRotationSpec& spec, std::vector<index_t> bodies, double t_end) {
  Reference r = checked_bodies(spec, std::move(bodies));
  const index_t n = static_cast<index_t>(r.bodies.size());
  r.t_end = t_end;
  r.final_state.resize(n);
#pragma omp parallel for schedule(dynamic)
  for (index_t k = 0; k < n; ++k) r.final_state[k] = reference_state(spec, r.bodies[k], t_end);
  return r;
}

/// Bodies 0, s, 2s, … (`count` of them) of an ensemble of n.
inline std::vector<index_t> strided_bodies(index_t n, index_t count) {
  count = std::min(n, count);
  std::vector<index_t> b(count);
  for (index_t k = 0; k < count; ++k) b[k] = k * (n / count);
  return b;
}

/// max(a, b), NaN if either is: a diverged body must not vanish from a maximum.
inline double max_or_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

struct Drift {
  double energy, momentum;
};

inline Drift drift(const Reference& r, index_t k, const RotationState<double>& x) {
  const Invariants now = invariants(r.params[k], x);
  return {std::abs(now.energy - r.initial[k].energy) / r.initial[k].energy,
          (now.momentum - r.initial[k].momentum).norm() / r.initial[k].momentum.norm()};
}

/// Running maxima over checked bodies and checkpoints; NaN-sticky (a diverged body shows as NaN).
struct Accuracy {
  double orientation_error = 0, omega_error = 0, energy_drift = 0, momentum_drift = 0;

  void add_checkpoint(const Reference& r, index_t k, const RotationState<double>& x) {
    const Drift d = drift(r, k, x);
    energy_drift = max_or_nan(energy_drift, d.energy);
    momentum_drift = max_or_nan(momentum_drift, d.momentum);
  }
  void add_final(const Reference& r, index_t k, const RotationState<double>& x) {
    add_checkpoint(r, k, x);
    const RotationState<double>& ref = r.final_state[k];
    orientation_error = max_or_nan(orientation_error, geodesic_angle(ref.q, x.q));
    omega_error = max_or_nan(omega_error, (x.w - ref.w).norm() / ref.w.norm());
  }
  bool finite() const {
    return std::isfinite(orientation_error) && std::isfinite(omega_error) && std::isfinite(energy_drift) &&
           std::isfinite(momentum_drift);
  }
};

}  // namespace quatstep::peers
