// The coupled step (cpu_batch_stepper.hpp) of a block of bodies in SIMD lanes, for the integrators
// with lanes whose state keeps the last step's loads (holds_loads, ensemble.hpp): Krysl's
// ExplicitNewmarkLie and the splittings. Each lane takes its body's new loads (take_loads) and then
// steps, as step_body_with_loads does for each body, bit for bit. Taken body by body before the
// block's lane step, the loads cost the float DEM bench 2.3× its time per step (bench/README.md,
// "DEM coupling on the CPU"). Zupan3 holds loads too, but its hold_loads branches on one body's
// singular inertia: its blocks take them body by body. The same integrators' kinematics, which a
// DEM code reads back every step, are written block by block in the lanes too (KinematicsJob).
// The entry points are defined in the lane units (cpu_lane_steps.cpp.in) beside LaneSteps, and
// declared here, apart from cpu_lanes.hpp, for the coupled step alone.
#pragma once

#include <type_traits>

#include "cpu_lanes.hpp"

namespace quatstep::lanes {

/// A block's kinematics, as write_body_kinematics (coupled_step.hpp) writes each of its bodies':
/// its parameters and state in, component-major host arrays out (4, 3, 3, 3 × bodies; any null).
template <class T>
struct KinematicsJob {
  Isa isa;
  Model model;
  const T* parameters;  ///< [parameter][lane] (for_each_parameter)
  const T* state;       ///< every body's state, component c of body i at [c·bodies + i]
  index_t bodies, first;
  T *quaternion, *omega_body, *position, *velocity;
};

/// The entry points: one step (job.steps must be 1) of each body of the block whose status is ok,
/// after take_loads at its start t = job.t0 + job.first_step · job.h with h_previous (the size of
/// the last step where its end impulse is redone with the new loads, else 0); and the kinematics of
/// each body of a block.
template <class T, Isa I>
struct CoupledLaneSteps {
  static void explicit_newmark_lie(const LieGroupSettings<T>& settings, const BlockJob<T>& job, T h_previous);
  static void splitting(Flow flow, const SplittingSettings<T>& settings, const BlockJob<T>& job, T h_previous);
  static void exact_free_splitting(const ExactFreeSplittingSettings<T>& settings, const BlockJob<T>& job,
                                   T h_previous);
  static void explicit_newmark_lie_kinematics(const LieGroupSettings<T>& settings, const KinematicsJob<T>& job);
  static void splitting_kinematics(Flow flow, const SplittingSettings<T>& settings, const KinematicsJob<T>& job);
  static void exact_free_splitting_kinematics(const ExactFreeSplittingSettings<T>& settings,
                                              const KinematicsJob<T>& job);
};

/// f(CoupledLaneSteps<T, I>{}) with the entry points of precision T and instruction set `isa`.
template <class T, class F>
void with_coupled_steps(Isa isa, F&& f) {
  if constexpr (built_avx512) {
    if (isa == Isa::avx512) return f(CoupledLaneSteps<T, Isa::avx512>{});
  }
  f(CoupledLaneSteps<T, Isa::avx2>{});
}

/// The coupled lane step of an integrator, where it has one.
template <class Integrator>
struct CoupledLaneForm {
  static constexpr bool exists = false;
};
template <class M>
struct CoupledLaneForm<ExplicitNewmarkLie<M>> {
  static constexpr bool exists = LaneForm<ExplicitNewmarkLie<M>>::exists;
  static void advance(const ExplicitNewmarkLie<M>& i, const JobOf<M>& job, typename M::Scalar h_previous) {
    with_coupled_steps<typename M::Scalar>(
        job.isa, [&](auto steps) { steps.explicit_newmark_lie(i.settings, job, h_previous); });
  }
  static void kinematics(const ExplicitNewmarkLie<M>& i, const KinematicsJob<typename M::Scalar>& job) {
    with_coupled_steps<typename M::Scalar>(job.isa,
                                           [&](auto steps) { steps.explicit_newmark_lie_kinematics(i.settings, job); });
  }
};
template <class M, class F>
struct CoupledLaneForm<RigidBodySplitting<M, F>> {
  static constexpr bool exists = LaneForm<RigidBodySplitting<M, F>>::exists;
  static void advance(const RigidBodySplitting<M, F>& i, const JobOf<M>& job, typename M::Scalar h_previous) {
    with_coupled_steps<typename M::Scalar>(job.isa,
                                           [&](auto steps) { steps.splitting(flow, i.settings, job, h_previous); });
  }
  static void kinematics(const RigidBodySplitting<M, F>& i, const KinematicsJob<typename M::Scalar>& job) {
    with_coupled_steps<typename M::Scalar>(job.isa,
                                           [&](auto steps) { steps.splitting_kinematics(flow, i.settings, job); });
  }

 private:
  static constexpr Flow flow = std::is_same_v<F, NoSquishFlow> ? Flow::no_squish : Flow::symmetric;
};
template <class M>
struct CoupledLaneForm<ExactFreeSplitting<M>> {
  static constexpr bool exists = LaneForm<ExactFreeSplitting<M>>::exists;
  static void advance(const ExactFreeSplitting<M>& i, const JobOf<M>& job, typename M::Scalar h_previous) {
    with_coupled_steps<typename M::Scalar>(
        job.isa, [&](auto steps) { steps.exact_free_splitting(i.settings, job, h_previous); });
  }
  static void kinematics(const ExactFreeSplitting<M>& i, const KinematicsJob<typename M::Scalar>& job) {
    with_coupled_steps<typename M::Scalar>(job.isa,
                                           [&](auto steps) { steps.exact_free_splitting_kinematics(i.settings, job); });
  }
};

}  // namespace quatstep::lanes
