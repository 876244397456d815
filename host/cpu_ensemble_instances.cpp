// The CPU ensembles of the registered models × the methods whose index is QUATSTEP_SHARD modulo
// cpu_shards, in one precision, QUATSTEP_SCALAR: this file is compiled once per precision and shard
// (host/CMakeLists.txt), so that they compile in parallel.
#include "cpu_ensemble.hpp"
#include "cpu_ensemble_shards.hpp"
#include "ensemble_builder.hpp"

namespace quatstep {

template <>
struct build::runs_adaptive_steps<CpuEnsemble> : std::true_type {};

template <class S, int Shard>
std::unique_ptr<Ensemble> make_cpu_ensemble_shard(const Scenario& sc) {
  return build::ensemble_in<CpuEnsemble, S, Shard, cpu_shards>(sc);
}
template std::unique_ptr<Ensemble> make_cpu_ensemble_shard<QUATSTEP_SCALAR, QUATSTEP_SHARD>(const Scenario&);

}  // namespace quatstep
