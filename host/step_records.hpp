// Per-body step records of an adaptive run (AdaptiveRecord, include/quatstep/adaptive/
// adaptive_ensemble.hpp) on the host, in double whatever the run's precision: what the output file's
// /accepted_steps, /rejected_steps, /smallest_step and /largest_step hold, and what a checkpoint
// carries besides the state. Empty for fixed steps.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "quatstep/ensemble.hpp"

namespace quatstep {

struct StepRecords {
  std::vector<index_t> accepted, rejected;  ///< per body: accepted steps, attempts rejected
  std::vector<double> smallest, largest;    ///< per body, over accepted steps: +inf and 0 before the first

  bool empty() const { return accepted.empty(); }

  /// Sized for n bodies before their first step.
  static StepRecords before_first_step(index_t n) {
    const std::size_t size = static_cast<std::size_t>(n);
    return {std::vector<index_t>(size, 0), std::vector<index_t>(size, 0),
            std::vector<double>(size, std::numeric_limits<double>::infinity()), std::vector<double>(size, 0.0)};
  }

  /// Over all bodies: steps accepted and rejected, the smallest and the largest accepted step.
  struct Totals {
    double accepted = 0, rejected = 0, smallest = std::numeric_limits<double>::infinity(), largest = 0;
  };
  Totals totals() const {
    Totals t;
    for (std::size_t i = 0; i < accepted.size(); ++i) {
      t.accepted += double(accepted[i]), t.rejected += double(rejected[i]);
      t.smallest = std::min(t.smallest, smallest[i]), t.largest = std::max(t.largest, largest[i]);
    }
    return t;
  }
};

}  // namespace quatstep
