// SIMD across bodies in the CPU backend: CpuEnsemble steps blocks of lanes::width bodies at once,
// one body per lane, bit for bit the scalar step of each body (include/quatstep/simd/).
//
// Which steps have lanes: LaneForm<Integrator>::exists. Today the HHT family (Hht, ModifiedHht, with
// or without the inertia shift) and REML (LivensEm, reduced variant) on HeavyTop in double.
// Which bodies: a block of consecutive bodies whose steps take every data-dependent branch alike
// (lane_model.hpp: the same loads acting, the same torque windows, no sinusoidal torque); every other
// body, and the bodies past the last full block, take the scalar step. Adaptive steps are scalar.
//
// Run-time dispatch: the lane steps are compiled once, in cpu_lanes_avx2.cpp with -mavx2, and used
// where the CPU has AVX2 (lanes::available()); elsewhere, or with QUATSTEP_SIMD=off in the
// environment, every body takes the scalar step (SSE2's two lanes measured no faster than scalar,
// studies/README.md). Only plain numbers cross into that unit (BlockJob), so no template of double
// is compiled with AVX2 (host/CMakeLists.txt checks its symbols).
#pragma once

#include <cstdlib>
#include <cstring>

#include "quatstep/ensemble.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/simd/lane_model.hpp"

namespace quatstep::lanes {

/// Bodies per block: four doubles, one AVX2 register.
inline constexpr int width = 4;

/// Whether this build has the lane steps and this CPU runs them, and QUATSTEP_SIMD is not "off".
inline bool available() {
#if QUATSTEP_CPU_LANES
  static const bool on = [] {
    const char* env = std::getenv("QUATSTEP_SIMD");
    return __builtin_cpu_supports("avx2") && !(env && std::strcmp(env, "off") == 0);
  }();
  return on;
#else
  return false;
#endif
}

/// Steps first_step … first_step + steps − 1 of the block of bodies first … first + width − 1, as
/// advance_body does for each: the state in and out of the struct-of-arrays, the records updated.
struct BlockJob {
  const double* parameters;  ///< the block's model parameters, [parameter][lane] (for_each_parameter)
  LaneBranches branches;     ///< what every body of the block shares
  double* state;             ///< every body's state, component c of body i at [c·bodies + i]
  index_t bodies, first;
  BodyRecord record;
  double t0, h;
  index_t first_step, steps;
};

void advance_hht(VelocityUpdate update, const HhtSettings<double>& settings, const BlockJob& job);
void advance_reml(const LivensSettings<double>& settings, const BlockJob& job);

/// The lane step of an integrator, where it has one.
template <class Integrator>
struct LaneForm {
  static constexpr bool exists = false;
};
template <VelocityUpdate U>
struct LaneForm<HhtFamily<HeavyTop<double>, U>> {
  static constexpr bool exists = true;
  static void advance(const HhtFamily<HeavyTop<double>, U>& i, const BlockJob& job) { advance_hht(U, i.settings, job); }
};
template <>
struct LaneForm<LivensEm<HeavyTop<double>>> {
  static constexpr bool exists = true;
  static void advance(const LivensEm<HeavyTop<double>>& i, const BlockJob& job) { advance_reml(i.settings, job); }
};

/// The blocks of an ensemble: which are stepped in lanes, and their parameters.
struct Blocks {
  std::vector<LaneBranches> branches;  ///< per full block; laneable = false: its bodies step alone
  std::vector<double> parameters;      ///< per block, heavy_top_parameters × width

  explicit Blocks(const std::vector<HeavyTop<double>>& models) {
    const std::size_t blocks = models.size() / width;
    branches.resize(blocks);
    parameters.resize(blocks * heavy_top_parameters * width);
    for (std::size_t b = 0; b < blocks; ++b) {
      LaneBranches shared = lane_branches(models[b * width]);
      for (int j = 1; j < width; ++j) shared.laneable &= lane_branches(models[b * width + j]) == shared;
      branches[b] = shared;
      for (int j = 0; j < width; ++j) {
        HeavyTop<double> m = models[b * width + j];
        double* out = &parameters[b * heavy_top_parameters * width + j];
        for_each_parameter(m, [&](double x) { *out = x, out += width; });
      }
    }
  }
  bool lanes(index_t block) const { return block < index_t(branches.size()) && branches[block].laneable; }
  const double* parameters_of(index_t block) const { return &parameters[block * heavy_top_parameters * width]; }
};

}  // namespace quatstep::lanes
