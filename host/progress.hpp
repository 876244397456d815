// A one-line progress bar for long runs, redrawn in place on a terminal (stderr).
#pragma once

#include <cstdio>

#include "quatstep/ensemble.hpp"

namespace quatstep {

class ProgressBar {
 public:
  /// `bodies` step together; the rate is shown as `bodies`·steps per second in `unit`.
  ProgressBar(std::FILE* out, index_t total_steps, index_t bodies, const char* unit = "body-steps/s");
  /// Redraw for `done` of the total steps after `elapsed` seconds; at most ~10 redraws a second.
  void update(index_t done, double elapsed);
  /// Draw the full bar and end the line.
  void finish(double elapsed);

 private:
  void draw(index_t done, double elapsed);
  std::FILE* out_;
  index_t total_, bodies_;
  const char* unit_;
  double last_draw_ = -1;
};

}  // namespace quatstep
