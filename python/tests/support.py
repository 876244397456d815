"""Helpers of the quatstep module's tests."""

import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(REPOSITORY, "examples")

if os.environ.get("QUATSTEP_REQUIRE_MODULE"):  # ctest sets it when CMake built the module: it must import
    import quatstep._quatstep  # noqa: F401
else:
    pytest.importorskip("quatstep._quatstep", reason="the compiled module quatstep._quatstep is not built (it needs "
                        "nanobind: scripts/setup.sh --tests installs it)")
import quatstep  # noqa: E402  (after the skip)



def toml_loads(text):
    """TOML read by the standard library from Python 3.11, by tomli (pyproject's test extra) before."""
    reader = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli",
                                 reason="reading TOML needs tomli before Python 3.11 (pip install .[test])")
    return reader.loads(text)


def quatstep_exe():
    exe = os.environ.get("QUATSTEP_EXE")
    if not exe or not os.path.exists(exe):
        pytest.skip("QUATSTEP_EXE does not name the quatstep command (ctest sets it)")
    return exe


def cli(*args, check=True):
    """The command's exit code, stdout and stderr."""
    p = subprocess.run([quatstep_exe(), *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"quatstep {' '.join(args)} failed: {p.stderr}")
    return p


def bits(a):
    """The bit patterns of an array (NaNs with their payloads), for bitwise comparisons."""
    a = np.ascontiguousarray(a)
    return a.view({8: np.uint64, 4: np.uint32}[a.dtype.itemsize])


def assert_bitwise(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{what}: shapes {a.shape} and {b.shape}"
    assert a.dtype == b.dtype, f"{what}: dtypes {a.dtype} and {b.dtype}"
    differ = np.count_nonzero(bits(a) != bits(b))
    assert differ == 0, f"{what}: {differ} of {a.size} values differ"


def pointer(a):
    return a.__array_interface__["data"][0]


# ---------------------------------------------------------------- a run's result against the command's file
STEP_RECORDS = ("accepted_steps", "rejected_steps", "smallest_step", "largest_step")  # adaptive steps
ASSEMBLY = ("assembly_position_correction", "assembly_velocity_correction")  # mechanisms
# The attributes that are results (the rest describe the scenario, which both runs share).
RESULT_ATTRIBUTES = ("trajectories", "redrawn_bodies", "redraws")


def file_datasets(path):
    """{name: array} of every dataset of a result file, plus its result attributes."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, item: out.__setitem__(name, item[()]) if isinstance(item, h5py.Dataset) else None)
        for name in RESULT_ATTRIBUTES:
            if name in f.attrs:
                out["@" + name] = f.attrs[name]
    return out


def result_datasets(r):
    """The same names for a quatstep.Result."""
    out = {"time": r.time, "status": r.status, "newton_iterations": r.newton_iterations, "failed_step": r.failed_step,
           "@trajectories": r.trajectories}
    out.update(r.channels)
    if r.trajectory_bodies is not None:
        out["trajectory_bodies"] = r.trajectory_bodies
    if r.bodies is not None:
        out["bodies"] = r.bodies
    out.update({"parameters/" + key: values for key, values in r.parameters.items()})
    if r.redraws is not None:
        out.update({"redraws": r.redraws, "@redrawn_bodies": r.redrawn_bodies, "@redraws": r.redraw_count})
    out.update({name: getattr(r, name) for name in STEP_RECORDS + ASSEMBLY if getattr(r, name) is not None})
    for name, o in r.statistics.items():
        out.update({f"statistics/{name}/{field}": o[field] for field in
                    ("count", "nonfinite", "mean", "std", "min", "max", "quantiles", "histogram", "below", "above")
                    if field in o})
    return out


def assert_result_is_the_file(result, expected, expect_channels):
    """Every dataset and result attribute of `expected` (file_datasets), bit for bit, and no other."""
    got = result_datasets(result)
    assert sorted(got) == sorted(expected)
    for name, value in expected.items():
        if name.startswith("@"):
            assert got[name] == value, name
        else:
            assert_bitwise(got[name], value, name)
    assert sorted(result.channels) == sorted(expect_channels)


def assert_is_the_command(tmp_path, text, expect_channels):
    """run() of `text` in memory and with output=, against the command's file of the same scenario
    (tmp_path / "cli.h5"); returns the in-memory result."""
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    cli("run", str(path), "--output", str(tmp_path / "cli.h5"), "--quiet", "--backend", "cpu")
    expected = file_datasets(tmp_path / "cli.h5")
    in_memory = quatstep.run(str(path), backend="cpu")
    through_file = quatstep.run(str(path), backend="cpu", output=tmp_path / "python.h5")
    for result in (in_memory, through_file):
        assert_result_is_the_file(result, expected, expect_channels)
    return in_memory
