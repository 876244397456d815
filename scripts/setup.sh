#!/usr/bin/env bash
# Installs what quatstep needs on a fresh Debian 12 machine (as root, or with sudo), then
# configures and builds it in ./build. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libeigen3-dev libtomlplusplus-dev libhdf5-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libomp-dev
          libboost-dev)  # Boost.Odeint: the peer baselines in bench/ (bench/README.md, "Peers")
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

# h5py for reading the output in Python (README); not needed by the build or the tests.
if command -v python3 >/dev/null && ! python3 -c "import h5py" 2>/dev/null; then
  python3 -m pip install -q h5py numpy || echo "setup: could not install h5py (only needed to read results in Python)"
fi

# nvcc is optional: found on PATH or in the default CUDA location, the CUDA targets build too.
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${QUATSTEP_CMAKE_ARGS:-} >/dev/null
cmake --build build -j "$(nproc)"
