// Scenario → models, initial states and integrator; the model × method dispatch.
#include "ensemble_factory.hpp"

#include "cpu_ensemble.hpp"
#include "methods.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep {
namespace {

Vec3<double> vec3(const std::array<double, 3>& a) { return Vec3<double>(a[0], a[1], a[2]); }

TimeProfile<double> profile(const std::array<double, 3>& constant, const ProfileParameters& p) {
  TimeProfile<double> f;
  f.constant = vec3(constant);
  f.ramp = vec3(p.ramp);
  f.amplitude = vec3(p.amplitude);
  f.frequency = p.frequency;
  f.phase = p.phase;
  return f;
}

void set_torques(const BodyParameters& p, RigidBodyLoads<double>& loads) {
  loads.body_torque = profile(p.body_torque, p.body_torque_profile);
  loads.spatial_torque = profile(p.spatial_torque, p.spatial_torque_profile);
}

// Per-body model from the scenario's numbers; the inertia in the file is about the centre of mass.
template <class Model>
Model make_model(const BodyParameters& p);

template <>
HeavyTop<double> make_model(const BodyParameters& p) {
  auto m = HeavyTop<double>::from_center_of_mass(vec3(p.inertia), p.mass, vec3(p.center_of_mass), vec3(p.gravity));
  set_torques(p, m.loads);
  return m;
}

template <>
FreeRigidBody<double> make_model(const BodyParameters& p) {
  FreeRigidBody<double> m;
  m.inertia = vec3(p.inertia).asDiagonal();
  m.mass = p.mass;
  m.gravity = vec3(p.gravity);
  m.force_profile = profile(p.force, p.force_profile);
  set_torques(p, m.loads);
  return m;
}

RigidBodyKinematics<double> make_kinematics(const BodyParameters& p) {
  RigidBodyKinematics<double> k;
  k.quaternion = Vec4<double>(p.quaternion[0], p.quaternion[1], p.quaternion[2], p.quaternion[3]);
  k.omega_body = vec3(p.omega_body);
  k.position = vec3(p.position);
  k.velocity = vec3(p.velocity);
  return k;
}

template <class Integrator>
class CpuEnsembleAdapter final : public Ensemble {
  using Model = typename Integrator::ModelType;

 public:
  CpuEnsembleAdapter(const Scenario& sc, const Integrator& integrator)
      : ensemble_(integrator, models(sc), sc.time.t_start, sc.time.dt) {
    initial_.reserve(sc.ensemble_size);
    for (index_t i = 0; i < sc.ensemble_size; ++i) initial_.push_back(make_kinematics(body_parameters(sc, i)));
  }
  void initialize(const SampleView<double>& out) override { ensemble_.initialize(initial_, out); }
  void advance(index_t steps, const SampleView<double>& out) override { ensemble_.advance(steps, out); }
  const std::vector<Status>& status() const override { return ensemble_.status(); }
  const std::vector<index_t>& newton_iterations() const override { return ensemble_.newton_iterations(); }
  const std::vector<index_t>& failed_step() const override { return ensemble_.failed_step(); }

 private:
  static std::vector<Model> models(const Scenario& sc) {
    std::vector<Model> m;
    m.reserve(sc.ensemble_size);
    for (index_t i = 0; i < sc.ensemble_size; ++i) m.push_back(make_model<Model>(body_parameters(sc, i)));
    return m;
  }
  CpuEnsemble<Integrator> ensemble_;
  std::vector<RigidBodyKinematics<double>> initial_;
};

NewtonSettings<double> newton_settings(const IntegratorSpec& in) {
  NewtonSettings<double> s;
  s.tolerance = in.newton_tolerance;
  s.max_iterations = in.newton_max_iterations;
  return s;
}

// The method-specific [integrator] keys of each settings struct (scenario.cpp lets a method have
// only the keys its struct has); the others take only the Newton keys.
void set_method_keys(const IntegratorSpec& in, HhtSettings<double>& s) {
  s.alpha = in.alpha;
  s.inertia_shift = in.inertia_shift;
}
void set_method_keys(const IntegratorSpec& in, SimoVuQuocSettings<double>& s) { s.alpha = in.alpha; }
void set_method_keys(const IntegratorSpec& in, LivensSettings<double>& s) { s.variant = in.variant; }
template <class Settings>
void set_method_keys(const IntegratorSpec&, Settings&) {}

template <class Integrator>
Integrator make_integrator(const IntegratorSpec& in) {
  SettingsOf<Integrator> s;  // the integrator's own defaults for anything the scenario does not set
  s.newton = newton_settings(in);
  set_method_keys(in, s);
  return Integrator(s);
}

template <class Integrator>
std::unique_ptr<Ensemble> adapt(const Scenario& sc, const Integrator& integrator) {
  return std::make_unique<CpuEnsembleAdapter<Integrator>>(sc, integrator);
}

template <template <class> class ModelT>
std::unique_ptr<Ensemble> make_for_model(const Scenario& sc) {
  return with_method(sc.integrator.method, [&](auto tag) {
    return adapt(sc, make_integrator<IntegratorFor<decltype(tag)::value, ModelT<double>>>(sc.integrator));
  });
}

}  // namespace

std::unique_ptr<Ensemble> make_ensemble(const Scenario& sc) {
  switch (sc.model) {
    case ModelKind::heavy_top: return make_for_model<HeavyTop>(sc);
    case ModelKind::free_rigid_body: return make_for_model<FreeRigidBody>(sc);
  }
  throw std::logic_error("unknown model type");
}

}  // namespace quatstep
