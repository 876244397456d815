#!/usr/bin/env python3
"""Adaptive against fixed steps on a heterogeneous ensemble, end to end through `quatstep run`.

Two ensembles whose spin spreads 100x over the bodies, modified HHT with the inertia shift,
alpha = -0.2; fixed steps h (one step for all, sized by the fastest body) against adaptive steps
(per unit step control, each body its own):
  heavy_top   Sherif's heavy top (examples/adaptive_heavy_tops.toml), spin about the disc axis
              1.5 ... 150 rad/s, t in [0, 1];
  free_body   the torque-free asymmetric body J = diag(6, 8, 3), Omega(0) = s (10, 20, 20) with
              s = 0.01 ... 1 (tests/adaptive_ensemble_test.cpp), t in [0, 2].
Two orders of the same spins: "sorted" (a sweep: neighbouring bodies, hence the 32 of a GPU warp,
spin alike) and "shuffled" (log-uniform draws of |Omega|: nearly every warp holds a fast body, and a
warp runs as long as its slowest lane).

  accuracy PROBLEM QUATSTEP [N] [ORDER] worst rotation error over 33 bodies of the N-body ensemble
                                       (those at evenly spaced ranks of |Omega(0)|, the slowest and
                                       the fastest included) and over the samples, for each fixed h
                                       and tolerance, against fine fixed steps (reference_step; CPU,
                                       `--bodies`: the same bodies as the rows of the full run); then
                                       the adaptive body-steps at each fixed run's worst error
                                       (log-log interpolation) and the ratio. ORDER: sorted (default)
                                       or shuffled
  timing PROBLEM QUATSTEP [N] [BACKEND] the whole ensemble, no trajectories, for the same fixed
                                       steps and tolerances (both orders): the integration loop's
                                       wall time and body-steps/s (accepted steps when adaptive)
  lanes PROBLEM QUATSTEP [N] [ORDER]   the whole ensemble on the CPU at the timing tolerances, each
                                       body's /accepted_steps standing for its share of every launch:
                                       the share of a 32-lane warp's issued steps that its lanes use,
                                       and of a launch's (blocks of 128 threads dealt in order to the
                                       GPU's block slots, each held until its slowest warp is done),
                                       in index order and in the order of the step counts, most first
                                       (kernels/step_order.hpp's order); the launch also for an
                                       ensemble 10x larger drawn alike (the counts repeated)

Rows of the two modes with the same worst error give the wall time to that accuracy.
"""
import heapq
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

PROBLEMS = {
    "heavy_top": dict(
        model="""[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]""",
        slowest=[0.0, 1.5, -0.0461538], fastest=[0.0, 150.0, -4.61538], t_end=1.0, spacing=0.1,
        fixed_steps=[1e-4, 5e-5, 2.5e-5, 1.25e-5], tolerances=[1e-4, 3e-5, 1e-5, 3e-6, 1e-6],
        timing_tolerances=[1e-4, 1e-5, 1e-6], reference_step=1e-6),
    "free_body": dict(
        model="""[model]
type = "free_rigid_body"
inertia = [6.0, 8.0, 3.0]""",
        slowest=[0.1, 0.2, 0.2], fastest=[10.0, 20.0, 20.0], t_end=2.0, spacing=0.2,
        fixed_steps=[1.25e-3, 6.25e-4, 3.125e-4, 1.5625e-4], tolerances=[1e-3, 3e-4, 1e-4, 3e-5, 1e-5],
        timing_tolerances=[1e-3, 1e-4, 1e-5], reference_step=5e-6),
}
TIMEOUT = 150  # seconds per timed run

SCENARIO = """
{model}

[initial]
quaternion = [1.0, 0.0, 0.0, 0.0]
omega_body = {fastest}

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


def spins(problem, order):
    slow, fast = problem["slowest"], problem["fastest"]
    if order == "sorted":
        return f"""[[ensemble.sweep]]
key = "initial.omega_body"
from = {slow}
to = {fast}"""
    norm = lambda v: sum(x * x for x in v) ** 0.5
    return f"""[[ensemble.random]]
