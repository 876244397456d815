#!/usr/bin/env python3
"""Work–precision plot (max geodesic error vs wall time, log–log) from the CSV written by
zupan_work_precision:  python3 bench/plot_work_precision.py CSV PNG   (needs matplotlib)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path: str, png_path: str) -> None:
    series = defaultdict(list)
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            series[row["method"]].append((float(row["seconds"]) * 1e3, float(row["error"]), float(row["h"])))
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for method, pts in series.items():
        pts.sort()
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label=method)
    ax.set_xlabel("wall time of the step loop [ms]")
    ax.set_ylabel("max geodesic error on [0, 5π] [rad]")
    ax.set_title("Zupan §IV.A case (ii): work–precision (h = 0.1 … 0.003125)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
