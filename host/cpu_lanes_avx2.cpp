// The lane steps of the CPU backend (cpu_lanes.hpp), compiled with -mavx2 (host/CMakeLists.txt):
// blocks of lanes::width bodies, one AVX2 register per scalar. Only templates of the lane type are
// instantiated here, so that no AVX2 code can stand in for a baseline function (the test
// cpu_lanes_symbols checks the unit's symbols).
#include "cpu_lanes.hpp"
#include "quatstep/simd/lane_hamiltonian.hpp"
#include "quatstep/simd/lane_hht.hpp"
#include "quatstep/simd/lane_lie_group.hpp"
#include "quatstep/simd/lane_livens.hpp"
#include "quatstep/simd/lane_simo_vu_quoc.hpp"
#include "quatstep/simd/lane_splitting.hpp"
#include "quatstep/simd/lane_zupan3.hpp"

namespace quatstep::lanes {
namespace {

namespace stdx = std::experimental;
using L = simd::Lanes<width>;
using Ints = L::V;

template <class M>
M lane_model(const double* parameters) {
  M m;
  for_each_parameter(m, [&](L& x) { x = L(Ints(parameters, stdx::element_aligned)), parameters += width; });
  return m;
}

/// advance_body for the block's bodies: step(state, t, h, active) → LaneOutcome steps the lanes.
template <class State, class Step>
void advance_block(const BlockJob& job, Step&& step) {
  const index_t n = job.bodies, i0 = job.first;
  State s;
  for (int c = 0; c < State::size; ++c) s[c] = L(Ints(job.state + c * n + i0, stdx::element_aligned));
  Ints status, iterations = 0, failed_step;
  for (int j = 0; j < width; ++j) {
    status[j] = double(job.record.status[i0 + j]);
    failed_step[j] = double(job.record.failed_step[i0 + j]);
  }
  for (index_t k = job.first_step; k < job.first_step + job.steps; ++k) {
    const L::Mask active = simd::lanes_where(status, 0);
    if (stdx::none_of(active)) break;
    const simd::LaneOutcome<L> o = step(s, L(job.t0 + double(k) * job.h), L(job.h), active);
    iterations += simd::select(active, o.iterations, Ints(0));
    const L::Mask failed = active && !simd::lanes_where(o.status, 0);
    status = simd::select(failed, o.status, status);
    failed_step = simd::select(failed, Ints(double(k)), failed_step);
  }
  for (int c = 0; c < State::size; ++c) s[c].v.copy_to(job.state + c * n + i0, stdx::element_aligned);
  for (int j = 0; j < width; ++j) {
    job.record.status[i0 + j] = static_cast<Status>(std::int32_t(status[j]));
    job.record.newton_iterations[i0 + j] += index_t(iterations[j]);
    job.record.failed_step[i0 + j] = index_t(failed_step[j]);
  }
}

/// advance_block with the lane Integrator (its settings the scalar ones) on the block's lane model:
/// step(integrator, model, state, t, h, active) is one lane step.
template <class Integrator, class Settings, class Step>
void advance_block_with(const Settings& settings, const BlockJob& job, Step&& step) {
  const Integrator integrator(simd::lane_settings<L>(settings));
  const auto model = lane_model<typename Integrator::ModelType>(job.parameters);
  advance_block<typename Integrator::State>(
      job, [&](auto& s, L t, L h, L::Mask active) { return step(integrator, model, s, t, h, active); });
}

template <class M, VelocityUpdate U>
void hht_block(const HhtSettings<double>& settings, const BlockJob& job) {
  advance_block_with<HhtFamily<M, U>>(settings, job, [](auto&... a) { return simd::lane_hht_step(a...); });
}

template <class M, LivensRule Rule>
void livens_block(const LivensSettings<double>& settings, const BlockJob& job) {
  const bool gravity = job.branches.gravity, torques = job.branches.torques;
  advance_block_with<LivensIntegrator<M, Rule>>(
      settings, job, [=](auto&... a) { return simd::lane_livens_step(a..., gravity, torques); });
}

template <class M, class F>
void splitting_block(const SplittingSettings<double>& settings, const BlockJob& job) {
  advance_block_with<RigidBodySplitting<M, F>>(settings, job,
                                               [](auto&... a) { return simd::lane_splitting_step(a...); });
}

template <class M>
void splitting_block(Flow flow, const SplittingSettings<double>& settings, const BlockJob& job) {
  flow == Flow::no_squish ? splitting_block<M, NoSquishFlow>(settings, job)
                          : splitting_block<M, SymmetricSplittingFlow>(settings, job);
}

}  // namespace

void advance_hht(VelocityUpdate update, const HhtSettings<double>& settings, const BlockJob& job) {
  const bool classical = update == VelocityUpdate::classical;
  if (job.model == Model::heavy_top)
    classical ? hht_block<HeavyTop<L>, VelocityUpdate::classical>(settings, job)
              : hht_block<HeavyTop<L>, VelocityUpdate::modified>(settings, job);
  else
    classical ? hht_block<FreeRigidBody<L>, VelocityUpdate::classical>(settings, job)
              : hht_block<FreeRigidBody<L>, VelocityUpdate::modified>(settings, job);
}

void advance_livens(LivensRule rule, const LivensSettings<double>& settings, const BlockJob& job) {
  constexpr LivensRule em = LivensRule::energy_momentum, midpoint = LivensRule::midpoint;
  if (job.model == Model::heavy_top)
    rule == em ? livens_block<HeavyTop<L>, em>(settings, job) : livens_block<HeavyTop<L>, midpoint>(settings, job);
  else
    rule == em ? livens_block<FreeRigidBody<L>, em>(settings, job)
               : livens_block<FreeRigidBody<L>, midpoint>(settings, job);
}

void advance_simo_vu_quoc(const SimoVuQuocSettings<double>& settings, const BlockJob& job) {
  const auto step = [](auto&... a) { return simd::lane_simo_vu_quoc_step(a...); };
  if (job.model == Model::heavy_top) advance_block_with<SimoVuQuoc<HeavyTop<L>>>(settings, job, step);
  else advance_block_with<SimoVuQuoc<FreeRigidBody<L>>>(settings, job, step);
}

void advance_zupan3(const Zupan3Settings<double>& settings, const BlockJob& job) {
  const auto step = [](auto&... a) { return simd::lane_zupan3_step(a...); };
  if (job.model == Model::heavy_top) advance_block_with<Zupan3<HeavyTop<L>>>(settings, job, step);
  else advance_block_with<Zupan3<FreeRigidBody<L>>>(settings, job, step);
}

void advance_midpoint_lie(const LieGroupSettings<double>& settings, const BlockJob& job) {
  const auto step = [](auto&... a) { return simd::lane_midpoint_lie_step(a...); };
  if (job.model == Model::heavy_top) advance_block_with<MidpointLie<HeavyTop<L>>>(settings, job, step);
  else advance_block_with<MidpointLie<FreeRigidBody<L>>>(settings, job, step);
}

void advance_explicit_newmark_lie(const LieGroupSettings<double>& settings, const BlockJob& job) {
  const auto step = [](auto&... a) { return simd::lane_explicit_newmark_lie_step(a...); };
  if (job.model == Model::heavy_top) advance_block_with<ExplicitNewmarkLie<HeavyTop<L>>>(settings, job, step);
  else advance_block_with<ExplicitNewmarkLie<FreeRigidBody<L>>>(settings, job, step);
}

void advance_hamiltonian(LivensRule rule, const HamiltonianSettings<double>& settings, const BlockJob& job) {
  constexpr LivensRule em = LivensRule::energy_momentum, midpoint = LivensRule::midpoint;
  const bool gravity = job.branches.gravity, torques = job.branches.torques;
  const auto step = [=](auto&... a) { return simd::lane_hamiltonian_step(a..., gravity, torques); };
  if (job.model == Model::heavy_top)
    rule == em ? advance_block_with<HamiltonianQuaternion<HeavyTop<L>, em>>(settings, job, step)
               : advance_block_with<HamiltonianQuaternion<HeavyTop<L>, midpoint>>(settings, job, step);
  else
    rule == em ? advance_block_with<HamiltonianQuaternion<FreeRigidBody<L>, em>>(settings, job, step)
               : advance_block_with<HamiltonianQuaternion<FreeRigidBody<L>, midpoint>>(settings, job, step);
}

void advance_splitting(Flow flow, const SplittingSettings<double>& settings, const BlockJob& job) {
  if (job.model == Model::heavy_top) splitting_block<HeavyTop<L>>(flow, settings, job);
  else splitting_block<FreeRigidBody<L>>(flow, settings, job);
}

}  // namespace quatstep::lanes
