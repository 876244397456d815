// A tolerance sweep's points (tolerance, global error, accepted steps) and the least-squares slopes
// of the error and of the steps against the tolerance, in log–log: what the adaptive tests assert.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace quatstep::testing {

struct SweepPoint {
  double eps, error;
  std::int64_t accepted;
};

/// Least-squares slope of log y(point) against log ε.
template <class Y>
double slope(const std::vector<SweepPoint>& points, Y y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = double(points.size());
  for (const SweepPoint& p : points) {
    const double lx = std::log(p.eps), ly = std::log(y(p));
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}
inline double error_slope(const std::vector<SweepPoint>& p) {
  return slope(p, [](const SweepPoint& q) { return q.error; });
}
inline double steps_slope(const std::vector<SweepPoint>& p) {
  return slope(p, [](const SweepPoint& q) { return double(q.accepted); });
}

}  // namespace quatstep::testing
