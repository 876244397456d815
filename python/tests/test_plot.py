"""python/quatstep/plot.py on generated files of both layouts (statistics and full trajectories), and on
a real run when QUATSTEP_EXE names the quatstep command: every PNG it reports exists and shows
something (a real image of plots, not a blank canvas).

Run:  python3 -m pytest python/tests
"""

import os
import subprocess
import sys

import h5py
import matplotlib.image
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from quatstep import plot  # noqa: E402  (python/ on the path first)

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def expect_real_images(paths):
    assert paths, "no PNG written"
    for path in paths:
        assert os.path.getsize(path) > 10_000, path
        image = matplotlib.image.imread(path)
        assert image.shape[0] >= 300 and image.shape[1] >= 400, (path, image.shape)
        grey = image[..., :3].mean(axis=-1)
        assert np.mean(grey < 0.9) > 0.01, f"{path}: almost blank"  # lines, bands, text
        assert grey.std() > 0.05, f"{path}: no contrast"


def run(argv, capsys):
    assert plot.main(argv) == 0
    return capsys.readouterr().out.split()


def write_statistics(path, nt=60, levels=(0.05, 0.25, 0.5, 0.75, 0.95)):
    """The layout of host/statistics.hpp with plausible numbers: a drift growing like √t, a spread
    nutation angle, bodies failing along the way."""
    rng = np.random.default_rng(1)
    t = np.linspace(0, 2, nt)
    with h5py.File(path, "w") as f:
        f["time"] = t
        g = f.create_group("statistics")
        g.attrs["levels"] = np.array(levels)
        g.attrs["bodies"] = np.int64(1000)
        for name, centre, spread in (("energy_drift", 1e-12 * t, 1e-12 * np.sqrt(t) + 1e-15),
                                     ("nutation", 0.3 + 0.1 * np.sin(5 * t), 0.05 + 0.02 * t),
                                     ("angular_momentum_drift", 2e-13 * t, 1e-13 * t + 1e-16)):
            o = g.create_group(name)
            o.attrs["definition"] = f"synthetic({name})"
            o["count"] = (1000 - 3 * np.arange(nt)).astype(np.int64)
            o["nonfinite"] = np.zeros(nt, dtype=np.int64)
            o["mean"], o["std"] = centre, spread
            o["min"], o["max"] = centre - 3 * spread, centre + 3 * spread
            z = np.array([-1.645, -0.674, 0, 0.674, 1.645])
            q = o.create_dataset("quantiles", data=centre[:, None] + spread[:, None] * z[None, :])
            q.attrs["levels"] = np.array(levels)
            if name == "nutation":
                edges = np.linspace(0, 1, 21)
                h = o.create_dataset("histogram", data=rng.integers(0, 100, size=(nt, 20)).astype(np.int64))
                h.attrs["edges"] = edges
                o["below"] = np.zeros(nt, dtype=np.int64)
                o["above"] = np.full(nt, 4, dtype=np.int64)


def write_trajectories(path, nt=80, n=12, stride=10):
    """The layout of host/hdf5_output.hpp: spinning bodies, body 2 failing at step 395 (NaN from sample
    40 on), body 5 rejected before the run."""
    t = np.arange(nt) * 0.01 * stride
    rng = np.random.default_rng(2)
    w = np.zeros((nt, n, 3))
    w[..., 2] = 5 + rng.normal(0, 0.1, n)[None, :]
    w[..., 0] = 0.2 * np.cos(3 * t)[:, None]
    w[..., 1] = 0.2 * np.sin(3 * t)[:, None]
    angle = 0.1 * t[:, None] * (1 + np.arange(n))[None, :] / n
    q = np.zeros((nt, n, 4))
    q[..., 0], q[..., 1] = np.cos(angle / 2), np.sin(angle / 2)
    energy = 0.5 * (w ** 2).sum(-1) * (1 + 1e-10 * t[:, None] * rng.normal(size=n)[None, :])
    momentum = w + 1e-9 * t[:, None, None]
    status = np.zeros(n, dtype=np.int32)
    failed = np.full(n, -1, dtype=np.int64)
    status[2], failed[2] = 1, 395
    status[5] = 5
    for a in (w, q, energy, momentum):
        a[40:, 2] = np.nan
        a[:, 5] = np.nan
    with h5py.File(path, "w") as f:
        f["time"], f["quaternion"], f["omega_body"], f["energy"], f["angular_momentum"] = t, q, w, energy, momentum
        f["constraint_violation"] = np.zeros((nt, n))
        f["status"], f["failed_step"] = status, failed
        f["newton_iterations"] = np.full(n, 2 * nt * stride, dtype=np.int64)
        f.attrs["stride"] = np.int64(stride)
        f.attrs["dt"] = 0.01


