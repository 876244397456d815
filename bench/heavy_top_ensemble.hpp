// The workload every benchmark here shares: Sherif §10.1 heavy top (docs/errata.md S1/S2), h = 1e-4,
// α = −0.2, ω0 = (0, 150, −4.61538) with a small per-body variation so that bodies differ.
#pragma once

#include <string>

#include "quatstep/quatstep.hpp"

namespace quatstep::bench {

inline constexpr double step_size = 1e-4;
inline constexpr double alpha = -0.2;

template <class S>
HeavyTop<S> sherif_top() {
  // Sherif §10.1: disc J_cm = diag(0.234375, 0.46875, 0.234375), m = 15, x_cm = (0,1,0), g along −z.
  return HeavyTop<S>::from_center_of_mass(Vec3<S>(S(0.234375), S(0.46875), S(0.234375)), S(15),
                                          Vec3<S>(S(0), S(1), S(0)), Vec3<S>(S(0), S(0), S(-9.81)));
}

/// Initial kinematics of body i: Sherif's ω0 with ω_y scaled by 1 + 1e-3·(i mod 101)/100.
template <class S>
RigidBodyKinematics<S> sherif_initial(long i) {
  RigidBodyKinematics<S> k;
  const double scale = 1.0 + 1e-3 * static_cast<double>(i % 101) / 100.0;
  k.omega_body = Vec3<S>(S(0), S(150.0 * scale), S(-4.61538));
  return k;
}

/// The five integrators compared, each built by one factory.
enum class Method { hht, hht_shift, modified_hht, modified_hht_shift, simo_vu_quoc };
inline constexpr Method all_methods[] = {Method::modified_hht, Method::modified_hht_shift, Method::hht,
                                         Method::hht_shift, Method::simo_vu_quoc};

inline std::string name(Method m) {
  switch (m) {
    case Method::hht: return "Hht";
    case Method::hht_shift: return "Hht+shift";
    case Method::modified_hht: return "ModifiedHht";
    case Method::modified_hht_shift: return "ModifiedHht+shift";
    case Method::simo_vu_quoc: return "SimoVuQuoc";
  }
  return "?";
}

template <class S>
HhtSettings<S> hht_settings(bool inertia_shift) {
  HhtSettings<S> s;
  s.alpha = S(alpha);
  s.inertia_shift = inertia_shift;
  return s;
}

template <class S>
SimoVuQuocSettings<S> svq_settings() {
  SimoVuQuocSettings<S> s;
  s.alpha = S(alpha);
  return s;
}

/// Call f(integrator) with the integrator object of method m on model type Top (HeavyTop or a
/// variant of it), one instantiation per integrator type.
template <class Top, class F>
void with_integrator(Method m, F&& f) {
  using S = typename Top::Scalar;
  switch (m) {
    case Method::hht: return f(Hht<Top>(hht_settings<S>(false)));
    case Method::hht_shift: return f(Hht<Top>(hht_settings<S>(true)));
    case Method::modified_hht: return f(ModifiedHht<Top>(hht_settings<S>(false)));
    case Method::modified_hht_shift: return f(ModifiedHht<Top>(hht_settings<S>(true)));
    case Method::simo_vu_quoc: return f(SimoVuQuoc<Top>(svq_settings<S>()));
  }
}

}  // namespace quatstep::bench
