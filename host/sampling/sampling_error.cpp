#include "sampling/sampling_error.hpp"

#include <charconv>

namespace quatstep::sampling {

std::string format_number(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

std::string parameter_name(const std::string& name, int component) {
  return component < 0 ? name : name + "[" + std::to_string(component) + "]";
}

}  // namespace quatstep::sampling
