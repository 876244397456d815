"""Mechanism scenarios ([mechanism] tables) through quatstep.run: a path, a TOML string or a dict runs the
command's mechanism run and gives bit for bit every dataset of its HDF5 file (per-body trajectories,
mechanism-wide channels, swept and overridden parameters, records, assembly corrections), in memory and
through output=; bad input raises the command's message."""

import os

import numpy as np
import pytest

from support import (EXAMPLES, ASSEMBLY, assert_bitwise, assert_is_the_command, assert_result_is_the_file, cli,
                     file_datasets, quatstep, toml_loads)

CHANNELS = ["quaternion", "position", "omega_body", "velocity", "energy", "linear_momentum", "angular_momentum",
            "position_residual", "velocity_residual", "sample_newton_iterations"]


def example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read()


def test_four_bar_is_the_commands_file(tmp_path):
    # the four-bar loop over 2 s (the load acts during [0, 1]), from a path, in memory and through output=,
    # then from a dict: every dataset of the command's file, bit for bit
    text = example("four_bar.toml").replace("t_end = 10.0", "t_end = 2.0")
    r = assert_is_the_command(tmp_path, text, CHANNELS)
    assert_result_is_the_file(quatstep.run(toml_loads(text)), file_datasets(tmp_path / "cli.h5"), CHANNELS)
    assert isinstance(r.scenario, quatstep.MechanismScenario) and r.scenario.mechanisms == 1
    assert r["quaternion"].shape == (21, 1, 16) and r["position"].shape == (21, 1, 12)
    assert r["linear_momentum"].shape == (21, 1, 3) and r["energy"].shape == (21, 1)
    assert r.failures == 0 and r.parameters == {} and r.assembly_position_correction.tolist() == [0.0]
    # after the load the loop moves freely: its linear momentum is the load's impulse, 400 e1 (Kinon §5.5;
    # at t = 1 itself the α-weighted load of the HHT step that ends there is not all in yet)
    after = r.time > 1.0
    np.testing.assert_allclose(r["linear_momentum"][after, 0], np.tile([400.0, 0, 0], (after.sum(), 1)),
                               rtol=0, atol=1e-10)
    assert r["position_residual"].max() < 1e-12
    # one body's trajectories are its components of the per-body channels: bar 2 starts at (0, 5, 0)
    bar2 = r.body("bar 2")
    assert_bitwise(bar2["quaternion"], r["quaternion"][..., 4:8], "bar 2 quaternion")
    assert_bitwise(bar2["velocity"], r["velocity"][..., 3:6], "bar 2 velocity")
    assert bar2["position"][0, 0].tolist() == [0.0, 5.0, 0.0]
    with pytest.raises(ValueError, match="no body 'bar 9'"):
        r.body("bar 9")


def test_four_bar_with_livens_em_conserves_and_is_the_commands_file(tmp_path):
    # the same loop under Kinon & Betsch's EML at their h = 0.1: the command's file bit for bit, with the
    # conserved generalized energy (eq. 74) beside the other channels, and the momentum maps held after
    # the load to the Newton tolerance (Fig. 16)
    text = example("four_bar.toml")
    text = text[:text.index("[integrator]")] + '[integrator]\nmethod = "livens_em"\n\n[time]\ndt = 0.1\nt_end = 10.0\n'
    r = assert_is_the_command(tmp_path, text, CHANNELS + ["generalized_energy"])
    assert r.scenario.channels == CHANNELS + ["generalized_energy"]
    after = r.time >= 1.0 - 1e-12
    e = r["generalized_energy"][after, 0]
    assert np.abs(e / e[0] - 1).max() < 1e-11
    l = r["angular_momentum"][after, 0]
    assert np.linalg.norm(l - l[0], axis=1).max() < 5e-11 * np.linalg.norm(l[0])
    np.testing.assert_allclose(r["linear_momentum"][after, 0], np.tile([400.0, 0, 0], (after.sum(), 1)),
                               rtol=0, atol=1e-9)


def test_swept_drawn_and_overridden_keys_are_the_files_parameters(tmp_path):
    # 8 slider-cranks over 0.1 s: the spring's stiffness swept, the slider's inertia drawn (invalid draws
    # redrawn and counted), mechanism 5's crank mass and the spring's damping of mechanism 2 overridden,
    # each a /parameters dataset
    text = example("slider_crank_sweep.toml").replace("t_end = 2.0", "t_end = 0.1") + (
        '\n[[ensemble.random]]\nkey = "body.slider.inertia"\ndistribution = "normal"\n'
        'mean = [0.001, 0.001, 0.001]\nstddev = 0.0008\ninvalid = "redraw"\nseed = 2\n'
        '\n[[ensemble.override]]\nmechanism = 5\n"body.crank.mass" = 1.5\n'
        '\n[[ensemble.override]]\nmechanism = 2\n"spring.return spring.damping" = 0.25\n')
    r = assert_is_the_command(tmp_path, text, CHANNELS)
    assert sorted(r.parameters) == ["body.crank.mass", "body.slider.inertia", "spring.return spring.damping",
                                    "spring.return spring.stiffness"]
    assert r.redraws.shape == (8,) and r.redraw_count == r.redraws.sum() > 0
    assert r.redrawn_bodies == (r.redraws > 0).sum()
    assert_bitwise(r.parameters["spring.return spring.stiffness"], 50.0 + 750.0 * (np.arange(8) / 7), "stiffness")
    assert r.parameters["body.crank.mass"].tolist() == [1.0] * 5 + [1.5] + [1.0] * 2
    assert r.parameters["spring.return spring.damping"].tolist() == [0.5] * 2 + [0.25] + [0.5] * 5
    assert r["quaternion"].shape == (11, 8, 12) and r.failures == 0


