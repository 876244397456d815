#!/usr/bin/env python3
"""Tables and plots of the peer benchmarks (bench/README.md, "Peers").

  peers_table.py CPU.json [--png PNG] [--into README.md]
      bench_peers_cpu's JSON: work-precision table (error at t_end, drift, rate per CPU-second,
      CPU time per body for the run) and, with --png, error against CPU time per body (log-log).
  peers_table.py GPU.json [--png PNG] [--into README.md]
      bench_gpu's JSON (its peers/ rows): body-steps/s against the number of bodies at 1000 steps, the
      work-precision table at N = 1e6 and, with --png, error against GPU time.
  peers_table.py CSV --drift PNG [--into README.md]
      peers_drift's CSV: energy and momentum drift against time (log-log), and a table of both at
      t = 1, 100 and 10⁴.
--into replaces the text between <!-- peers-cpu-table:begin/end --> (peers-gpu-table,
peers-gpu-wp-table, peers-drift-summary) in the file. Uses the median aggregate when the run had repetitions. The plots need matplotlib.
"""
import argparse
import csv
import json
from collections import defaultdict

from json_to_table import header, replace_between_markers


def parse(run_name):
    """'peer:rk4_registers/steps:400/manual_time' -> ('peer:rk4_registers', {'steps': 400});
    bench_gpu's 'peers/LivensEm/bodies:1000/steps:1000/manual_time' -> ('LivensEm', {'bodies': 1000, 'steps': 1000})."""
    parts = run_name.split("/")
    if parts[0] == "peers":
        parts = parts[1:]
    return parts[0], {k: int(v) for k, v in (p.split(":", 1) for p in parts[1:] if ":" in p)}


def runs(report):
    have_aggregates = any(b.get("run_type") == "aggregate" for b in report["benchmarks"])
    for b in report["benchmarks"]:
        if have_aggregates and b.get("aggregate_name") != "median":
            continue
        if b["run_name"].startswith(("cuda/", "cpu/")):
            continue  # bench_gpu's own integrator rows (gpu_table.py)
        method, args = parse(b["run_name"])
        yield dict(b, method=method, **args, repetitions=b.get("repetitions") if have_aggregates else None,
                   error=b.get("error_message", "error") if b.get("error_occurred") else "")


