"""quatstep.run: a scenario from a path, a TOML string or a dict gives, in memory, exactly (bit for bit)
what `quatstep run` writes to its HDF5 file and what the C++ API computes; bad scenarios raise the
command's messages."""

import os
import subprocess

import h5py
import numpy as np
import pytest

from support import EXAMPLES, assert_bitwise, cli, pointer, quatstep, toml_loads

# A short version of examples/spinning_ensemble.toml: a sweep, random draws, a stride, free bodies.
SPINNING = os.path.join(EXAMPLES, "spinning_ensemble.toml")


def cli_result(tmp_path, scenario, *options):
    out = str(tmp_path / "cli.h5")
    cli("run", scenario, "--output", out, "--quiet", *options)
    with h5py.File(out, "r") as f:
        channels = [name for name in f if isinstance(f[name], h5py.Dataset) and name not in
                    ("time", "status", "failed_step", "newton_iterations", "trajectory_bodies", "bodies", "redraws")]
        return {name: f[name][:] for name in ["time", "status", "failed_step", "newton_iterations", *channels]}


def assert_same_as_cli(result, expected):
    for name in ("time", "status", "failed_step", "newton_iterations"):
        assert_bitwise(getattr(result, name), expected[name], name)
    channels = [name for name in expected if name not in ("time", "status", "failed_step", "newton_iterations")]
    assert sorted(result.channels) == sorted(channels)
    for name in channels:
        assert_bitwise(result[name], expected[name], name)


@pytest.mark.parametrize("precision", ["double", "float"])
def test_path_run_is_the_command_bit_for_bit(tmp_path, precision):
    expected = cli_result(tmp_path, SPINNING, "--backend", "cpu", "--t-end", "2", "--precision", precision)
    result = quatstep.run(SPINNING, backend="cpu", t_end=2.0, precision=precision)
    assert_same_as_cli(result, expected)
    assert result["quaternion"].shape == (21, 1000, 4) and result["energy"].shape == (21, 1000)
    assert result.failures == 0


def test_heavy_top_run_is_the_command_bit_for_bit(tmp_path):
    scenario = os.path.join(EXAMPLES, "heavy_top.toml")
    expected = cli_result(tmp_path, scenario, "--backend", "cpu", "--t-end", "0.05")
    assert_same_as_cli(quatstep.run(scenario, backend="cpu", t_end=0.05), expected)


def test_stride_replaces_the_files_as_the_commands_option_does(tmp_path):
    """A stride must divide the steps (the last sample is the state at t_end): 0.55 s of dt = 0.01 is
    55 steps, which the file's stride of 10 does not divide; stride=5 (--stride 5) does."""
    with pytest.raises(quatstep.ScenarioError, match=r"key 'output.stride': 10 does not divide the 55 steps"):
        quatstep.load(SPINNING, t_end=0.55)
    expected = cli_result(tmp_path, SPINNING, "--backend", "cpu", "--t-end", "0.55", "--stride", "5")
    result = quatstep.run(SPINNING, backend="cpu", t_end=0.55, stride=5)
    assert_same_as_cli(result, expected)
    assert result.time[-1] == pytest.approx(0.55) and len(result.time) == 12


def test_string_and_dict_scenarios_are_the_file():
    with open(SPINNING) as f:
        text = f.read()
    from_file = quatstep.run(SPINNING, backend="cpu", t_end=0.5)
    from_text = quatstep.run(text, backend="cpu", t_end=0.5)
    from_dict = quatstep.run(toml_loads(text), backend="cpu", t_end=0.5)
    for other in (from_text, from_dict):
        for name in from_file.channels:
            assert_bitwise(other[name], from_file[name], name)
        assert_bitwise(other.newton_iterations, from_file.newton_iterations, "newton_iterations")


def test_output_file_when_asked(tmp_path):
    out = tmp_path / "asked.h5"
    result = quatstep.run(SPINNING, backend="cpu", t_end=0.5, output=out)
    assert out.exists()
    in_memory = quatstep.run(SPINNING, backend="cpu", t_end=0.5)
    for name in in_memory.channels:
        assert_bitwise(result[name], in_memory[name], name)