def test_statistics_layout(tmp_path, capsys):
    path = tmp_path / "stats.h5"
    write_statistics(path)
    written = run([str(path), "--out", str(tmp_path / "png")], capsys)
    names = sorted(os.path.basename(p) for p in written)
    assert names == ["histogram_nutation.png", "statistics_angular_momentum_drift.png", "statistics_drift.png",
                     "statistics_energy_drift.png", "statistics_nutation.png"]
    expect_real_images(written)
    # chosen bodies from a file without trajectories: an error, not ignored
    assert plot.main([str(path), "--out", str(tmp_path / "png"), "--bodies", "3"]) == 1
    assert "--bodies 3: this file has no trajectories (statistics only)" in capsys.readouterr().err


def test_trajectory_layout(tmp_path, capsys):
    path = tmp_path / "run.h5"
    write_trajectories(path)
    written = run([str(path), "--out", str(tmp_path / "png"), "--bodies", "0,2,5"], capsys)
    names = sorted(os.path.basename(p) for p in written)
    assert names == ["drift.png", "ensemble_angular_momentum_drift.png", "ensemble_energy_drift.png",
                     "ensemble_nutation.png", "ensemble_omega_norm.png", "final_histogram.png", "trajectories.png"]
    expect_real_images(written)


def test_trajectories_without_the_angular_velocity(tmp_path, capsys):
    """[output] channels = ["energy", "quaternion"]: the plots of what the file holds, the |ω| panel and
    band left out (a TypeError on the missing omega_body before)."""
    path = tmp_path / "run.h5"
    write_trajectories(path)
    with h5py.File(path, "a") as f:
        del f["omega_body"], f["angular_momentum"]
    written = run([str(path), "--out", str(tmp_path / "png")], capsys)
    names = sorted(os.path.basename(p) for p in written)
    assert names == ["drift.png", "ensemble_energy_drift.png", "ensemble_nutation.png", "final_histogram.png",
                     "trajectories.png"]
    expect_real_images(written)


@pytest.mark.parametrize("layout", ["statistics", "trajectories"])
def test_an_interrupted_run_says_where_its_plots_end(tmp_path, capsys, monkeypatch, layout):
    """A file with complete = 0 (a run stopped by a signal): the plots stop at its last written sample,
    every figure's title says so, and stderr says how to continue the run."""
    path = tmp_path / "run.h5"
    (write_statistics if layout == "statistics" else write_trajectories)(path)
    with h5py.File(path, "a") as f:
        total, t = len(f["time"]), f["time"][:]
        f.attrs["complete"], f.attrs["samples_written"], f.attrs["t_end"] = np.int64(0), np.int64(25), t[-1]
    figures = {"band_figure": [], "histogram_figure": []}
    for name, calls in figures.items():
        draw = getattr(plot, name)
        monkeypatch.setattr(plot, name, lambda *a, _draw=draw, _calls=calls: _calls.append(a) or _draw(*a))
    assert plot.main([str(path), "--out", str(tmp_path / "png")]) == 0
    out, err = capsys.readouterr()
    expect_real_images(out.split())
    note = f"interrupted run: samples 0 … 24 of {total}, t ≤ {t[24]:g} of {t[-1]:g}"
    assert f"{note}: its plots end there (`quatstep run --resume {path}` continues it)" in err, err
    bands = figures["band_figure"]
    assert bands and all(a[6] == note and len(a[1]) == 25 for a in bands)  # (path, t, s, levels, name, definition, note, …)
    if layout == "statistics":
        (histogram,) = figures["histogram_figure"]  # (path, edges, counts, title, below, above, note, …)
        assert histogram[3] == f"nutation at t = {t[24]:g}" and histogram[6] == note
    with h5py.File(path, "a") as f:
        f.attrs["complete"] = np.int64(1)
    assert plot.main([str(path), "--out", str(tmp_path / "png")]) == 0
    assert "interrupted" not in capsys.readouterr().err


def test_ensemble_bands_follow_the_health_rule(tmp_path):
    """The bands count a body while it is healthy: body 2 until sample 39 (failed at step 395, stride
    10), body 5 never; and agree with numpy on the healthy values."""
    path = tmp_path / "run.h5"
    write_trajectories(path)
    with h5py.File(path, "r") as f:
        bands = plot.ensemble_bands(plot.Trajectories(f))
        w = f["omega_body"][:]
    count = bands["omega_norm"]["count"]
    assert list(count[:40]) == [11] * 40 and list(count[40:]) == [10] * 40
    healthy = [i for i in range(12) if i != 5]
    norm = np.linalg.norm(w[10][healthy], axis=-1)
    assert bands["omega_norm"]["mean"][10] == pytest.approx(norm.mean(), rel=1e-14)
    assert bands["omega_norm"]["quantiles"][10][2] == pytest.approx(np.median(norm), rel=1e-14)


