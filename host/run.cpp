// The chunked run loop: advance → write the window's samples → update the progress bar.
#include "run.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>

#include "ensemble_factory.hpp"
#include "hdf5_output.hpp"
#include "progress.hpp"

namespace quatstep {
namespace {

constexpr double chunk_seconds = 0.25;          // progress updates a few times a second
constexpr double progress_threshold_s = 2.0;    // runs estimated shorter than this show no bar
constexpr double sample_buffer_bytes = 64 << 20;  // samples held between two HDF5 writes
constexpr double first_chunk_body_steps = 1e4;  // enough to time, short enough to be negligible

/// Sets the OpenMP thread count for the lifetime of the object.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadCount() { omp_set_num_threads(previous_); }

 private:
  int previous_;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// "alpha -0.2, inertia_shift true, …, Newton tolerance 1e-12": the method's settings as run.
std::string settings_summary(const IntegratorSpec& in) {
  const MethodView& view = in.view();
  std::ostringstream os;
  for (std::size_t k = 0; k < view.keys.size(); ++k) {
    const KeyInfo& key = view.keys[k];
    if (key.name.rfind("newton_", 0) == 0) continue;
    os << (os.tellp() > 0 ? ", " : "") << key.name << " ";
    const double v = in.settings[k].at(0);
    if (key.kind == KeyInfo::Kind::boolean) os << (v != 0 ? "true" : "false");
    else if (key.kind == KeyInfo::Kind::choice) os << key.choices.at(std::size_t(v));
    else os << v;
  }
  if (find_key(view.keys, "newton_tolerance") >= 0)
    os << (os.tellp() > 0 ? ", " : "") << "Newton tolerance " << in.value("newton_tolerance");
  return os.str();
}

}  // namespace

index_t RunResult::failures() const {
  return std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
}

RunResult run_scenario(const Scenario& sc, const RunOptions& options) {
  const auto start = Clock::now();
  const ThreadCount threads(options.threads);
  RunResult result;
  result.bodies = sc.ensemble_size;
  result.steps = sc.time.steps;
  result.samples = sc.samples();
  result.threads = omp_get_max_threads();
  result.output_file = options.output.empty() ? sc.output_file : options.output;
  const index_t n = result.bodies;

  const BackendChoice backend = choose_backend(sc.backend);
  result.backend = backend;
  const std::vector<Channel> layout = sample_channels(sc);
  const int scalars = channel_scalars(layout);
  Hdf5Output out(result.output_file, n, result.samples,
                 {sc.text, sc.integrator.view().info.name, sc.model_view().info.name, backend.description,
                  to_string(sc.precision), sc.time.dt, sc.time.t_start, sc.stride},
                 layout, sc.channels);
  const std::unique_ptr<Ensemble> ensemble = make_ensemble(sc, backend);

  // The sample window of a chunk (done, done + k]: samples j with done < j·stride ≤ done + k.
  std::vector<double> buffer(static_cast<std::size_t>(scalars * n)), times;
  const auto write = [&](index_t first, index_t count) {
    times.resize(count);
    for (index_t j = 0; j < count; ++j)  // t_k = t0 + k·h as in advance_body
      times[j] = sc.time.t_start + double((first + j) * sc.stride) * sc.time.dt;
    out.write_samples(first, count, buffer.data(), times.data());
  };
  ensemble->initialize(SampleView<double>{buffer.data(), n, 0, 1, sc.stride, scalars});
  write(0, 1);

  const index_t max_samples = std::max<index_t>(1, index_t(sample_buffer_bytes / (sizeof(double) * scalars * n)));
  const index_t max_chunk = max_samples * sc.stride;
  index_t chunk = std::clamp<index_t>(index_t(first_chunk_body_steps / double(n)), 1, max_chunk);
  const auto loop_start = Clock::now();
  std::optional<ProgressBar> bar;
  for (index_t done = 0; done < sc.time.steps;) {
    const index_t k = std::min(chunk, sc.time.steps - done);
    const index_t first = done / sc.stride + 1, count = (done + k) / sc.stride - first + 1;
    buffer.resize(static_cast<std::size_t>(count * scalars * n));
    ensemble->advance(k, SampleView<double>{buffer.data(), n, first, count, sc.stride, scalars});
    write(first, count);
    const bool first_chunk = done == 0;
    done += k;

    const double elapsed = seconds_since(loop_start);
    const double steps_per_second = double(done) / std::max(elapsed, 1e-9);
    if (first_chunk && done < sc.time.steps && options.progress != ProgressMode::never) {
      const bool long_run = double(sc.time.steps) / steps_per_second > progress_threshold_s;
      if (options.progress == ProgressMode::always || (long_run && isatty(STDERR_FILENO))) bar.emplace(stderr, sc.time.steps, n);
    }
    if (bar) bar->update(done, elapsed);
    chunk = std::clamp<index_t>(index_t(steps_per_second * chunk_seconds), 1, max_chunk);
  }
  if (bar) bar->finish(seconds_since(loop_start));

  out.write_body_results(ensemble->status(), ensemble->newton_iterations(), ensemble->failed_step());
  out.close();
  result.status = ensemble->status();
  result.failed_step = ensemble->failed_step();
  for (index_t it : ensemble->newton_iterations()) result.newton_iterations += it;
  result.wall_seconds = seconds_since(start);
  return result;
}

void print_summary(std::ostream& os, const Scenario& sc, const RunResult& r) {
  const double body_steps = double(r.bodies) * double(r.steps);
  const auto row = [&](const char* name) -> std::ostream& { return os << "  " << std::left << std::setw(24) << name; };
  const MethodView& method = sc.integrator.view();
  os << "quatstep " << version << ": " << sc.model_view().info.name << ", " << method.info.name;
  if (method.has_variants()) os << " (variant " << method.variants[sc.integrator.variant].name << ")";
  os << " (" << settings_summary(sc.integrator) << ")";
  os << ", dt " << sc.time.dt << "\n";
  row("bodies") << r.bodies << "\n";
  row("steps") << r.steps << " (t = " << sc.time.t_start << " .. " << sc.time.t_end << ")\n";
  row("backend") << r.backend.description << ", " << to_string(sc.precision) << "\n";
  if (r.backend.backend == Backend::cpu) row("threads") << r.threads << "\n";
  row("wall time") << std::setprecision(3) << r.wall_seconds << " s\n";
  row("body-steps per second") << std::setprecision(3) << body_steps / std::max(r.wall_seconds, 1e-9) << "\n";
  row("Newton iterations/step") << std::fixed << std::setprecision(2) << double(r.newton_iterations) / body_steps
                                << std::defaultfloat << std::setprecision(6) << "\n";
  row("failures") << r.failures();
  constexpr int shown = 5;
  int listed = 0;
  for (index_t i = 0; i < r.bodies && listed < shown; ++i) {
    if (r.status[i] == Status::ok) continue;
    os << (listed++ ? ", " : " (") << "body " << i << ": " << to_string(r.status[i]) << " at step " << r.failed_step[i];
  }
  if (listed) os << (r.failures() > shown ? ", ...)" : ")");
  os << "\n";
  row("output") << r.output_file << " (" << r.samples << " samples)\n";
}

}  // namespace quatstep
