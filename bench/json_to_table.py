#!/usr/bin/env python3
"""Turn bench_cpu_throughput's --benchmark_format=json output into the Markdown table of README.md.

Usage: json_to_table.py RESULT.json                 print the table
       json_to_table.py RESULT.json --into README.md  replace the text between the markers
                                                      <!-- cpu-table:begin --> and <!-- cpu-table:end -->
Uses the median aggregate when the run had repetitions, the single run otherwise. Standard library only.
"""
import json
import sys


def parse_run_name(run_name):
    """'ModifiedHht+shift/bodies:1024/threads:2/process_time/real_time' -> (method, bodies, threads)."""
    parts = run_name.split("/")
    fields = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    return parts[0], int(fields["bodies"]), int(fields["threads"])


def rows(report):
    have_aggregates = any(b.get("run_type") == "aggregate" for b in report["benchmarks"])
    for b in report["benchmarks"]:
        if have_aggregates and b.get("aggregate_name") != "median":
            continue
        method, bodies, threads = parse_run_name(b["run_name"])
        if "error_occurred" in b and b["error_occurred"]:
            yield method, bodies, threads, None, None, None, b.get("error_message", "error")
            continue
        yield (method, bodies, threads, b["body_steps/s"], b["body_steps/s/thread"], b["newton_it/step"], "")


def target(method, per_thread, newton):
    """The issue's target for the modified HHT family: >= 1e6 body-steps/s per core, <= 4 Newton it./step."""
    if not method.startswith("ModifiedHht"):
        return "-"
    return "met" if per_thread >= TARGET_RATE_PER_CORE and newton <= TARGET_NEWTON else "not met"


TARGET_RATE_PER_CORE = 1e6
TARGET_NEWTON = 4.0
BEGIN, END = "<!-- cpu-table:begin -->", "<!-- cpu-table:end -->"


def table(report):
    ctx = report["context"]
    out = []
    medians = [b for b in report["benchmarks"] if b.get("aggregate_name") == "median"]
    reps = " (median of %d repetitions)" % medians[0]["repetitions"] if medians else ""
    out.append("Machine: %s, %s logical CPUs (OpenMP max threads %s); compiler: %s; date: %s%s."
               % (ctx.get("cpu_model", "?"), ctx.get("num_cpus", "?"), ctx.get("omp_max_threads", "?"),
                  ctx.get("compiler", "?"), ctx.get("date", "?"), reps))
    out.append("")
    out.append("| integrator | bodies | threads | body-steps/s | body-steps/s per thread | Newton it./step | target |")
    out.append("|---|---:|---:|---:|---:|---:|---|")
    for method, bodies, threads, rate, per_thread, newton, error in rows(report):
        if error:
            out.append("| %s | %d | %d | %s | | | |" % (method, bodies, threads, error))
        else:
            out.append("| %s | %d | %d | %.3g | %.3g | %.2f | %s |"
                       % (method, bodies, threads, rate, per_thread, newton, target(method, per_thread, newton)))
    return "\n".join(out)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--into"):
        sys.exit(__doc__)
    with open(argv[1]) as f:
        text = table(json.load(f))
    if len(argv) == 2:
        print(text)
        return
    with open(argv[3]) as f:
        doc = f.read()
    head, sep, rest = doc.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        sys.exit("%s: markers %s ... %s not found" % (argv[3], BEGIN, END))
    with open(argv[3], "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


if __name__ == "__main__":
    main(sys.argv)
