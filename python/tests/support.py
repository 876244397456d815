"""Helpers of the quatstep module's tests."""

import os
import subprocess
import sys

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
