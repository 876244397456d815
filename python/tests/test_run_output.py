"""quatstep.run honours the whole scenario as `quatstep run` does — [output] trajectories (only the chosen
bodies are kept), [output.statistics], the drawn /parameters and /redraws — and gives bit for bit every
dataset of the command's HDF5 file, in memory and through output=."""

import os

import numpy as np
import pytest

from support import EXAMPLES, STEP_RECORDS, assert_bitwise, assert_is_the_command, quatstep

with open(os.path.join(EXAMPLES, "monte_carlo_heavy_top.toml")) as _f:
    MONTE_CARLO = _f.read()
with open(os.path.join(EXAMPLES, "spinning_ensemble.toml")) as _f:
    SPINNING = _f.read()
with open(os.path.join(EXAMPLES, "adaptive_heavy_tops.toml")) as _f:
    ADAPTIVE = _f.read()


def test_statistics_only_run_keeps_no_trajectories(tmp_path):
    # 300 of the study's tops for 0.05 s: statistics, drawn inertias with redraws, drawn spins, no trajectories.
    text = MONTE_CARLO.replace("size = 100000", "size = 300").replace("t_end = 10.0", "t_end = 0.05") \
        .replace("stride = 1000 ", "stride = 100 ")
    r = assert_is_the_command(tmp_path, text, [])
    assert r.trajectories == "none" and r.channels == {}
    assert {"axis_tilt", "energy_drift", "omega_norm"} <= set(r.statistics)
    tilt = r.statistics["axis_tilt"]
    assert tilt["quantiles"].shape == (6, 7) and tilt["histogram"].shape == (6, 60) and len(tilt["edges"]) == 61
    assert tilt["count"][0] == 300 and r.failures == 0
    # the statistics are those of the drawn bodies: the mean |ω| at t = 0 from the drawn spins
    omega = r.parameters["initial.omega_body"]
    assert omega.shape == (300, 3) and r.parameters["model.inertia"].shape == (300, 3)
    assert r.statistics["omega_norm"]["mean"][0] == pytest.approx(np.linalg.norm(omega, axis=1).mean(), rel=1e-14)
    # the disc sits on the triangle inequality: about half of the inertia draws are thrown away
    assert r.redraws.shape == (300,) and 0.3 < r.redrawn_bodies / 300 < 0.7
    assert r.redraw_count == int(r.redraws.sum()) and r.redrawn_bodies == int(np.count_nonzero(r.redraws))


# The examples with histograms, each over its whole run with the first bodies of its ensemble (body k
# is the same body in any ensemble size: its draws depend on the seed, k and the key alone): the
# ensemble size each is cut to, None for all of it.
HISTOGRAM_EXAMPLES = {
    "monte_carlo_heavy_top.toml": ("size = 100000", "size = 300"),
    "granular_tumbling.toml": ("size = 100000", "size = 1000"),
    "slider_crank_sweep.toml": None,
}


@pytest.mark.parametrize("example", sorted(HISTOGRAM_EXAMPLES))
def test_example_histograms_hold_their_values(example):
    # An example's [low, high] is chosen for what its bodies do: no value of any sample falls outside
    # (the heavy-top study's tilt range once held 57 % of its tops, its energy drift's none).
    with open(os.path.join(EXAMPLES, example)) as f:
        text = f.read()
    if HISTOGRAM_EXAMPLES[example]:
        text = text.replace(*HISTOGRAM_EXAMPLES[example])
    r = quatstep.run(text)
    histograms = {name: o for name, o in r.statistics.items() if "histogram" in o}
    assert histograms, example
    for name, o in histograms.items():
        assert o["count"].min() > 0 and r.failures == 0, (example, name)
        assert o["below"].max() == 0 and o["above"].max() == 0, \
            (example, name, f"outside [{o['edges'][0]}, {o['edges'][-1]}]: {o['below'].max()} below, "
             f"{o['above'].max()} above, of {o['count'].min()}; values {o['min'].min()} ... {o['max'].max()}")
        assert np.array_equal(o["histogram"].sum(axis=1), o["count"]), (example, name)


SELECTIONS = {
    "every": ('trajectories = "every"\ntrajectory_every = 7\n', list(range(0, 1000, 7))),
    "list": ('trajectories = "list"\ntrajectory_bodies = [999, 3, 500]\n', [3, 500, 999]),
    "auto": ("max_trajectory_bytes = 4e5\n", None),  # every k-th body, the smallest k that fits
}


