// The factory both coupled steppers share (host_stepper.cpp, device_stepper.cu): a spec's bodies
// built as a scenario's are, then Wrapper<Integrator> (a CoupledStepper over one backend's batch)
// of the registered model × method in precision S.
#pragma once

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coupled_stepper.hpp"
#include "host/ensemble_builder.hpp"
#include "host/registry_dispatch.hpp"

namespace quatstep::python {

/// What a CoupledStepper says the same way on both backends, from its Batch (CpuBatchStepper or
/// cuda::BatchStepper); the wrappers add the steps, the kinematics, the records and where they live.
template <class Batch>
class BatchStepperOf : public CoupledStepper {
 public:
  index_t bodies() const override { return batch_.bodies(); }
  Precision precision() const override {
    return std::is_same_v<typename Batch::S, float> ? Precision::single_precision : Precision::double_precision;
  }
  bool translates() const override { return Batch::Model::translates; }
  index_t steps_done() const override { return batch_.steps_done(); }
  double time() const override { return double(batch_.time()); }

 protected:
  template <class... Arguments>
  explicit BatchStepperOf(Arguments&&... arguments) : batch_(std::forward<Arguments>(arguments)...) {}
  Batch batch_;
};

/// Wrapper<Integrator>(integrator, models, initial, t_start, timing, extra…) of the spec's bodies; a
/// model that is not one rigid body is a std::invalid_argument (the coupled step loads rigid bodies).
template <template <class> class Wrapper, class ModelEntry, class Integrator, class... Extra>
std::unique_ptr<CoupledStepper> stepper_of(const BodyEnsembleSpec& spec, const CheckedSpec& c, LoadTiming timing,
                                           Extra... extra) {
  using S = typename Integrator::Scalar;
  using Kinematics = KinematicsOf<Integrator>;
  if constexpr (!is_rigid_body_kinematics<Kinematics>::value) {
    throw std::invalid_argument(std::string("BatchStepper: a ") + ModelEntry::info.name +
                                " model is not one rigid body (the coupled step loads rigid bodies)");
  } else {
    const std::size_t p = model_views().at(c.model).defaults.size();
    std::vector<typename Integrator::ModelType> models;
    std::vector<Kinematics> initial;
    for (index_t i = 0; i < spec.bodies; ++i) {
      typename ModelEntry::Parameters parameters;
      std::memcpy(&parameters, spec.parameters.data() + i * p, sizeof parameters);
      models.push_back(ModelEntry::template build<S>(parameters));
      initial.push_back(ModelEntry::template initial<S>(parameters));
    }
    return std::make_unique<Wrapper<Integrator>>(build::make_integrator<Integrator>(c.integrator), models, initial,
                                                 spec.t_start, timing, extra...);
  }
}

/// stepper_of for the spec's model, method and variant in precision S.
template <template <class> class Wrapper, class S, class... Extra>
std::unique_ptr<CoupledStepper> stepper_in(const BodyEnsembleSpec& spec, const CheckedSpec& c, LoadTiming timing,
                                           Extra... extra) {
  using R = std::unique_ptr<CoupledStepper>;
  return with_registered_integrator<S, R>(c.model, c.integrator.method, c.integrator.variant,
                                          [&](auto model_tag, auto integrator_tag) -> R {
                                            return stepper_of<Wrapper, tag_type<decltype(model_tag)>,
                                                              tag_type<decltype(integrator_tag)>>(spec, c, timing,
                                                                                                   extra...);
                                          });
}

}  // namespace quatstep::python
