// Instructions per body-step of the lane-wise HHT step (lanes = bodies) beside the scalar kernels of
// bench/step_kernels.hpp, compiled with the same flags in one program (bench/profile.sh with
// PROFILE_EXE=studies/study_simd_profile_step, or …_avx2 for the -mavx2 build).
//   study_simd_profile_step KERNEL REPS | --list   (bench/profile_driver.hpp)
#include "lane_ensemble.hpp"
#include "profile_driver.hpp"

using namespace quatstep;
using namespace quatstep::bench;

namespace {

/// One step of a block of W bodies with lane_hht_step (simd_step.hpp): W body-steps per call,
/// including the block's load and store (from the same warm-up as step/…).
template <int W, VelocityUpdate U>
Kernel<double> lane_block_step(bool inertia_shift) {
  const HhtFamily<HeavyTop<double>, U> integrator(hht_settings<double>(inertia_shift));
  auto e = std::make_shared<LaneEnsemble<W, HhtLanes<U>>>(
      integrator, std::vector<HeavyTop<double>>(W, sherif_top<double>()), 0.0, step_size);
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < W; ++i) initial.push_back(sherif_initial<double>(i));
  e->initialize(initial);
  e->advance(warmup_steps);
  return [e, k = index_t(warmup_steps)](Fixture<double>&) mutable { e->advance_block(0, k++, 1); };
}

}  // namespace

int main(int argc, char** argv) {
  auto k = kernels<double>();
  k["lanes2/step/ModifiedHht+shift"] = lane_block_step<2, VelocityUpdate::modified>(true);
  k["lanes4/step/ModifiedHht+shift"] = lane_block_step<4, VelocityUpdate::modified>(true);
  k["lanes4/step/ModifiedHht"] = lane_block_step<4, VelocityUpdate::modified>(false);
  k["lanes4/step/Hht"] = lane_block_step<4, VelocityUpdate::classical>(false);
  return profile_main(argc, argv, k);
}
