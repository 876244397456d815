"""Plots of a quatstep result file.

    python3 python/quatstep/plot.py RESULT.h5 [--out DIR] [--bodies 0,1,2] [--observables a,b]
    python3 python/quatstep/plot.py --verify DIR      (the curves `quatstep verify` wrote into DIR)

Writes PNG files into DIR (default: RESULT's name without .h5, plus "_plots") and prints their paths.
Both layouts of the HDF5 file are understood, alone or together:

* Full trajectories (host/hdf5_output.hpp): /time (nt), /quaternion (nt×N×4), /omega_body (nt×N×3),
  /energy (nt×N), /angular_momentum (nt×N×3, spatial), /status (N), /failed_step (N), attribute
  stride. Written: ``trajectories.png`` (the chosen bodies: |ω| and ω components, energy, nutation
  angle of body z against spatial z, |L|), ``drift.png`` (energy drift (E − E0)/|E0| and momentum
  drift ‖L − L0‖/‖L0‖ of the chosen bodies inside the ensemble's min–max envelope), and for
  energy_drift, omega_norm, nutation and angular_momentum_drift ``ensemble_<name>.png`` (bands over
  time computed here from the healthy bodies) and ``final_histogram.png``.
* Statistics (host/statistics.hpp): /time, /statistics/<observable>/{count, mean, std, min, max,
  quantiles (levels), histogram (edges), below, above}. Written: ``statistics_<observable>.png``
  (mean ± std inside the min–max band, the quantile fan with the median, the healthy-body count)
  and ``histogram_<observable>.png`` (the last sample with values), and ``statistics_drift.png``
  (the largest |drift| over the ensemble on a log scale) when energy_drift or
  angular_momentum_drift are there.

* Mechanisms (root attribute model = "mechanism: B bodies (…)"): the same two layouts, a row per
  mechanism and B bodies' blocks in /quaternion and /omega_body. The trajectory figures then draw
  each body's |ω| and the joint residual max |C| where the nutation was, and the ensemble bands are
  those of mechanism-wide observables: energy_drift, angular_momentum_drift, position_residual.

A body (a mechanism) counts at sample j while it is healthy (status 0, or failed at a step >= j·stride) and its
value is finite, as in the statistics the library writes. Large trajectory files are read a block
of samples at a time.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings

import h5py
import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

BLOCK_VALUES = 1 << 24  # numbers read from a trajectory dataset at once (128 MiB of doubles)
DRIFTS = ("energy_drift", "angular_momentum_drift")


# ---------------------------------------------------------------- trajectory observables
def nutation(q):
    """Angle between body z carried to space, R(q)·e_z, and spatial z (q: ...×4, scalar first)."""
    e0, e1, e2, e3 = (q[..., i] for i in range(4))
    x, y = 2 * (e1 * e3 + e0 * e2), 2 * (e2 * e3 - e0 * e1)
    z = e0 * e0 + e3 * e3 - e1 * e1 - e2 * e2
    return np.arctan2(np.hypot(x, y), z)


def relative_drift(x, x0, vector=False):
    """(x − x0)/|x0| for a scalar channel, ‖x − x0‖/‖x0‖ over the last axis for a vector one."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if vector:
            return np.linalg.norm(x - x0, axis=-1) / np.linalg.norm(x0, axis=-1)
        return (x - x0) / np.abs(x0)


def model_attribute(f):
    """The file's model attribute as text ("heavy_top", "mechanism: 3 bodies ('crank', …)"); "" if none."""
    model = f.attrs.get("model", "")
    return model.decode() if isinstance(model, bytes) else str(model)


def members(f):
    """What a file's ensemble counts: "mechanisms" in a mechanism run's file, else "bodies"."""
    return "mechanisms" if model_attribute(f).startswith("mechanism") else "bodies"


def samples_in(f):
    """Samples in the file: all of /time, or the first samples_written of an interrupted run."""
    nt = len(f["time"])
    return min(nt, int(f.attrs["samples_written"])) if "samples_written" in f.attrs else nt


