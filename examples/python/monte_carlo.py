"""Monte-Carlo study of the heavy top (Sherif §10.1): the spin about the symmetry axis drawn around
150 rad/s, 2000 tops integrated at once, the spread of the nutation angle over time.

    python3 examples/python/monte_carlo.py [OUT.png]
"""
import sys

import matplotlib
import numpy as np

import quatstep

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rng = np.random.default_rng(1)
n = 2000
spin = rng.normal(150.0, 10.0, n)  # rad/s about body y, the symmetry axis
top = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, alpha=-0.2, inertia_shift=True, parameters={
    "inertia": [0.234375, 0.46875, 0.234375], "mass": 15.0, "center_of_mass": [0, 1, 0], "gravity": [0, 0, -9.81],
    "omega_body": np.column_stack([np.zeros(n), spin, np.full(n, -4.61538)])})
run = top.advance(5000, stride=50)  # 0.5 s, 100 samples of every channel
e0, e1, e2, e3 = np.moveaxis(run["quaternion"], -1, 0)
nutation = np.degrees(np.arccos(np.clip(2 * (e2 * e3 + e0 * e1), -1, 1)))  # body y against spatial z
bands = np.percentile(nutation, [5, 50, 95], axis=1)
plt.fill_between(run.time, bands[0], bands[2], alpha=0.3, label="5–95 %")
plt.plot(run.time, bands[1], label="median")
plt.xlabel("t [s]"), plt.ylabel("nutation [deg]"), plt.legend(), plt.title(f"{n} heavy tops, spin 150 ± 10 rad/s")
plt.savefig(sys.argv[1] if len(sys.argv) > 1 else "monte_carlo.png", dpi=120)
print(f"{n} tops, {top.steps_done} steps, failures: {np.count_nonzero(top.status)}")