key = "initial.omega_body"
distribution = "axis_magnitude"
axis = {fast}
magnitude = {{ distribution = "log_uniform", low = {norm(slow)!r}, high = {norm(fast)!r} }}"""


ORDERS = ("sorted", "shuffled")


def scenario(path, problem, bodies, *, h=None, tolerance=None, trajectories="all", order="sorted"):
    spacing = problem["spacing"]
    if h is not None:
        time = f"dt = {h!r}"
        stride = round(spacing / h)
    else:
        time = (f"dt = {spacing!r}\nadaptive = true\ncontrol = \"per_unit_step\"\n"
                f"rotation_atol = {tolerance!r}\nh_initial = 1e-5\nh_max = 1e-2")
        stride = 1
    with open(path, "w") as f:
        f.write(SCENARIO.format(model=problem["model"], fastest=problem["fastest"], t_end=problem["t_end"], time=time,
                                bodies=bodies, stride=stride, trajectories=trajectories, spins=spins(problem, order)))


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


def spread_of_bodies(problem, exe, bodies, order, tmp, count=33):
    """The bodies at `count` evenly spaced ranks of |Omega(0)| (the slowest and the fastest
    included) and their spins, read from /parameters of a one-step run of the whole ensemble."""
    import h5py
    toml, h5 = f"{tmp}/spins.toml", f"{tmp}/spins.h5"
    h = problem["fixed_steps"][0]
    scenario(toml, problem, bodies, h=h, trajectories="none", order=order)
    run(exe, toml, h5, "--t-end", repr(h), "--stride", "1", "--quiet")
    with h5py.File(h5) as f:
        spin = np.linalg.norm(np.asarray(f["parameters/initial.omega_body"]), axis=1)
    by_spin = np.argsort(spin, kind="stable")
    picked = sorted({int(by_spin[round(i * (bodies - 1) / (count - 1))]) for i in range(count)})
    return picked, spin[picked]


def steps_at(error, runs):
    """Body-steps per body of the adaptive `runs` ((worst error, steps) pairs) at a worst error,
    by log-log interpolation between the two runs around it; NaN outside their range."""
    runs = sorted(runs)
    for (e0, s0), (e1, s1) in zip(runs, runs[1:]):
        if e0 <= error <= e1:
            w = math.log(error / e0) / math.log(e1 / e0)
            return math.exp((1 - w) * math.log(s0) + w * math.log(s1))
    return math.nan


def accuracy(problem, exe, bodies, order):
    with tempfile.TemporaryDirectory() as tmp:
        picked, spin = spread_of_bodies(problem, exe, bodies, order, tmp)
        chosen = ["--bodies", ",".join(map(str, picked)), "--threads", str(os.cpu_count())]

        def trial(name, **kw):
            toml, h5 = f"{tmp}/{name}.toml", f"{tmp}/{name}.h5"
            scenario(toml, problem, bodies, order=order, **kw)
            text = run(exe, toml, h5, *chosen)
            q = quaternions(h5)
            if not np.isfinite(q).all():
                sys.exit(f"{name}: non-finite quaternions (a failed body):\n{text}")
            return q, text

        def row(label, q, steps):
            error = rotation_error(q, reference).max(axis=0)
            worst = int(error.argmax())
            print(f"| {label} | {error.max():.3e} | {picked[worst]} ({spin[worst]:.3g}) | "
                  f"{error[spin.argmin()]:.3e} | {error[spin.argmax()]:.3e} | {steps:.0f} |")
            return error.max(), steps

        reference, _ = trial("reference", h=problem["reference_step"])
        print(f"{order} ensemble of {bodies}: worst rotation error over its bodies {picked[0]} ... {picked[-1]} "
              f"({len(picked)}, |Omega(0)| {spin.min():.3g} ... {spin.max():.3g}) and the samples every "
              f"{problem['spacing']} to t = {problem['t_end']}, against fixed h = {problem['reference_step']}")
        print("| run | worst error [rad] | its body (spin rad/s) | slowest body's error | fastest body's error | "
              "body-steps per body (mean) |")
        print("|---|---:|---|---:|---:|---:|")
        fixed = [row(f"fixed h = {h:g}", trial("fixed", h=h)[0], problem["t_end"] / h) for h in problem["fixed_steps"]]
        adaptive = []
        for tolerance in problem["tolerances"]:
            q, text = trial("adaptive", tolerance=tolerance)
            accepted = summary_value(text, r"adaptive steps\s+([0-9.e+]+) accepted")
            adaptive.append(row(f"adaptive, per unit step, rotation_atol = {tolerance:g}", q, accepted / len(picked)))
        print("\nat each fixed run's worst error, the adaptive runs' body-steps per body (interpolated):")
        print("| worst error [rad] | fixed | adaptive | fixed / adaptive |")
        print("|---:|---:|---:|---:|")
        for error, steps in fixed:
            a = steps_at(error, adaptive)
            print(f"| {error:.3e} | {steps:.0f} | {a:.0f} | {steps / a:.2f} |")


def timing(problem, exe, bodies, backend):
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{bodies} bodies, backend {backend}, no trajectories; loop = the summary's integration loop")
        print("| run | loop [s] | whole command [s] | body-steps | body-steps/s (loop) | rejected |")
        print("|---|---:|---:|---:|---:|---:|")

        def trial(label, **kw):
            toml = f"{tmp}/run.toml"
            scenario(toml, problem, bodies, trajectories="none", **kw)
            try:
                text = run(exe, toml, f"{tmp}/run.h5", "--backend", backend, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                print(f"| {label} | > {TIMEOUT} s (stopped) | | | | |", flush=True)
                return
            loop = summary_value(text, r"integration loop ([0-9.e+-]+) s")
            wall = summary_value(text, r"wall time\s+([0-9.e+-]+) s")
            accepted = summary_value(text, r"adaptive steps\s+([0-9.e+]+) accepted")
            rejected = summary_value(text, r"accepted, ([0-9.e+]+) rejected")
            steps = accepted if not math.isnan(accepted) else bodies * round(problem["t_end"] / kw["h"])
            print(f"| {label} | {loop:.3f} | {wall:.3f} | {steps:.4g} | {steps / loop:.3g} | "
                  f"{'' if math.isnan(rejected) else f'{rejected:.0f}'} |", flush=True)
        for h in problem["fixed_steps"]:
            trial(f"fixed h = {h:g}", h=h)
        for order in ORDERS:
            for tolerance in problem["timing_tolerances"]:
                trial(f"adaptive, {order}, rotation_atol = {tolerance:g}", tolerance=tolerance, order=order)


WARP, BLOCK = 32, 128  # kernels/ensemble_kernels.cuh's block_size
# Blocks resident at once: an H200's 132 SMs, 2 blocks each at the adaptive kernel's 255 registers a
# thread (65,536 registers an SM).
BLOCK_SLOTS = 132 * 2


def lane_use(steps):
    """Steps taken over the steps the warps of WARP consecutive lanes issue (each its busiest lane's)."""
    lanes = steps[:len(steps) // WARP * WARP].reshape(-1, WARP)
    return lanes.sum() / (WARP * lanes.max(axis=1)).sum()


def launch_use(steps):
    """Steps taken over what BLOCK_SLOTS block slots of BLOCK lanes could take until the launch ends:
    blocks dealt in order to the slot free first, each holding it for its slowest lane's steps (a
    warp runs no faster with its SM half empty: an upper bound on the tail's cost)."""
    blocks = steps[:len(steps) // BLOCK * BLOCK].reshape(-1, BLOCK).max(axis=1)
    free = [0.0] * BLOCK_SLOTS
    for b in blocks:
        heapq.heappush(free, heapq.heappop(free) + b)
    return steps[:len(blocks) * BLOCK].sum() / (BLOCK * BLOCK_SLOTS * max(free))


def lanes(problem, exe, bodies, order):
    import h5py
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{order} ensemble of {bodies}, CPU: steps taken / steps issued, by the warps ({WARP} lanes) and by "
              f"the launch ({BLOCK_SLOTS} slots of {BLOCK} threads)")
        print("| rotation_atol | mean steps per body | warps, index order | warps, by steps | launch, index order | "
              f"launch, by steps | launch, by steps, {10 * bodies} bodies |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for tolerance in problem["timing_tolerances"]:
            toml, h5 = f"{tmp}/run.toml", f"{tmp}/run.h5"
            scenario(toml, problem, bodies, tolerance=tolerance, trajectories="none", order=order)
            run(exe, toml, h5, "--backend", "cpu", "--quiet")
            with h5py.File(h5) as f:
                steps = np.asarray(f["accepted_steps"], dtype=float)
            by_steps = np.sort(steps)[::-1]
            print(f"| {tolerance:g} | {steps.mean():.0f} | {lane_use(steps):.3f} | {lane_use(by_steps):.3f} | "
                  f"{launch_use(steps):.3f} | {launch_use(by_steps):.3f} | {launch_use(np.repeat(by_steps, 10)):.3f} |",
                  flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("accuracy", "timing", "lanes") or sys.argv[2] not in PROBLEMS:
        sys.exit(__doc__)
    mode, problem, exe = sys.argv[1], PROBLEMS[sys.argv[2]], sys.argv[3]
    n = int(float(sys.argv[4])) if len(sys.argv) > 4 else 100000
    if mode == "accuracy":
        order = sys.argv[5] if len(sys.argv) > 5 else "sorted"
        if order not in ORDERS:
            sys.exit(__doc__)
        accuracy(problem, exe, n, order)
    elif mode == "lanes":
        order = sys.argv[5] if len(sys.argv) > 5 else "shuffled"
        if order not in ORDERS:
            sys.exit(__doc__)
        lanes(problem, exe, n, order)
    else:
        timing(problem, exe, n, sys.argv[5] if len(sys.argv) > 5 else "cuda")
