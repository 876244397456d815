#!/usr/bin/env bash
# The GPU checks of the open issues (16, 17, 20), run on a lent GPU machine (the device tool) from
# the repository root, with the executables that bench/device_kit.sh packed here:
#   device run: carry ["device-kit"], timeout_s 560, command "bash bench/device_checks.sh [STEP ...]"
# Steps, in this order by default, each under its own time limit (seconds):
#   tests     (90 each) the GPU test programs (tests/test_gpu_*, strict CPU = GPU bits among them) and
#                   the DEM coupling example: what no CPU session can run
#   bench     (150) bench_gpu at N = 10⁶: every integrator in double and float, the DEM coupled
#                   step against its peer, the register RK4 peer (issue 20's rates)
#   run       (150) quatstep run of examples/monte_carlo_heavy_top.toml at 10⁶ bodies, h = 1e-4,
#                   10⁴ steps, statistics every 100 (issue 16: ≥ 90 % of kernel-only), double and
#                   float, then 10⁶ bodies × 51 samples of full trajectories (write rate vs dd's)
#   adaptive  (90 + 60) bench/adaptive_gpu.py timing, sorted and shuffled spins: first the
#                   torque-free spread at 10⁶ bodies (issue 17: adaptive ≥ 70 % of the fixed rate,
#                   and ≥ 3× less wall time at equal worst error: on its shuffled, log-uniform spins
#                   the CPU measured 4.5–6.2× fewer body-steps; at 10⁵ bodies its fastest bodies'
#                   blocks outlast the rest of a launch, bench/adaptive.md section 8), then the heavy
#                   tops at 10⁵, as measured before (their rate against 2026-11-27's)
#   python    (150) the Python tests (python/tests: CuPy and PyTorch arrays, BatchStepper and
#                   MechanismEnsemble on the GPU) under the machine's python3, with the kit's module
#   bounds    (60) bench_launch_bounds: REML's and the shifted modified HHT's step loops at minimum
#                   blocks 1 (the production kernel), 3 and 4 per SM, occupancy against spills
#                   (bench/launch_bounds.cu; issue 20)
#   profile   (60 each) Nsight Compute on one launch of REML's and the shifted modified HHT's kernel
#                   (N = 10⁶): issue-slot use, stall reasons, and executed instructions per SASS
#                   line, which bench/sass_loops.py's static counts can only bound (issue 20)
#   mechanisms (120) bench_gpu's mechanism rows, never measured on a GPU (bench/README.md, "Mechanisms
#                   on the GPU"); last, since no open issue waits on them
# A step's limit stops it, not the script, and all steps end within DEVICE_CHECKS_SECONDS (540) of
# the start, so the call returns what was measured; `summary.txt` lists each step's exit status
# and time (exit status 124: stopped at its limit).
# What comes back: the device tool returns at most 8 files from $OUT, so every log, JSON and report
# is written to a folder of its own, packed after each step into $OUT/results.tar.gz (replaced
# whole: a call cut short still returns the steps before), with summary.txt beside it.
set -uo pipefail
root="$(pwd)"
back="${OUT:-$root/device-out}"
results="$(mktemp -d)/results"
mkdir -p "$back" "$results"
kit="$root/device-kit"
[[ -f $kit/kit.tar.xz ]] || { echo "no device-kit/kit.tar.xz: run bench/device_kit.sh first, and carry device-kit" >&2; exit 2; }

# The executables name the paths of the tree that built them (its build folder, examples/): make
# that path this tree.
built_root="$(cat "$kit/root")"
build="$(cat "$kit/build")"
if [[ $root != "$built_root" ]]; then
  if [[ -e $built_root ]]; then
    [[ "$(cd "$built_root" && pwd -P)" == "$(pwd -P)" ]] ||
      { echo "$built_root exists and is not this tree: the kit's paths cannot resolve" >&2; exit 2; }
  else
    mkdir -p "$(dirname "$built_root")" && ln -s "$root" "$built_root"
  fi
