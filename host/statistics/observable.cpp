#include "statistics/observable.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "quatstep/models/heavy_top.hpp"
#include "sampling/sampling_error.hpp"
#include "statistics/accumulator.hpp"

namespace quatstep::statistics {
namespace {

std::array<double, 3> unit(const std::array<double, 3>& a, const std::string& what) {
  const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!std::isfinite(n) || !(n > 0)) throw StatisticsError(what + ": must be a finite nonzero vector");
  return {a[0] / n, a[1] / n, a[2] / n};
}

std::string vector_text(const std::array<double, 3>& a) {
  using sampling::format_number;
  return "[" + format_number(a[0]) + ", " + format_number(a[1]) + ", " + format_number(a[2]) + "]";
}

}  // namespace

ChannelLayout::ChannelLayout(std::vector<Channel> channels) : channels_(std::move(channels)) {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    const Channel& c = channels_[i];
    if (c.name.empty()) throw StatisticsError("channel " + std::to_string(i) + ": no name");
    if (c.offset < 0 || c.components < 1)
      throw StatisticsError("channel '" + c.name + "': offset " + std::to_string(c.offset) + ", components " +
                            std::to_string(c.components) + ": must be >= 0 and >= 1");
    for (std::size_t j = 0; j < i; ++j)
      if (channels_[j].name == c.name) throw StatisticsError("channel '" + c.name + "' declared twice");
  }
}

ChannelLayout ChannelLayout::of(const std::vector<quatstep::Channel>& sample) {
  std::vector<Channel> channels;
  int offset = 0;
  for (const quatstep::Channel& c : sample) {
    channels.push_back({c.name, offset, c.size});
    offset += c.size;
  }
  return ChannelLayout(std::move(channels));
}

ChannelLayout ChannelLayout::rigid_body() {
  return of(std::vector<quatstep::Channel>(std::begin(HeavyTop<double>::channels), std::end(HeavyTop<double>::channels)));
}

int ChannelLayout::scalars() const {
  int end = 0;
  for (const Channel& c : channels_) end = std::max(end, c.offset + c.components);
  return end;
}

const Channel& ChannelLayout::find(const std::string& name) const {
  for (const Channel& c : channels_)
    if (c.name == name) return c;
  std::string names;
  for (const Channel& c : channels_) names += (names.empty() ? "" : ", ") + c.name;
  throw StatisticsError("channel '" + name + "' is not sampled (channels: " + names + ")");
}

Observable::Observable(Kind kind, std::string name, std::string channel)
    : name_(std::move(name)), channel_(std::move(channel)) {
  formula_.kind = kind;
  if (name_.empty() || name_ == "." || name_ == "..") throw StatisticsError("observable name '" + name_ + "': not a valid name");
  for (char c : name_)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      throw StatisticsError("observable name '" + name_ + "': only letters, digits, '_', '-' and '.'");
}

Observable Observable::component(std::string name, std::string channel, int component) {
  Observable o(Kind::component, std::move(name), std::move(channel));
  if (component < 0) throw StatisticsError("observable '" + o.name_ + "': component " + std::to_string(component) + ", must be >= 0");
  o.component_ = component;
  return o;
}

Observable Observable::norm(std::string name, std::string channel) {
  return Observable(Kind::norm, std::move(name), std::move(channel));
}

Observable Observable::relative_drift(std::string name, std::string channel) {
  return Observable(Kind::relative_drift, std::move(name), std::move(channel));
}

Observable Observable::nutation(std::string name, const std::array<double, 3>& body_axis,
                                const std::array<double, 3>& spatial_axis, std::string quaternion_channel) {
  Observable o(Kind::nutation, std::move(name), std::move(quaternion_channel));
  const std::array<double, 3> b = unit(body_axis, "observable '" + o.name_ + "': body_axis"),
                              a = unit(spatial_axis, "observable '" + o.name_ + "': spatial_axis");
  std::copy(b.begin(), b.end(), o.formula_.body_axis);
  std::copy(a.begin(), a.end(), o.formula_.spatial_axis);
  return o;
}

std::string Observable::definition() const {
  const auto axis = [](const double* v) { return vector_text({v[0], v[1], v[2]}); };
  switch (kind()) {
    case Kind::component: return "component(" + channel_ + ", " + std::to_string(component_) + ")";
    case Kind::norm: return "norm(" + channel_ + ")";
    case Kind::relative_drift: return "relative_drift(" + channel_ + ")";
    case Kind::nutation:
      return "nutation(" + channel_ + ", body_axis " + axis(formula_.body_axis) + ", spatial_axis " +
             axis(formula_.spatial_axis) + ")";
  }
  return "";
}

Observable Observable::bind(const ChannelLayout& layout) const {
  Observable o = *this;
  const Channel* c;
  try {
    c = &layout.find(channel_);
  } catch (const StatisticsError& e) {
    throw StatisticsError("observable '" + name_ + "': " + e.what());
  }
  const int needed = kind() == Kind::component ? component_ + 1 : kind() == Kind::nutation ? 4 : 1;
  if (c->components < needed)
    throw StatisticsError("observable '" + name_ + "': channel '" + channel_ + "' has " + std::to_string(c->components) +
                          " component" + (c->components == 1 ? "" : "s") + ", needs " + std::to_string(needed));
  o.formula_.offset = c->offset + (kind() == Kind::component ? component_ : 0);
  o.formula_.components = kind() == Kind::component ? 1 : c->components;
  return o;
}

std::vector<Observable> rigid_body_observables() {
  return {Observable::component("energy", "energy"),
          Observable::relative_drift("energy_drift", "energy"),
          Observable::norm("omega_norm", "omega_body"),
          Observable::component("omega_body_x", "omega_body", 0),
          Observable::component("omega_body_y", "omega_body", 1),
          Observable::component("omega_body_z", "omega_body", 2),
          Observable::nutation("nutation", {0, 0, 1}, {0, 0, 1}),
          Observable::component("angular_momentum_x", "angular_momentum", 0),
          Observable::component("angular_momentum_y", "angular_momentum", 1),
          Observable::component("angular_momentum_z", "angular_momentum", 2),
          Observable::norm("angular_momentum_norm", "angular_momentum"),
          Observable::relative_drift("angular_momentum_drift", "angular_momentum"),
          Observable::component("constraint_violation", "constraint_violation")};
}

}  // namespace quatstep::statistics
