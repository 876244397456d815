// End-to-end `quatstep run` against the kernel alone, on the CPU (bench/run_throughput.md):
//   kernel      make_ensemble → initialize → advance(all steps) with no sample written: the
//               integration alone;
//   statistics  run_scenario, trajectories = "none", the standard statistics every `stride` steps;
//   full        run_scenario, every trajectory every `stride` steps, and the bytes it wrote per
//               second against a plain sequential write of as many bytes to the same folder (fsync'd).
// Workload: the heavy top of Sherif §10.1 with uncertain inertia and spin (examples/
// monte_carlo_heavy_top.toml's laws), modified HHT with the inertia shift, h = 1e-4.
//   bench_run_throughput [BODIES=20000] [STEPS=2000] [STRIDE=100] [THREADS=0: OpenMP's] [DIR=.]
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "run.hpp"
#include "scenario.hpp"

using namespace quatstep;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string scenario(long bodies, long steps, long stride, const std::string& output) {
  return R"(
[model]
type = "heavy_top"
inertia = [0.234375, 0.46875, 0.234375]
mass = 15.0
center_of_mass = [0.0, 1.0, 0.0]
gravity = [0.0, 0.0, -9.81]
[integrator]
method = "modified_hht"
inertia_shift = true
[time]
dt = 1e-4
t_end = )" + std::to_string(double(steps) * 1e-4) + R"(
[ensemble]
size = )" + std::to_string(bodies) + R"(
[[ensemble.random]]
key = "model.inertia"
distribution = "normal"
mean = [0.234375, 0.46875, 0.234375]
stddev = [0.0046875, 0.009375, 0.0046875]
invalid = "redraw"
[[ensemble.random]]
key = "initial.omega_body"
distribution = "axis_magnitude"
axis = [0.0, 150.0, -4.61538]
half_angle = 0.0174533
magnitude = { distribution = "normal", mean = 150.071, stddev = 5.0 }
[output]
stride = )" + std::to_string(stride) + "\n" + output;
}

/// Seconds to write `bytes` sequentially to `path` and fsync it.
double disk_write_seconds(const std::string& path, double bytes) {
  std::vector<char> block(std::size_t(64) << 20, 1);
  const auto t0 = Clock::now();
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return NAN;
  for (double left = bytes; left > 0; left -= double(block.size()))
    if (write(fd, block.data(), std::size_t(std::min(left, double(block.size())))) < 0) break;
  fsync(fd);
  close(fd);
  const double s = since(t0);
  std::filesystem::remove(path);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long bodies = argc > 1 ? std::atol(argv[1]) : 20000, steps = argc > 2 ? std::atol(argv[2]) : 2000;
  const long stride = argc > 3 ? std::atol(argv[3]) : 100;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 0;
  const std::string dir = argc > 5 ? argv[5] : ".";
  ScenarioOverrides cpu;
  cpu.backend = Backend::cpu;
  RunOptions options;
  options.threads = threads;
  options.progress = ProgressMode::never;
  const double body_steps = double(bodies) * double(steps);

  // The kernel alone: the same bodies, no sample written.
  const Scenario bare = parse_scenario(scenario(bodies, steps, stride, "trajectories = 'none'\n"), "kernel.toml", cpu);
  double kernel;
  {
    const auto ensemble = make_ensemble(bare, choose_backend(Backend::cpu));
    const int scalars = channel_scalars(sample_channels(bare));
    std::vector<double> sample0(std::size_t(scalars * bodies));
    ensemble->initialize(SampleView<double>{sample0.data(), bodies, 0, 1, stride, scalars});
    const auto t0 = Clock::now();
    ensemble->advance(steps, SampleView<double>{nullptr, bodies, 1, 0, stride, scalars});
    kernel = since(t0);
  }

  options.output = dir + "/bench_statistics.h5";
  const RunResult statistics =
      run_scenario(parse_scenario(scenario(bodies, steps, stride, "trajectories = 'none'\n[output.statistics]\n"),
                                  "statistics.toml", cpu),
                   options);
  options.output = dir + "/bench_full.h5";
  const RunResult full = run_scenario(
      parse_scenario(scenario(bodies, steps, stride, "trajectories = 'all'\n"), "full.toml", cpu),
      options);
  const double written = double(std::filesystem::file_size(options.output));
  const double disk = disk_write_seconds(dir + "/bench_disk.bin", written);
  std::filesystem::remove(dir + "/bench_statistics.h5");
  std::filesystem::remove(options.output);

  std::printf("| run | bodies | steps | stride | wall [s] | body-steps/s | of kernel-only |\n|---|---|---|---|---|---|---|\n");
  const auto row = [&](const char* name, double seconds) {
    std::printf("| %s | %ld | %ld | %ld | %.2f | %.3g | %.0f %% |\n", name, bodies, steps, stride, seconds,
                body_steps / seconds, 100 * kernel / seconds);
  };
  row("kernel only (advance)", kernel);
  const std::string name = "quatstep run, statistics only (" + std::to_string(statistics.statistics) + " observables, 7 quantiles)";
  row(name.c_str(), statistics.wall_seconds);
  row("quatstep run, all trajectories", full.wall_seconds);
  const double samples = double(statistics.samples), values = samples * double(bodies) * statistics.statistics;
  std::printf("\nthreads %d. Statistics: %.2f s on the writer thread for %.0f samples x %ld bodies x %d observables: "
              "%.3g ns per value (all threads).\nFull trajectories: %.3g MB in %.2f s of HDF5 writes on the writer "
              "thread, %.3g MB/s; the disk takes %.3g MB/s (%.3g MB written and fsync'd in %.2f s).\n",
              statistics.threads, statistics.statistics_seconds, samples, bodies, statistics.statistics,
              1e9 * statistics.statistics_seconds / values, written / 1e6, full.write_seconds,
              written / 1e6 / full.write_seconds, written / 1e6 / disk, written / 1e6, disk);
  return 0;
}
