"""examples/python: the Monte-Carlo studies (bodies, mechanisms) run and draw their figures; the DEM loop
runs on the GPU where one is usable, else on the CPU."""

import os
import subprocess
import sys

import matplotlib.image
import numpy as np

from support import REPOSITORY, quatstep  # noqa: F401  (skips without the compiled module)


def run_example(name, *args, cwd):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, os.path.join(REPOSITORY, "examples", "python", name), *args], cwd=cwd,
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_monte_carlo(tmp_path):
    out = run_example("monte_carlo.py", str(tmp_path / "mc.png"), cwd=tmp_path)
    assert "2000 tops, 5000 steps, failures: 0" in out
    image = matplotlib.image.imread(tmp_path / "mc.png")
    grey = image[..., :3].mean(axis=-1)
    assert image.shape[0] >= 300 and np.mean(grey < 0.9) > 0.01  # bands and axes drawn


def test_dem_loop(tmp_path):
    """On the GPU with CuPy loads where one is usable, else on the CPU with NumPy loads: the drive spins
    the even bodies up from ω_z = 1 (0.5 N·m on I_zz = 0.3 for 5 ms, less the friction: ≈ 1.007)."""
    out = run_example("dem_loop.py", "1000", "50", cwd=tmp_path)
    assert "body-steps/s" in out and "failed bodies: 0" in out, out
    spin = float(out.split("spin of the driven body 0 about z: ")[1].split(" ")[0])
    assert 1.001 < spin < 1.01, out


def test_mechanism_coupling(tmp_path):
    out = run_example("mechanism_coupling.py", cwd=tmp_path)
    assert "200 mechanisms, 1000 steps, failures: 0, struck the bumper: " in out, out
    struck = int(out.split("struck the bumper: ")[1].split(",")[0])
    depth = float(out.split("deepest penetration ")[1].split(" ")[0])
    assert struck > 150 and 0 < depth < 0.02  # the contact force acts: most strike it, none goes through


def test_mechanism_study(tmp_path):
    out = run_example("mechanism_study.py", str(tmp_path / "mech.png"), cwd=tmp_path)
    assert "300 mechanisms, 1000 steps, failures: 0, largest position residual" in out
    residual = float(out.rsplit(" ", 1)[1])
    assert residual < 1e-9  # on the constraints
    image = matplotlib.image.imread(tmp_path / "mech.png")
    grey = image[..., :3].mean(axis=-1)
    assert image.shape[0] >= 300 and np.mean(grey < 0.9) > 0.01  # bands and axes drawn
