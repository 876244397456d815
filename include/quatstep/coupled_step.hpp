// One coupled step of one body (the coupled-step API of kernels/batch_stepper.cuh, and its CPU
// witness in the tests): the caller's spatial torque and force of this step, on the body's model,
// state and record in device or host arrays; LoadTiming says what they stand for.
//
// The model comes from CoupledModels: the batch's array of models or, when no body has loads of its
// own (a DEM code's particles), each rebuilt from its inertia and mass (Model::unloaded) read from
// a struct of arrays. A short step is bound by the bytes it moves: the whole model is 236 B a body
// in float, of which a splitting's step reads 200 B; inertia and mass are 40 B, and a splitting
// reads only the mass (its state holds the principal frame), and of a body that does not translate
// (HeavyTop::unloaded: a particle's orientation alone) nothing.
// Of the state, only what the next coupled step needs is stored (carried_components,
// state_components.hpp): the held loads are evaluated anew by it (with LoadTiming::held; with
// at_start they are kept, for the next step's correction), the constants never change.
#pragma once

#include "quatstep/ensemble.hpp"
#include "quatstep/models/external_load.hpp"

namespace quatstep {

/// Whether a model has a form without loads of its own, Model::unloaded(inertia, mass).
template <class Model, class = void>
struct has_unloaded_form : std::false_type {};
template <class Model>
struct has_unloaded_form<Model, std::void_t<decltype(Model::unloaded(
                                    std::declval<const Mat3<typename Model::Scalar>&>(),
                                    std::declval<typename Model::Scalar>()))>> : std::true_type {};

/// The models of a coupled batch: one struct per body, or, when every body is
/// Model::unloaded(inertia, mass), those two from a struct of arrays of `inertial_scalars`
/// components (the inertia row by row, then the mass; component c of body i at (c, i)). A body that
/// does not translate has no use for its mass without loads of its own (it is rebuilt with mass 0,
/// bit for bit the same steps: gravity is zero), so its array holds the inertia alone.
template <class Model>
struct CoupledModels {
  using S = typename Model::Scalar;
  static constexpr int inertial_scalars = Model::translates ? 10 : 9;
  const Model* models;
  SoaView<const S> inertial;  ///< data null: read `models`

