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
"""
import argparse
import collections
import re

LINE = re.compile(r'\s*//## File "(.*)", line (\d+)')
LABEL = re.compile(r"^(\.L_x_\d+):")
INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)(\S*)\s*(.*)")
BRANCH_TARGET = re.compile(r"(\.L_x_\d+)")
FP64 = {"DFMA", "DMUL", "DADD"}


def read(path):
    """[(address, opcode, operands, source line)] and {label: address}."""
    instructions, labels, pending, source = [], {}, [], None
    for text in open(path):
        if m := LINE.match(text):
            source = f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}"
        elif m := LABEL.match(text):
            pending.append(m.group(1))
        elif m := INSTRUCTION.match(text):
            address = int(m.group(1), 16)
            for label in pending:
                labels[label] = address
            pending = []
            instructions.append((address, m.group(2), m.group(4), source))
    return instructions, labels


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
    parser.add_argument("sass", help="output of nvdisasm -c -g")
    args = parser.parse_args()
    instructions, labels = read(args.sass)
    print(f"{len(instructions)} instructions")
    print("| loop (addresses) | closed at | instructions | STL | LDL | FP64 |")
    print("|---|---|---:|---:|---:|---:|")
    for first, last, source in loops(instructions, labels):
        body = collections.Counter(op for a, op, _, _ in instructions if first <= a <= last)
        fp64 = sum(body[op] for op in FP64)
        print(f"| {first:x}–{last:x} | {source} | {sum(body.values())} | {body['STL']} | {body['LDL']} | {fp64} |")


if __name__ == "__main__":
    main()
