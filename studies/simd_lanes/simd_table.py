#!/usr/bin/env python3
"""study_simd_lanes's --benchmark_format=json output → its Markdown table in studies/README.md, between
<!-- simd-table-ISA:begin --> and <!-- simd-table-ISA:end -->, ISA the widest instruction set of the run
(the JSON context "simd": avx2, or avx512 where the CPU has AVX-512; its table then has both
instruction sets' rows). Standard library only (bench/json_to_table.py's helpers).

Usage: simd_table.py RESULT.json [--into README.md]
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from json_to_table import header, replace_between_markers, runs  # noqa: E402


def simd_table(report, rows):
    scalar = {r["method"]: r["rate"] for r in rows if r["variant"] == "scalar" and not r["error"]}
    out = [header(report, rows) + " Instruction set: %s; 1 thread, rates per CPU-second."
           % report["context"]["simd"], "",
           "| integrator | variant | bodies | body-steps/s | vs scalar | Newton it./step |",
           "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        if r["error"]:
            out.append("| %s | %s | %d | %s | | |" % (r["method"], r["variant"], r["bodies"], r["error"]))
        else:
            ratio = "%.2f" % (r["rate"] / scalar[r["method"]]) if r["method"] in scalar else "?"
            out.append("| %s | %s | %d | %.3g | %s | %.2f |"
                       % (r["method"], r["variant"], r["bodies"], r["rate"], ratio, r["newton"]))
    return out


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--into"):
        sys.exit(__doc__)
    with open(argv[1]) as f:
        report = json.load(f)
    text = "\n".join(simd_table(report, list(runs(report))))
    if len(argv) == 2:
        print(text)
    else:
        isa = report["context"]["simd"].lower().replace("-", "")  # "AVX-512" → avx512
        replace_between_markers(argv[3], "simd-table-" + isa, text)


if __name__ == "__main__":
    main(sys.argv)
