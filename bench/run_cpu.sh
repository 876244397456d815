#!/usr/bin/env bash
# Build the CPU benchmarks in Release, run them (median of REPETITIONS runs) and write their Markdown
# tables into bench/README.md between the markers (json_to_table.py):
#   cpu-table        bench_cpu_throughput (integrator × bodies × threads)
#   simd-table-sse2  bench_simd_lanes      (lanes = bodies, baseline x86-64)
#   simd-table-avx2  bench_simd_lanes_avx2 (only where the compiler and this CPU have AVX2)
# Usage: bench/run_cpu.sh [extra Google Benchmark flags for bench_cpu_throughput]
# Environment: BUILD_DIR (default build-bench-release), JOBS (default 2), REPETITIONS (default 5),
# OMP_NUM_THREADS (the "all threads" rows; default: every logical CPU), SIMD=0 skips the SIMD tables.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-release}"
readme="$root/bench/README.md"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_BUILD_BENCH=ON >/dev/null
programs=(bench_cpu_throughput)
if [ "${SIMD:-1}" != 0 ]; then
  programs+=(bench_simd_lanes)
  grep -qw avx2 /proc/cpuinfo && [ -n "$(grep QUATSTEP_HAVE_MAVX2:INTERNAL=1 "$build/CMakeCache.txt")" ] &&
    programs+=(bench_simd_lanes_avx2)
fi
cmake --build "$build" --target "${programs[@]}" -j"${JOBS:-2}"

for p in "${programs[@]}"; do
  json="$build/$p.json"
  args=()
  [ "$p" = bench_cpu_throughput ] && args=("$@")
  "$build/bench/$p" --benchmark_repetitions="${REPETITIONS:-5}" --benchmark_report_aggregates_only=true \
    --benchmark_out="$json" --benchmark_out_format=json "${args[@]}"
  python3 "$root/bench/json_to_table.py" "$json" --into "$readme"
  echo "$p: table written to bench/README.md (raw results: $json)"
done
