// The integrator class behind each [integrator] method, for a model type, and the switches that
// turn the runtime choices of a scenario (Method, and livens_em's variant) into that compile-time
// class. The parser (Newton defaults, optional outputs) reads the table per method; the factory
// (construction) takes the class of the whole IntegratorSpec from with_integrator_class.
#pragma once

#include <stdexcept>
#include <type_traits>

#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hamiltonian_em.hpp"
#include "quatstep/integrators/hamiltonian_midpoint.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "scenario.hpp"

namespace quatstep {

/// The method's class, Livens schemes in their default variant (REML): what all variants share
/// (settings, optional outputs). with_integrator_class gives livens_em in the scenario's variant.
template <Method M, class Model>
struct MethodClass;
template <class Model> struct MethodClass<Method::hht, Model> { using type = Hht<Model>; };
template <class Model> struct MethodClass<Method::modified_hht, Model> { using type = ModifiedHht<Model>; };
template <class Model> struct MethodClass<Method::simo_vu_quoc, Model> { using type = SimoVuQuoc<Model>; };
template <class Model> struct MethodClass<Method::zupan3, Model> { using type = Zupan3<Model>; };
template <class Model> struct MethodClass<Method::explicit_newmark_lie, Model> { using type = ExplicitNewmarkLie<Model>; };
template <class Model> struct MethodClass<Method::midpoint_lie, Model> { using type = MidpointLie<Model>; };
template <class Model> struct MethodClass<Method::livens_em, Model> { using type = LivensEm<Model>; };
template <class Model> struct MethodClass<Method::livens_midpoint, Model> { using type = LivensMidpoint<Model>; };
template <class Model> struct MethodClass<Method::livens_hamiltonian_em, Model> { using type = HamiltonianEm<Model>; };
template <class Model> struct MethodClass<Method::hamiltonian_midpoint, Model> { using type = HamiltonianMidpoint<Model>; };

template <Method M, class Model>
using IntegratorFor = typename MethodClass<M, Model>::type;
/// The settings struct of an integrator (HhtSettings, LivensSettings, …).
template <class Integrator>
using SettingsOf = std::remove_cv_t<decltype(Integrator::settings)>;

template <Method M>
using MethodTag = std::integral_constant<Method, M>;

/// f(MethodTag<m>{}): the runtime method as a compile-time constant.
template <class F>
decltype(auto) with_method(Method m, F&& f) {
  switch (m) {
    case Method::hht: return f(MethodTag<Method::hht>{});
    case Method::modified_hht: return f(MethodTag<Method::modified_hht>{});
    case Method::simo_vu_quoc: return f(MethodTag<Method::simo_vu_quoc>{});
    case Method::zupan3: return f(MethodTag<Method::zupan3>{});
    case Method::explicit_newmark_lie: return f(MethodTag<Method::explicit_newmark_lie>{});
    case Method::midpoint_lie: return f(MethodTag<Method::midpoint_lie>{});
    case Method::livens_em: return f(MethodTag<Method::livens_em>{});
    case Method::livens_midpoint: return f(MethodTag<Method::livens_midpoint>{});
    case Method::livens_hamiltonian_em: return f(MethodTag<Method::livens_hamiltonian_em>{});
    case Method::hamiltonian_midpoint: return f(MethodTag<Method::hamiltonian_midpoint>{});
  }
  throw std::logic_error("unknown integrator method");
}

/// A type as a value: f(TypeTag<T>{}) names T as typename decltype(tag)::type.
template <class T>
struct TypeTag {
  using type = T;
};

/// f(TypeTag<I>{}) with I the integrator class the spec runs on Model: IntegratorFor its method,
/// livens_em with the variant as the template parameter (LivensEm<Model, variant>).
template <class Model, class F>
decltype(auto) with_integrator_class(const IntegratorSpec& spec, F&& f) {
  return with_method(spec.method, [&](auto method) -> decltype(auto) {
    if constexpr (decltype(method)::value == Method::livens_em)
      return with_livens_variant(spec.variant, [&](auto variant) -> decltype(auto) {
        return f(TypeTag<LivensEm<Model, decltype(variant)::value>>{});
      });
    else
      return f(TypeTag<IntegratorFor<decltype(method)::value, Model>>{});
  });
}

}  // namespace quatstep
