#include "mpi_run.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ensemble_factory.hpp"
#include "mechanism_run.hpp"
#include "merge.hpp"
#include "shard.hpp"

namespace quatstep {
namespace {

constexpr int exit_error = 1, exit_interrupted = 3, exit_bodies_missing = 4;

/// MPI_Init … MPI_Finalize around the run.
class MpiSession {
 public:
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // OpenMP threads make no MPI calls
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;  // the ranks sharing this node's memory: the local rank picks the GPU
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// Every rank's code, at rank 0 (empty elsewhere).
  std::vector<int> gather(int code) const {
    std::vector<int> codes(rank == 0 ? std::size_t(size) : 0);
    MPI_Gather(&code, 1, MPI_INT, codes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    return codes;
  }

  int rank = 0, size = 1, local_rank = 0;
};

/// What a rank's run of its shard gives.
struct RankRun {
  bool interrupted = false;
  index_t steps_done = 0;
};
/// Runs the shard `range` with `options` (their output: the rank's file); prints its summary when asked.
using RunShard = std::function<RankRun(const ShardRange& range, const RunOptions& options, bool summary)>;

/// Steps 1–3 for an ensemble of `size` whose file is `output_file` (unless options.output says).
int run_ranks(index_t size, const std::string& output_file, Backend backend, RunOptions options, bool quiet,
              const RunShard& run_shard) {
  const MpiSession mpi;
  const std::string output = options.output.empty() ? output_file : options.output;
  std::vector<std::string> files;
  for (int r = 0; r < mpi.size; ++r) files.push_back(shard_file_name(output, shard_range(size, r, mpi.size)));
  const ShardRange range = shard_range(size, mpi.rank, mpi.size);
  const std::string rank_name = "rank " + std::to_string(mpi.rank) + " of " + std::to_string(mpi.size) + " (" + bodies_text(range) + ")";
  if (backend != Backend::cpu) select_cuda_device(mpi.local_rank);
  options.output = files[std::size_t(mpi.rank)];
  if (mpi.rank != 0) options.progress = ProgressMode::never;
  int code = 0;
  try {
    const bool summary = mpi.rank == 0 && !quiet;
    if (summary) std::cout << rank_name << " (each rank's own summary; the merged file's below):\n";
    const RankRun result = run_shard(range, options, summary);
    if (result.interrupted) {
      std::cerr << "quatstep: " << rank_name << ": interrupted after step " << result.steps_done << "; "
                << options.output << " holds a checkpoint (quatstep run --resume " << options.output
                << ", then quatstep merge " << output << " with every shard file)\n";
      code = exit_interrupted;
    }
  } catch (const std::exception& e) {
    std::cerr << "quatstep: " << rank_name << ": error: " << e.what() << "\n";
    code = exit_error;
  }
  const std::vector<int> codes = mpi.gather(code);
  if (mpi.rank != 0) return code;
  for (int r = 0; r < mpi.size; ++r)
    if (codes[std::size_t(r)] != 0)
      std::cerr << "quatstep: rank " << r << " " << (codes[std::size_t(r)] == exit_interrupted ? "was interrupted" : "failed")
                << ": its bodies are missing from " << output << "\n";
  try {
    const MergeResult merged = merge_shards(output, files);
    std::ostringstream summary;
    print_merge_summary(summary, output, merged);
    if (!merged.missing.empty() || !quiet) (merged.missing.empty() ? std::cout : std::cerr) << summary.str();
    if (!merged.missing.empty()) return exit_bodies_missing;
    for (const std::string& f : files) std::remove(f.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "quatstep: merging the ranks' shard files: " << e.what() << "\n";
    return exit_error;
  }
}

}  // namespace

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(variable)) return true;
  return false;
}

int run_mpi_ranks(const Scenario& sc, RunOptions options, bool quiet) {
  return run_ranks(sc.ensemble_size, sc.output_file, sc.backend, std::move(options), quiet,
                   [&](const ShardRange& range, const RunOptions& o, bool summary) {
                     const Scenario shard = shard_scenario(sc, range);
                     const RunResult result = run_scenario(shard, o);
                     if (summary) print_summary(std::cout, shard, result);
                     return RankRun{result.interrupted, result.steps_done};
                   });
}

int run_mpi_ranks(const MechanismScenario& sc, RunOptions options, bool quiet) {
  return run_ranks(sc.ensemble_size, sc.output_file, sc.backend, std::move(options), quiet,
                   [&](const ShardRange& range, const RunOptions& o, bool summary) {
                     const MechanismScenario shard = shard_scenario(sc, range);
                     const MechanismRunResult result = run_mechanism_scenario(shard, o);
                     if (summary) print_mechanism_summary(std::cout, shard, result);
                     return RankRun{result.interrupted, result.steps_done};
                   });
}

}  // namespace quatstep
