#!/usr/bin/env python3
"""ptxas resource usage of the batch kernels → Markdown table (bench/gpu_resources.sh).

Reads a build log made with QUATSTEP_CUDA_RESOURCE_USAGE=ON, keeps the kernels of
kernels/ensemble_kernels.cuh, and adds the theoretical occupancy on an H100 (sm_90) at the block
size of 128: 65536 registers per SM allocated per warp in units of 256, at most 64 warps and 32
blocks per SM."""
import re
import subprocess
import sys

BLOCK_WARPS = 4  # block_size 128


def occupancy(registers):
    per_warp = -(-registers * 32 // 256) * 256
    warps = min(64, 65536 // per_warp)
    blocks = min(32, warps // BLOCK_WARPS)
    return blocks * BLOCK_WARPS / 64


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def describe(demangled):
    """'advance_bodies', 'ModifiedHht<HeavyTop<double>>'-like label from a demangled kernel name."""
    kernel = re.search(r"quatstep::cuda::(\w+)<", demangled).group(1)
    arg = demangled[demangled.index("<") + 1:]
    arg = arg.replace("quatstep::", "")
    arg = re.sub(r"\(.*$", "", arg)[:-1]  # drop the parameter list and the closing '>'
    return kernel, arg


def main(log_path):
    text = open(log_path, encoding="utf-8", errors="replace").read()
    props = {}
    for m in re.finditer(r"Function properties for (\S+)\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores, "
                         r"(\d+) bytes spill loads\n.*?Used (\d+) registers", text):
        name, stack, stores, loads, regs = m.groups()
        props[name] = (int(regs), int(stack), int(stores), int(loads))
    kernels = {n: p for n, p in props.items() if "quatstep4cuda" in n}
    if not kernels:
        sys.exit("no quatstep kernels in the log: was it built with QUATSTEP_CUDA_RESOURCE_USAGE=ON?")
    rows = []
    for name, label in zip(kernels, demangle(list(kernels))):
        kernel, integrator = describe(label)
        rows.append((integrator, kernel) + kernels[name])
    rows.sort()
    print("| integrator | kernel | registers | stack [B] | spill stores [B] | spill loads [B] | occupancy (H100) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for integrator, kernel, regs, stack, stores, loads in rows:
        print(f"| `{integrator}` | {kernel} | {regs} | {stack} | {stores} | {loads} | {occupancy(regs):.0%} |")
    spilling = sum(1 for r in rows if r[4] or r[5])
    print(f"\n{len(rows)} kernels, {spilling} with spills.")


if __name__ == "__main__":
    main(sys.argv[1])
