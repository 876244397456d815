// Instructions per body-step of the CPU backend's lane steps (host/cpu_lanes.hpp: one step of a block
// of four bodies, its load and store included) beside the scalar kernels of bench/step_kernels.hpp,
// in one program (bench/profile.sh with PROFILE_EXE=studies/study_simd_profile_step).
//   study_simd_profile_step KERNEL REPS | --list   (bench/profile_driver.hpp)
#include "cpu_ensemble.hpp"
#include "profile_driver.hpp"

using namespace quatstep;
using namespace quatstep::bench;

namespace {

/// A block of lanes::width bodies after the warm-up: its state, records and parameters.
struct Block {
  std::vector<double> state;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  std::vector<HeavyTop<double>> models = std::vector<HeavyTop<double>>(lanes::width, sherif_top<double>());
  lanes::Blocks<HeavyTop<double>> blocks{models};
  double parameters[lanes::Blocks<HeavyTop<double>>::parameters_per_block];
};

/// One step of a block of lanes::width bodies per call, from the same warm-up as step/….
template <class Integrator>
Kernel<double> lane_block_step(const Integrator& integrator) {
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < lanes::width; ++i) initial.push_back(sherif_initial<double>(i));
  CpuEnsemble<Integrator> e(integrator, std::vector<HeavyTop<double>>(lanes::width, sherif_top<double>()), 0.0,
                            step_size);
  const SampleView<double> none{nullptr, lanes::width, 0, 0, 1, 0};
  e.initialize(initial, none);
  e.advance(warmup_steps, none);
  auto b = std::make_shared<Block>(Block{e.state_data(), e.status(), e.newton_iterations(), e.failed_step()});
  b->blocks.pack(b->models.data(), b->parameters);
  return [b, integrator, k = index_t(warmup_steps)](Fixture<double>&) mutable {
    const BodyRecord record{b->status.data(), b->iterations.data(), b->failed_step.data()};
    lanes::BlockJob job = b->blocks.job(0, b->parameters, b->state.data(), lanes::width, record, 0.0, step_size, k++);
    job.steps = 1;
    lanes::LaneForm<Integrator>::advance(integrator, job);
  };
}

}  // namespace

int main(int argc, char** argv) {
  if (!lanes::available()) {
    std::fprintf(stderr, "no SIMD lanes on this CPU or in this build\n");
    return 1;
  }
  auto k = kernels<double>();
  k["lanes4/step/ModifiedHht+shift"] = lane_block_step(ModifiedHht<HeavyTop<double>>(hht_settings<double>(true)));
  k["lanes4/step/ModifiedHht"] = lane_block_step(ModifiedHht<HeavyTop<double>>(hht_settings<double>(false)));
  k["lanes4/step/Hht"] = lane_block_step(Hht<HeavyTop<double>>(hht_settings<double>(false)));
  k["step/LivensEm (REML)"] = whole_step(LivensEm<HeavyTop<double>>());
  k["lanes4/step/LivensEm (REML)"] = lane_block_step(LivensEm<HeavyTop<double>>());
  return profile_main(argc, argv, k);
}
