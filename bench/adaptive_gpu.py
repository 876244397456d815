#!/usr/bin/env python3
"""Adaptive against fixed steps on a heterogeneous ensemble, end to end through `quatstep run`.

The ensemble: Sherif's heavy top (examples/adaptive_heavy_tops.toml) with its spin about the disc
axis spread 100x, 1.5 ... 150 rad/s, t in [0, 1], modified HHT with the inertia shift,
alpha = -0.2. One fixed step must be sized for the fastest top; adaptive steps (per unit step
control) size each top's own. Two orders of the same spins: "sorted" (a sweep: neighbouring
bodies, hence the 32 of a GPU warp, spin alike) and "shuffled" (log-uniform draws: nearly every
warp holds a fast top, and a warp runs as long as its slowest lane).

  accuracy QUATSTEP [N]        worst rotation error over a spread of bodies of the N-body ensemble
                               and over the samples t = 0, 0.1, ..., 1, for each fixed h and each
                               tolerance of the tables below, against fixed steps of 1e-6 (CPU,
                               `--bodies`: the same bodies as the rows of the full run)
  timing QUATSTEP [N] [BACKEND] the whole ensemble, no trajectories, for the same fixed steps and
                               tolerances (both orders): the integration loop's wall time and
                               body-steps/s (accepted steps for the adaptive runs)

Rows of the two modes with the same worst error give the wall time to that accuracy.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

FIXED_STEPS = [1e-4, 5e-5, 2.5e-5, 1.25e-5]
TOLERANCES = [1e-4, 3e-5, 1e-5, 3e-6, 1e-6]  # rotation_atol per unit time
TIMING_TOLERANCES = [1e-4, 1e-5, 1e-6]
TIMEOUT = 150  # seconds per timed run
REFERENCE_STEP = 1e-6
T_END = 1.0
OUTPUT_SPACING = 0.1

SCENARIO = """
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]

[initial]
quaternion = [1.0, 0.0, 0.0, 0.0]
omega_body = [0.0, 150.0, -4.61538]

[integrator]
method = "modified_hht"
alpha = -0.2
inertia_shift = true

[time]
t_end = {t_end}
{time}

[ensemble]
size = {bodies}

{spins}

[output]
stride = {stride}
trajectories = "{trajectories}"
"""


SPINS = {
    "sorted": """[[ensemble.sweep]]
key = "initial.omega_body"
from = [0.0, 1.5, -0.0461538]
to = [0.0, 150.0, -4.61538]""",
    "shuffled": """[[ensemble.random]]