def auto_selection(bytes_per_body, bodies, limit):
    """[output] trajectories = "auto" as docs/scenario.md words it: every k-th body, the smallest k that fits."""
    k = next(k for k in range(1, bodies + 1) if len(range(0, bodies, k)) * bytes_per_body <= limit)
    return list(range(0, bodies, k))


@pytest.mark.parametrize("selection", sorted(SELECTIONS))
def test_trajectory_selection_keeps_only_the_chosen_bodies(tmp_path, selection):
    keys, bodies = SELECTIONS[selection]
    text = SPINNING.replace("t_end = 20.0", "t_end = 1.0").replace("stride = 10\n", "stride = 10\n" + keys)
    r = assert_is_the_command(tmp_path, text, ["quaternion", "omega_body", "position", "velocity", "energy",
                                               "angular_momentum", "constraint_violation"])
    if bodies is None:
        scalars = sum(1 if a.ndim == 2 else a.shape[2] for a in r.channels.values())
        bodies = auto_selection(11 * scalars * 8, 1000, 4e5)
        assert 1 < bodies[1] < 10  # a selection, not all
    assert r["quaternion"].shape == (11, len(bodies), 4) and r["energy"].shape == (11, len(bodies))
    assert r.trajectory_bodies.tolist() == bodies
    # the kept rows are those bodies' trajectories: their swept I_z (1.5 + 1.5 · i/999) and drawn ω(0)
    assert_bitwise(r.parameters["model.inertia"][bodies, 2], 1.5 + 1.5 * (np.array(bodies) / 999), "I_z")
    assert_bitwise(r["omega_body"][0], r.parameters["initial.omega_body"][bodies], "omega_body(0)")


def test_drawn_parameters_are_the_scenarios(tmp_path):
    # every body, the sweep and the draws in /parameters, each body's row the scenario's body_parameters
    text = SPINNING.replace("t_end = 20.0", "t_end = 0.2")
    r = assert_is_the_command(tmp_path, text, ["quaternion", "omega_body", "position", "velocity", "energy",
                                               "angular_momentum", "constraint_violation"])
    sc = quatstep.load(text)
    keys = {k["name"]: k for k in quatstep.registry()["models"]["free_rigid_body"]["keys"]}
    assert sorted(r.parameters) == ["initial.omega_body", "model.inertia"]
    for body in (0, 1, 517, 999):
        flat = sc.body_parameters(body)
        for name, values in r.parameters.items():
            k = keys[name]
            assert values[body].tolist() == flat[k["offset"]:k["offset"] + k["size"]], (name, body)
    assert r.redraws is None and r.trajectory_bodies is None and r["quaternion"].shape == (3, 1000, 4)


def test_adaptive_step_records_are_the_files(tmp_path):
    # the 64 tops of the adaptive example over 0.2 s: each top's accepted and rejected steps and the range
    # of its step sizes, bit for bit the file's /accepted_steps, /rejected_steps, /smallest_step, /largest_step
    text = ADAPTIVE.replace("t_end = 1.0", "t_end = 0.2")
    r = assert_is_the_command(tmp_path, text, ["quaternion", "omega_body", "energy", "angular_momentum",
                                               "constraint_violation"])
    assert r.accepted_steps.shape == (64,) and r.accepted_steps.dtype == np.int64
    assert r.rejected_steps.dtype == np.int64 and r.smallest_step.dtype == np.float64
    assert r.failures == 0
    # each top covered [0, 0.2] with steps in [smallest, largest], none above h_max = 1e-2
    assert np.all(r.smallest_step <= r.largest_step) and np.all(r.largest_step <= 1e-2)
    assert np.all(r.accepted_steps * r.smallest_step <= 0.2 + 1e-12)
    assert np.all(r.accepted_steps * r.largest_step >= 0.2 - 1e-12)
    # the spin is swept 100x: the fastest top takes more steps than the slowest
    assert r.accepted_steps[-1] > 2 * r.accepted_steps[0]


def test_fixed_steps_have_no_step_records(tmp_path):
    # a fixed-step run's file has no step datasets (assert_is_the_command checks the names), and its
    # result says None for each
    r = assert_is_the_command(tmp_path, SPINNING.replace("t_end = 20.0", "t_end = 0.2"),
                              ["quaternion", "omega_body", "position", "velocity", "energy", "angular_momentum",
                               "constraint_violation"])
    assert all(getattr(r, name) is None for name in STEP_RECORDS)