def cpu_table(report, rows):
    out = [header(report, rows) + " " + report["context"].get("ensemble", ""), "",
           "| method | steps | h | orientation error [rad] | ω error (rel.) | max energy drift | max momentum drift "
           "| body-steps per CPU-s | CPU time per body [µs] |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["error"]:
            out.append("| %s | %d | | %s | | | | | |" % (r["method"], r["steps"], r["error"]))
            continue
        out.append("| %s | %d | %.3g | %.2e | %.2e | %.2e | %.2e | %.3g | %.1f |"
                   % (r["method"], r["steps"], r["h"], r["err_q"], r["err_w"], r["drift_E"], r["drift_L"],
                      r["body_steps/cpu_s"], 1e6 * r["steps"] / r["body_steps/cpu_s"]))
    return out


def gpu_header(report, rows):
    return header(report, rows) + " GPU: %s." % report["context"].get("gpu", "?")


def gpu_table(report, rows):
    """Throughput against N at 1000 steps (h = 1e-3)."""
    out = [gpu_header(report, rows), "",
           "| method | bodies | body-steps/s | orientation error [rad] | max energy drift | max momentum drift |",
           "|---|---:|---:|---:|---:|---:|"]
    for r in (r for r in rows if r.get("steps", 1000) == 1000):
        if r["error"]:
            out.append("| %s | %d | %s | | | |" % (r["method"], r["bodies"], r["error"]))
        else:
            out.append("| %s | %d | %.3g | %.2e | %.2e | %.2e |" % (r["method"], r["bodies"], r["body_steps/s"],
                                                                   r["err_q"], r["drift_E"], r["drift_L"]))
    return out


WP_BODIES = 1000000


def gpu_wp_table(report, rows):
    """Work-precision on the GPU: N = 1e6 over the step count, error against GPU time."""
    out = [gpu_header(report, rows), "",
           "| method | steps | h | orientation error [rad] | ω error (rel.) | max energy drift | max momentum drift "
           "| body-steps/s | GPU time for 10⁶ bodies [ms] |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted((r for r in rows if r.get("bodies") == WP_BODIES), key=lambda r: (r["method"], r["steps"])):
        if r["error"]:
            out.append("| %s | %d | | %s | | | | | |" % (r["method"], r["steps"], r["error"]))
            continue
        out.append("| %s | %d | %.3g | %.2e | %.2e | %.2e | %.2e | %.3g | %.3g |"
                   % (r["method"], r["steps"], r["h"], r["err_q"], r["err_w"], r["drift_E"], r["drift_L"],
                      r["body_steps/s"], 1e3 * WP_BODIES * r["steps"] / r["body_steps/s"]))
    return out


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def style(method):
    """Peers dashed, quatstep solid."""
    return "s--" if method.startswith("peer:") else "o-"


def work_precision_plot(rows, png, gpu=False):
    plt = pyplot()
    series = defaultdict(list)
    for r in rows:
        if r["error"]:
            continue
        if gpu and r.get("bodies") == WP_BODIES:
            series[r["method"]].append((1e3 * WP_BODIES * r["steps"] / r["body_steps/s"], r["err_q"]))
        elif not gpu:
            series[r["method"]].append((1e6 * r["steps"] / r["body_steps/cpu_s"], r["err_q"]))
    fig, ax = plt.subplots(figsize=(7.2, 5.2))
    for method, pts in series.items():
        pts.sort()
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], style(method), label=method, markersize=4)
    if gpu:
        ax.set_xlabel("GPU time for 10⁶ bodies over t ∈ [0, 1] [ms]")
        ax.set_title("Free rotation, 10⁶ bodies, |ω| ≤ 20 rad/s: work–precision (GPU)")
    else:
        ax.set_xlabel("CPU time per body for t ∈ [0, 1] [µs]")
        ax.set_title("Free rotation, 512 bodies, |ω| ≤ 20 rad/s: work–precision (CPU)")
    ax.set_ylabel("max orientation error at t = 1 [rad]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def drift_series(csv_path):
    """method -> [(t, energy drift, momentum drift)] (NaN once a body has diverged)."""
    series = defaultdict(list)
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            series[row["method"]].append((float(row["t"]), float(row["energy_drift"]), float(row["momentum_drift"])))
    return series


def drift_table(series, times=(1.0, 100.0, 1e4)):
    out = ["| method | " + " | ".join("energy drift t = %g" % t for t in times) + " | "
           + " | ".join("momentum drift t = %g" % t for t in times) + " |",
           "|---|" + "---:|" * (2 * len(times))]
    for method, pts in series.items():
        at = {p[0]: p for p in pts}
        cells = ["%.2e" % at[t][col] if t in at else "" for col in (1, 2) for t in times]
        out.append("| %s | %s |" % (method, " | ".join(cells)))
    return out


def drift_plot(series, png):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharex=True)
    floor = 1e-17  # exact conservation plotted at the floor of a log axis
    for method, pts in series.items():
        for ax, col in zip(axes, (1, 2)):
            ax.loglog([p[0] for p in pts], [max(p[col], floor) for p in pts], style(method), label=method,
                      markersize=3)
    for ax, what in zip(axes, ("max |E − E0| / E0", "max |L − L0| / |L0|")):
        ax.set_xlabel("t [s] (h = 0.01)")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title("energy drift, 8 bodies")
    axes[1].set_title("angular-momentum drift, 8 bodies")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", help="benchmark JSON, or the drift CSV with --drift")
    ap.add_argument("--png")
    ap.add_argument("--into")
    ap.add_argument("--drift", metavar="PNG", help="plot peers_drift's CSV into PNG")
    a = ap.parse_args()
    if a.drift:
        series = drift_series(a.input)
        drift_plot(series, a.drift)
        lines = drift_table(series)
        if a.into:
            replace_between_markers(a.into, "peers-drift-summary", "\n".join(lines))
        else:
            print("\n".join(lines))
        return
    with open(a.input) as f:
        report = json.load(f)
    rows = list(runs(report))
    gpu = any("bodies" in r for r in rows)
    tables = ([("peers-gpu-table", gpu_table(report, rows)), ("peers-gpu-wp-table", gpu_wp_table(report, rows))]
              if gpu else [("peers-cpu-table", cpu_table(report, rows))])
    if a.png:
        work_precision_plot(rows, a.png, gpu)
    for kind, lines in tables:
        if a.into:
            replace_between_markers(a.into, kind, "\n".join(lines))
        else:
            print("\n".join(lines))


if __name__ == "__main__":
    main()
