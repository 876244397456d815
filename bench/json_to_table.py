#!/usr/bin/env python3
"""Turn the --benchmark_format=json output of bench_cpu_throughput into the Markdown table of
bench/README.md; its helpers also serve gpu_table.py, peers_table.py and
studies/simd_lanes/simd_table.py. Standard library only.

Usage: json_to_table.py RESULT.json                 print the table
       json_to_table.py RESULT.json --into README.md  replace the text between <!-- cpu-table:begin -->
                                                      and <!-- cpu-table:end -->
Uses the median aggregate when the run had repetitions, the single run otherwise.
"""
import json
import sys

# The target for the modified HHT family.
TARGET_RATE_PER_CORE = 1e6
TARGET_NEWTON = 4.0


def parse_run_name(run_name):
    """'ModifiedHht+shift/bodies:1024/threads:2/process_time/real_time' -> ('ModifiedHht+shift', None, fields);
    'Hht/lanes4/bodies:1024' -> ('Hht', 'lanes4', fields)."""
    parts = run_name.split("/")
    fields = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    variant = parts[1] if len(parts) > 1 and ":" not in parts[1] else None
    return parts[0], variant, fields


def runs(report):
    """One dict per benchmark: the median aggregate if there are repetitions, else the run."""
    have_aggregates = any(b.get("run_type") == "aggregate" for b in report["benchmarks"])
    for b in report["benchmarks"]:
        if have_aggregates and b.get("aggregate_name") != "median":
            continue
        method, variant, fields = parse_run_name(b["run_name"])
        yield dict(method=method, variant=variant, bodies=int(fields["bodies"]),
                   threads=int(fields.get("threads", 1)),
                   error=b.get("error_message", "error") if b.get("error_occurred") else "",
                   rate=b.get("body_steps/s"), per_thread=b.get("body_steps/s/thread"),
                   per_cpu_s=b.get("body_steps/cpu_s"),
                   newton=b.get("newton_it/step"),
                   repetitions=b.get("repetitions") if have_aggregates else None)


def target(method, per_core, newton):
    """>= 1e6 body-steps/s per core with <= 4 Newton iterations per step, for ModifiedHht*."""
    if not method.startswith("ModifiedHht"):
        return "-"
    return "met" if per_core >= TARGET_RATE_PER_CORE and newton <= TARGET_NEWTON else "not met"


def header(report, rows):
    ctx = report["context"]
    reps = [r["repetitions"] for r in rows if r["repetitions"]]
    return ("Machine: %s, %s logical CPUs (OpenMP max threads %s); compiler: %s; date: %s%s."
            % (ctx.get("cpu_model", "?"), ctx.get("num_cpus", "?"), ctx.get("omp_max_threads", "?"),
               ctx.get("compiler", "?"), ctx.get("date", "?")[:10],
               " (median of %d repetitions)" % reps[0] if reps else ""))


def cpu_table(report, rows):
    out = [header(report, rows), "",
           "| integrator | bodies | threads | body-steps/s | per thread | per CPU-second | Newton it./step | target |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r["error"]:
            out.append("| %s | %d | %d | %s | | | | |" % (r["method"], r["bodies"], r["threads"], r["error"]))
        else:
            out.append("| %s | %d | %d | %.3g | %.3g | %.3g | %.2f | %s |"
                       % (r["method"], r["bodies"], r["threads"], r["rate"], r["per_thread"], r["per_cpu_s"],
                          r["newton"], target(r["method"], r["per_cpu_s"], r["newton"])))
    return out


def table(report):
    """(marker kind, Markdown text) for this report."""
    return "cpu-table", "\n".join(cpu_table(report, list(runs(report))))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--into"):
        sys.exit(__doc__)
    with open(argv[1]) as f:
        kind, text = table(json.load(f))
    if len(argv) == 2:
        print(text)
        return
    replace_between_markers(argv[3], kind, text)


def replace_between_markers(path, kind, text):
    """Put `text` between <!-- KIND:begin --> and <!-- KIND:end --> in the file at `path`."""
    begin, end = "<!-- %s:begin -->" % kind, "<!-- %s:end -->" % kind
    with open(path) as f:
        doc = f.read()
    head, sep, rest = doc.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        sys.exit("%s: markers %s ... %s not found" % (path, begin, end))
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text + "\n" + end + tail)


if __name__ == "__main__":
    main(sys.argv)
