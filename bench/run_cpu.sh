#!/usr/bin/env bash
# Build bench_cpu_throughput in Release, run it (median of REPETITIONS runs) and write its Markdown
# table (integrator × bodies × threads) into bench/README.md between the cpu-table markers
# (json_to_table.py). The CPU backend steps what it can in SIMD lanes (host/cpu_lanes.hpp); the
# lanes-against-scalar table is the study's: studies/simd_lanes/run.sh.
# Usage: bench/run_cpu.sh [extra Google Benchmark flags]
# Environment: BUILD_DIR (default build-bench-release), JOBS (default 2), REPETITIONS (default 5),
# OMP_NUM_THREADS (the "all threads" rows; default: every logical CPU).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-release}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target bench_cpu_throughput -j"${JOBS:-2}"
json="$build/bench_cpu_throughput.json"
"$build/bench/bench_cpu_throughput" --benchmark_repetitions="${REPETITIONS:-5}" --benchmark_report_aggregates_only=true \
  --benchmark_out="$json" --benchmark_out_format=json "$@"
python3 "$root/bench/json_to_table.py" "$json" --into "$root/bench/README.md"
echo "bench_cpu_throughput: table written to bench/README.md (raw results: $json)"