def test_an_unknown_observable_is_named(tmp_path, capsys):
    path = tmp_path / "run.h5"
    write_trajectories(path)
    assert plot.main([str(path), "--out", str(tmp_path / "png"), "--observables", "nutation,bogus"]) == 1
    err = capsys.readouterr().err
    assert "no observable bogus in this file (it has: angular_momentum_drift, energy_drift, nutation, omega_norm)" in err


def test_unusable_file_is_an_error(tmp_path, capsys):
    path = tmp_path / "empty.h5"
    with h5py.File(path, "w") as f:
        f["something"] = np.zeros(3)
    assert plot.main([str(path), "--out", str(tmp_path / "png")]) == 1
    assert "neither trajectories" in capsys.readouterr().err
    assert plot.main([str(tmp_path / "missing.h5")]) == 1


def write_mechanisms(path, nt=50, n=4, stride=5):
    """The mechanism layout (README "Mechanisms"): n two-body mechanisms, a row each, the bodies' blocks
    side by side in /quaternion and /omega_body; mechanism 1 failing at step 102 (NaN from sample 21)."""
    t = np.arange(nt) * 0.01 * stride
    rng = np.random.default_rng(3)
    w = rng.normal(size=(nt, n, 6))
    q = np.zeros((nt, n, 8))
    q[..., 0] = q[..., 4] = 1
    energy = 1 + 1e-9 * t[:, None] * rng.normal(size=n)[None, :]
    momentum = np.ones((nt, n, 3)) + 1e-9 * t[:, None, None]
    residual = 10.0 ** rng.uniform(-16, -13, size=(nt, n))
    status, failed = np.zeros(n, dtype=np.int32), np.full(n, -1, dtype=np.int64)
    status[1], failed[1] = 4, 102
    for a in (w, q, energy, momentum, residual):
        a[21:, 1] = np.nan
    with h5py.File(path, "w") as f:
        f["time"], f["quaternion"], f["omega_body"], f["energy"], f["angular_momentum"] = t, q, w, energy, momentum
        f["position_residual"] = residual
        f["status"], f["failed_step"] = status, failed
        f.attrs["stride"] = np.int64(stride)
        f.attrs["model"] = "mechanism: 2 bodies ('crank', 'rod')"


def test_mechanism_layout(tmp_path, capsys, monkeypatch):
    """A mechanism file's rows are mechanisms, not bodies: its bands are mechanism-wide observables (no
    nutation or |ω| of its first body, which the plots showed as the mechanism's before), its labels
    say mechanism (the bands' count of healthy ones too), its bodies are named from the model attribute."""
    counted = []
    monkeypatch.setattr(plot, "band_axes", lambda *a, _draw=plot.band_axes: counted.append(a[-1]) or _draw(*a))
    path = tmp_path / "mechanisms.h5"
    write_mechanisms(path)
    with h5py.File(path, "r") as f:
        tr = plot.Trajectories(f)
        assert tr.mechanism and tr.unit == "mechanism" and tr.body_names == ["crank", "rod"]
        bands = plot.ensemble_bands(tr)
        residual = f["position_residual"][:]
    assert sorted(bands) == ["angular_momentum_drift", "energy_drift", "position_residual"]
    count = bands["position_residual"]["count"]
    assert list(count[:21]) == [4] * 21 and list(count[21:]) == [3] * 29  # mechanism 1 failed at step 102
    assert bands["position_residual"]["max"][30] == np.max(residual[30][[0, 2, 3]])
    written = run([str(path), "--out", str(tmp_path / "png"), "--bodies", "1,3"], capsys)
    names = sorted(os.path.basename(p) for p in written)
    assert names == ["drift.png", "ensemble_angular_momentum_drift.png", "ensemble_energy_drift.png",
                     "ensemble_position_residual.png", "final_histogram.png", "trajectories.png"]
    expect_real_images(written)
    assert counted == ["mechanisms"] * 3
    assert plot.main([str(path), "--out", str(tmp_path / "png"), "--bodies", "7"]) == 1  # no other drawn instead
    assert "--bodies 7: no trajectory of mechanism 7 in this file (mechanisms with trajectories: 0, 1, 2, 3)" in \
        capsys.readouterr().err
    assert plot.main([str(path), "--out", str(tmp_path / "png"), "--observables", "nutation"]) == 1
    assert "(it has: angular_momentum_drift, energy_drift, position_residual)" in capsys.readouterr().err


