// Per-body step records of an adaptive run (AdaptiveRecord, include/quatstep/adaptive/
// adaptive_ensemble.hpp) on the host, in double whatever the run's precision: what the output file's
// /accepted_steps, /rejected_steps, /smallest_step and /largest_step hold, and what a checkpoint
// carries besides the state. Empty for fixed steps.
#pragma once

#include <vector>

#include "quatstep/ensemble.hpp"

namespace quatstep {

struct StepRecords {
  std::vector<index_t> accepted, rejected;  ///< per body: accepted steps, attempts rejected
  std::vector<double> smallest, largest;    ///< per body, over accepted steps: +inf and 0 before the first

  bool empty() const { return accepted.empty(); }
};

}  // namespace quatstep
