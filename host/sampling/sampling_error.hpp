// The error every sampling factory throws for bad parameters: the message names the parameter and
// says what is wrong, e.g. "stddev: -1, must be >= 0" or "low[2]: 3, must be <= high[2] (2)"; the
// scenario parser puts the file and the key in front.
#pragma once

#include <stdexcept>
#include <string>

namespace quatstep::sampling {

struct SamplingError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Shortest text that reads back as the same double ("0.1", "-1", "1e-300", "inf").
std::string format_number(double x);

/// "name" for a scalar parameter (component < 0), "name[c]" for component c of a vector one.
std::string parameter_name(const std::string& name, int component);

}  // namespace quatstep::sampling