def interrupted_note(f):
    """"" for a finished run; for an interrupted one (complete = 0) how far its samples go, which every
    figure's title then carries: its curves end there, not at t_end."""
    if int(f.attrs.get("complete", 1)) != 0:
        return ""
    nt = samples_in(f)
    t = f["time"][:nt]
    end = f" of {float(f.attrs['t_end']):g}" if "t_end" in f.attrs else ""
    return f"interrupted run: samples 0 … {nt - 1} of {len(f['time'])}, t ≤ {t[-1]:g}{end}" if nt else \
        "interrupted run: no samples"


class Trajectories:
    """The full-trajectory layout, read a block of samples at a time. Rows are the bodies with
    trajectories: /trajectory_bodies names them (ensemble indices) when they are not all the bodies
    of the run; /bodies names the run's bodies when it ran a selection (--bodies)."""

    def __init__(self, f):
        self.f = f
        self.nt = samples_in(f)
        self.time = f["time"][: self.nt]
        self.n = f["energy"].shape[1]
        self.stride = int(f.attrs.get("stride", 1))
        model = model_attribute(f)
        self.bodies_per_row = f["quaternion"].shape[-1] // 4
        self.mechanism = model.startswith("mechanism") or self.bodies_per_row != 1
        self.unit = "mechanism" if self.mechanism else "body"
        names = re.findall(r"'([^']*)'", model.partition("(")[2]) if self.mechanism else []
        self.body_names = names if len(names) == self.bodies_per_row else [
            f"body {b}" for b in range(self.bodies_per_row)]
        run_bodies = f["bodies"][:] if "bodies" in f else None
        self.labels = f["trajectory_bodies"][:] if "trajectory_bodies" in f else (
            run_bodies if run_bodies is not None else np.arange(self.n))
        # The rows' places among the run's bodies, for the per-body datasets (status, failed_step).
        if run_bodies is not None:
            where = {int(b): i for i, b in enumerate(run_bodies)}
            rows = np.array([where[int(b)] for b in self.labels], dtype=np.int64)
        else:
            rows = np.asarray(self.labels, dtype=np.int64)
        status = f["status"][:] if "status" in f else np.zeros(len(rows), dtype=np.int32)
        failed_step = f["failed_step"][:] if "failed_step" in f else np.full(len(rows), -1)
        self.status = status[rows] if "status" in f else status
        self.failed_step = failed_step[rows] if "failed_step" in f else failed_step

    def healthy(self, j0, j1):
        """Mask (j1 − j0)×N of the bodies healthy at samples j0 … j1 − 1."""
        j = np.arange(j0, j1)[:, None]
        return (self.status[None, :] == 0) | (self.failed_step[None, :] >= j * self.stride)

    def blocks(self):
        rows = max(1, BLOCK_VALUES // max(1, self.n * 4))
        for j0 in range(0, self.nt, rows):
            yield j0, min(self.nt, j0 + rows)

    def names(self):
        """The ensemble observables this file's channels give ([output] channels may leave some out); a
        mechanism's are mechanism-wide (one body's nutation or |ω| would stand for none of the others)."""
        f = self.f
        wanted = [("energy_drift", "energy")]
        if self.mechanism:
            wanted += [("angular_momentum_drift", "angular_momentum"), ("position_residual", "position_residual")]
        else:
            wanted += [("omega_norm", "omega_body"), ("nutation", "quaternion"), ("angular_momentum_drift", "angular_momentum")]
        return [name for name, channel in wanted if channel in f]

    def observables(self, j0, j1):
        """name → (j1 − j0)×N values of the ensemble observables at samples j0 … j1 − 1."""
        f = self.f
        out = {}
        for name in self.names():
            if name == "energy_drift":
                out[name] = relative_drift(f["energy"][j0:j1], f["energy"][0][None, :])
            elif name == "omega_norm":
                out[name] = np.linalg.norm(f["omega_body"][j0:j1], axis=-1)
            elif name == "nutation":
                out[name] = nutation(f["quaternion"][j0:j1])
            elif name == "angular_momentum_drift":
                out[name] = relative_drift(f["angular_momentum"][j0:j1], f["angular_momentum"][0][None], vector=True)
            else:  # a channel that is its own observable
                out[name] = f[name][j0:j1]
        return out


LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)


