// The CPU ensembles of every registered model × method in one precision, QUATSTEP_SCALAR: this file
// is compiled once per precision (host/CMakeLists.txt), so that the two compile in parallel.
#include "cpu_ensemble.hpp"
#include "ensemble_builder.hpp"

namespace quatstep {

template <>
struct build::runs_adaptive_steps<CpuEnsemble> : std::true_type {};

template <>
std::unique_ptr<Ensemble> make_cpu_ensemble<QUATSTEP_SCALAR>(const Scenario& sc) {
  return build::ensemble_in<CpuEnsemble, QUATSTEP_SCALAR>(sc);
}

}  // namespace quatstep
