// make_host_stepper: a CpuBatchStepper (host/cpu_batch_stepper.hpp) for any registered model ×
// method × precision (coupled_stepper.hpp).
#include "host/cpu_batch_stepper.hpp"
#include "make_stepper.hpp"

namespace quatstep::python {
namespace {

template <class Integrator>
class HostStepper final : public BatchStepperOf<CpuBatchStepper<Integrator>> {
  using Batch = CpuBatchStepper<Integrator>;
  using S = typename Batch::S;

 public:
  HostStepper(const Integrator& integrator, std::vector<typename Batch::Model> models,
              const std::vector<typename Batch::Kinematics>& initial, double t0, LoadTiming timing)
      : BatchStepperOf<Batch>(integrator, std::move(models), initial, S(t0), timing) {}
  int device() const override { return -1; }
  void step(double h, const void* torque, const void* force, std::uintptr_t) override {
    this->batch_.step(S(h), static_cast<const S*>(torque), static_cast<const S*>(force));
  }
  void kinematics(void* quaternion, void* omega_body, void* position, void* velocity, std::uintptr_t) const override {
    this->batch_.kinematics(static_cast<S*>(quaternion), static_cast<S*>(omega_body), static_cast<S*>(position),
                            static_cast<S*>(velocity));
  }
  const void* status() const override { return this->batch_.status().data(); }
  const void* failed_step() const override { return this->batch_.failed_step().data(); }
  const void* newton_iterations() const override { return this->batch_.newton_iterations().data(); }
};

}  // namespace

std::unique_ptr<CoupledStepper> make_host_stepper(const BodyEnsembleSpec& spec, LoadTiming timing) {
  const CheckedSpec c = check_spec(spec);
  if (spec.precision == Precision::single_precision) {
#if QUATSTEP_CPU_FLOAT
    return stepper_in<HostStepper, float>(spec, c, timing);
#else
    throw std::runtime_error("BatchStepper: precision = \"float\" on the CPU needs the CPU's float ensembles, which "
                             "this build leaves out (QUATSTEP_CPU_FLOAT=OFF): cmake -S . -B build "
                             "-DQUATSTEP_CPU_FLOAT=ON");
#endif
  }
  return stepper_in<HostStepper, double>(spec, c, timing);
}

}  // namespace quatstep::python