  /// Body i's components into a host array of inertial_scalars × bodies.
  static void store_inertial(const Model& m, S* data, index_t bodies, index_t i) {
    for (int c = 0; c < 9; ++c) data[c * bodies + i] = m.inertia(c / 3, c % 3);
    if constexpr (Model::translates) data[9 * bodies + i] = m.mass;
  }
  QS_HD Model operator()(index_t i) const {
    if constexpr (has_unloaded_form<Model>::value) {
      if (inertial.data) {
        Mat3<S> inertia;
        QS_UNROLL for (int c = 0; c < 9; ++c) inertia(c / 3, c % 3) = inertial(c, i);
        if constexpr (Model::translates) return Model::unloaded(inertia, inertial(9, i));
        return Model::unloaded(inertia, S(0));
      }
    }
    return models[i];
  }
  /// Body i's model with the caller's spatial torque and force of a step added as held loads
  /// (with_external_load): 3 × bodies arrays, component-major, null for none.
  QS_HD Model with_loads(index_t i, index_t bodies, const S* torque, const S* force) const {
    const Vec3<S> tau = torque ? Vec3<S>(torque[i], torque[bodies + i], torque[2 * bodies + i]) : Vec3<S>::Zero();
    const Vec3<S> f = force ? Vec3<S>(force[i], force[bodies + i], force[2 * bodies + i]) : Vec3<S>::Zero();
    return with_external_load((*this)(i), tau, f);
  }
};

/// Whether body i's caller's loads of a step (3 × bodies arrays, component-major, null for none) are
/// finite, neither NaN nor ±∞. A body given any other fails with Status::non_finite at that step and
/// keeps its state: an infinite force would otherwise leave a finite orientation beside an infinite
/// position, and a NaN torque would reach an implicit scheme's Newton matrix as a singular pivot.
template <class S>
QS_HD bool finite_loads(index_t i, index_t bodies, const S* torque, const S* force) {
  bool finite = true;
  QS_UNROLL for (int c = 0; c < 3; ++c) {
    if (torque) finite = finite && Eigen::numext::abs(torque[c * bodies + i]) < S(INFINITY);
    if (force) finite = finite && Eigen::numext::abs(force[c * bodies + i]) < S(INFINITY);
  }
  return finite;
}

/// What the loads a caller gives a coupled step stand for.
///   at_start: the loads at the state and time the step starts from, as a DEM code computes its
///     contacts from the positions it has. They also complete the last step: its end impulse, which
///     needs the loads at its end, is redone with them (step_body_with_loads), so that a splitting of
///     order 2 is velocity Verlet and ExplicitNewmarkLie Krysl's Ξ, both of second order in loads that
///     depend on the state; the state between calls holds a provisional end impulse with the loads at
///     the step's start, of which the next call corrects O(h²). The compositions of order 4 and 6 need the
///     loads at their inner stages, and the integrators without an end impulse (the HHT family, Zupan3,
///     …) the loads at the step's end: given once per step they are first order in such loads.
///   held: the loads stand for the whole step (zero-order hold): a load known as a function of time
///     sampled at the step's midpoint keeps every splitting's second order; no correction of the
///     last step, and a coupled step moves fewer bytes (the held loads are not carried between steps).
enum class LoadTiming : int { at_start, held };

/// Whether a coupled step of Integrator with loads given as Timing redoes the last step's end
/// impulse with them (take_loads with h_previous > 0): then the loads it held are carried between steps.
template <class Integrator, LoadTiming Timing>
inline constexpr bool redoes_at_start = redoes_end_impulse<Integrator>::value && Timing == LoadTiming::at_start;

/// Step k (from t to t + h) of body i with the spatial torque and force of this step, 3 × bodies
/// arrays (component-major; null for none), given as Timing says (h_previous: the size of step
/// k − 1; 0 on the first step). A body whose status is not ok is left untouched; one whose loads are
/// not finite (finite_loads) fails with Status::non_finite, its state untouched. Timing is a
/// template parameter so that a held step's code has no trace of the other: the loads of the held
/// components, which only at_start reads, are then dead and never issued.
/// `initial` (the first step of a batch only, else null): the bodies' initial kinematics, from
/// which body i is initialized anew at t with this step's loads before it steps, so that what an
/// integrator derives from the loads at the start (the HHT family's and Simo–Vu-Quoc's
/// accelerations, a splitting's held torque) includes the caller's first loads — initialized with
/// the models' own loads alone, the HHT family kept a velocity offset of (1 − γ)h·F/m for a constant
/// force F ever after. A body whose initialization fails there fails at step k.
template <LoadTiming Timing, class Integrator>
QS_HD void step_body_coupled(const Integrator& integrator,
                             const CoupledModels<typename Integrator::ModelType>& models,
                             const SoaView<typename Integrator::Scalar>& state_soa, const BodyRecord& record,
                             index_t i, index_t k, typename Integrator::Scalar t, typename Integrator::Scalar h,
                             const typename Integrator::Scalar* torque, const typename Integrator::Scalar* force,
                             typename Integrator::Scalar h_previous,
                             const KinematicsOf<Integrator>* initial = nullptr) {
  using S = typename Integrator::Scalar;
  using State = typename Integrator::State;
  static_assert(carried_components<State> == stepped_components<State> || holds_loads<Integrator>::value,
                "a State with held loads belongs to an integrator that evaluates them anew (hold_loads)");
  if (record.status[i] != Status::ok) return;
  if (!finite_loads(i, state_soa.bodies, torque, force)) {
    record.status[i] = Status::non_finite;
    record.failed_step[i] = k;
    return;
  }
  const typename Integrator::ModelType model = models.with_loads(i, state_soa.bodies, torque, force);
  constexpr bool at_start = redoes_at_start<Integrator, Timing>;
  with_body_state<State, carried_components<State>>(state_soa, record, i, [&](auto& s, Status& status, index_t& iterations) {
    if (initial) {
      State fresh{};
      status = integrator.initialize(model, initial[i], t, fresh);
      if (status != Status::ok) {  // the body keeps the state of its constructor
        record.failed_step[i] = k;
        return;
      }
      s = fresh;
    }
    step_body_with_loads(integrator, model, s, status, iterations, record, i, k, t, h, at_start ? h_previous : S(0));
    if constexpr (at_start) store_components<carried_components<State>, stepped_components<State>>(s, state_soa, i);
  });
}

/// Orientation, body angular velocity and (free bodies) position and velocity of body i into
/// component-major arrays (4, 3, 3, 3 × bodies); any pointer may be null.
/// `state_soa`: a SoaView of the state's scalars, const or not.
template <class Integrator, class StateView>
QS_HD void write_body_kinematics(const Integrator& integrator, const typename Integrator::ModelType& model,
                                 const StateView& state_soa, index_t i,
                                 typename Integrator::Scalar* quaternion, typename Integrator::Scalar* omega_body,
                                 typename Integrator::Scalar* position, typename Integrator::Scalar* velocity) {
  const index_t n = state_soa.bodies;
  typename Integrator::State s;
  load_state(state_soa, i, s);
  const auto k = integrator.kinematics(model, s);
  for (int c = 0; c < 4 && quaternion; ++c) quaternion[c * n + i] = k.quaternion[c];
  for (int c = 0; c < 3 && omega_body; ++c) omega_body[c * n + i] = k.omega_body[c];
  for (int c = 0; c < 3 && position; ++c) position[c * n + i] = k.position[c];
  for (int c = 0; c < 3 && velocity; ++c) velocity[c * n + i] = k.velocity[c];
}

}  // namespace quatstep
