// The ensemble every peer and every quatstep integrator runs in the peer benchmarks: free rigid
// bodies, each drawn from (seed, body index) alone, so any body or subset can be generated on its
// own, on the CPU or in a GPU thread, with the same bits:
//   principal moments J1..J3 uniform in [inertia_min, inertia_max], redrawn until Jk ≤ Jl + Jm
//     (the triangle inequality of a real body);
//   orientation: uniform on S³ (rejection in the cube [−1, 1]⁴, kept if 1e-4 < |x|² ≤ 1, normalised);
//   ω (body axes): max_spin × a point uniform in the unit ball (rejection), so |ω| ≤ max_spin;
//   τ (body axes, constant): each component uniform in [−max_torque, max_torque] (0: torque-free).
// Random numbers: splitmix64 on the counter seed ⊕ index; only integer arithmetic, exact int→double
// conversions, products and one sqrt (IEEE-exact on both sides) — no library transcendentals.
#pragma once

#include <cstdint>
#include <vector>

#include "body_loop.hpp"
#include "quatstep/models/free_rigid_body.hpp"

namespace quatstep::peers {

struct FreeRotationSpec {
  std::uint64_t seed = 1;
  double inertia_min = 1, inertia_max = 3;
  double max_spin = 20;   ///< rad/s
  double max_torque = 0;  ///< per component, body axes
};

/// splitmix64 (Steele, Lea & Flood 2014): a counter-based generator, one stream per body.
class SplitMix64 {
 public:
  QS_HD explicit SplitMix64(std::uint64_t state) : state_(state) {}
  QS_HD std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1): the top 53 bits, exactly.
  QS_HD double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [a, b).
  QS_HD double uniform(double a, double b) { return a + (b - a) * uniform(); }

 private:
  std::uint64_t state_;
};

/// Body i of the ensemble.
QS_HD inline RotationState<double> free_rotation_body(const FreeRotationSpec& spec, index_t i,
                                                      RotationParams<double>& params) {
  SplitMix64 rng(SplitMix64(spec.seed).next() ^ (0xD1B54A32D192ED03ull * std::uint64_t(i + 1)));
  Vec3<double> J;
  do {
    for (int c = 0; c < 3; ++c) J[c] = rng.uniform(spec.inertia_min, spec.inertia_max);
  } while (J[0] > J[1] + J[2] || J[1] > J[0] + J[2] || J[2] > J[0] + J[1]);
  Vec4<double> q;
  double q2;
  do {
    for (int c = 0; c < 4; ++c) q[c] = rng.uniform(-1, 1);
    q2 = q.squaredNorm();
  } while (!(q2 > 1e-4 && q2 <= 1));
  Vec3<double> w;
  do {
    for (int c = 0; c < 3; ++c) w[c] = rng.uniform(-1, 1);
  } while (w.squaredNorm() > 1);
  for (int c = 0; c < 3; ++c) params.torque[c] = spec.max_torque * rng.uniform(-1, 1);
  params.inertia = J;
  return {normalized<double>(q), spec.max_spin * w};
}

/// Writes body i into struct-of-arrays storage (body_loop.hpp layout) in scalar S; a functor so that
/// thrust::for_each can fill device memory with it.
template <class S>
struct StoreBody {
  FreeRotationSpec spec;
  SoaView<S> state, params;
  QS_HD void operator()(index_t i) const {
    RotationParams<double> p;
    const RotationState<double> x = free_rotation_body(spec, i, p);
    store_state<S>(state, i, {x.q.template cast<S>(), x.w.template cast<S>()});
    store_params<S>(params, i, {p.inertia.template cast<S>(), p.torque.template cast<S>()});
  }
};

/// Raw arrays for the peers on the host.
template <class S>
struct PeerArrays {
  index_t bodies = 0;
  std::vector<S> state;   ///< 7 × bodies
  std::vector<S> params;  ///< 6 × bodies
  SoaView<S> state_view() { return {state.data(), bodies}; }
  SoaView<S> params_view() { return {params.data(), bodies}; }
};

template <class S>
PeerArrays<S> peer_arrays(const FreeRotationSpec& spec, index_t bodies) {
  PeerArrays<S> a{bodies, std::vector<S>(state_components * bodies), std::vector<S>(param_components * bodies)};
  const StoreBody<S> store{spec, a.state_view(), a.params_view()};
  for (index_t i = 0; i < bodies; ++i) store(i);
  return a;
}

/// The same bodies as quatstep models (at rest at the origin, no gravity, the torque as a constant
/// body-torque profile) and initial kinematics.
inline std::vector<FreeRigidBody<double>> quatstep_models(const FreeRotationSpec& spec, index_t bodies) {
  std::vector<FreeRigidBody<double>> models(bodies);
  for (index_t i = 0; i < bodies; ++i) {
    RotationParams<double> p;
    free_rotation_body(spec, i, p);
    models[i].inertia = p.inertia.asDiagonal();
    models[i].loads.body_torque.constant = p.torque;
  }
  return models;
}

inline std::vector<RigidBodyKinematics<double>> quatstep_initial(const FreeRotationSpec& spec, index_t bodies) {
  std::vector<RigidBodyKinematics<double>> initial(bodies);
  for (index_t i = 0; i < bodies; ++i) {
    RotationParams<double> p;
    const RotationState<double> x = free_rotation_body(spec, i, p);
    initial[i].quaternion = x.q;
    initial[i].omega_body = x.w;
  }
  return initial;
}

}  // namespace quatstep::peers