def ensemble_bands(tr):
    """name → dict of per-sample count, mean, std, min, max, quantiles (nt×5) over the healthy bodies."""
    bands = {}
    for j0, j1 in tr.blocks():
        healthy = tr.healthy(j0, j1)
        for name, values in tr.observables(j0, j1).items():
            v = np.where(healthy & np.isfinite(values), values, np.nan)
            count = np.sum(np.isfinite(v), axis=1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # rows without a healthy body give NaN
                row = {
                    "count": count,
                    "mean": np.nanmean(v, axis=1),
                    "std": np.nanstd(v, axis=1, ddof=1),
                    "min": np.nanmin(v, axis=1),
                    "max": np.nanmax(v, axis=1),
                    "quantiles": np.nanquantile(v, LEVELS, axis=1).T,
                }
            b = bands.setdefault(name, {k: [] for k in row})
            for k, x in row.items():
                b[k].append(x)
    return {name: {k: np.concatenate(x) for k, x in b.items()} for name, b in bands.items()}


# ---------------------------------------------------------------- drawing
def band_axes(ax, t, s, levels, label, counted="bodies"):
    """mean ± std inside the min–max band (ax[0]), the quantile fan (ax[1]), the count (ax[2])."""
    ax[0].fill_between(t, s["min"], s["max"], color="tab:blue", alpha=0.15, lw=0, label="min–max")
    ax[0].fill_between(t, s["mean"] - s["std"], s["mean"] + s["std"], color="tab:blue", alpha=0.35, lw=0, label="mean ± std")
    ax[0].plot(t, s["mean"], color="tab:blue", lw=1.2, label="mean")
    ax[0].set_ylabel(label)
    ax[0].legend(loc="best", fontsize="small")
    q = s.get("quantiles")
    if q is not None and q.size and len(levels):
        levels = np.asarray(levels)
        order = np.argsort(levels)
        levels, q = levels[order], q[:, order]
        for i in range(len(levels) // 2):  # symmetric pairs from the outside in
            lo, hi = levels[i], levels[len(levels) - 1 - i]
            ax[1].fill_between(t, q[:, i], q[:, len(levels) - 1 - i], color="tab:orange", alpha=0.15 + 0.5 * (i + 1) / len(levels),
                               lw=0, label=f"{100 * lo:g}–{100 * hi:g} %")
        median = np.flatnonzero(np.isclose(levels, 0.5))
        if median.size:
            ax[1].plot(t, q[:, median[0]], color="tab:red", lw=1.2, label="median")
        ax[1].set_ylabel(label)
        ax[1].legend(loc="best", fontsize="small")
    else:
        ax[1].text(0.5, 0.5, "no quantiles in the file", ha="center", va="center", transform=ax[1].transAxes)
    ax[2].plot(t, s["count"], color="k", lw=1)
    ax[2].set_ylabel(f"healthy {counted}")
    ax[2].set_xlabel("t")
    ax[2].set_ylim(bottom=0)


def band_figure(path, t, s, levels, name, definition="", note="", counted="bodies"):
    fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True, gridspec_kw={"height_ratios": [3, 3, 1]})
    band_axes(ax, t, s, levels, name, counted)
    fig.suptitle(name + (f"   [{definition}]" if definition else "") + (f"\n({note})" if note else ""))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def histogram_figure(path, edges, counts, title, below=0, above=0, note="", counted="bodies"):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.stairs(counts, edges, fill=True, color="tab:blue", alpha=0.7)
    ax.set_xlabel(title)
    ax.set_ylabel(counted)
    tally = f"{int(np.sum(counts))} in range" + (f", {int(below)} below, {int(above)} above" if below or above else "")
    ax.set_title(tally + (f"\n({note})" if note else ""), fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def statistics_plots(f, out, wanted):
    nt = samples_in(f)
    note, counted = interrupted_note(f), members(f)
    time = f["time"][:nt]
    group = f["statistics"]
    levels = group.attrs.get("levels", np.array([]))
    written, drifts = [], {}
    for name in sorted(group):
        if wanted and name not in wanted:
            continue
        g = group[name]
        s = {k: g[k][:nt] for k in ("count", "mean", "std", "min", "max") if k in g}
        if "quantiles" in g:
            s["quantiles"] = g["quantiles"][:nt]
            levels_here = g["quantiles"].attrs.get("levels", levels)
        else:
            levels_here = []
        definition = g.attrs.get("definition", "")
        definition = definition.decode() if isinstance(definition, bytes) else str(definition)
        written.append(band_figure(os.path.join(out, f"statistics_{name}.png"), time, s, levels_here, name, definition,
                                   note, counted))
        if "histogram" in g:
            h = g["histogram"]
            with_values = np.flatnonzero(s["count"] > 0)
            last = int(with_values[-1]) if with_values.size else len(time) - 1
            below = g["below"][last] if "below" in g else 0
            above = g["above"][last] if "above" in g else 0
            written.append(histogram_figure(os.path.join(out, f"histogram_{name}.png"), h.attrs["edges"], h[last],
                                            f"{name} at t = {time[last]:g}", below, above, note, counted))
        if name in DRIFTS:
            drifts[name] = np.maximum(np.abs(s["min"]), np.abs(s["max"]))
    if drifts:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for name, d in drifts.items():
            ax.semilogy(time, np.where(d > 0, d, np.nan), label=f"max |{name}|")
        ax.set_xlabel("t")
        ax.set_ylabel("largest relative drift over the ensemble")
        ax.legend()
        if note:
            ax.set_title(note, fontsize="small")
        fig.tight_layout()
        path = os.path.join(out, "statistics_drift.png")
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    return written


def describe_labels(labels, shown=8):
    """The first `shown` body indices of a list, and how many more."""
    head = ", ".join(map(str, labels[:shown]))
    return head + (f" … ({len(labels)} in all)" if len(labels) > shown else "")


def missing_trajectories(f, bodies):
    """Why `bodies` (ensemble indices) cannot all be drawn from f ("" when they can): a body without a
    trajectory in the file, named with those that have one."""
    if not ("energy" in f and "quaternion" in f):
        return "this file has no trajectories (statistics only)"
    tr = Trajectories(f)
    labels = [int(b) for b in tr.labels]
    missing = [b for b in bodies if b not in labels]
    if not missing:
        return ""
    many = "bodies" if tr.unit == "body" else "mechanisms"
    return (f"no trajectory of {tr.unit if len(missing) == 1 else many} {', '.join(map(str, missing))} in this file "
            f"({many} with trajectories: {describe_labels(labels)})")


def trajectory_plots(f, out, bodies, wanted):
    """`bodies`: ensemble indices to draw, each with a trajectory (missing_trajectories); default the
    first three rows."""
    tr = Trajectories(f)
    unit = tr.unit
    label_of_row = [int(b) for b in tr.labels]
    rows = sorted({label_of_row.index(b) for b in bodies}) if bodies else list(range(min(3, tr.n)))
    t = tr.time
    note = interrupted_note(f)
    written = []

    # The chosen rows over the whole run: one pass over each dataset (h5py reads increasing indices).
    def columns(name):
        return f[name][: tr.nt, rows] if name in f else None

    omega, energy, quaternion, momentum, residual = (
        columns(n) for n in ("omega_body", "energy", "quaternion", "angular_momentum", "position_residual"))
    fig, ax = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    styles = ("-", "--", ":", "-.")
    for k, row in enumerate(rows):
        status = int(tr.status[row])
        label = f"{unit} {label_of_row[row]}" + ("" if status == 0 else f" (status {status}, step {int(tr.failed_step[row])})")
        line = ax[0, 1].plot(t, energy[:, k], color=f"C{k}", label=label)[0]
        if tr.mechanism:  # each body's |ω|, the bodies told apart by line style; the joints' residual
            if omega is not None:
                for b, name in enumerate(tr.body_names):
                    ax[0, 0].plot(t, np.linalg.norm(omega[:, k, 3 * b:3 * b + 3], axis=-1), styles[b % 4],
                                  color=line.get_color(), lw=1, label=name if k == 0 and b < 8 else None)
            if residual is not None:
                ax[1, 0].semilogy(t, np.where(residual[:, k] > 0, residual[:, k], np.nan), color=line.get_color())
        else:
            if omega is not None:
                ax[0, 0].plot(t, np.linalg.norm(omega[:, k], axis=-1), color=line.get_color(), label=label)
                for c, style in zip(range(3), styles[1:]):
                    ax[0, 0].plot(t, omega[:, k, c], style, color=line.get_color(), lw=0.7)
            ax[1, 0].plot(t, np.degrees(nutation(quaternion[:, k])), color=line.get_color())
        if momentum is not None:
            ax[1, 1].plot(t, np.linalg.norm(momentum[:, k], axis=-1), color=line.get_color())
    if tr.mechanism:
        ax[0, 0].set_ylabel("|ω| of each body (line style: body)")
        ax[0, 0].legend(fontsize="small")
        ax[1, 0].set_ylabel("joint residual max |C|")
    else:
        ax[0, 0].set_ylabel("ω, body frame")
        ax[0, 0].legend([plt.Line2D([], [], color="k", ls=style, lw=lw) for style, lw in zip(styles, (1.5, 0.7, 0.7, 0.7))],
                        ["|ω|", "ω_x", "ω_y", "ω_z"], fontsize="small", ncol=2, loc="best")
        ax[1, 0].set_ylabel("nutation of body z from spatial z [deg]")
    ax[0, 1].set_ylabel("energy")
    ax[1, 1].set_ylabel("|L| (spatial angular momentum)")
    if omega is None:  # not among the file's channels
        ax[0, 0].set_visible(False)
    if tr.mechanism and residual is None:
        ax[1, 0].set_visible(False)
    ax[0, 1].legend(fontsize="small")
    for a in ax[1]:
        a.set_xlabel("t")
    if note:
        fig.suptitle(note, fontsize="small")
    fig.tight_layout()
    path = os.path.join(out, "trajectories.png")
    fig.savefig(path)
    plt.close(fig)
    written.append(path)

    bands = ensemble_bands(tr)

    # Drift of the chosen bodies inside the ensemble envelope.
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.5), sharex=True)
    panels = [("energy_drift", relative_drift(energy, energy[0][None]), "(E − E0)/|E0|")]
    if momentum is not None:
        panels.append(("angular_momentum_drift", relative_drift(momentum, momentum[0][None], vector=True), "‖L − L0‖/‖L0‖"))
    for a, (name, mine, label) in zip(ax, panels):
        b = bands[name]
        a.fill_between(t, b["min"], b["max"], color="0.85", lw=0,
                       label=f"ensemble min–max ({tr.n} {'bodies' if unit == 'body' else 'mechanisms'})")
        for k, row in enumerate(rows):
            a.plot(t, mine[:, k], lw=1, label=f"{unit} {label_of_row[row]}")
        a.set_ylabel(label)
        a.set_xlabel("t")
        a.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        a.legend(fontsize="small")
    if len(panels) < len(ax):
        ax[-1].set_visible(False)
    if note:
        fig.suptitle(note, fontsize="small")
    fig.tight_layout()
    path = os.path.join(out, "drift.png")
    fig.savefig(path)
    plt.close(fig)
    written.append(path)

    # Ensemble bands and final-time histograms, computed here from the healthy bodies.
    labels = {"energy_drift": "(E − E0)/|E0|", "omega_norm": "|ω|", "nutation": "nutation [rad]",
              "angular_momentum_drift": "‖L − L0‖/‖L0‖", "position_residual": "joint residual max |C|"}
    for name, b in bands.items():
        if wanted and name not in wanted:
            continue
        written.append(band_figure(os.path.join(out, f"ensemble_{name}.png"), t, b, LEVELS, labels[name],
                                   "from the trajectories", note, "bodies" if unit == "body" else "mechanisms"))
    last = tr.nt - 1
    final = tr.observables(last, last + 1)
    healthy = tr.healthy(last, last + 1)[0]
    fig, ax = plt.subplots(1, len(final), figsize=(4 * len(final), 4))
    for a, (name, v) in zip(np.atleast_1d(ax), final.items()):
        v = v[0][healthy & np.isfinite(v[0])]
        a.hist(v, bins=max(5, min(60, int(np.sqrt(v.size)) if v.size else 5)), color="tab:blue", alpha=0.7)
        a.set_xlabel(labels[name])
        a.set_title(f"t = {t[last]:g}, {v.size} healthy {'bodies' if unit == 'body' else 'mechanisms'}",
                    fontsize="small")
    np.atleast_1d(ax)[0].set_ylabel("bodies" if unit == "body" else "mechanisms")
    if note:
        fig.suptitle(note, fontsize="small")
    fig.tight_layout()
    path = os.path.join(out, "final_histogram.png")
    fig.savefig(path)
    plt.close(fig)
    written.append(path)
    return written


