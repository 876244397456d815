// From the registry's runtime indices (a scenario's model, method and variant) to the templates:
// the one switch from runtime choices to compile-time classes, for every backend.
#pragma once

#include <stdexcept>
#include <string>

#include "quatstep/registry.hpp"

namespace quatstep {

/// f(TypeTag<ModelEntry>{}, TypeTag<Integrator>{}) → R with Integrator the class of variant
/// `variant` of method `method` on model `model` in precision S. Instantiates every registered
/// combination whose method's index is congruent to Shard modulo Shards (the CUDA factory splits
/// the kernels over several translation units that way); a method of another shard, or a method
/// that does not run on the model (the scenario parser rejects that first), is a std::logic_error.
template <class S, class R, int Shard = 0, int Shards = 1, class F>
R with_registered_integrator(int model, int method, int variant, F&& f) {
  return with_type(Models{}, model, [&](auto model_tag) -> R {
    using ModelEntry = tag_type<decltype(model_tag)>;
    using Model = typename ModelEntry::template Model<S>;
    return with_type(Methods{}, method, [&](auto method_tag) -> R {
      using M = tag_type<decltype(method_tag)>;
      if constexpr (index_in<M>(Methods{}) % Shards != Shard) {
        throw std::logic_error(std::string("method '") + M::info.name + "' is not instantiated in this shard");
      } else {
        return with_int<method_variant_count<M>::value>(variant, [&](auto v) -> R {
          if constexpr (method_applies<M, Model, std::decay_t<decltype(v)>::value>::value)
            return f(TypeTag<ModelEntry>{}, TypeTag<IntegratorOf<M, Model, std::decay_t<decltype(v)>::value>>{});
          else
            throw std::logic_error(std::string("method '") + M::info.name + "' does not run on model '" +
                                   ModelEntry::info.name + "' in this variant");
        });
      }
    });
  });
}

}  // namespace quatstep