fi
mkdir -p "$build"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$kit/kit.tar.xz" "$build" || exit 2
libs="$build/device-lib"
# quatstep and the C++ API's reference run as commands that find the kit's libraries, for Python,
# which starts them, and bench_gpu for ncu (Python's and ncu's own libraries are not shadowed:
# LD_LIBRARY_PATH is set for the kit's programs alone; the kit's Python module finds them by its
# RPATH).
mkdir -p /tmp/device-bin
for program in quatstep tests/api_reference_run bench/bench_gpu; do
  printf '#!/bin/sh\nexport LD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\nexec "%s" "$@"\n' "$libs" \
    "$build/$program" > "/tmp/device-bin/${program##*/}"
  chmod +x "/tmp/device-bin/${program##*/}"
done

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; } \
  > "$results/machine.txt" 2>&1
cat "$results/machine.txt"

deadline=$(( $(date +%s) + ${DEVICE_CHECKS_SECONDS:-540} ))  # all steps together: inside the call's timeout_s

step() {  # step NAME SECONDS COMMAND...: runs it under its limit (cut to the deadline), output in $results/NAME.log
  local name=$1 limit=$2 left start rc
  shift 2
  left=$(( deadline - $(date +%s) - 5 ))
  (( left < limit )) && limit=$left
  if (( limit < 5 )); then
    printf '%-28s not run: out of time\n' "$name" | tee -a "$results/summary.txt"
    return
  fi
  start=$(date +%s%N)
  echo "== $name (limit $limit s): $*"
  LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout "$limit" "$@" > "$results/$name.log" 2>&1
  rc=$?
  printf '%-28s rc %3d  %6d ms%s\n' "$name" "$rc" $(( ($(date +%s%N) - start) / 1000000 )) \
    "$( ((rc == 124)) && echo '  (stopped at its limit)')" | tee -a "$results/summary.txt"
  tail -n 3 "$results/$name.log"
  pack
}

pack() {  # the results so far into $back/results.tar.gz, replaced whole, and summary.txt beside it
  tar -C "$(dirname "$results")" -czf "$back/results.tar.gz.part" results && mv -f "$back/results.tar.gz.part" "$back/results.tar.gz"
  [[ -f $results/summary.txt ]] && cp "$results/summary.txt" "$back/"
}

tests() {
  local t
  for t in "$build"/tests/test_gpu_*; do
    [[ -f $t && -x $t ]] || continue  # (in a build folder: CTest's test_gpu_*_include.cmake files beside them)
    step "${t##*/}" 90 "$t" --gtest_brief=1
    # A test that finds no usable GPU skips and exits 0: say so, or a GPU-less pass would read as one.
    grep -q '^\[  SKIPPED \]' "$results/${t##*/}.log" 2>/dev/null &&
      echo "${t##*/}: tests SKIPPED, no usable GPU? (see its log)" | tee -a "$results/summary.txt"
  done
  (cd "$build/examples" && step example_dem_coupling 30 ./example_dem_coupling 1000 100)
}

bench() {
  step bench_gpu 150 "$build/bench/bench_gpu" --benchmark_min_time=0.05 \
    --benchmark_filter='^cuda/(double|float)/[a-z_0-9]+/1000000/|^dem/|^peers/peer:rk4_registers/bodies:1000000/steps:1000/' \
    --benchmark_out="$results/bench_gpu.json" --benchmark_out_format=json
}

mechanisms() {
  step bench_gpu_mechanisms 120 "$build/bench/bench_gpu" --benchmark_min_time=0.05 \
    --benchmark_filter='^cuda/double/mechanism/' \
    --benchmark_out="$results/bench_gpu_mechanisms.json" --benchmark_out_format=json
}

run() {
  local toml=/tmp/device-mc.toml precision
  sed -e 's/^size = .*/size = 1000000/' -e 's/^t_end = .*/t_end = 1.0/' -e 's/^stride = .*/stride = 100/' \
    "$root/examples/monte_carlo_heavy_top.toml" > "$toml"
  for precision in double float; do
    step "run_statistics_$precision" 40 /tmp/device-bin/quatstep run "$toml" --backend cuda \
      --precision "$precision" -o /tmp/device-mc.h5
  done
  sed -e 's/^t_end = .*/t_end = 0.05/' -e 's/^stride = .*/stride = 10/' -e 's/^trajectories = .*/trajectories = "all"/' \
    "$toml" > /tmp/device-traj.toml
  step run_trajectories 40 /tmp/device-bin/quatstep run /tmp/device-traj.toml --backend cuda -o /tmp/device-traj.h5
  ls -l /tmp/device-traj.h5 >> "$results/run_trajectories.log" 2>&1
  rm -f /tmp/device-traj.h5
  step disk_write 30 dd if=/dev/zero of=/tmp/device-dd bs=64M count=64 oflag=direct
  rm -f /tmp/device-dd
}