def test_channels_are_views_of_the_runs_arrays():
    result = quatstep.run(SPINNING, backend="cpu", t_end=0.5)
    q, w = result["quaternion"], result["omega_body"]
    # No copy: NumPy views of the arrays the run filled, in the dataset's layout [sample][body][component].
    assert not q.flags.owndata and not w.flags.owndata and q.flags.c_contiguous
    assert not np.may_share_memory(q, w)
    assert pointer(q[1]) - pointer(q[0]) == 8 * 4 * 1000 and pointer(q[0, 1]) - pointer(q[0, 0]) == 8 * 4
    # the per-body records too
    assert not result.status.flags.owndata and not result.newton_iterations.flags.owndata


def test_dict_to_toml_round_trip():
    scenario = {"model": {"type": "heavy_top", "inertia": np.array([1.0, 2.0, 3.0]), "mass": np.float64(2),
                          "body_torque_profile": {"amplitude": [0, 0, 1e-3], "frequency": 2.5}},
                "integrator": {"method": "modified_hht", "inertia_shift": True, "alpha": -0.1},
                "time": {"dt": 1e-3, "t_end": 1},
                "ensemble": {"size": 3, "override": [{"body": 1, "model.mass": 3.0}, {"body": 2, "model.mass": 4}]},
                "output": {"channels": ["quaternion", "energy"], "file": "a \"b\".h5"}}
    back = toml_loads(quatstep.to_toml(scenario))
    assert back["model"]["inertia"] == [1.0, 2.0, 3.0] and back["model"]["mass"] == 2.0
    assert back["model"]["body_torque_profile"] == {"amplitude": [0, 0, 1e-3], "frequency": 2.5}
    assert back["ensemble"]["override"] == [{"body": 1, "model.mass": 3.0}, {"body": 2, "model.mass": 4}]
    assert back["output"]["file"] == 'a "b".h5' and back["integrator"]["inertia_shift"] is True


