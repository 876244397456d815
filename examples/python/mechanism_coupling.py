"""A coupled loop with mechanisms: 200 slider-cranks of examples/slider_crank_sweep.toml whose sliders strike
a bumper, each at its own drawn place; the contact force (a penalty spring-damper, computed in NumPy from
the slider's position and velocity) is handed to the ensemble every step, as a DEM or co-simulation code
would hand its own.

    python3 examples/python/mechanism_coupling.py
"""
import os

import numpy as np

import quatstep

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
n, steps = 200, 1000  # 1 s at dt = 1e-3
with open(os.path.join(here, "..", "slider_crank_sweep.toml"), "rb") as f:
    scenario = tomllib.load(f)
del scenario["ensemble"]  # one slider-crank, repeated below
cranks = quatstep.MechanismEnsemble(scenario, mechanisms=n)
slider = cranks.body_names.index("slider")
stop = rng.uniform(0.31, 0.35, n)  # the bumper's face: the slider travels between x = 0.3 and 0.5
stiffness, damping = 2e4, 20.0  # N/m, N s/m

force = np.zeros((n, cranks.bodies, 3))
deepest, contacts = 0.0, np.zeros(n, dtype=bool)
for _ in range(steps):
    k = cranks.kinematics()
    x, v = k["position"][:, slider, 0], k["velocity"][:, slider, 0]
    depth = np.maximum(stop - x, 0.0)
    force[:, slider, 0] = np.where(depth > 0, np.maximum(stiffness * depth - damping * v, 0.0), 0.0)
    contacts |= depth > 0
    deepest = max(deepest, depth.max())
    cranks.step(force=force)

x = cranks.kinematics()["position"][:, slider, 0]
print(f"{n} mechanisms, {cranks.steps_done} steps, failures: {cranks.failures}, struck the bumper: "
      f"{contacts.sum()}, deepest penetration {deepest:.1e} m, slider x now {x.min():.3f} … {x.max():.3f} m")