def test_chosen_channels_and_mechanisms_are_the_commands_file(tmp_path):
    # [output] channels and trajectories = "list" on 8 slider-cranks: the command's file bit for bit, two
    # channels of mechanisms 6 and 1 (in ensemble order, named by trajectory_bodies)
    text = example("slider_crank_sweep.toml").replace("t_end = 2.0", "t_end = 0.1").replace(
        "[output]\n", '[output]\nchannels = ["energy", "omega_body"]\ntrajectories = "list"\ntrajectory_bodies = [6, 1]\n')
    r = assert_is_the_command(tmp_path, text, ["omega_body", "energy"])
    assert r.scenario.channels == ["omega_body", "energy"]
    assert r.trajectory_bodies.tolist() == [1, 6] and r.trajectories.startswith("2 listed mechanisms")
    assert r["omega_body"].shape == (11, 2, 9) and r["energy"].shape == (11, 2)
    assert r.status.shape == (8,)
    with pytest.raises(ValueError, match="key 'output.trajectory_bodies': 8 is not a mechanism index in \\[0, 8\\)"):
        quatstep.load(text.replace("[6, 1]", "[8]"))


def test_statistics_of_a_mechanism_study_are_the_files_and_the_trajectories(tmp_path):
    # the slider-crank sweep's [output.statistics] over 0.1 s: the run's statistics are the command's
    # file's, and recomputed from the trajectories (mean to round-off, max bit for bit)
    text = example("slider_crank_sweep.toml").replace("t_end = 2.0", "t_end = 0.1")
    r = assert_is_the_command(tmp_path, text, CHANNELS)
    s = r.statistics
    assert {"energy", "angular_momentum_drift", "position_residual", "crank_speed"} <= set(s)
    assert (s["energy"]["count"] == 8).all()
    np.testing.assert_allclose(s["energy"]["mean"], r["energy"].mean(axis=1), rtol=1e-14, atol=0)
    assert_bitwise(s["crank_speed"]["max"], r["omega_body"][..., 2].max(axis=1), "crank speed max")


def test_adaptive_steps_and_their_records_are_the_files(tmp_path):
    # 8 slider-cranks whose springs span 100x, each with adaptive steps of its own over 0.05 s: every
    # dataset of the command's file, the step records included; the stiffer springs take more steps
    text = example("adaptive_slider_cranks.toml").replace("t_end = 2.0", "t_end = 0.05")
    r = assert_is_the_command(tmp_path, text, CHANNELS)
    assert r.accepted_steps.shape == (8,) and r.failures == 0
    assert (np.diff(r.accepted_steps) > 0).all()
    assert (r.smallest_step <= r.largest_step).all() and (r.smallest_step[1:] < 1e-4).all()


def test_assembly_corrections_are_the_files(tmp_path):
    # the V8 drive's decimals leave its initial state off the constraints: assemble = "project" moves it,
    # and the corrections it reports are the file's
    text = example("v8_crank_drive.toml").replace("t_end = 0.1", "t_end = 0.01")
    r = assert_is_the_command(tmp_path, text, CHANNELS)
    corrections = [getattr(r, name) for name in ASSEMBLY]
    assert all(c.shape == (1,) for c in corrections) and max(c[0] for c in corrections) > 0


def test_a_joint_naming_a_missing_body_raises_the_commands_message(tmp_path):
    text = example("four_bar.toml").replace('body_j = "bar 2"', 'body_j = "bar 9"')
    path = tmp_path / "bad.toml"
    path.write_text(text)
    p = cli("run", str(path), "--quiet", check=False)
    assert p.returncode != 0
    with pytest.raises(ValueError) as error:
        quatstep.run(str(path))
    message = str(error.value)
    assert message in p.stderr
    assert message == (f"{path}: key 'mechanism.joint[0].body_j': 'bar 9' is not a body (the bodies: 'bar 1', "
                       "'bar 2', 'bar 3', 'bar 4'; or \"ground\")")
    with pytest.raises(quatstep.ScenarioError, match=r"^<dict>: key 'mechanism.joint\[0\].body_j': 'bar 9'"):
        quatstep.run(toml_loads(text))
