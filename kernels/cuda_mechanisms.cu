// The GPU mechanism batches of every integrator of the mechanism registry
// (include/quatstep/mechanism/registry.hpp) on Mechanism<double, SmallCapacity>: a registry entry
// gets its kernel here without a line of its own. host/mechanism_run.cpp calls them.
#include <tuple>

#include "kernels/cuda_mechanisms.cuh"
#include "quatstep/mechanism/registry.hpp"

namespace quatstep::cuda {

template <class Entry>
using SmallMechanismIntegrator =
    typename Entry::template Integrator<mechanism::Mechanism<double, mechanism::SmallCapacity>>;

template <class List>
struct MechanismFactories;
template <class... Entries>
struct MechanismFactories<TypeList<Entries...>> {
  using Table = std::tuple<decltype(&make_cuda_mechanisms<SmallMechanismIntegrator<Entries>>)...>;
  static Table table() { return Table{&make_cuda_mechanisms<SmallMechanismIntegrator<Entries>>...}; }
};
using Factories = MechanismFactories<mechanism::MechanismMethods>;

/// Every entry's make_cuda_mechanisms by address, in an object of external linkage: the compiler
/// must emit each (implicit instantiations, which the linker gives host/mechanism_run.cpp).
extern const Factories::Table mechanism_factories;
const Factories::Table mechanism_factories = Factories::table();

}  // namespace quatstep::cuda
