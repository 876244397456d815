// `mpirun -np K quatstep run S.toml`: the ensemble (of bodies or of mechanisms) split into K contiguous
// shards by rank (shard.hpp:
// rank r runs shard r/K), one CUDA device per rank chosen by its node-local rank, and ONE result
// file, the single process's bits (merge.hpp):
//   1. every rank runs its shard into OUT.shard-r-of-K.h5 beside OUT (the [output] file or --output);
//   2. the ranks' outcomes (0 complete, 3 interrupted, 1 error) are gathered at rank 0 (MPI_Gather);
//   3. rank 0 merges the shard files into OUT with `quatstep merge`'s code and, when no body is
//      missing, removes them. The exit status of rank 0 (mpirun's) is the merge's: 0, or 4 with the
//      bodies of an interrupted or failed rank named on stderr and in OUT (/missing_bodies); that
//      rank's shard file stays for `quatstep run --resume` and a new `quatstep merge`.
// Failed bodies (a Newton failure) are results: the merge summary reports them per shard (rank).
// A rank that dies (killed, out of memory) never reaches the gather: Open MPI's mpirun then ends the
// whole job with a non-zero status and a message ("the job has been aborted") — nothing hangs; the shard files the other
// ranks completed stay, and `quatstep merge OUT SHARDS…` names the dead rank's bodies as missing.
// Per-rank files rather than parallel HDF5: the merge is the tested shard code, and a serial HDF5
// (Debian's libhdf5-dev) serves both; its cost is measured in bench/scaling.md.
#pragma once

#include "mechanism_scenario.hpp"
#include "run.hpp"
#include "scenario.hpp"

namespace quatstep {

/// Whether an MPI launcher started this process (Open MPI's OMPI_COMM_WORLD_SIZE, PMIx or PMI in
/// the environment: mpirun, srun).
bool launched_by_mpi();

/// Steps 1–3 above; `options.output` empty: the scenario's file. Returns this rank's exit status.
/// `quiet`: no summary.
int run_mpi_ranks(const Scenario& scenario, RunOptions options, bool quiet);
int run_mpi_ranks(const MechanismScenario& scenario, RunOptions options, bool quiet);

}  // namespace quatstep
