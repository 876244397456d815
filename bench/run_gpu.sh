#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build bench_gpu in Release, run it (quatstep's integrators on
# both backends and precisions, N = 1e3 … 1e7, and the GPU peers in the same run), and write the
# tables into bench/README.md (gpu-table, peers-gpu-table, peers-gpu-wp-table), the GPU work–precision
# plot (bench/peers_gpu_work_precision.png) and the raw JSON next to the build.
# Usage: bench/run_gpu.sh [extra Google Benchmark flags]   Environment: BUILD_DIR, JOBS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-release}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target bench_gpu -j"${JOBS:-2}"
json="$build/bench_gpu.json"
"$build/bench/bench_gpu" --benchmark_out="$json" --benchmark_out_format=json "$@"
python3 "$root/bench/gpu_table.py" "$json" --into "$root/bench/README.md"
python3 "$root/bench/peers_table.py" "$json" --png "$root/bench/peers_gpu_work_precision.png" --into "$root/bench/README.md"
echo "tables written to bench/README.md (raw results: $json)"
