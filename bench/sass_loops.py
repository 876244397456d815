#!/usr/bin/env python3
"""Instructions and local-memory accesses per loop of a kernel's machine code (no GPU needed).

ptxas's "stack frame" and "spill" figures (bench/gpu_resources.md) say how much a kernel spills, not
where: a spill around a loop that runs once per step costs little, one inside Newton's iteration
costs every iteration. This reads the SASS of `nvdisasm -c -g` (source lines as comments), finds the
loops (backward branches) and prints, innermost last, each loop's size in instructions, its spill
stores (STL) and loads (LDL), and its FP64 arithmetic (DFMA, DMUL, DADD).

Making the SASS of one kernel (nvcc and ptxas are on this machine; nvdisasm is not, but the triton
wheel from PyPI carries one: `pip download --no-deps triton`, then unzip its
triton/backends/nvidia/bin/nvdisasm):
    nvcc <the build's flags> -arch=sm_90 -lineinfo -cubin -o k.cubin one_kernel.cu
    nvdisasm -c -g k.cubin > k.sass
    bench/sass_loops.py k.sass
where one_kernel.cu includes kernels/ensemble_kernels.cuh and instantiates the kernel explicitly,
e.g. `template __global__ void cuda::advance_bodies<I>(I, const M*, SoaView<double>, BodyRecord,
double, double, index_t, index_t, SampleView<double>);`.

Parts of a loop (which code runs on which iteration): disassemble with `nvdisasm -c -gi`, which
writes each instruction's chain of inlined calls, and name call sites, e.g.
    bench/sass_loops.py k.sass --part linearize=newton.hpp:174 --part residual=newton.hpp:169
counts each loop's own instructions (those of no loop inside it) by the first part with a site in
their chain (their own line or a call site), the rest as "rest"; several sites join with '+'.
"""
import argparse
import collections
import re

LINE = re.compile(r'\s*//## File "(.*?)", line (\d+)(?: inlined at "(.*?)", line (\d+))?')
LABEL = re.compile(r"^(\.L_x_\d+):")
INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)(\S*)\s*(.*)")
BRANCH_TARGET = re.compile(r"(\.L_x_\d+)")
FP64 = {"DFMA", "DMUL", "DADD"}


def location(path, line):
    return f"{path.rsplit('/', 1)[-1]}:{line}"


def read(path):
    """[(address, opcode, operands, source line)], {label: address} and {address: its source line
    and the call sites it was inlined through (with -gi)}. The source line is the innermost, the
    first of a block of line comments."""
    instructions, labels, chains, pending, source, chain, in_block = [], {}, {}, [], None, [], False
    for text in open(path):
        if m := LINE.match(text):
            if not in_block:
                source = location(m.group(1), m.group(2))
                chain = [source]
            if m.group(3):
                chain.append(location(m.group(3), m.group(4)))
            in_block = True
            continue
        in_block = False
        if m := LABEL.match(text):
            pending.append(m.group(1))
        elif m := INSTRUCTION.match(text):
            address = int(m.group(1), 16)
            for label in pending:
                labels[label] = address
            pending = []
            instructions.append((address, m.group(2), m.group(4), source))
            chains[address] = set(chain)
    return instructions, labels, chains


def loops(instructions, labels):
    """(first, last address, source of the branch) of each backward branch."""
    found = []
    for address, opcode, operands, source in instructions:
        if opcode == "BRA" and (m := BRANCH_TARGET.search(operands)):
            target = labels.get(m.group(1))
            if target is not None and target <= address:
                found.append((target, address, source))
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sass", help="output of nvdisasm -c -g (or -gi, for --part)")
    parser.add_argument("--part", action="append", default=[], metavar="NAME=FILE:LINE[+FILE:LINE…]",
                        help="count each loop's own instructions inlined through these call sites")
    args = parser.parse_args()
    parts = [(name, set(sites.split("+"))) for name, sites in (p.split("=", 1) for p in args.part)]
    instructions, labels, chains = read(args.sass)
    found = loops(instructions, labels)
    print(f"{len(instructions)} instructions")
    print("| loop (addresses) | closed at | instructions | STL | LDL | FP64 |")
    print("|---|---|---:|---:|---:|---:|")
    for first, last, source in found:
        body = collections.Counter(op for a, op, _, _ in instructions if first <= a <= last)
        fp64 = sum(body[op] for op in FP64)
        print(f"| {first:x}–{last:x} | {source} | {sum(body.values())} | {body['STL']} | {body['LDL']} | {fp64} |")
    if not parts:
        return
    if not any(len(chain) > 1 for chain in chains.values()):
        raise SystemExit("--part needs the call chains of nvdisasm -c -gi")
    names = [name for name, _ in parts] + ["rest"]
    print("\nOwn instructions of each loop (none of a loop inside it) by part:\n")
    print("| loop | closed at | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for first, last, source in found:
        inner = [(f, l) for f, l, _ in found if first <= f and l <= last and (f, l) != (first, last)]
        count = collections.Counter()
        for a, _, _, _ in instructions:
            if first <= a <= last and not any(f <= a <= l for f, l in inner):
                count[next((name for name, sites in parts if sites & chains[a]), "rest")] += 1
        print(f"| {first:x}–{last:x} | {source} | " + " | ".join(str(count[n]) for n in names) + " |")


if __name__ == "__main__":
    main()
