#!/usr/bin/env bash
# Registers, stack frame and spills per thread of every batch kernel, from ptxas (no GPU needed),
# and the theoretical occupancy they allow on an H100 (sm_90: 65536 registers and 2048 threads per
# SM, registers allocated per warp in units of 256, block_size = 128 as in kernels/ensemble_kernels.cuh).
# Writes bench/gpu_resources.md and the stepping kernels' rows in bench/README.md. Usage: bench/gpu_resources.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build-gpu-resources}
cmake -S "$here/.." -B "$build" -DQUATSTEP_CUDA_RESOURCE_USAGE=ON -DQUATSTEP_BUILD_TESTS=OFF \
      -DQUATSTEP_BUILD_BENCH=OFF > /dev/null
# Recompile the kernel shards (generated at configure time) so that ptxas prints their usage again.
touch "$build"/kernels/cuda_ensemble_*.cu
cmake --build "$build" --target quatstep_host -j2 2>&1 | tee "$build/ptxas.log" > /dev/null
nvcc_version=$(grep -ho 'CMAKE_CUDA_COMPILER_VERSION "[^"]*"' "$build"/CMakeFiles/*/CMakeCUDACompiler.cmake | head -1 | cut -d'"' -f2)
python3 "$here/gpu_resources.py" "$build/ptxas.log" "$here/README.md" "$(date +%F), nvcc $nvcc_version" > "$here/gpu_resources.md"
echo "wrote $here/gpu_resources.md and the summary in $here/README.md"
