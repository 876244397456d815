// What a registry entry says about itself. Every integrator header ends with a method entry,
//
//   struct ModifiedHhtMethod {
//     static constexpr MethodInfo info{"modified_hht", "ModifiedHht<Model>", "hht.hpp",
//                                      "Sherif et al. 2019 eqs. 33–34, 61–70", "1 for α ≠ 0, 2 for α = 0", "–"};
//     template <class Model, int Variant> using Integrator = ModifiedHht<Model>;
//     // optional: variants[] (a compile-time choice, [integrator] variant = "..."),
//     //           configurations[] (notable settings: README rows and CPU/GPU test cases),
//     //           template <class Model, int Variant> static constexpr bool applies (default true)
//   };
//
// and every model header with a model entry (models/rigid_body_parameters.hpp shows one). The lists
// of entries are in registry.hpp; the scenario parser, the ensemble factory, the CUDA instantiations,
// the GPU test lists and `quatstep docs` are derived from them.
#pragma once

#include <cstddef>
#include <type_traits>

namespace quatstep {

/// A method as `quatstep docs` and the README's integrator table show it.
struct MethodInfo {
  const char* name;        ///< [integrator] method = "..."
  const char* class_name;  ///< "ModifiedHht<Model>"
  const char* header;      ///< under include/quatstep/integrators/
  const char* reference;   ///< paper and equations
  const char* order;       ///< order of convergence, as measured
  const char* conserves;   ///< what it conserves ("–" for nothing)
};

/// One value of a method's compile-time variant ([integrator] variant = "name"); variants[0] is the
/// default.
struct VariantInfo {
  const char* name;
  const char* doc;
};

/// A notable combination of a method's settings: a row of its own in the README's integrator table
/// and a case of its own in the CPU/GPU agreement tests.
struct Configuration {
  const char* name;      ///< test-name suffix: "shift"
  const char* settings;  ///< [integrator] lines: "inertia_shift = true"
  const char* reference;
  const char* order;
  const char* conserves;
};

/// A model as `quatstep docs` shows it.
struct ModelInfo {
  const char* name;        ///< [model] type = "..."
  const char* class_name;  ///< "HeavyTop<S>"
  const char* header;      ///< under include/quatstep/models/
  const char* doc;
  /// [model] lines of a typical instance beyond the keys every model has (inertia, mass, torques):
  /// what makes this model's dynamics its own. `quatstep docs` shows them as the example, and the
  /// GPU tests' random ensembles (tests/gpu/random_ensemble.hpp) draw their bodies around them.
  const char* example;
};

// ---------------------------------------------------------------- optional parts of a method entry
template <class M, class = void>
struct method_variant_count : std::integral_constant<int, 1> {};
template <class M>
struct method_variant_count<M, std::void_t<decltype(M::variants)>>
    : std::integral_constant<int, int(std::extent_v<decltype(M::variants)>)> {};

template <class M, class Model, int V, class = void>
struct method_applies : std::true_type {};
template <class M, class Model, int V>
struct method_applies<M, Model, V, std::void_t<decltype(M::template applies<Model, V>)>>
    : std::bool_constant<M::template applies<Model, V>> {};

/// The integrator class of variant V of method M on Model.
template <class M, class Model, int V = 0>
using IntegratorOf = typename M::template Integrator<Model, V>;

}  // namespace quatstep
