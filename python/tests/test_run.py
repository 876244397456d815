"""quatstep.run: a scenario from a path, a TOML string or a dict gives, in memory, exactly (bit for bit)
what `quatstep run` writes to its HDF5 file; bad scenarios raise the command's messages."""

import os

import h5py
import numpy as np
import pytest

from support import EXAMPLES, assert_bitwise, cli, pointer, quatstep

# A short version of examples/spinning_ensemble.toml: a sweep, random draws, a stride, free bodies.
SPINNING = os.path.join(EXAMPLES, "spinning_ensemble.toml")


def cli_result(tmp_path, scenario, *options):
    out = str(tmp_path / "cli.h5")
    cli("run", scenario, "--output", out, "--quiet", *options)
    with h5py.File(out, "r") as f:
        channels = [name for name in f if name not in ("time", "status", "failed_step", "newton_iterations")]
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


def test_string_and_dict_scenarios_are_the_file():
    with open(SPINNING) as f:
        text = f.read()
    from_file = quatstep.run(SPINNING, backend="cpu", t_end=0.5)
    from_text = quatstep.run(text, backend="cpu", t_end=0.5)
    import tomllib

    from_dict = quatstep.run(tomllib.loads(text), backend="cpu", t_end=0.5)
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


def test_channels_are_views_of_one_buffer():
    result = quatstep.run(SPINNING, backend="cpu", t_end=0.5)
    q, w = result["quaternion"], result["omega_body"]
    # One buffer [sample][scalar][body], no copy per channel: omega_body's scalars follow the quaternion's.
    assert np.may_share_memory(q, w) and not q.flags.owndata and not w.flags.owndata
    assert pointer(w) - pointer(q) == 8 * 4 * 1000
    # sample 1, scalar 0 of body 0 lies (channel scalars × bodies) doubles after sample 0's
    scalars = sum(c["size"] for c in quatstep.registry()["models"]["free_rigid_body"]["channels"])
    assert pointer(q[1]) - pointer(q[0]) == 8 * scalars * 1000


def test_dict_to_toml_round_trip():
    import tomllib

    scenario = {"model": {"type": "heavy_top", "inertia": np.array([1.0, 2.0, 3.0]), "mass": np.float64(2),
                          "body_torque_profile": {"amplitude": [0, 0, 1e-3], "frequency": 2.5}},
                "integrator": {"method": "modified_hht", "inertia_shift": True, "alpha": -0.1},
                "time": {"dt": 1e-3, "t_end": 1},
                "ensemble": {"size": 3, "override": [{"body": 1, "model.mass": 3.0}, {"body": 2, "model.mass": 4}]},
                "output": {"channels": ["quaternion", "energy"], "file": "a \"b\".h5"}}
    back = tomllib.loads(quatstep.to_toml(scenario))
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
