// Per-body status codes. A body that fails stops advancing; the others are untouched.
#pragma once

#include <cstdint>

namespace quatstep {

enum class Status : std::int32_t {
  ok = 0,
  newton_not_converged = 1,  ///< iteration cap reached without meeting the stopping rule
  singular_jacobian = 2,     ///< zero or non-finite pivot in the Newton matrix
  non_finite = 3,            ///< NaN/Inf in the state after a step, or in a coupled step's loads
  constraint_drift = 4,      ///< velocity-level constraint lost (classical HHT, Sherif; docs/errata.md S4)
  invalid_input = 5,         ///< rejected before the first step (non-unit quaternion, singular inertia, …)
  step_size_too_small = 6,   ///< adaptive steps: the error test failed at the minimum step h_min
};

inline const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::newton_not_converged: return "newton_not_converged";
    case Status::singular_jacobian: return "singular_jacobian";
    case Status::non_finite: return "non_finite";
    case Status::constraint_drift: return "constraint_drift";
    case Status::invalid_input: return "invalid_input";
    case Status::step_size_too_small: return "step_size_too_small";
  }
  return "unknown";
}

}  // namespace quatstep
