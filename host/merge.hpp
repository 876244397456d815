// `quatstep merge OUT SHARD…`: join the shard files of a run (shard.hpp) into the file the single
// run writes — every dataset and attribute the same bits (the backend attribute is the first
// shard's). Per-body datasets and trajectories are copied into place; the statistics are merged
// from each shard's accumulators (/shard/statistics: exact sums, kept values, histograms), which
// gives the single run's bits for any split (statistics/accumulator.hpp says why). Shards of a
// mechanism scenario merge the same way (their per-mechanism datasets: mechanism_run.hpp).
//
// Shards of different runs (scenario text, t_end, precision, ensemble size, quatstep version, CPU
// vs CUDA) or with overlapping bodies are refused: nothing is written. A shard file that is absent,
// unreadable or incomplete (an interrupted or killed process) leaves its bodies missing: the merged
// file lists them (/missing_bodies, attribute missing_bodies; hdf5_output.hpp) and its statistics
// count the bodies present only — never a silent average over fewer bodies.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "run.hpp"
#include "shard_range.hpp"

namespace quatstep {

/// What became of one shard file.
struct MergedShard {
  std::string file;
  ShardRange range;     ///< as the file says (zero when unreadable)
  bool used = false;    ///< complete and merged
  std::string problem;  ///< why not (empty when used)
  index_t failures = 0; ///< bodies with a failure status (Newton, …)
};

struct MergeResult {
  index_t bodies = 0;  ///< the ensemble's
  std::vector<std::pair<index_t, index_t>> missing;  ///< [first, end) ranges of bodies in no used shard
  std::vector<MergedShard> shards;                   ///< in the order given
  std::vector<HistogramMiss> histogram_misses;       ///< per observable with bins, over the merged samples
  index_t missing_bodies() const;
};

/// Write `output` from `shards` (MergeResult says what is missing). std::runtime_error naming the
/// files for shards that cannot be merged (different runs, overlaps, none complete).
MergeResult merge_shards(const std::string& output, const std::vector<std::string>& shards);

/// One line per shard (bodies, failures, or why it is missing), then the missing bodies, and the
/// histogram ranges that missed values of the merged statistics (histogram_misses_summary).
void print_merge_summary(std::ostream& out, const std::string& output, const MergeResult& result);

}  // namespace quatstep
