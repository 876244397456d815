// The lane steps of the CPU backend (cpu_lanes.hpp), compiled with -mavx2 (host/CMakeLists.txt):
// blocks of lanes::width bodies, one AVX2 register per scalar. Only templates of the lane type are
// instantiated here, so that no AVX2 code can stand in for a baseline function (the test
// cpu_lanes_symbols checks the unit's symbols).
#include <type_traits>

#include "cpu_lanes.hpp"
#include "quatstep/registry/type_list.hpp"
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

/// f(TypeTag<M>{}) with M the block's lane model.
template <class F>
void on_model(const BlockJob& job, F&& f) {
  if (job.model == Model::heavy_top) f(TypeTag<HeavyTop<L>>{});
  else f(TypeTag<FreeRigidBody<L>>{});
}

/// The value of a std::integral_constant passed to a generic lambda (decayed as tag_type is).
template <class Constant>
inline constexpr auto constant_of = std::decay_t<Constant>::value;

/// f(std::integral_constant<LivensRule, rule>{}).
template <class F>
void with_livens_rule(LivensRule rule, F&& f) {
  if (rule == LivensRule::energy_momentum) f(std::integral_constant<LivensRule, LivensRule::energy_momentum>{});
  else f(std::integral_constant<LivensRule, LivensRule::midpoint>{});
}

/// advance_block_with for Integrator<M> on the block's lane model M.
template <template <class> class Integrator, class Settings, class Step>
void advance_on_model(const Settings& settings, const BlockJob& job, Step&& step) {
  on_model(job, [&](auto m) { advance_block_with<Integrator<tag_type<decltype(m)>>>(settings, job, step); });
}

}  // namespace

void advance_hht(VelocityUpdate update, const HhtSettings<double>& settings, const BlockJob& job) {
  const auto step = [](auto&... a) { return simd::lane_hht_step(a...); };
  if (update == VelocityUpdate::classical) advance_on_model<Hht>(settings, job, step);
  else advance_on_model<ModifiedHht>(settings, job, step);
}

void advance_livens(LivensRule rule, LivensVariant variant, const LivensSettings<double>& settings,
                    const BlockJob& job) {
  const bool gravity = job.branches.gravity, torques = job.branches.torques;
  const auto step = [=](auto&... a) { return simd::lane_livens_step(a..., gravity, torques); };
  on_model(job, [&](auto m) {
    with_livens_rule(rule, [&](auto r) {
      with_livens_variant(variant, [&](auto v) {
        using Integrator = LivensIntegrator<tag_type<decltype(m)>, constant_of<decltype(r)>, constant_of<decltype(v)>>;
        advance_block_with<Integrator>(settings, job, step);
      });
    });
  });
}

void advance_simo_vu_quoc(const SimoVuQuocSettings<double>& settings, const BlockJob& job) {
  advance_on_model<SimoVuQuoc>(settings, job, [](auto&... a) { return simd::lane_simo_vu_quoc_step(a...); });
}

void advance_zupan3(const Zupan3Settings<double>& settings, const BlockJob& job) {
  advance_on_model<Zupan3>(settings, job, [](auto&... a) { return simd::lane_zupan3_step(a...); });
}

void advance_midpoint_lie(const LieGroupSettings<double>& settings, const BlockJob& job) {
  advance_on_model<MidpointLie>(settings, job, [](auto&... a) { return simd::lane_midpoint_lie_step(a...); });
}

void advance_explicit_newmark_lie(const LieGroupSettings<double>& settings, const BlockJob& job) {
  advance_on_model<ExplicitNewmarkLie>(settings, job,
                                       [](auto&... a) { return simd::lane_explicit_newmark_lie_step(a...); });
}

void advance_hamiltonian(LivensRule rule, const HamiltonianSettings<double>& settings, const BlockJob& job) {
  const bool gravity = job.branches.gravity, torques = job.branches.torques;
  const auto step = [=](auto&... a) { return simd::lane_hamiltonian_step(a..., gravity, torques); };
  on_model(job, [&](auto m) {
    with_livens_rule(rule, [&](auto r) {
      advance_block_with<HamiltonianQuaternion<tag_type<decltype(m)>, constant_of<decltype(r)>>>(settings, job, step);
    });
  });
}

void advance_splitting(Flow flow, const SplittingSettings<double>& settings, const BlockJob& job) {
  const auto step = [](auto&... a) { return simd::lane_flattened_splitting_step(a...); };
  if (flow == Flow::no_squish) advance_on_model<NoSquish>(settings, job, step);
  else advance_on_model<SymmetricSplitting>(settings, job, step);
}

void advance_exact_free_splitting(const ExactFreeSplittingSettings<double>& settings, const BlockJob& job) {
  advance_on_model<ExactFreeSplitting>(settings, job, [](auto&... a) { return simd::lane_splitting_step(a...); });
}

}  // namespace quatstep::lanes