key = "initial.omega_body"
distribution = "axis_magnitude"
axis = [0.0, 150.0, -4.61538]
magnitude = { distribution = "log_uniform", low = 1.50071, high = 150.071 }""",
}


def scenario(path, bodies, *, h=None, tolerance=None, trajectories="all", spins="sorted"):
    if h is not None:
        time = f"dt = {h!r}"
        stride = round(OUTPUT_SPACING / h)
    else:
        time = (f"dt = {OUTPUT_SPACING!r}\nadaptive = true\ncontrol = \"per_unit_step\"\n"
                f"rotation_atol = {tolerance!r}\nh_initial = 1e-5\nh_max = 1e-2")
        stride = 1
    with open(path, "w") as f:
        f.write(SCENARIO.format(t_end=T_END, time=time, bodies=bodies, stride=stride, trajectories=trajectories,
                                spins=SPINS[spins]))


def run(exe, toml, output, *args, timeout=None):
    result = subprocess.run([exe, "run", toml, "--output", output, *args], capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        sys.exit(f"{exe} run {toml} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def quaternions(path):
    import h5py
    with h5py.File(path) as f:
        return np.asarray(f["quaternion"])


def rotation_error(q, reference):
    """Angle of q_ref^-1 q per sample and body (last axis: w, x, y, z), accurate for small angles."""
    w = np.sum(q * reference, axis=-1)
    v = (reference[..., :1] * q[..., 1:] - q[..., :1] * reference[..., 1:]
         - np.cross(reference[..., 1:], q[..., 1:]))
    return 2.0 * np.arctan2(np.linalg.norm(v, axis=-1), np.abs(w))


def summary_value(text, pattern):
    match = re.search(pattern, text)
    return float(match.group(1)) if match else math.nan


def accuracy(exe, bodies):
    picked = sorted({round(i * (bodies - 1) / 32) for i in range(33)})
    chosen = ["--bodies", ",".join(map(str, picked)), "--threads", str(os.cpu_count())]
    with tempfile.TemporaryDirectory() as tmp:
        def trial(name, **kw):
            toml, h5 = f"{tmp}/{name}.toml", f"{tmp}/{name}.h5"
            scenario(toml, bodies, **kw)
            text = run(exe, toml, h5, *chosen)
            q = quaternions(h5)
            if not np.isfinite(q).all():
                sys.exit(f"{name}: non-finite quaternions (a failed body):\n{text}")
            return q, text
        reference, _ = trial("reference", h=REFERENCE_STEP)
        print(f"worst rotation error over bodies {picked[0]} ... {picked[-1]} ({len(picked)} of {bodies}) "
              f"and t = 0, 0.1, ..., {T_END} against fixed h = {REFERENCE_STEP}")
        print("| run | worst error [rad] | its body (spin rad/s) | slowest top's error | fastest top's error | "
              "body-steps per body (mean) |")
        print("|---|---:|---|---:|---:|---:|")
        for h in FIXED_STEPS:
            q, _ = trial("fixed", h=h)
            error = rotation_error(q, reference).max(axis=0)
            worst = int(error.argmax())
            print(f"| fixed h = {h:g} | {error.max():.3e} | {picked[worst]} "
                  f"({1.5 + 148.5 * picked[worst] / (bodies - 1):.1f}) | {error[0]:.3e} | {error[-1]:.3e} | "
                  f"{T_END / h:.0f} |")
        for tolerance in TOLERANCES:
            q, text = trial("adaptive", tolerance=tolerance)
            error = rotation_error(q, reference).max(axis=0)
            worst = int(error.argmax())
            accepted = summary_value(text, r"adaptive steps\s+([0-9.e+]+) accepted")
            print(f"| adaptive, per unit step, rotation_atol = {tolerance:g} | {error.max():.3e} | {picked[worst]} "
                  f"({1.5 + 148.5 * picked[worst] / (bodies - 1):.1f}) | {error[0]:.3e} | {error[-1]:.3e} | "
                  f"{accepted / len(picked):.0f} |")


def timing(exe, bodies, backend):
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{bodies} bodies, backend {backend}, no trajectories; loop = the summary's integration loop")
        print("| run | loop [s] | whole command [s] | body-steps | body-steps/s (loop) | rejected |")
        print("|---|---:|---:|---:|---:|---:|")

        def trial(label, **kw):
            toml = f"{tmp}/run.toml"
            scenario(toml, bodies, trajectories="none", **kw)
            try:
                text = run(exe, toml, f"{tmp}/run.h5", "--backend", backend, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                print(f"| {label} | > {TIMEOUT} s (stopped) | | | | |", flush=True)
                return
            loop = summary_value(text, r"integration loop ([0-9.e+-]+) s")
            wall = summary_value(text, r"wall time\s+([0-9.e+-]+) s")
            accepted = summary_value(text, r"adaptive steps\s+([0-9.e+]+) accepted")
            rejected = summary_value(text, r"accepted, ([0-9.e+]+) rejected")
            steps = accepted if not math.isnan(accepted) else bodies * round(T_END / kw["h"])
            print(f"| {label} | {loop:.3f} | {wall:.3f} | {steps:.4g} | {steps / loop:.3g} | "
                  f"{'' if math.isnan(rejected) else f'{rejected:.0f}'} |", flush=True)
        for h in FIXED_STEPS:
            trial(f"fixed h = {h:g}", h=h)
        for spins in SPINS:
            for tolerance in TIMING_TOLERANCES:
                trial(f"adaptive, {spins}, rotation_atol = {tolerance:g}", tolerance=tolerance, spins=spins)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("accuracy", "timing"):
        sys.exit(__doc__)
    mode, exe = sys.argv[1], sys.argv[2]
    n = int(float(sys.argv[3])) if len(sys.argv) > 3 else 1000000
    if mode == "accuracy":
        accuracy(exe, n)
    else:
        timing(exe, n, sys.argv[4] if len(sys.argv) > 4 else "cuda")
