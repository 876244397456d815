// 16 pendulums on a hinge under a swept body torque (0 … 0.5): the mechanism run the interrupt tests
// stop and resume (tests/interrupt_test.cpp), and whose out-of-plane components decay through the
// subnormal range (tests/mechanism_scenario_test.cpp). TOML text for parse_mechanism_scenario.
#pragma once

namespace quatstep::testing {

/// Modified HHT with the inertia shift at h = 1e-4 over 1.2 s (12000 steps), statistics with an energy
/// drift, every 4th mechanism's trajectory every 50 steps: a run of a few seconds.
inline const char* const torqued_pendulums = R"(
[mechanism]
gravity = [0.0, 0.0, -9.81]
[[mechanism.body]]
name = "bob"
mass = 1.0
inertia = [0.1, 0.1, 0.02]
position = [0.0, 0.0, -1.0]
omega = [1.0, 0.0, 0.0]
velocity = [0.0, 1.0, 0.0]
[[mechanism.joint]]
name = "hinge"
type = "revolute"
body_i = "ground"
body_j = "bob"
axis = [1.0, 0.0, 0.0]
[[mechanism.load]]
body = "bob"
kind = "body_torque"
value = [0.0, 0.0, 0.0]
[integrator]
method = "modified_hht"
alpha = -0.1
inertia_shift = true
[time]
dt = 1e-4
t_end = 1.2
[ensemble]
size = 16
[[ensemble.sweep]]
key = "load.0.value"
from = 0.0
to = 0.5
[output]
stride = 50
trajectories = "every"
trajectory_every = 4
[output.statistics]
observables = ["energy", "energy_drift", "velocity_residual"]
)";

}  // namespace quatstep::testing