adaptive() {
  # Python without the kit's libraries; it starts quatstep through the wrapper.
  local spec problem bodies limit
  for spec in free_body:1000000:90 heavy_top:100000:60; do
    IFS=: read -r problem bodies limit <<< "$spec"
    step "adaptive_timing_$problem" "$limit" env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1 \
      python3 "$root/bench/adaptive_gpu.py" timing "$problem" /tmp/device-bin/quatstep "$bodies" cuda
  done
}

python_tests() {
  # The kit has the module when bench/device_kit.sh found a Python 3.12 (the machine's python3) to
  # build it for.
  if ! compgen -G "$build/python/quatstep/_quatstep.cpython-*.so" > /dev/null; then
    echo "python: not run, the kit has no Python module (bench/device_kit.sh: DEVICE_PYTHON)" | tee -a "$results/summary.txt"
    return
  fi
  step python 150 env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1 MPLBACKEND=Agg QUATSTEP_REQUIRE_MODULE=1 \
    PYTHONPATH="$build/python:$root/python" QUATSTEP_SOURCE_DIR="$root" QUATSTEP_EXE=/tmp/device-bin/quatstep \
    QUATSTEP_API_REFERENCE=/tmp/device-bin/api_reference_run \
    python3 -m pytest -q -rs -p no:cacheprovider "$root/python/tests"
}

bounds() {
  step bench_launch_bounds 60 "$build/bench/bench_launch_bounds" \
    --benchmark_out="$results/bench_launch_bounds.json" --benchmark_out_format=json
}

profile() {
  # One launch (the second: the first warms up) of the kernel of each case, N = 10⁶, 1,000 steps:
  # 32 × "Executed Instructions" (a warp's instruction counts once) ÷ 10⁹ body-steps = instructions
  # per body-step where no lane of a warp idles; the source page gives them per SASS instruction, to
  # set beside bench/sass_loops.py's static loops. ncu replays the launch once per group of
  # counters, at its default (locked base) clocks. Alone: bash bench/device_checks.sh profile.
  if ! command -v ncu > /dev/null; then
    echo "profile: not run, no ncu on this machine" | tee -a "$results/summary.txt"
    return
  fi
  local name
  for name in livens_em_reml modified_hht_shift; do
    # (ncu itself without the kit's libraries: the wrapper gives them to bench_gpu alone)
    step "ncu_$name" 60 env -u LD_LIBRARY_PATH ncu -f -o "$results/ncu_$name" -k regex:advance_bodies --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
      --section WarpStateStats --section Occupancy --section LaunchStats --section SourceCounters \
      /tmp/device-bin/bench_gpu --benchmark_min_time=0.05 --benchmark_filter="^cuda/double/$name/1000000/"
    [[ -f $results/ncu_$name.ncu-rep ]] || continue
    timeout 30 ncu -i "$results/ncu_$name.ncu-rep" --page details --csv > "$results/ncu_${name}_details.csv" 2>&1
    timeout 30 ncu -i "$results/ncu_$name.ncu-rep" --page source --print-source sass --csv \
      > "$results/ncu_${name}_sass.csv" 2>&1
    grep -E '"(Executed Instructions|Issue Slots Busy|Registers Per Thread|Achieved Occupancy)"' \
      "$results/ncu_${name}_details.csv"
  done
  pack
}

for s in "${@:-tests bench run adaptive python bounds profile mechanisms}"; do
  for one in $s; do
    case $one in
      tests | bench | run | adaptive | bounds | profile | mechanisms) "$one" ;;
      python) python_tests ;;
      *) echo "unknown step '$one' (tests, bench, run, adaptive, python, bounds, profile, mechanisms)" >&2; exit 2 ;;
    esac
  done
done
pack
cat "$results/summary.txt"
ls -l "$back"
