#!/usr/bin/env bash
# Weak and strong scaling of `mpirun -np K quatstep run` (CPU ranks, one OpenMP thread each) and the
# costs of the scale-out itself: `quatstep merge` of K shard files, and the trajectory write.
#   bench/scaling.sh [BUILD_DIR] [OUT_DIR]      (prints Markdown tables; bench/scaling.md has the figures)
# Workload: the Monte-Carlo heavy top of examples/monte_carlo_heavy_top.toml's kind (uncertain
# inertia, redrawn; spin), modified HHT with the inertia shift, h = 1e-4, 1000 steps, statistics of
# 5 observables with 7 quantiles and a histogram every 100 steps.
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/quatstep_scaling}
exe=$(realpath "$build/quatstep")
mpirun=(mpirun --allow-run-as-root --oversubscribe)
mkdir -p "$out"
cd "$out"

study() {  # study BODIES TRAJECTORIES FILE
  cat <<TOML
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
[initial]
omega_body = [0.0, 150.0, -4.61538]
[integrator]
method = "modified_hht"
inertia_shift = true
[time]
dt = 1e-4
t_end = 0.1
[ensemble]
size = $1
[[ensemble.random]]
key = "model.inertia"
distribution = "normal"
mean = [0.234375, 0.46875, 0.234375]
stddev = 0.002
invalid = "redraw"
[[ensemble.random]]
key = "initial.omega_body"
distribution = "normal"
mean = [0.0, 150.0, -4.61538]
stddev = [1.0, 5.0, 1.0]
seed = 1
[output]
file = "$3"
stride = 100
trajectories = "$2"
[output.statistics]
observables = ["energy_drift", "nutation", "omega_norm", "angular_momentum_drift"]
[[output.statistics.observable]]
name = "energy"
bins = 20
low = -160.0
high = 200.0
TOML
}

seconds() { local t0=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $t0" | bc -l; }
# wall and CPU seconds (user + system of every rank: bash's time counts the waited-for descendants)
wall_cpu() { local TIMEFORMAT='%R %U %S'; { time "$@" >/dev/null; } 2>&1 | awk '{print $1, $2 + $3}'; }
row() {  # row KIND BODIES RANKS WALL CPU
  printf '| %s | %s | %s | %.2f | %.3g | %.2f | %.3g |\n' "$1" "$2" "$3" "$4" "$(echo "$2 * 1000 / $4" | bc -l)" "$5" \
    "$(echo "$2 * 1000 / $5" | bc -l)"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| scaling | bodies | ranks | wall [s] | body-steps/s | CPU [s] | body-steps per CPU-s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for ranks in 1 2 3 4; do
  study 4000 none strong.h5 >strong.toml
  row strong 4000 "$ranks" $(wall_cpu "${mpirun[@]}" -np "$ranks" "$exe" run strong.toml --backend cpu --threads 1 --quiet)
done
for ranks in 1 2 3 4; do
  n=$((2000 * ranks))
  study "$n" none weak.h5 >weak.toml
  row "weak (2000 per rank)" "$n" "$ranks" $(wall_cpu "${mpirun[@]}" -np "$ranks" "$exe" run weak.toml --backend cpu --threads 1 --quiet)
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "| merge | bodies | shards | trajectories | merge [s] | result file | one process, 200 steps [s] |"
echo "|---|---:|---:|---|---:|---:|---:|"
for n in 20000 80000; do
  for traj in none all; do
    study "$n" "$traj" m.h5 >m.toml
    for i in 0 1 2 3; do "$exe" run m.toml --backend cpu --t-end 0.02 --quiet --shard "$i/4" >/dev/null; done
    t1=$(seconds "$exe" run m.toml --backend cpu --t-end 0.02 --quiet --output one.h5)
    t=$(seconds "$exe" merge m.h5 m.shard-{0,1,2,3}-of-4.h5)
    printf '| merge | %s | 4 | %s | %.2f | %s | %.2f |\n' "$n" "$traj" "$t" "$(du -h m.h5 | cut -f1)" "$t1"
  done
done
