// Observables: small functions of one body's sampled channels at one sample time (and, for drifts,
// of the same body's values at sample 0). Channels are looked up by name in the run's ChannelLayout,
// so a model that declares other channels needs no change here.
//
//   component(channel, c)        component c of a channel: energy, omega_body[2], constraint_violation,
//                                newton_iterations, ... ("any channel component")
//   norm(channel)                Euclidean norm: |ω|, |L|
//   relative_drift(channel)      (x − x₀)/|x₀| for a scalar channel, ‖x − x₀‖/‖x₀‖ for a vector one
//                                (x₀ at sample 0): energy drift, spatial angular momentum drift.
//                                x₀ = 0 gives ±inf or NaN: counted as non-finite, left out
//   nutation(b, a)               the angle in [0, π] between the body axis b carried to space by the
//                                body's quaternion, R(q)·b, and the spatial axis a, as
//                                atan2(|R b × a|, R b · a) with the project's portable atan2
//                                (math/angle.hpp): accurate near 0 and π, where acos is not
#pragma once

#include <array>
#include <string>
#include <vector>

#include "quatstep/channels.hpp"
#include "quatstep/ensemble.hpp"
#include "statistics/observable_formula.hpp"

namespace quatstep::statistics {

/// A sampled channel: `components` numbers starting at `offset` of a body's channel block.
struct Channel {
  std::string name;
  int offset;
  int components;
};

class ChannelLayout {
 public:
  /// Names unique and nonempty, offsets >= 0, components >= 1; otherwise StatisticsError.
  explicit ChannelLayout(std::vector<Channel> channels);
  /// The layout of a sample buffer whose channels are `sample`, in buffer order (channels.hpp: the
  /// model's, then the integrator's; e.g. sample_channels() of a scenario).
  static ChannelLayout of(const std::vector<quatstep::Channel>& sample);
  /// The heavy top's sample (HeavyTop::channels): quaternion (4, scalar first), omega_body (3),
  /// energy, angular_momentum (3, spatial), constraint_violation.
  static ChannelLayout rigid_body();
  /// Scalars per body of the sample: the end of the last channel.
  int scalars() const;

  /// The channel `name`, or a StatisticsError listing the sampled channels.
  const Channel& find(const std::string& name) const;
  const std::vector<Channel>& channels() const { return channels_; }

 private:
  std::vector<Channel> channels_;
};

class Observable {
 public:
  using Kind = ObservableFormula::Kind;

  /// `name`: the observable's group name in the output (letters, digits, '_', '-', '.').
  static Observable component(std::string name, std::string channel, int component = 0);
  static Observable norm(std::string name, std::string channel);
  static Observable relative_drift(std::string name, std::string channel);
  /// body_axis, spatial_axis: nonzero (normalised here).
  static Observable nutation(std::string name, const std::array<double, 3>& body_axis,
                             const std::array<double, 3>& spatial_axis, std::string quaternion_channel = "quaternion");

  const std::string& name() const { return name_; }
  Kind kind() const { return formula_.kind; }
  /// The channel it reads.
  const std::string& channel() const { return channel_; }
  /// What it computes, e.g. "relative_drift(energy)" (the output's `definition` attribute).
  std::string definition() const;

  /// A copy resolved against the run's channels: a StatisticsError names the observable and the
  /// channel when it is not sampled or too short.
  Observable bind(const ChannelLayout& layout) const;
  /// Numbers per body kept from sample 0 (the drift's x₀); 0 for the others.
  int initial_width() const { return formula_.initial_width(); }
  /// Bound observables only: what it computes from a body's sample, as plain data for both backends.
  const ObservableFormula& formula() const { return formula_; }
  /// Bound observables only. `body` points at a body's first channel number; component c of the
  /// block lies at body[c·stride] (the [channel][body] layout of a SampleView sample).
  void capture_initial(const double* body, index_t stride, double* initial) const {
    formula_.capture_initial(body, stride, initial);
  }
  double evaluate(const double* body, index_t stride, const double* initial) const {
    return formula_.evaluate(body, stride, initial);
  }

 private:
  Observable(Kind kind, std::string name, std::string channel);
  std::string name_, channel_;
  int component_ = 0;
  ObservableFormula formula_;  ///< offset and components set by bind()
};

/// The standard set for rigid bodies (channels of the rigid-body models): energy, energy_drift, omega_norm,
/// omega_body_x/y/z, nutation (body z against spatial z), angular_momentum_x/y/z,
/// angular_momentum_norm, angular_momentum_drift, constraint_violation.
std::vector<Observable> rigid_body_observables();

}  // namespace quatstep::statistics
