// make_device_stepper: a cuda::BatchStepper (kernels/batch_stepper.cuh) for any registered model ×
// method × precision (CUDA builds; device_stepper.hpp).
#include <cstring>

#include "device_stepper.hpp"
#include "host/ensemble_builder.hpp"
#include "host/registry_dispatch.hpp"
#include "kernels/batch_stepper.cuh"

namespace quatstep::python {
namespace {

cudaStream_t as_stream(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

template <class Integrator>
class CudaStepper final : public DeviceStepper {
  using S = typename Integrator::Scalar;
  using Batch = cuda::BatchStepper<Integrator>;

 public:
  CudaStepper(const Integrator& integrator, const std::vector<typename Batch::Model>& models,
              const std::vector<typename Batch::Kinematics>& initial, double t0, std::uintptr_t stream,
              LoadTiming timing)
      : batch_(integrator, models, initial, S(t0), as_stream(stream), timing) {
    cuda::check(cudaGetDevice(&device_), "cudaGetDevice");
  }
  index_t bodies() const override { return batch_.bodies(); }
  Precision precision() const override {
    return std::is_same_v<S, float> ? Precision::single_precision : Precision::double_precision;
  }
  bool translates() const override { return Batch::Model::translates; }
  index_t steps_done() const override { return batch_.steps_done(); }
  double time() const override { return double(batch_.time()); }
  int device() const override { return device_; }
  void step(double h, const void* torque, const void* force, std::uintptr_t stream) override {
    batch_.step(S(h), static_cast<const S*>(torque), static_cast<const S*>(force), as_stream(stream));
  }
  void kinematics(void* quaternion, void* omega_body, void* position, void* velocity,
                  std::uintptr_t stream) const override {
    batch_.kinematics(static_cast<S*>(quaternion), static_cast<S*>(omega_body), static_cast<S*>(position),
                      static_cast<S*>(velocity), as_stream(stream));
  }
  const void* status() const override { return batch_.status(); }
  const void* failed_step() const override { return batch_.failed_step(); }
  const void* newton_iterations() const override { return batch_.newton_iterations(); }

 private:
  Batch batch_;
  int device_ = 0;
};

/// The stepper of one registered model × integrator, its bodies built from the spec's rows.
template <class ModelEntry, class Integrator>
std::unique_ptr<DeviceStepper> stepper_of(const BodyEnsembleSpec& spec, const CheckedSpec& c, std::uintptr_t stream,
                                          LoadTiming timing) {
  using S = typename Integrator::Scalar;
  using Kinematics = typename cuda::BatchStepper<Integrator>::Kinematics;
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
    return std::make_unique<CudaStepper<Integrator>>(build::make_integrator<Integrator>(c.integrator), models, initial,
                                                     spec.t_start, stream, timing);
  }
}

template <class S>
std::unique_ptr<DeviceStepper> stepper_in(const BodyEnsembleSpec& spec, const CheckedSpec& c, std::uintptr_t stream,
                                          LoadTiming timing) {
  using R = std::unique_ptr<DeviceStepper>;
  return with_registered_integrator<S, R>(c.model, c.integrator.method, c.integrator.variant,
                                          [&](auto model_tag, auto integrator_tag) -> R {
                                            return stepper_of<tag_type<decltype(model_tag)>,
                                                              tag_type<decltype(integrator_tag)>>(spec, c, stream,
                                                                                                   timing);
                                          });
}

}  // namespace

std::unique_ptr<DeviceStepper> make_device_stepper(const BodyEnsembleSpec& spec, std::uintptr_t stream,
                                                   LoadTiming timing) {
  const CheckedSpec c = check_spec(spec);
  if (spec.precision == Precision::single_precision) return stepper_in<float>(spec, c, stream, timing);
  return stepper_in<double>(spec, c, stream, timing);
}

}  // namespace quatstep::python
