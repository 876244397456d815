#!/usr/bin/env bash
# Installs what quatstep needs on a fresh Debian 12 machine (as root, or with sudo), then configures
# and builds it in ./build. Idempotent: a second run only rebuilds what changed.
#   scripts/setup.sh           the `quatstep` command only, with the CUDA backend only where a GPU is
#                              usable and without the CPU's float ensembles and SIMD lanes in a new
#                              ./build
#                              (README's first command: it builds only what it runs)
#   scripts/setup.sh --tests   everything: library, command, tests, examples, benchmarks, and every
#                              CUDA file whenever nvcc is found, GPU or not (README's test command)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=command
case "${1:-}" in
  "") ;;
  --tests) mode=tests ;;
  *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac

packages=(build-essential cmake pkg-config libeigen3-dev libtomlplusplus-dev libhdf5-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libomp-dev
          libboost-dev     # Boost.Odeint: the peer baselines in bench/ (bench/README.md, "Peers"); Boost.Random's
                           # Sobol points, Boost.Math's erfc_inv, Boost.Multiprecision's cpp_int (host/sampling, host/statistics)
          librandom123-dev   # Philox4x32-10 counter-based random numbers (host/sampling/counter_rng.hpp)
          libopenmpi-dev openmpi-bin)  # mpirun -np K quatstep run (host/mpi_run.hpp; optional: QUATSTEP_MPI)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# h5py for reading the output in Python (README), matplotlib for python/quatstep/plot.py, nanobind for
# the Python module (its build: CMake builds it when nanobind is found) and scikit-build-core for
# `pip install .`, pytest (with --tests) for python/tests; none of them is needed by the C++ build.
python_packages=(h5py numpy matplotlib "nanobind>=3.1" "scikit-build-core>=1.1")
[[ $mode == tests ]] && python_packages+=(pytest)
python_modules=(h5py numpy matplotlib nanobind scikit_build_core)
[[ $mode == tests ]] && python_modules+=(pytest)
install_python_packages() {  # extra pip options
  if command -v python3 >/dev/null && ! python3 -c "import $(IFS=,; echo "${python_modules[*]}")" 2>/dev/null; then
    python3 -m pip install -q "$@" "${python_packages[@]}" || echo "setup: could not install ${python_packages[*]} (only needed for Python)"
  fi
}
# The test build needs them before configuring (nanobind: the module; pytest); the command's build
# does not, so it compiles while pip downloads them (below).
[[ $mode == tests ]] && install_python_packages

# nvcc is optional: found on PATH or in the default CUDA location, the CUDA targets build too.
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi

# The CPU ensembles in 3 units per precision where there are cores to compile them side by side
# (host/CMakeLists.txt: more compiler time in all, a shorter longest unit).
shards=1
(($(nproc) >= 8)) && shards=3

if [[ $mode == tests ]]; then
  # -U: the Python module follows nanobind's presence now, not at the command's first configure
  # (which runs before pip has installed it).
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_CUDA=AUTO -DQUATSTEP_CPU_SHARDS=$shards \
        -DQUATSTEP_BUILD_TESTS=ON -DQUATSTEP_BUILD_BENCH=ON -DQUATSTEP_CPU_FLOAT=ON -DQUATSTEP_CPU_LANES=ON \
        -UQUATSTEP_PYTHON \
        ${QUATSTEP_CMAKE_ARGS:-} >/dev/null
  cmake --build build -j "$(nproc)"
else
  cuda=OFF
  if command -v nvcc >/dev/null && nvidia-smi -L >/dev/null 2>&1; then cuda=AUTO; fi
  # A new ./build is configured without the tests and benchmarks, in half the time (7 s instead of
  # 13 s here), without the CPU's float ensembles (≈ 100 s of compiler time; the heavy top runs in
  # double) and without the CPU's SIMD lanes (≈ 2 min; the example is one body, fewer than a block);
  # --tests turns them all on, and a ./build that has them keeps them.
  lean=()
  [[ -f build/CMakeCache.txt ]] ||
    lean=(-DQUATSTEP_BUILD_TESTS=OFF -DQUATSTEP_BUILD_BENCH=OFF -DQUATSTEP_CPU_FLOAT=OFF -DQUATSTEP_CPU_LANES=OFF)
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQUATSTEP_CUDA=$cuda -DQUATSTEP_CPU_SHARDS=$shards \
        "${lean[@]}" ${QUATSTEP_CMAKE_ARGS:-} >/dev/null
  # pip downloads and unpacks the Python packages while the compiler runs, without compiling their
  # bytecode (Python does that at the first import): 8 s of one core instead of 14 s before the build
  # (measured into a fresh venv without pip's cache, bench/build_time.md). A failed build does not
  # wait for it.
  install_python_packages --no-compile > build/python-packages.log 2>&1 &
  pip_job=$!
  cmake --build build -j "$(nproc)" --target quatstep
  wait "$pip_job" && cat build/python-packages.log
fi
