"""The package as built: the generated type stubs and the PEP 561 marker lie next to the compiled module
and name the public API, STATUS is status.hpp's, and a module CMake built cannot be skipped over."""

import os
import subprocess
import sys
import warnings

import pytest

from support import REPOSITORY, quatstep

CORE = ["registry", "status_name", "Scenario", "ScenarioError", "parse_scenario", "load_scenario", "run_in_memory",
        "run_to_file", "BodyEnsemble", "make_ensemble", "has_cuda", "MechanismScenario", "is_mechanism_text",
        "is_mechanism_scenario", "parse_mechanism_scenario", "load_mechanism_scenario"]


def test_stubs_name_the_public_api():
    directory = os.path.dirname(quatstep._core.__file__)
    assert os.path.isfile(os.path.join(directory, "py.typed"))
    with open(os.path.join(directory, "_quatstep.pyi")) as f:
        stub = f.read()
    for name in CORE:
        assert f"def {name}(" in stub or f"class {name}(" in stub or f"{name}:" in stub, name
    assert all(hasattr(quatstep._core, name) for name in CORE)
    assert all(hasattr(quatstep, name) for name in quatstep.__all__)


def test_status_codes_are_the_headers():
    with open(os.path.join(REPOSITORY, "include", "quatstep", "status.hpp")) as f:
        header = f.read()
    for code, name in quatstep.STATUS.items():
        assert f"{name} = {code}," in header
    assert quatstep.STATUS[6] == "step_size_too_small" and header.count(" = ") >= len(quatstep.STATUS)


def test_a_module_that_does_not_import_fails_the_tests(tmp_path):
    """As ctest runs the tests when CMake built the module (QUATSTEP_REQUIRE_MODULE), with the module not
    importable: they fail; without the variable they are skipped."""
    (tmp_path / "test_one.py").write_text("from support import quatstep\n\ndef test_one():\n    assert quatstep\n")
    path = os.pathsep.join([os.path.join(REPOSITORY, "python", "tests"), str(tmp_path / "nowhere")])

    def pytest_run(require):
        env = dict(os.environ, PYTHONPATH=path, QUATSTEP_REQUIRE_MODULE=require)
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--noconftest",
                               "--rootdir", str(tmp_path), str(tmp_path / "test_one.py")], capture_output=True,
                              text=True, env=env, cwd=tmp_path)

    if subprocess.run([sys.executable, "-c", "import quatstep._quatstep"], env=dict(os.environ, PYTHONPATH=path),
                      capture_output=True).returncode == 0:
        pytest.skip("an installed quatstep is importable without the build tree")
    failed, skipped = pytest_run("1"), pytest_run("")
    assert failed.returncode != 0 and "ModuleNotFoundError" in failed.stdout, failed.stdout
    assert skipped.returncode in (0, 5) and "1 skipped" in skipped.stdout, skipped.stdout  # 5: none collected


def test_batch_stepper_refuses_an_unknown_load_timing():
    """`loads` is checked before anything else, in every build (a CUDA one or not)."""
    with pytest.raises(ValueError, match='loads = "midpoint".*"at_start".*"held"'):
        quatstep.BatchStepper("free_rigid_body", "no_squish", parameters={"inertia": [1, 2, 3]}, loads="midpoint")


def test_batch_stepper_warns_of_a_composition_with_loads_at_the_start():
    """NO_SQUISH's default order 4 is first order in loads given at the step's start: a warning says to
    take order=2 (before the stepper is made, so in every build)."""
    with pytest.warns(UserWarning, match="no_squish at order 4 is first order"):
        try:
            quatstep.BatchStepper("free_rigid_body", "no_squish", parameters={"inertia": [1, 2, 3]})
        except (RuntimeError, ValueError):
            pass  # no CUDA build or no GPU: the warning came first
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kwargs in ({"order": 2}, {"loads": "held"}):
            try:
                quatstep.BatchStepper("free_rigid_body", "no_squish", parameters={"inertia": [1, 2, 3]}, **kwargs)
            except (RuntimeError, ValueError):
                pass  # no CUDA build or no GPU; a warning would have raised before