BAD = {
    "alpha": ("[integrator]\nmethod = \"modified_hht\"\nalpha = 0.5\n", "key 'integrator.alpha'"),
    "unknown key": ("[integrator]\nmethod = \"hht\"\nalpha = -0.1\nfoo = 1\n", "key 'integrator.foo'"),
    "unused setting": ("[integrator]\nmethod = \"zupan3\"\ninertia_shift = true\n", "not used by method"),
    "quaternion": ("[integrator]\nmethod = \"hht\"\n[initial]\nquaternion = [1.0, 0.5, 0, 0]\n",
                   "key 'initial.quaternion'"),
    "override": ("[integrator]\nmethod = \"hht\"\n[ensemble]\nsize = 3\n[[ensemble.override]]\nbody = 2\n"
                 "\"model.inertia\" = [1, 1, 3]\n", "body 2: key 'model.inertia'"),
    "method": ("[integrator]\nmethod = \"rk4\"\n", "is not one of"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scenarios_raise_the_commands_message(tmp_path, case):
    body, expected = BAD[case]
    text = ("[model]\ntype = \"heavy_top\"\ninertia = [1, 2, 2.5]\n[time]\ndt = 0.01\nt_end = 0.1\n" + body)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    p = cli("run", str(path), "--output", str(tmp_path / "x.h5"), check=False)
    assert p.returncode != 0
    with pytest.raises(ValueError) as error:
        quatstep.run(str(path))
    message = str(error.value)
    assert expected in message
    assert message in p.stderr, f"{message!r} is not the command's {p.stderr!r}"
    assert isinstance(error.value, quatstep.ScenarioError)
    # The same text as a string and as a dict: the same message behind its own source name.
    with pytest.raises(ValueError, match="<string>: ") as from_text:
        quatstep.run(text)
    assert str(from_text.value).split(": ", 1)[1] == message.split(": ", 1)[1]


def test_missing_file():
    with pytest.raises(ValueError, match="nowhere.toml: cannot open the scenario file"):
        quatstep.run("nowhere.toml")
    # a mistyped path is a path, not TOML text: a line with neither '=' nor '['
    for typo in ("examples/heavy_top.tml", "examples/heavy_top"):
        with pytest.raises(ValueError, match=f"{typo}: cannot open the scenario file"):
            quatstep.run(typo)


def test_run_is_the_cpp_api_bit_for_bit(tmp_path):
    """tests/api_reference_run.cpp: the header-only C++ API's run (CpuEnsemble of ModifiedHht<HeavyTop>,
    no scenario machinery) of 17 tops, ω_y = 150 + i; quatstep.run of the same scenario as a dict."""
    exe = os.environ.get("QUATSTEP_API_REFERENCE")
    if not exe or not os.path.exists(exe):
        pytest.skip("QUATSTEP_API_REFERENCE does not name tests/api_reference_run (ctest sets it)")
    out = tmp_path / "api.bin"
    subprocess.run([exe, str(out)], check=True)
    n, samples = 17, 11
    result = quatstep.run({
        "model": {"type": "heavy_top", "inertia": [0.234375, 0.46875, 0.234375], "mass": 15.0,
                  "center_of_mass": [0.0, 1.0, 0.0], "gravity": [0.0, 0.0, -9.81]},
        "initial": {"omega_body": [0.0, 150.0, -4.61538]},
        "integrator": {"method": "modified_hht", "alpha": -0.2, "inertia_shift": True},
        "time": {"dt": 1e-3, "t_end": 0.2},
        "ensemble": {"size": n, "sweep": [{"key": "initial.omega_body", "from": [0.0, 150.0, -4.61538],
                                           "to": [0.0, 166.0, -4.61538]}]},
        "output": {"stride": 20, "trajectories": "all"}}, backend="cpu")
    channels = quatstep.registry()["models"]["heavy_top"]["channels"]
    scalars = sum(c["size"] for c in channels)
    raw = out.read_bytes()
    sample_bytes = samples * scalars * n * 8
    assert len(raw) == sample_bytes + n * (4 + 8 + 8)
    api = np.frombuffer(raw, np.float64, samples * scalars * n).reshape(samples, scalars, n)
    offset = 0
    for c in channels:
        expected = api[:, offset:offset + c["size"], :].transpose(0, 2, 1)  # (samples, bodies, k)
        offset += c["size"]
        if c["name"] in result:
            assert_bitwise(result[c["name"]], expected[:, :, 0] if c["size"] == 1 else expected, c["name"])
    assert sorted(result.channels) == sorted(c["name"] for c in channels if not c["optional"])
    assert_bitwise(result.status, np.frombuffer(raw, np.int32, n, sample_bytes), "status")
    assert_bitwise(result.newton_iterations, np.frombuffer(raw, np.int64, n, sample_bytes + 4 * n), "newton_iterations")
    assert_bitwise(result.failed_step, np.frombuffer(raw, np.int64, n, sample_bytes + 12 * n), "failed_step")
    assert result.failures == 0 and result.newton_iterations.min() > 0


def test_a_float_tolerance_below_the_round_off_floor_warns_as_the_command_does(recwarn):
    """quatstep.load issues Scenario.warnings (C++ scenario_warnings) as RuntimeWarnings: the adaptive
    example in float asks 1e-6 per unit time of a 150 rad/s top, below float's 1.8e-5; double is silent."""
    example = f"{EXAMPLES}/adaptive_heavy_tops.toml"
    with pytest.warns(RuntimeWarning, match=r"key 'time.rotation_atol': 1e-06 is below float's round-off floor"):
        sc = quatstep.load(example, precision="float")
    assert len(sc.warnings) == 1 and "rad/s of body 63" in sc.warnings[0]
    recwarn.clear()
    assert quatstep.load(example).warnings == []
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
