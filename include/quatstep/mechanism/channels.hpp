// The sampled channels of a mechanism, declared by the mechanism as a rigid-body model declares its
// own (quatstep/channels.hpp): per-body channels hold every body of the mechanism in its build order
// (their size is per body), mechanism-wide ones one value per mechanism; observe_mechanism hands
// their values to a writer in this order. An integrator adds channels of its own the same way (a
// `channels` table and `observe(mech, state, w)`: MechanismLivens's generalized energy), and one
// that carries momenta gives the momentum channels its own momentum maps (`linear_momentum(mech,
// state)` and `angular_momentum(mech, state)`: the Livens schemes' end-point velocities meet the
// velocity constraints only at midpoints, Kinon Remark 4.8, so their momenta come from p).
#pragma once

#include <type_traits>
#include <utility>

#include "quatstep/channels.hpp"
#include "quatstep/mechanism/observables.hpp"

namespace quatstep::mechanism {

struct MechanismChannel {
  Channel channel;  ///< size: per body where per_body
  bool per_body;
};

inline constexpr MechanismChannel mechanism_channels[] = {
    {{"quaternion", 4, "orientation, scalar first", false}, true},
    {{"position", 3, "centre of mass, spatial [m]", false}, true},
    {{"omega_body", 3, "angular velocity, body axes [rad/s]", false}, true},
    {{"velocity", 3, "centre-of-mass velocity, spatial [m/s]", false}, true},
    {{"energy", 1, "total energy: kinetic + gravity + springs [J]", false}, false},
    {{"linear_momentum", 3,
      "linear momentum, spatial [kg m/s]; under a Livens scheme its momentum map, the sum of p_phi", false},
     false},
    {{"angular_momentum", 3,
      "angular momentum about the origin, spatial [kg m^2/s]; under a Livens scheme its momentum map (Kinon eq. 64), "
      "the sum of phi x p_phi + E(e) p_e / 2",
      false},
     false},
    {{"position_residual", 1, "max |C|: every body's |e.e - 1| and every joint row", false}, false},
    {{"velocity_residual", 1, "max |C_q qdot + C_t|: every body's |2 e.edot| and every joint row", false}, false},
};

/// Scalars of one sample of mechanism_channels for a mechanism of `bodies` bodies.
constexpr int mechanism_channel_scalars(int bodies) {
  int n = 0;
  for (const MechanismChannel& c : mechanism_channels) n += c.channel.size * (c.per_body ? bodies : 1);
  return n;
}

/// Whether an integrator gives the momentum channels its own momentum maps (file comment).
template <class I, class Mech, class = void>
struct has_momentum_maps : std::false_type {};
template <class I, class Mech>
struct has_momentum_maps<I, Mech,
                         std::void_t<decltype(std::declval<const I&>().linear_momentum(
                             std::declval<const Mech&>(), std::declval<const typename I::State&>()))>>
    : std::true_type {};

/// The values of mechanism_channels at the integrator's state s at time t, handed to w (a scalar or
/// a Vec3 at a time) in the table's order.
template <class Integrator, class Mech, class W>
QS_HD void observe_mechanism(const Integrator& integrator, const Mech& m, const typename Integrator::State& s,
                             typename Mech::Scalar t, W& w) {
  using S = typename Mech::Scalar;
  const MechanismKinematics<S, Mech::max_bodies> k = kinematics_from_dae(m, s.q, s.v);
  for (int b = 0; b < m.n_bodies; ++b) w(k.body[b].quaternion);
  for (int b = 0; b < m.n_bodies; ++b) w(k.body[b].position);
  for (int b = 0; b < m.n_bodies; ++b) w(k.body[b].omega_body);
  for (int b = 0; b < m.n_bodies; ++b) w(k.body[b].velocity);
  MechanismObservables<S> o = observe(m, s.q, s.v, t);
  if constexpr (has_momentum_maps<Integrator, Mech>::value) {
    o.linear_momentum = integrator.linear_momentum(m, s);
    o.angular_momentum = integrator.angular_momentum(m, s);
  }
  w(o.energy);
  w(o.linear_momentum);
  w(o.angular_momentum);
  w(o.position_residual);
  w(o.velocity_residual);
}

}  // namespace quatstep::mechanism
