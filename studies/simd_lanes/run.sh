#!/usr/bin/env bash
# The SIMD-lanes study (studies/README.md): build study_simd_lanes in Release, run it (median of
# REPETITIONS runs, one thread) and write its table into studies/README.md between the markers
# simd-table-avx2, or simd-table-avx512 on a CPU with AVX-512. Instructions per body-step: PROFILE_EXE=studies/study_simd_profile_step bench/profile.sh.
# Usage: studies/simd_lanes/run.sh [extra Google Benchmark flags]
# Environment: BUILD_DIR (default build-bench-release), JOBS (default 2), REPETITIONS (default 5).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-release}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_BUILD_STUDIES=ON >/dev/null
cmake --build "$build" --target study_simd_lanes -j"${JOBS:-2}"
json="$build/study_simd_lanes.json"
"$build/studies/study_simd_lanes" --benchmark_repetitions="${REPETITIONS:-5}" --benchmark_report_aggregates_only=true \
  --benchmark_out="$json" --benchmark_out_format=json "$@"
python3 "$root/studies/simd_lanes/simd_table.py" "$json" --into "$root/studies/README.md"
echo "study_simd_lanes: table written to studies/README.md (raw results: $json)"
