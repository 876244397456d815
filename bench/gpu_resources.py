#!/usr/bin/env python3
"""ptxas resource usage of the batch kernels → Markdown table (bench/gpu_resources.sh).
Usage: gpu_resources.py LOG [README DATE] — the table on stdout; with README, the stepping
kernels' rows also go between its gpu-resources markers.

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


# The user-facing names of the class templates behind the aliases (hht.hpp, livens_*.hpp,
# hamiltonian_*.hpp): (template, enum value) -> alias; a Livens variant other than the default
# (livens_variant.hpp) stays as the alias's second argument.
ALIASES = {("HhtFamily", "0"): "Hht", ("HhtFamily", "1"): "ModifiedHht",
           ("LivensIntegrator", "0"): "LivensEm", ("LivensIntegrator", "1"): "LivensMidpoint",
           ("HamiltonianQuaternion", "0"): "HamiltonianEm", ("HamiltonianQuaternion", "1"): "HamiltonianMidpoint"}
LIVENS_VARIANTS = ["reduced", "full", "nullspace"]


def template_argument(text, start):
    """The text between the '<' at `start` and its matching '>'."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"<": 1, ">": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i]
    raise ValueError(text)


def top_level_arguments(text):
    """The comma-separated template arguments of `text` at nesting depth 0."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def alias(integrator):
    """The user-facing name of an integrator type: HhtFamily<M,(VelocityUpdate)1> -> ModifiedHht<M>,
    AdaptiveHht<...> with its integrator named so."""
    a = re.match(r"AdaptiveHht<(.*)>$", integrator)
    if a:
        return "AdaptiveHht<%s>" % alias(a.group(1))
    n = re.match(r"(\w+)<(\w+<\w+>),\(\w+\)(\d)(?:,\(LivensVariant\)(\d))?>$", integrator)
    if n and (n.group(1), n.group(3)) in ALIASES:
        variant = LIVENS_VARIANTS[int(n.group(4) or 0)]
        return "%s<%s%s>" % (ALIASES[(n.group(1), n.group(3))], n.group(2),
                             ",LivensVariant::" + variant if variant != "reduced" else "")
    return integrator


def describe(demangled):
    """('advance_bodies', 'ModifiedHht<HeavyTop<double>>') from a demangled kernel name: the kernel
    and its first template argument (the integrator or adaptive stepper); None for other kernels."""
    m = re.search(r"quatstep::cuda::(\w+)<", demangled)
    if not m:
        return None
    arguments = template_argument(demangled, m.end() - 1).replace("quatstep::", "").replace(" ", "")
    return m.group(1), alias(top_level_arguments(arguments)[0])


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
        described = describe(label)
        if described:
            rows.append(described[::-1] + kernels[name])
    rows.sort()
    return rows


def table(rows):
    lines = ["| integrator | kernel | registers | stack [B] | spill stores [B] | spill loads [B] | occupancy (H100) |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for integrator, kernel, regs, stack, stores, loads in rows:
        lines.append(f"| `{integrator}` | {kernel} | {regs} | {stack} | {stores} | {loads} | {occupancy(regs):.0%} |")
    spilling = sum(1 for r in rows if r[4] or r[5])
    with_stack = sum(1 for r in rows if r[3])
    lines.append(f"\n{len(rows)} kernels, {spilling} with spills, {with_stack} with a stack frame (local memory).")
    return "\n".join(lines)


def summarize_in(readme, rows, date):
    """The stepping kernels' rows between the gpu-resources markers of bench/README.md."""
    begin, end = "<!-- gpu-resources:begin -->", "<!-- gpu-resources:end -->"
    text = open(readme, encoding="utf-8").read()
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    stepping = [r for r in rows if r[1] == "advance_bodies"]
    body = ("The stepping kernel of each integrator (`advance_bodies`; the other kernels are in\n"
            f"`bench/gpu_resources.md`), sm_90, fast mode, measured {date}:\n\n" + table(stepping) + "\n")
    open(readme, "w", encoding="utf-8").write(head + begin + "\n" + body + end + tail)


if __name__ == "__main__":
    rows = main(sys.argv[1])
    print(table(rows))
    if len(sys.argv) > 3:
        summarize_in(sys.argv[2], rows, sys.argv[3])
