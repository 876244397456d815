#include "statistics/observable.hpp"

#include <cmath>

#include "quatstep/math/angle.hpp"
#include "quatstep/quaternion.hpp"
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

ChannelLayout ChannelLayout::of(const std::vector<quatstep::Channel>& sample_channels) {
  std::vector<Channel> channels;
  int offset = 0;
  for (const quatstep::Channel& c : sample_channels) {
    channels.push_back({c.name, offset, c.size});
    offset += c.size;
  }
  return ChannelLayout(std::move(channels));
}

const Channel& ChannelLayout::find(const std::string& name) const {
  for (const Channel& c : channels_)
    if (c.name == name) return c;
  std::string names;
  for (const Channel& c : channels_) names += (names.empty() ? "" : ", ") + c.name;
  throw StatisticsError("channel '" + name + "' is not sampled (channels: " + names + ")");
}

Observable::Observable(Kind kind, std::string name, std::string channel)
    : kind_(kind), name_(std::move(name)), channel_(std::move(channel)) {
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
  o.body_axis_ = unit(body_axis, "observable '" + o.name_ + "': body_axis");
  o.spatial_axis_ = unit(spatial_axis, "observable '" + o.name_ + "': spatial_axis");
  return o;
}

std::string Observable::definition() const {
  switch (kind_) {
    case Kind::component: return "component(" + channel_ + ", " + std::to_string(component_) + ")";
    case Kind::norm: return "norm(" + channel_ + ")";
    case Kind::relative_drift: return "relative_drift(" + channel_ + ")";
    case Kind::nutation:
      return "nutation(" + channel_ + ", body_axis " + vector_text(body_axis_) + ", spatial_axis " +
             vector_text(spatial_axis_) + ")";
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
  const int needed = kind_ == Kind::component ? component_ + 1 : kind_ == Kind::nutation ? 4 : 1;
  if (c->components < needed)
    throw StatisticsError("observable '" + name_ + "': channel '" + channel_ + "' has " + std::to_string(c->components) +
                          " component" + (c->components == 1 ? "" : "s") + ", needs " + std::to_string(needed));
  o.offset_ = c->offset + (kind_ == Kind::component ? component_ : 0);
  o.components_ = kind_ == Kind::component ? 1 : c->components;
  return o;
}

void Observable::capture_initial(const double* body, index_t stride, double* initial) const {
  for (int c = 0; c < initial_width(); ++c) initial[c] = body[(offset_ + c) * stride];
}

double Observable::evaluate(const double* body, index_t stride, const double* initial) const {
  const auto x = [&](int c) { return body[(offset_ + c) * stride]; };
  switch (kind_) {
    case Kind::component:
      return x(0);
    case Kind::norm: {
      double s = 0;
      for (int c = 0; c < components_; ++c) s += x(c) * x(c);
      return std::sqrt(s);
    }
    case Kind::relative_drift: {
      if (components_ == 1) return (x(0) - initial[0]) / std::abs(initial[0]);
      double d = 0, r = 0;
      for (int c = 0; c < components_; ++c) d += (x(c) - initial[c]) * (x(c) - initial[c]), r += initial[c] * initial[c];
      return std::sqrt(d) / std::sqrt(r);
    }
    case Kind::nutation: {
      const Vec3<double> d = rotation_matrix(Vec4<double>(x(0), x(1), x(2), x(3))) *
                             Vec3<double>(body_axis_[0], body_axis_[1], body_axis_[2]);
      const Vec3<double> a(spatial_axis_[0], spatial_axis_[1], spatial_axis_[2]);
      return math::angle(d.cross(a).norm(), d.dot(a));
    }
  }
  return std::nan("");
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
