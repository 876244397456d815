// Symmetric composition of a symmetric second-order kick–drift–kick map to order 2, 4 or 6
// (Hairer, Lubich & Wanner, Geometric Numerical Integration, §II.4 and §V.3):
//   Φ_h = K_{h/2} ∘ D_h ∘ K_{h/2},   Ψ_h = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h},   Σ γ_i = 1, γ_i = γ_{s+1−i},
// where K is a kick (the momenta change by the forces at fixed positions) and D a drift (the exact
// flow of the kinetic energy; the time advances with it). Each Φ is symmetric and second order; the
// weights below make Ψ symmetric and of order 2, 4, 6. Adjacent half kicks of two stages act at
// the same positions and time and merge into one, so s stages evaluate the forces s times, and the
// forces at the end of a step are those at the start of the next (kept in the integrator's state).
//   order 2: s = 1, γ = 1 (Störmer–Verlet / Strang);
//   order 4: s = 3, Yoshida's triple jump, γ₁ = γ₃ = 1/(2 − 2^{1/3}), γ₂ = 1 − 2γ₁ (HLW eq. II.4.4);
//   order 6: s = 9, Kahan & Li's s9odr6a (HLW eq. V.3.12). Against Yoshida's 7-stage solution A
//     (HLW eq. V.3.11) it was 5–7× more accurate at equal step on three random torque-free bodies
//     (a prototype of SymmetricSplitting, order 2 inside), so 1.1–1.5× at equal work (9/7 the stages).
// A splitting whose drift is the exact flow of the kinetic energy (ExactFreeSplitting) may instead
// take a method of the perturbed problem ẋ = A(x) + εB(x), the drift's A large and the kick's εB small
// (Blanes, Casas, Farrés, Laskar, Makazaga & Murua, Appl. Numer. Math. 68 (2013), 58–72):
//   Ψ_h = D_{a₀h} ∘ K_{b₀h} ∘ D_{a₁h} ∘ … ∘ K_{b₀h} ∘ D_{a₀h},
// their ABA(10,6,4): 9 drifts and 8 kicks, order 4 for any ε, and the error terms of first order
// in ε of order 10 in h, those of second order 6: O(ε h¹⁰ + ε² h⁶ + ε³ h⁴). It needs both flows
// exact, which a composition of Strang steps Φ_h does not (order 2 when the drift is itself a
// splitting, as NoSquish's and SymmetricSplitting's are). tests/splitting_parts_test.cpp measures
// the orders 4 and 10 on a linear system with exact flows.
#pragma once

#include <stdexcept>
#include <string>

#include "quatstep/config.hpp"

namespace quatstep {

/// Whether `order` is one of the composition orders provided.
QS_HD constexpr bool is_composition_order(int order) { return order == 2 || order == 4 || order == 6; }

/// Number of stages s of the composition of this order.
QS_HD constexpr int composition_stages(int order) { return order == 6 ? 9 : order == 4 ? 3 : 1; }

/// γ_i, i = 0 … s − 1, of the composition of this order.
template <class S>
QS_HD constexpr S composition_weight(int order, int i) {
  if (order == 4) {
    constexpr double outer = 1.3512071919596576340476878089715;  // 1/(2 − 2^{1/3})
    return S(i == 1 ? 1.0 - 2.0 * outer : outer);
  }
  if (order == 6) {
    const int k = i < 5 ? i : 8 - i;  // γ_i = γ_{8−i}
    return S(k == 0   ? 0.39216144400731413927925056
             : k == 1 ? 0.33259913678935943859974864
             : k == 2 ? -0.70624617255763935980996482
             : k == 3 ? 0.08221359629355080023149045
                      : 0.79854399093482996339895035);
  }
  return S(1);
}

/// Weight, in h, of the kick that ends a step of compose_kick_drift_kick of this order: γ_s/2.
template <class S>
QS_HD constexpr S end_kick_weight(int order) {
  return S(0.5) * composition_weight<S>(order, composition_stages(order) - 1);
}

/// One step Ψ_h from t of the composition of the given order. `stages` provides
///   kick(dt)        the momenta += dt × the forces held (those at the current positions and time),
///   drift(dt)       the exact flow of the kinetic energy over dt,
///   update_forces(t) the forces at the current positions and time t;
/// on entry it holds the forces at the start of the step, on return those at t + h.
template <class S, class Stages>
QS_HD void compose_kick_drift_kick(int order, S t, S h, Stages& stages) {
  const int s = composition_stages(order);
  S elapsed = S(0);
  S gamma = composition_weight<S>(order, 0);
  stages.kick(S(0.5) * gamma * h);
  QS_NO_UNROLL for (int i = 0; i < s; ++i) {
    const S dt = gamma * h;
    stages.drift(dt);
    const bool last = i + 1 == s;
    elapsed = last ? h : elapsed + dt;  // the last kick exactly at t + h
    stages.update_forces(t + elapsed);
    const S next = last ? S(0) : composition_weight<S>(order, i + 1);
    stages.kick(S(0.5) * (gamma + next) * h);  // two half kicks merged
    gamma = next;
  }
}

/// ABA(10,6,4) of Blanes et al. (2013): drift weights a_i, i = 0 … 8, and kick weights b_i,
/// i = 0 … 7, both symmetric (a_i = a_{8−i}, b_i = b_{7−i}), each summing to 1.
inline constexpr int near_integrable_kicks = 8;

template <class S>
QS_HD constexpr S near_integrable_drift_weight(int i) {
  const int k = i < 5 ? i : 8 - i;
  return S(k == 0   ? 0.03809449742241219545697532230863756534060
           : k == 1 ? 0.1452987161169137492940200726606637497442
           : k == 2 ? 0.2076276957255412507162056113249882065158
           : k == 3 ? 0.4359097036515261592231548624010651844006
                    : -0.6538612258327867093807117373907094120024);
}

template <class S>
QS_HD constexpr S near_integrable_kick_weight(int i) {
  const int k = i < 4 ? i : 7 - i;
  return S(k == 0   ? 0.09585888083707521061077150377145884776921
           : k == 1 ? 0.2044461531429987806805077839164344779763
           : k == 2 ? 0.2170703479789911017143385924306336714532
                    : -0.01737538195906509300561788011852699719871);
}

/// One step Ψ_h from t of ABA(10,6,4), with the `stages` of compose_kick_drift_kick: the forces are
/// evaluated after each inner drift for the kick that follows. The step begins and ends with a
/// drift, so the forces held on entry are not used and those held on return are the last kick's.
template <class S, class Stages>
QS_HD void compose_drift_kick_drift(S t, S h, Stages& stages) {
  S elapsed = S(0);
  QS_NO_UNROLL for (int i = 0; i < near_integrable_kicks; ++i) {
    const S dt = near_integrable_drift_weight<S>(i) * h;
    stages.drift(dt);
    elapsed += dt;
    stages.update_forces(t + elapsed);
    stages.kick(near_integrable_kick_weight<S>(i) * h);
  }
  stages.drift(near_integrable_drift_weight<S>(near_integrable_kicks) * h);
}

}  // namespace quatstep