# ---------------------------------------------------------------- quatstep verify
def read_csv(path):
    """Columns of a CSV file with a header, as arrays (numbers) or lists (text)."""
    import csv
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    columns = {}
    for k, name in enumerate(rows[0]):
        values = [r[k] for r in rows[1:]]
        try:
            columns[name] = np.array([float(v) for v in values])
        except ValueError:
            columns[name] = values
    return columns


def verify_plots(directory):
    """verify_<study>.png from the CSV files of `quatstep verify`."""
    written = []

    def save(fig, name):
        path = os.path.join(directory, name)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
        written.append(path)

    c = read_csv(os.path.join(directory, "spin_up.csv"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(c["t"], c["exact"], "k-", lw=3, alpha=0.3, label="exact ω = t M/I")
    ax.plot(c["t"], c["omega_modified_hht"], label="modified HHT, α = 0")
    ax.plot(c["t"], c["omega_classical_hht"], label="classical HHT, α = −0.2")
    ax.set(xlabel="t [s]", ylabel="ω_x [rad/s]", title="Spin-up under a unit torque, h = 0.01 (Sherif §7)")
    ax.legend()
    save(fig, "verify_spin_up.png")

    c = read_csv(os.path.join(directory, "heavy_top.csv"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    methods = list(dict.fromkeys(c["method"]))
    for m in methods:
        rows = [i for i, x in enumerate(c["method"]) if x == m]
        ax.loglog(c["h"][rows], c["e_omega"][rows], "o-", label=m)
    h = np.array(sorted(set(c["h"])))
    ref = c["e_omega"][0]
    ax.loglog(h, ref * (h / h.max()) ** 2, "k:", label="slope 2")
    ax.loglog(h, ref * (h / h.max()), "k--", label="slope 1")
    ax.set(xlabel="h", ylabel="e_ω", title="Heavy top, α = −0.2 (Sherif §10.1)")
    ax.legend(fontsize="small")
    save(fig, "verify_heavy_top.png")

    c = read_csv(os.path.join(directory, "eml.csv"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, label in (("energy_drift", "|E − E0|/E0"), ("momentum_drift", "‖L − L0‖/‖L0‖"), ("unity_drift", "| |q| − 1 |")):
        ax.semilogy(c["t"], np.where(c[name] > 0, c[name], np.nan), lw=0.8, label=label)
    ax.set(xlabel="t", ylabel="relative drift", title="Free rotation, EML, h = 0.05 (Kinon & Betsch §5.3)")
    ax.legend()
    save(fig, "verify_eml.png")

    c = read_csv(os.path.join(directory, "zupan.csv"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    paper = {("Simo–Vu-Quoc", 0.05): 0.084, ("Zupan3", 0.05): 0.0022, ("Simo–Vu-Quoc", 0.01): 0.0035, ("Zupan3", 0.01): 0.000017}
    for m in dict.fromkeys(c["method"]):
        rows = [i for i, x in enumerate(c["method"]) if x == m]
        line = ax.loglog(c["h"][rows], c["max_angle_error"][rows], "o-", label=f"{m}, measured")[0]
        ax.loglog([hh for (mm, hh) in paper if mm == m], [v for (mm, hh), v in paper.items() if mm == m], "x",
                  color=line.get_color(), ms=10, label=f"{m}, paper")
    ax.set(xlabel="h", ylabel="max angle error on [0, 5π]", title="Prescribed rotation, case (ii) (Zupan §IV.A)")
    ax.legend(fontsize="small")
    save(fig, "verify_zupan.png")

    c = read_csv(os.path.join(directory, "four_bar.csv"))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    axes[0].plot(c["t"], c["energy"], label="E")
    axes[0].plot(c["t"], c["linear_momentum_x"], label="p_x (400 after the load)")
    axes[0].plot(c["t"], c["angular_momentum_norm"], label="‖L‖")
    axes[0].set(xlabel="t", title="Four-bar loop, modified HHT + shift, h = 0.01 (Kinon & Betsch §5.5)")
    axes[0].legend(fontsize="small")
    axes[1].semilogy(c["t"], np.where(c["position_residual"] > 0, c["position_residual"], np.nan), lw=0.8)
    axes[1].set(xlabel="t", ylabel="max |C|", title="Joint residual")
    save(fig, "verify_four_bar.png")

    c = read_csv(os.path.join(directory, "four_bar_eml.csv"))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    floor = 1e-17  # exact zeros on a log axis
    for ax, key, title in ((axes[0], "energy_drift", "Generalized energy (74)"),
                           (axes[1], "momentum_drift", "Spatial angular momentum")):
        ax.semilogy(c["t"], np.maximum(c[key], floor), label="equivariant joint gradient")
        ax.semilogy(c["t"], np.maximum(c["midpoint_" + key], floor), label="midpoint joint gradient")
        ax.set(xlabel="t", ylabel="relative change since t = 1", title=f"Four-bar, EML, h = 0.1: {title}")
        ax.legend(fontsize="small")
    save(fig, "verify_four_bar_eml.png")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(prog="plot.py", description="PNG plots of a quatstep result file (trajectories and/or statistics).")
    parser.add_argument("result", nargs="?", help="HDF5 file written by quatstep")
    parser.add_argument("--verify", metavar="DIR", help="draw the curves `quatstep verify` wrote into DIR instead")
    parser.add_argument("--out", help="directory for the PNG files (default: RESULT without .h5, plus _plots)")
    parser.add_argument("--bodies", default="", help="bodies (mechanisms) whose trajectories are drawn, ensemble "
                        "indices (default: the first three with trajectories)")
    parser.add_argument("--observables", help="comma-separated observables to plot (default: all)")
    args = parser.parse_args(argv)
    if args.verify:
        for path in verify_plots(args.verify):
            print(path)
        return 0
    if not args.result:
        parser.error("a result file (or --verify DIR) is needed")

    try:
        bodies = [int(b) for b in args.bodies.split(",") if b.strip()]
    except ValueError:
        parser.error(f"--bodies: '{args.bodies}' is not a comma-separated list of body indices")
    wanted = set(args.observables.split(",")) if args.observables else set()
    out = args.out or os.path.splitext(args.result)[0] + "_plots"
    os.makedirs(out, exist_ok=True)
    try:
        f = h5py.File(args.result, "r")
    except OSError as e:
        print(f"plot.py: {args.result}: cannot open as HDF5 ({e})", file=sys.stderr)
        return 1
    with f:
        available = set(f["statistics"].keys()) if "statistics" in f else set()
        if "energy" in f and "quaternion" in f:
            available |= set(Trajectories(f).names())
        unknown = sorted(wanted - available)
        if unknown:
            print(f"plot.py: {args.result}: no observable {', '.join(unknown)} in this file (it has: "
                  f"{', '.join(sorted(available)) or 'none'})", file=sys.stderr)
            return 1
        if bodies and (why := missing_trajectories(f, bodies)):
            print(f"plot.py: {args.result}: --bodies {args.bodies}: {why}", file=sys.stderr)
            return 1
        if note := interrupted_note(f):
            print(f"plot.py: {args.result}: {note}: its plots end there (`quatstep run --resume {args.result}` "
                  f"continues it)", file=sys.stderr)
        written = []
        if "statistics" in f:
            written += statistics_plots(f, out, wanted)
        if "energy" in f and "quaternion" in f:
            written += trajectory_plots(f, out, bodies, wanted)
        if not written:
            print(f"plot.py: {args.result}: neither trajectories (/energy, /quaternion) nor /statistics", file=sys.stderr)
            return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