@pytest.mark.skipif(not os.environ.get("QUATSTEP_EXE"), reason="QUATSTEP_EXE (the quatstep command) not set")
def test_a_real_mechanism_run(tmp_path, capsys):
    result = tmp_path / "four_bar.h5"
    subprocess.run([os.environ["QUATSTEP_EXE"], "run", os.path.join(REPOSITORY, "examples", "four_bar.toml"),
                    "--output", str(result), "--quiet"], check=True)
    with h5py.File(result, "r") as f:
        assert plot.Trajectories(f).body_names == ["bar 1", "bar 2", "bar 3", "bar 4"]
    expect_real_images(run([str(result), "--out", str(tmp_path / "png")], capsys))


@pytest.mark.skipif(not os.environ.get("QUATSTEP_EXE"), reason="QUATSTEP_EXE (the quatstep command) not set")
def test_a_real_run(tmp_path, capsys):
    result = tmp_path / "heavy_top.h5"
    subprocess.run([os.environ["QUATSTEP_EXE"], "run", os.path.join(REPOSITORY, "examples", "heavy_top.toml"),
                    "--output", str(result)], check=True, capture_output=True)
    expect_real_images(run([str(result), "--out", str(tmp_path / "png")], capsys))


STUDY = """
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
[initial]
omega_body = [0.0, 150.0, -4.61538]
[integrator]
method = "modified_hht"
inertia_shift = true
[time]
dt = 1e-3
t_end = 0.5
[ensemble]
size = 60
[[ensemble.random]]
key = "model.inertia"
distribution = "normal"
mean = [0.234375, 0.46875, 0.234375]
stddev = 0.003
invalid = "redraw"
[[ensemble.random]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 150.0, -4.61538]
stddev = [1.0, 5.0, 1.0]
[output]
stride = 10
trajectories = "list"
trajectory_bodies = [7, 30, 41]
[output.statistics]
[[output.statistics.observable]]
name = "nutation"
bins = 20
low = 0.0
high = 1.8
"""


@pytest.mark.skipif(not os.environ.get("QUATSTEP_EXE"), reason="QUATSTEP_EXE (the quatstep command) not set")
def test_a_monte_carlo_run_through_quatstep_plot(tmp_path):
    """`quatstep plot` on a run with statistics and three listed trajectories (ensemble indices 7, 30,
    41 in rows 0–2; the statuses of those bodies, not of rows 0–2 of the ensemble)."""
    scenario = tmp_path / "study.toml"
    scenario.write_text(STUDY)
    result = tmp_path / "study.h5"
    subprocess.run([os.environ["QUATSTEP_EXE"], "run", str(scenario), "--output", str(result), "--quiet"], check=True)
    with h5py.File(result, "r") as f:
        tr = plot.Trajectories(f)
        assert list(tr.labels) == [7, 30, 41] and tr.n == 3 and len(tr.status) == 3
    out = tmp_path / "png"
    done = subprocess.run([os.environ["QUATSTEP_EXE"], "plot", str(result), "--out", str(out)], check=True,
                          capture_output=True, text=True)
    written = done.stdout.split()
    names = sorted(os.path.basename(p) for p in written)
    assert "statistics_energy_drift.png" in names and "histogram_nutation.png" in names and "trajectories.png" in names
    expect_real_images(written)
    # Chosen bodies and observables through the command; body 8 has no trajectory: named, nothing drawn.
    chosen = tmp_path / "chosen"
    done = subprocess.run([os.environ["QUATSTEP_EXE"], "plot", str(result), "--out", str(chosen), "--bodies", "41,8",
                           "--observables", "energy_drift"], capture_output=True, text=True)
    assert done.returncode == 1 and not done.stdout, (done.returncode, done.stdout)
    assert "--bodies 41,8: no trajectory of body 8 in this file (bodies with trajectories: 7, 30, 41)" in done.stderr, \
        done.stderr
    done = subprocess.run([os.environ["QUATSTEP_EXE"], "plot", str(result), "--out", str(chosen), "--bodies", "41",
                           "--observables", "energy_drift"], check=True, capture_output=True, text=True)
    names = sorted(os.path.basename(p) for p in done.stdout.split())
    assert "trajectories.png" in names and "statistics_energy_drift.png" in names, names
    assert "histogram_nutation.png" not in names, names
