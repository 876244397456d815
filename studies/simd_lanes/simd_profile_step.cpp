// Instructions per body-step of the lane-wise HHT and REML steps (lanes = bodies) beside the scalar
// kernels of bench/step_kernels.hpp, compiled with the same flags in one program (bench/profile.sh with
// PROFILE_EXE=studies/study_simd_profile_step, or …_avx2 for the -mavx2 build).
//   study_simd_profile_step KERNEL REPS | --list   (bench/profile_driver.hpp)
#include "lane_ensemble.hpp"
#include "profile_driver.hpp"

using namespace quatstep;
using namespace quatstep::bench;

namespace {

/// One step of a block of W bodies (simd_step.hpp, reml_step.hpp): W body-steps per call, including
/// the block's load and store (from the same warm-up as step/…).
template <int W, class Method>
Kernel<double> lane_block_step(const typename Method::Scalar& integrator) {
  auto e = std::make_shared<LaneEnsemble<W, Method>>(
      integrator, std::vector<HeavyTop<double>>(W, sherif_top<double>()), 0.0, step_size);
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < W; ++i) initial.push_back(sherif_initial<double>(i));
  e->initialize(initial);
  e->advance(warmup_steps);
  return [e, k = index_t(warmup_steps)](Fixture<double>&) mutable { e->advance_block(0, k++, 1); };
}

}  // namespace

int main(int argc, char** argv) {
  using Mhht = HhtLanes<VelocityUpdate::modified>;
  using Hht = HhtLanes<VelocityUpdate::classical>;
  auto k = kernels<double>();
  k["lanes2/step/ModifiedHht+shift"] = lane_block_step<2, Mhht>(Mhht::Scalar(hht_settings<double>(true)));
  k["lanes4/step/ModifiedHht+shift"] = lane_block_step<4, Mhht>(Mhht::Scalar(hht_settings<double>(true)));
  k["lanes4/step/ModifiedHht"] = lane_block_step<4, Mhht>(Mhht::Scalar(hht_settings<double>(false)));
  k["lanes4/step/Hht"] = lane_block_step<4, Hht>(Hht::Scalar(hht_settings<double>(false)));
  k["step/LivensEm (REML)"] = whole_step(LivensEm<HeavyTop<double>>());
  k["lanes4/step/LivensEm (REML)"] = lane_block_step<4, RemlLanes>(LivensEm<HeavyTop<double>>());
  return profile_main(argc, argv, k);
}
