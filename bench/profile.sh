#!/usr/bin/env bash
# Instruction counts per call of each step-code kernel (bench_profile_step --list), measured with
# callgrind as (Ir(2R) − Ir(R))/R so that set-up and the harness cancel out.
#   bench/profile.sh [KERNEL...]      (default: every kernel; REPS=R, default 1000)
# Writes a Markdown table to stdout. Needs valgrind. BUILD_DIR as in run_cpu.sh; PROFILE_EXE, the
# driver's path in the build directory (default bench/bench_profile_step), may name a study's driver
# with the same command line (bench/profile_driver.hpp), e.g. studies/study_simd_profile_step_avx2.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench-release}"
reps="${REPS:-1000}"
driver="${PROFILE_EXE:-bench/bench_profile_step}"
options=(-DCMAKE_BUILD_TYPE=Release -DQUATSTEP_BUILD_BENCH=ON)
[[ $driver == studies/* ]] && options+=(-DQUATSTEP_BUILD_STUDIES=ON)
cmake -S "$root" -B "$build" "${options[@]}" >/dev/null
cmake --build "$build" --target "$(basename "$driver")" -j"${JOBS:-2}" >/dev/null
exe="$build/$driver"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

collected() {  # kernel reps -> instructions collected inside qs_profiled_region
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qs_profiled_region \
    --callgrind-out-file="$out/cg" "$exe" "$1" "$2" 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <("$exe" --list)
echo "| kernel | instructions per call |"
echo "|---|---:|"
for k in "${kernels[@]}"; do
  a=$(collected "$k" "$reps")
  b=$(collected "$k" $((2 * reps)))
  echo "| $k | $(( (b - a) / reps )) |"
done
