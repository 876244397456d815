// Scenario → running ensemble on a backend: the model × method × precision dispatch, written once
// for every backend (CpuEnsemble in ensemble_factory.cpp, cuda::CudaEnsemble in
// kernels/cuda_ensemble_factory.cu). A backend is a class template over the integrator with
// CpuEnsemble's interface: (integrator, models, t0, h), initialize, advance, status,
// newton_iterations, failed_step.
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

#include "ensemble_factory.hpp"
#include "methods.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep::build {

template <class S>
Vec3<S> vec3(const std::array<double, 3>& a) {
  return Vec3<S>(S(a[0]), S(a[1]), S(a[2]));
}

template <class S>
TimeProfile<S> profile(const std::array<double, 3>& constant, const ProfileParameters& p) {
  TimeProfile<S> f;
  f.constant = vec3<S>(constant);
  f.ramp = vec3<S>(p.ramp);
  f.amplitude = vec3<S>(p.amplitude);
  f.frequency = S(p.frequency);
  f.phase = S(p.phase);
  return f;
}

template <class S>
void set_torques(const BodyParameters& p, RigidBodyLoads<S>& loads) {
  loads.body_torque = profile<S>(p.body_torque, p.body_torque_profile);
  loads.spatial_torque = profile<S>(p.spatial_torque, p.spatial_torque_profile);
}

// Per-body model from the scenario's numbers; the inertia in the file is about the centre of mass.
template <class S>
HeavyTop<S> make_model(const BodyParameters& p, HeavyTop<S>*) {
  auto m = HeavyTop<S>::from_center_of_mass(vec3<S>(p.inertia), S(p.mass), vec3<S>(p.center_of_mass), vec3<S>(p.gravity));
  set_torques(p, m.loads);
  return m;
}

template <class S>
FreeRigidBody<S> make_model(const BodyParameters& p, FreeRigidBody<S>*) {
  FreeRigidBody<S> m;
  m.inertia = vec3<S>(p.inertia).asDiagonal();
  m.mass = S(p.mass);
  m.gravity = vec3<S>(p.gravity);
  m.force_profile = profile<S>(p.force, p.force_profile);
  set_torques(p, m.loads);
  return m;
}

template <class S>
RigidBodyKinematics<S> make_kinematics(const BodyParameters& p) {
  RigidBodyKinematics<S> k;
  k.quaternion = Vec4<S>(S(p.quaternion[0]), S(p.quaternion[1]), S(p.quaternion[2]), S(p.quaternion[3]));
  k.omega_body = vec3<S>(p.omega_body);
  k.position = vec3<S>(p.position);
  k.velocity = vec3<S>(p.velocity);
  return k;
}

// The method-specific [integrator] keys of each settings struct (scenario.cpp lets a method have
// only the keys its struct has); the others take only the Newton keys. livens_em's variant is the
// integrator's template parameter (with_integrator_class, methods.hpp), no setting.
template <class S>
void set_method_keys(const IntegratorSpec& in, HhtSettings<S>& s) {
  s.alpha = S(in.alpha);
  s.inertia_shift = in.inertia_shift;
}
template <class S>
void set_method_keys(const IntegratorSpec& in, SimoVuQuocSettings<S>& s) {
  s.alpha = S(in.alpha);
}
template <class Settings>
void set_method_keys(const IntegratorSpec&, Settings&) {}

template <class Integrator>
Integrator make_integrator(const IntegratorSpec& in) {
  using S = typename Integrator::Scalar;
  SettingsOf<Integrator> s;  // the integrator's own defaults for anything the scenario does not set
  s.newton.tolerance = S(in.newton_tolerance);
  s.newton.max_iterations = in.newton_max_iterations;
  set_method_keys(in, s);
  return Integrator(s);
}

/// A backend's ensemble behind the Ensemble interface. The interface speaks double; a float
/// ensemble writes its samples into a float window that is widened into the caller's.
template <class Backend>
class BackendAdapter final : public Ensemble {
  using S = typename Backend::S;

 public:
  BackendAdapter(const Scenario& sc, Backend backend) : backend_(std::move(backend)) {
    initial_.reserve(sc.ensemble_size);
    for (index_t i = 0; i < sc.ensemble_size; ++i) initial_.push_back(make_kinematics<S>(body_parameters(sc, i)));
  }
  void initialize(const SampleView<double>& out) override {
    backend_.initialize(initial_, window(out));
    widen(out);
  }
  void advance(index_t steps, const SampleView<double>& out) override {
    backend_.advance(steps, window(out));
    widen(out);
  }
  const std::vector<Status>& status() const override { return backend_.status(); }
  const std::vector<index_t>& newton_iterations() const override { return backend_.newton_iterations(); }
  const std::vector<index_t>& failed_step() const override { return backend_.failed_step(); }

 private:
  SampleView<S> window(const SampleView<double>& out) {
    if constexpr (std::is_same_v<S, double>) {
      return out;
    } else {
      staging_.resize(static_cast<std::size_t>(out.samples * channel::count * out.bodies));
      return SampleView<S>{staging_.data(), out.bodies, out.first_sample, out.samples, out.stride};
    }
  }
  void widen(const SampleView<double>& out) const {
    if constexpr (!std::is_same_v<S, double>)
      for (std::size_t k = 0; k < staging_.size(); ++k) out.data[k] = double(staging_[k]);
  }

  Backend backend_;
  std::vector<RigidBodyKinematics<S>> initial_;
  std::vector<S> staging_;  // float runs only
};

template <template <class> class Backend, class Integrator>
std::unique_ptr<Ensemble> adapt(const Scenario& sc, const Integrator& integrator) {
  using Model = typename Integrator::ModelType;
  using S = typename Integrator::Scalar;
  std::vector<Model> models;
  models.reserve(sc.ensemble_size);
  for (index_t i = 0; i < sc.ensemble_size; ++i) models.push_back(make_model(body_parameters(sc, i), static_cast<Model*>(nullptr)));
  return std::make_unique<BackendAdapter<Backend<Integrator>>>(
      sc, Backend<Integrator>(integrator, std::move(models), S(sc.time.t_start), S(sc.time.dt)));
}

template <template <class> class Backend, template <class> class ModelT, class S>
std::unique_ptr<Ensemble> for_model(const Scenario& sc) {
  return with_integrator_class<ModelT<S>>(sc.integrator, [&](auto tag) {
    using Integrator = typename decltype(tag)::type;
    return adapt<Backend>(sc, make_integrator<Integrator>(sc.integrator));
  });
}

template <template <class> class Backend, class S>
std::unique_ptr<Ensemble> for_precision(const Scenario& sc) {
  switch (sc.model) {
    case ModelKind::heavy_top: return for_model<Backend, HeavyTop, S>(sc);
    case ModelKind::free_rigid_body: return for_model<Backend, FreeRigidBody, S>(sc);
  }
  throw std::logic_error("unknown model type");
}

/// The scenario's ensemble on `Backend`, in the scenario's precision.
template <template <class> class Backend>
std::unique_ptr<Ensemble> ensemble_on(const Scenario& sc) {
  if (sc.precision == Precision::single_precision) return for_precision<Backend, float>(sc);
  return for_precision<Backend, double>(sc);
}

}  // namespace quatstep::build
