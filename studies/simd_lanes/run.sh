#!/usr/bin/env bash
# The SIMD-lanes study (studies/README.md): build its throughput programs in Release, run them (median
# of REPETITIONS runs, one thread) and write their tables into studies/README.md between the markers:
#   simd-table-sse2  study_simd_lanes       (baseline x86-64)
#   simd-table-avx2  study_simd_lanes_avx2  (only where the compiler and this CPU have AVX2)
# Instructions per body-step: PROFILE_EXE=studies/study_simd_profile_step bench/profile.sh (…_avx2).
# Usage: studies/simd_lanes/run.sh [extra Google Benchmark flags]
# Environment: BUILD_DIR (default build-bench-release), JOBS (default 2), REPETITIONS (default 5).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-release}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_BUILD_STUDIES=ON >/dev/null
programs=(study_simd_lanes)
grep -qw avx2 /proc/cpuinfo && [ -n "$(grep QUATSTEP_HAVE_MAVX2:INTERNAL=1 "$build/CMakeCache.txt")" ] &&
  programs+=(study_simd_lanes_avx2)
cmake --build "$build" --target "${programs[@]}" -j"${JOBS:-2}"

for p in "${programs[@]}"; do
  json="$build/$p.json"
  "$build/studies/$p" --benchmark_repetitions="${REPETITIONS:-5}" --benchmark_report_aggregates_only=true \
    --benchmark_out="$json" --benchmark_out_format=json "$@"
  python3 "$root/studies/simd_lanes/simd_table.py" "$json" --into "$root/studies/README.md"
  echo "$p: table written to studies/README.md (raw results: $json)"
done
