// A shard: one of `count` contiguous body ranges of an ensemble, run by its own process (`quatstep run
// --shard index/count`, or an MPI rank) and joined with the others by `quatstep merge` (shard.hpp).
#pragma once

#include "quatstep/ensemble.hpp"

namespace quatstep {

struct ShardRange {
  int index = 0, count = 1;
  index_t first = 0, end = 0;  ///< the shard's bodies [first, end) of the ensemble
};

}  // namespace quatstep
