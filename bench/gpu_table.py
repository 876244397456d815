#!/usr/bin/env python3
"""bench_gpu's --benchmark_format=json output → the Markdown table of bench/README.md
(integrator × backend × precision × N → body-steps/s), between <!-- gpu-table:begin --> and
<!-- gpu-table:end -->. Standard library only.

Usage: gpu_table.py RESULT.json [--into README.md]
"""
import json
import sys

from json_to_table import replace_between_markers

TARGETS = {("modified_hht_shift", "double"): 1.8e9, ("livens_em_reml", "double"): 5.5e9}  # N = 1e6, cuda


def rows(report):
    for b in report["benchmarks"]:
        parts = b["run_name"].split("/")
        if parts[0] not in ("cuda", "cpu"):
            continue  # the peers have their own table (peers_table.py)
        if parts[2] == "mechanism":  # cuda/double/mechanism/METHOD/MECHANISM/N: N mechanisms, mechanism-steps/s
            parts = parts[:2] + ["%s on the %s" % (parts[3], parts[4].replace("_", "-"))] + parts[5:]
        yield dict(backend=parts[0], precision=parts[1], integrator=parts[2], bodies=int(parts[3]),
                   error=b.get("error_message", "") if b.get("error_occurred") else "",
                   rate=b.get("body_steps/s"), newton=b.get("newton_it/step"))


def table(report):
    ctx = report["context"]
    out = ["Machine: GPU %s; host %s, %s logical CPUs; date %s. Rates are wall-clock body-steps per second "
           "(all CPU threads for the CPU rows)." % (ctx.get("gpu", "?"), ctx.get("cpu_model", "?"),
                                                   ctx.get("num_cpus", "?"), ctx.get("date", "?")[:10]), "",
           "| integrator | backend | precision | N | body-steps/s | Newton it./step | target (N = 1e6) |",
           "|---|---|---|---:|---:|---:|---|"]
    for r in sorted(rows(report), key=lambda r: (r["integrator"], r["backend"], r["precision"], r["bodies"])):
        goal = TARGETS.get((r["integrator"], r["precision"])) if r["backend"] == "cuda" and r["bodies"] == 10**6 else None
        if r["error"]:
            out.append("| %s | %s | %s | %d | %s | | |" % (r["integrator"], r["backend"], r["precision"], r["bodies"],
                                                          r["error"]))
            continue
        verdict = "" if goal is None else ("met (≥ %.2g)" % goal if r["rate"] >= goal else "not met (< %.2g)" % goal)
        out.append("| %s | %s | %s | %d | %.3g | %.2f | %s |" % (r["integrator"], r["backend"], r["precision"],
                                                                r["bodies"], r["rate"], r["newton"], verdict))
    return "\n".join(out)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--into"):
        sys.exit(__doc__)
    with open(argv[1]) as f:
        text = table(json.load(f))
    if len(argv) == 2:
        print(text)
    else:
        replace_between_markers(argv[3], "gpu-table", text)


if __name__ == "__main__":
    main(sys.argv)
