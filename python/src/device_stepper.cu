// make_device_stepper: a cuda::BatchStepper (kernels/batch_stepper.cuh) for any registered model ×
// method × precision (CUDA builds; coupled_stepper.hpp).
#include "kernels/batch_stepper.cuh"
#include "make_stepper.hpp"

namespace quatstep::python {
namespace {

cudaStream_t as_stream(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

template <class Integrator>
class CudaStepper final : public BatchStepperOf<cuda::BatchStepper<Integrator>> {
  using Batch = cuda::BatchStepper<Integrator>;
  using S = typename Batch::S;

 public:
  CudaStepper(const Integrator& integrator, const std::vector<typename Batch::Model>& models,
              const std::vector<typename Batch::Kinematics>& initial, double t0, LoadTiming timing,
              std::uintptr_t stream)
      : BatchStepperOf<Batch>(integrator, models, initial, S(t0), as_stream(stream), timing) {
    cuda::check(cudaGetDevice(&device_), "cudaGetDevice");
  }
  int device() const override { return device_; }
  void step(double h, const void* torque, const void* force, std::uintptr_t stream) override {
    this->batch_.step(S(h), static_cast<const S*>(torque), static_cast<const S*>(force), as_stream(stream));
  }
  void kinematics(void* quaternion, void* omega_body, void* position, void* velocity,
                  std::uintptr_t stream) const override {
    this->batch_.kinematics(static_cast<S*>(quaternion), static_cast<S*>(omega_body), static_cast<S*>(position),
                            static_cast<S*>(velocity), as_stream(stream));
  }
  const void* status() const override { return this->batch_.status(); }
  const void* failed_step() const override { return this->batch_.failed_step(); }
  const void* newton_iterations() const override { return this->batch_.newton_iterations(); }

 private:
  int device_ = 0;
};

}  // namespace

std::unique_ptr<CoupledStepper> make_device_stepper(const BodyEnsembleSpec& spec, std::uintptr_t stream,
                                                    LoadTiming timing) {
  const CheckedSpec c = check_spec(spec);
  if (spec.precision == Precision::single_precision) return stepper_in<CudaStepper, float>(spec, c, timing, stream);
  return stepper_in<CudaStepper, double>(spec, c, timing, stream);
}

}  // namespace quatstep::python
