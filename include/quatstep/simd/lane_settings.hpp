// The settings of a lane integrator: the scalar ones in every lane. Every settings template of the
// core lists its fields in describe(keys) (the scenario's [integrator] keys, settings_keys.hpp), so
// one copy serves them all: it walks the scalar settings' list (double or float), then the lane
// settings' list in the same order, each field of the lane settings taking the value of its scalar
// twin (a lane number takes it in every lane; a float passes through a double exactly).
#pragma once

#include <array>
#include <type_traits>

namespace quatstep::simd {
namespace fields {

/// describe's keys visitor that reads each field as a double.
struct ReadFields {
  std::array<double, 16> values{};
  int n = 0;
  template <class T, class... Rest>
  void operator()(const char*, T& field, const Rest&...) {
    if constexpr (std::is_enum_v<T>) values.at(n++) = double(static_cast<std::underlying_type_t<T>>(field));
    else values.at(n++) = double(field);
  }
};

/// describe's keys visitor that writes each field from what ReadFields read.
struct WriteFields {
  const ReadFields& read;
  int n = 0;
  template <class T, class... Rest>
  void operator()(const char*, T& field, const Rest&...) {
    if constexpr (std::is_enum_v<T>) field = T(static_cast<std::underlying_type_t<T>>(read.values.at(n++)));
    else field = T(read.values.at(n++));
  }
};

}  // namespace fields

template <class L, template <class> class Settings, class T>
Settings<L> lane_settings(const Settings<T>& s) {
  Settings<T> in = s;  // describe is not const: it hands out the fields to write
  fields::ReadFields read;
  in.describe(read);
  Settings<L> out;
  fields::WriteFields write{read};
  out.describe(write);
  return out;
}

}  // namespace quatstep::simd
