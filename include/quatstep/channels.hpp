// Sampled output channels. A model declares the channels it observes (its `channels` table, a
// std::array of Channel — a plain array member of a class template is incomplete to nvcc — and an
// `observe(kinematics, w)` that hands their values to w in that order); an integrator may add its
// own (Zupan3's local error, the conserving schemes' generalized energy) the same way. The sample
// buffers, the HDF5 datasets and `quatstep docs scenario` are all derived from these tables.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace quatstep {

struct Channel {
  const char* name;  ///< HDF5 dataset /<name>; [output] channels
  int size;          ///< scalars per body and sample (4 for a quaternion)
  const char* doc;   ///< one line: what it is, frame and units
  bool optional;     ///< written only when [output] channels asks for it
};

/// Scalars per body and sample of a channel table (an array, or a container of Channels).
template <class Table>
constexpr int channel_scalars(const Table& table) {
  int n = 0;
  for (const Channel& c : table) n += c.size;
  return n;
}

/// Whether an integrator adds channels of its own: a `channels` table and
/// `observe(const Model&, const State&, W&)`.
template <class I, class = void>
struct has_integrator_channels : std::false_type {};
template <class I>
struct has_integrator_channels<I, std::void_t<decltype(I::channels)>> : std::true_type {};

/// The scalars of one sample of body state under Integrator: the model's channels, then the
/// integrator's.
template <class Integrator>
constexpr int sample_scalars() {
  using Model = typename Integrator::ModelType;
  if constexpr (has_integrator_channels<Integrator>::value)
    return channel_scalars(Model::channels) + channel_scalars(Integrator::channels);
  else
    return channel_scalars(Model::channels);
}

namespace detail {
template <class Table>
constexpr int offset_in(const Table& table, std::string_view name, int base) {
  for (const Channel& c : table) {
    if (name == c.name) return base;
    base += c.size;
  }
  return -1 - base;
}
}  // namespace detail

/// The first scalar of the channel `name` in a sample under Integrator, or −1 if it has none.
template <class Integrator>
constexpr int sample_offset(std::string_view name) {
  using Model = typename Integrator::ModelType;
  const int model = detail::offset_in(Model::channels, name, 0);
  if (model >= 0) return model;
  if constexpr (has_integrator_channels<Integrator>::value) {
    const int own = detail::offset_in(Integrator::channels, name, channel_scalars(Model::channels));
    if (own >= 0) return own;
  }
  return -1;
}

}  // namespace quatstep
