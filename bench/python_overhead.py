"""Overhead of the Python module: quatstep.Ensemble.advance(100) on 10⁴ heavy tops against the same
C++ call (bench_python_overhead, BodyEnsemble::advance), in alternating rounds so that both see the
same machine load. Prints both medians and their ratio (figures in bench/python.md).

    PYTHONPATH=build/python:python python3 bench/python_overhead.py build/bench/bench_python_overhead [rounds]
"""
import json
import subprocess
import sys
import time

import numpy as np

import quatstep

REPETITIONS, BODIES, STEPS = 30, 10_000, 100


def python_median():
    spin = 100.0 + 100.0 * np.arange(BODIES) / BODIES  # as the C++ program
    omega = np.column_stack([np.zeros(BODIES), spin, np.full(BODIES, -4.61538)])
    ens = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters={
        "inertia": [0.234375, 0.46875, 0.234375], "mass": 15.0, "center_of_mass": [0, 1, 0],
        "gravity": [0, 0, -9.81], "omega_body": omega})
    ens.advance(STEPS)  # warm-up
    seconds = []
    for _ in range(REPETITIONS):
        t0 = time.perf_counter()
        ens.advance(STEPS)
        seconds.append(time.perf_counter() - t0)
    call = []
    for _ in range(1000):  # the fixed cost of a call, as the C++ program measures it
        t0 = time.perf_counter()
        ens.advance(0)
        call.append(time.perf_counter() - t0)
    return float(np.median(seconds)), float(np.median(call))


def main():
    exe = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    py, cpp, py_call, cpp_call = [], [], [], []
    for _ in range(rounds):
        out = json.loads(subprocess.run([exe, str(REPETITIONS), str(BODIES), str(STEPS)], capture_output=True,
                                        text=True, check=True).stdout)
        cpp.append(out["median_s"])
        cpp_call.append(out["call_median_s"])
        median, call = python_median()
        py.append(median)
        py_call.append(call)
    ratio = np.median(py) / np.median(cpp)
    print(f"advance({STEPS}) on {BODIES} heavy tops, median of {REPETITIONS} calls, {rounds} alternating rounds:")
    print(f"  C++    {np.median(cpp) * 1e3:8.3f} ms  (rounds: {', '.join(f'{s * 1e3:.2f}' for s in cpp)})")
    print(f"  Python {np.median(py) * 1e3:8.3f} ms  (rounds: {', '.join(f'{s * 1e3:.2f}' for s in py)})")
    print(f"  Python / C++ = {ratio:.4f}")
    extra = np.median(py_call) - np.median(cpp_call)
    print(f"advance(0), the fixed cost of a call, median of 1000: C++ {np.median(cpp_call) * 1e6:.2f} us, "
          f"Python {np.median(py_call) * 1e6:.2f} us: Python adds {extra * 1e6:.2f} us per call, "
          f"{extra / np.median(cpp):.2e} of advance({STEPS})")


if __name__ == "__main__":
    main()
