#!/usr/bin/env bash
# Packs a CUDA build's GPU executables for a lent GPU machine (the device tool), to be run there by
# bench/device_checks.sh. That machine's image is described as holding nvcc, CMake and PyTorch, not
# the Debian libraries quatstep links (toml++, HDF5, Google Benchmark, Open MPI); nothing can be
# installed there, and a call carries at most 64 MiB. So the executables travel built here,
# stripped, at their paths under the build folder, with the shared libraries they load (all but the
# C and C++ runtimes and the loader, which the machine has), in one xz archive, with the Python
# module built for the machine's Python (below). Measured 2026-12-05: the GPU test programs, the DEM
# example, bench_gpu and the quatstep CLI, 193 MB built, 184 MB stripped, with their 43 libraries
# (25 MB), pack into 36 MB in 3 minutes; with the C++ API's reference run and the Python module
# (67 MB; 2.5 minutes of compiling on two cores), 289 MB pack into 41 MB in 5 minutes.
# Usage (here, after a CUDA build: scripts/setup.sh --tests on a machine with nvcc, or cmake with
# -DQUATSTEP_CUDA=ON -DQUATSTEP_BUILD_BENCH=ON):
#   bench/device_kit.sh [BUILD_DIR]     -> device-kit/ (git-ignored)
# then one device call: carry ["device-kit"], command "bash bench/device_checks.sh".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
kit="$root/device-kit"

grep -q '^CMAKE_CUDA_COMPILER:' "$build/CMakeCache.txt" ||
  { echo "device_kit: $build was configured without CUDA" >&2; exit 1; }
# bench_launch_bounds is built on demand only (bench/CMakeLists.txt): build it here.
cmake --build "$build" --target bench_launch_bounds
programs=(quatstep bench/bench_gpu bench/bench_launch_bounds examples/example_dem_coupling tests/api_reference_run)
for p in "$build"/tests/test_gpu_*; do
  [[ -x $p && -f $p ]] && programs+=("tests/${p##*/}")
done
for p in "${programs[@]}"; do
  [[ -x $build/$p ]] || { echo "device_kit: $build/$p is missing: build it with CUDA first" >&2; exit 1; }
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/device-lib"
libraries_of() {  # the libraries a program or module loads, less the C and C++ runtimes and the loader
  ldd "$1" | awk '$3 ~ /^\// {print $3}' |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do
      # (one there already: the module's RPATH finds the kit's own copy when ldd reads it in $stage)
      [[ -e $stage/device-lib/${lib##*/} ]] || cp -L "$lib" "$stage/device-lib/"
    done
}
for p in "${programs[@]}"; do
  mkdir -p "$stage/$(dirname "$p")"
  strip -o "$stage/$p" "$build/$p"
  libraries_of "$build/$p"
done

# The Python module for the machine's python3 (3.12 there, the device tool's KINDS.md; this build's
# interpreter may be another): only the module's own units and nanobind's read the interpreter's
# headers, so they are compiled again with this build's flags (flags.make) against DEVICE_PYTHON's
# headers and linked as link.txt links the module, with this build's libraries. Its RPATH names the
# kit's library folder (DT_RPATH, which also serves the libraries it loads), so that Python's process
# needs no LD_LIBRARY_PATH. Without such an interpreter here, the kit has no module and
# device_checks.sh's python step says so.
device_python=""
for candidate in ${DEVICE_PYTHON:-python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12}; do
  "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && { device_python="$candidate"; break; }
done
python_module() {
  local objects="$stage/python-objects" dir="$build/python/CMakeFiles" include suffix unit pids=() pid link
  include="$("$device_python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  suffix="$("$device_python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
  mkdir -p "$objects" "$stage/python/quatstep"
  compile() {  # compile TARGET SOURCE OBJECT: as the build compiles SOURCE for TARGET, with DEVICE_PYTHON's headers
    local f="$dir/$1.dir/flags.make" compiler custom flags includes
    compiler="$(sed -n 's/^# compile CXX with //p' "$f")"
    read -ra flags <<<"$(sed -n 's/^CXX_DEFINES = //p; s/^CXX_FLAGS = //p' "$f" | tr '\n' ' ')"
    read -ra includes <<<"$(sed -n 's/^CXX_INCLUDES = //p' "$f" | sed -E "s#-I[^ ]*/include/python3\.[0-9]+( |$)#-I$include\1#")"
    custom="$(sed -n "s#^\# Custom defines: .*/${2##*/}\.o_DEFINES = ##p" "$f")"  # a;b: -Da -Db
    "$compiler" "${flags[@]}" "${includes[@]}" ${custom:+-D${custom//;/ -D}} -c "$2" -o "$3"
  }
  for unit in $(sed -nE 's#^python/CMakeFiles/nanobind-static\.dir/.*\.cpp\.o: (/.*\.cpp)$#\1#p' \
                  "$dir/nanobind-static.dir/build.make"); do
    compile nanobind-static "$unit" "$objects/nanobind-${unit##*/}.o" & pids+=($!)
  done
  for unit in module stepper_binding host_stepper; do
    compile _quatstep "$root/python/src/$unit.cpp" "$objects/$unit.cpp.o" & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done  # set -e: a failed unit ends the script
  ar qc "$objects/libnanobind.a" "$objects"/nanobind-*.o
  read -ra link <<<"$(sed -e "s#-o quatstep/_quatstep[^ ]*#-o $stage/python/quatstep/_quatstep$suffix#" \
    -e "s#CMakeFiles/_quatstep\.dir/src/#$objects/#g" -e "s#libnanobind-static\.a#$objects/libnanobind.a#" \
    "$dir/_quatstep.dir/link.txt")"
  # (never the build's own module: a link.txt of another form stops here)
  [[ " ${link[*]} " == *" -o $stage/python/quatstep/_quatstep$suffix "* ]] ||
    { echo "device_kit: $dir/_quatstep.dir/link.txt is not of the form this script reads" >&2; exit 1; }
  (cd "$build/python" && "${link[@]}" -Wl,--disable-new-dtags '-Wl,-rpath,$ORIGIN/../../device-lib')
  cp "$build/python/quatstep/_quatstep.pyi" "$build/python/quatstep/py.typed" "$stage/python/quatstep/"
  libraries_of "$stage/python/quatstep/_quatstep$suffix"
  rm -rf "$objects"
  echo "device_kit: the Python module for $("$device_python" --version) (_quatstep$suffix)"
}
if [[ -f $build/python/CMakeFiles/_quatstep.dir/link.txt && -n $device_python ]]; then
  python_module
else
  echo "device_kit: no Python module in the kit (no module in $build, or no Python 3.12 here: DEVICE_PYTHON=/path/to/python3.12)" >&2
fi
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
