// The Monte-Carlo heavy-top study the run tests share (tests/run_statistics_test.cpp,
// tests/shard_merge_test.cpp): TOML text for parse_scenario.
#pragma once

#include <string>

namespace quatstep::testing {

/// A heavy-top study of `bodies` (> 5) bodies: uncertain inertia about the thin disc (redrawn where
/// unphysical), spin and tilt, a swept mass; body 5 is driven to a Newton failure mid-run (measured:
/// step 12 of 100). No [output] table: the tests add theirs.
inline std::string heavy_top_study(int bodies = 40) {
  return R"(
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
[initial]
omega_body = [0.0, 150.0, -4.61538]
[integrator]
method = "modified_hht"
inertia_shift = true
[time]
dt = 2e-3
t_end = 0.2
[ensemble]
size = )" + std::to_string(bodies) + R"(
[[ensemble.random]]
key = "model.inertia"
distribution = "normal"
mean = [0.234375, 0.46875, 0.234375]
stddev = 0.004
invalid = "redraw"
seed = 1
[[ensemble.random]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 150.0, -4.61538]
stddev = [2.0, 10.0, 2.0]
seed = 2
[[ensemble.random]]
key = "initial.quaternion"
distribution = "rotation_cone"
half_angle = 0.3
seed = 3
[[ensemble.sweep]]
key = "model.mass"
from = 14.0
to = 16.0
[[ensemble.override]]
body = 5
model.body_torque = [0.0, 20000.0, 20000.0]
)";
}

/// [output.statistics] with quantiles, two histograms, a nutation of another axis and a component.
/// The energy bins hold the study's energies (3.5e3 … 7.3e3 J) but body 5's before it fails (above).
inline const std::string statistics_table = R"(
[output.statistics]
quantiles = [0.0, 0.1, 0.5, 0.9, 1.0]
[[output.statistics.observable]]
name = "energy"
bins = 12
low = 3000.0
high = 8000.0
[[output.statistics.observable]]
name = "nutation"
bins = 9
low = 0.0
high = 3.14159265
[[output.statistics.observable]]
name = "tilt_of_x"
kind = "nutation"
body_axis = [1.0, 0.0, 0.0]
spatial_axis = [0.0, 0.0, 1.0]
[[output.statistics.observable]]
name = "wz"
kind = "component"
channel = "omega_body"
component = 2
)";

}  // namespace quatstep::testing
