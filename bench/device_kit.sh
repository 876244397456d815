#!/usr/bin/env bash
# Packs a CUDA build's GPU executables for a lent GPU machine (the device tool), to be run there by
# bench/device_checks.sh. That machine's image is described as holding nvcc, CMake and PyTorch, not
# the Debian libraries quatstep links (toml++, HDF5, Google Benchmark, Open MPI); nothing can be
# installed there, and a call carries at most 64 MiB. So the executables travel built here,
# stripped, at their paths under the build folder, with the shared libraries they load (all but the
# C and C++ runtimes and the loader, which the machine has), in one xz archive. Measured 2026-12-05:
# the GPU test programs, the DEM example, bench_gpu and the quatstep CLI, 193 MB built, 184 MB
# stripped, with their 43 libraries (25 MB), pack into 36 MB in 3 minutes.
# Usage (here, after a CUDA build: scripts/setup.sh --tests on a machine with nvcc, or cmake with
# -DQUATSTEP_CUDA=ON -DQUATSTEP_BUILD_BENCH=ON):
#   bench/device_kit.sh [BUILD_DIR]     -> device-kit/ (git-ignored)
# then one device call: carry ["device-kit"], command "bash bench/device_checks.sh".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
kit="$root/device-kit"

programs=(quatstep bench/bench_gpu examples/example_dem_coupling)
for p in "$build"/tests/test_gpu_*; do
  [[ -x $p && -f $p ]] && programs+=("tests/${p##*/}")
done
for p in "${programs[@]}"; do
  [[ -x $build/$p ]] || { echo "device_kit: $build/$p is missing: build it with CUDA first" >&2; exit 1; }
done
grep -q '^CMAKE_CUDA_COMPILER:' "$build/CMakeCache.txt" ||
  { echo "device_kit: $build was configured without CUDA" >&2; exit 1; }

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/device-lib"
for p in "${programs[@]}"; do
  mkdir -p "$stage/$(dirname "$p")"
  strip -o "$stage/$p" "$build/$p"
  # The libraries it loads, less the C and C++ runtimes and the loader (the machine's own serve).
  ldd "$build/$p" | awk '$3 ~ /^\// {print $3}' |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -Lu "$lib" "$stage/device-lib/"; done
done
rm -rf "$kit"
mkdir -p "$kit"
# Executables bake this tree's absolute paths (the build folder, examples/): device_checks.sh makes
# them resolve on the machine.
echo "$root" > "$kit/root"
echo "$build" > "$kit/build"
# Paths relative to the build folder. The programs share most of their bytes (the same CUDA kernels
# and host code): one xz stream whose dictionary holds the whole archive stores them once (2026-12-05:
# 36 MB, against 63 MB with xz -6's 8 MiB dictionary); decompressing takes 256 MiB of memory.
(cd "$stage" && tar -cf - .) | xz -T1 --lzma2=preset=6,dict=256MiB > "$kit/kit.tar.xz"
echo "device-kit/kit.tar.xz: $(du -h "$kit/kit.tar.xz" | cut -f1) (${#programs[@]} programs, $(ls "$stage/device-lib" | wc -l) libraries)"
