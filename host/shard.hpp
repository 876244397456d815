// Splitting a run into shards of contiguous bodies. Shard i of K over an ensemble of N bodies runs
// bodies ⌊i·N/K⌋ … ⌊(i+1)·N/K⌋ − 1: the shards tile [0, N) in order, and their sizes differ by at
// most one. A shard runs exactly what the single run does for those bodies (the same parameters,
// trajectories, statistics values), so merging the shards (merge.hpp) gives the single run's bits.
// The same holds for the mechanisms of a mechanism scenario (mechanism_scenario.hpp).
#pragma once

#include <string>

#include "hdf5_output.hpp"
#include "mechanism_scenario.hpp"
#include "scenario.hpp"
#include "shard_range.hpp"

namespace quatstep {

/// Shard `index` of `count` over `bodies` bodies (std::invalid_argument unless 0 <= index < count).
ShardRange shard_range(index_t bodies, int index, int count);
/// "i/K" (0 <= i < K) as written on the command line; std::invalid_argument naming the text otherwise.
ShardRange parse_shard(const std::string& text, index_t bodies);
/// The scenario of a shard of `full` (a scenario without a body selection): its bodies as the
/// selection, the trajectories the full run writes of them. std::invalid_argument for a full
/// scenario with a selection.
Scenario shard_scenario(const Scenario& full, const ShardRange& shard);
/// The same for a mechanism scenario: its mechanisms [first, end) as the selection.
MechanismScenario shard_scenario(const MechanismScenario& full, const ShardRange& shard);
/// A shard file's root attributes: its range and the ensemble's size (hdf5_output.hpp).
void write_shard_attributes(const ShardRange& shard, index_t ensemble_bodies, RunOutput& out);
/// "bodies 100 … 199", or "no bodies" (more shards than bodies).
std::string bodies_text(const ShardRange& shard);
/// The default file of a shard of a run writing `output`: "out.h5" → "out.shard-1-of-4.h5".
std::string shard_file_name(const std::string& output, const ShardRange& shard);

}  // namespace quatstep
