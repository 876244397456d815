// Instructions per body-step of the CPU backend's lane steps (host/cpu_lanes.hpp: one step of a block
// of four bodies in AVX2, eight in AVX-512, its load and store included) beside the scalar kernels of
// bench/step_kernels.hpp, in one program (bench/profile.sh with
// PROFILE_EXE=studies/study_simd_profile_step).
//   study_simd_profile_step KERNEL REPS | --list   (bench/profile_driver.hpp)
#include "cpu_ensemble.hpp"
#include "profile_driver.hpp"

using namespace quatstep;
using namespace quatstep::bench;

namespace {

/// A block of lanes::width<double>(isa) bodies after the warm-up: its state, records and parameters.
struct Block {
  std::vector<double> state;
  std::vector<Status> status;
  std::vector<index_t> iterations, failed_step;
  std::vector<HeavyTop<double>> models;
  lanes::Blocks<HeavyTop<double>> blocks;
  double parameters[lanes::Blocks<HeavyTop<double>>::max_parameters_per_block];
};

/// One step of a block of lanes::width<double>(isa) bodies per call, from the same warm-up as step/….
template <class Integrator>
Kernel<double> lane_block_step(const Integrator& integrator, lanes::Isa isa) {
  const int width = lanes::width<double>(isa);
  std::vector<RigidBodyKinematics<double>> initial;
  for (int i = 0; i < width; ++i) initial.push_back(sherif_initial<double>(i));
  const std::vector<HeavyTop<double>> models(width, sherif_top<double>());
  CpuEnsemble<Integrator> e(integrator, models, 0.0, step_size);
  const SampleView<double> none{nullptr, width, 0, 0, 1, 0};
  e.initialize(initial, none);
  e.advance(warmup_steps, none);
  auto b = std::make_shared<Block>(
      Block{e.state_data(), e.status(), e.newton_iterations(), e.failed_step(), models, lanes::Blocks(models, isa), {}});
  b->blocks.pack(b->models.data(), b->parameters);
  return [b, integrator, width, k = index_t(warmup_steps)](Fixture<double>&) mutable {
    const BodyRecord record{b->status.data(), b->iterations.data(), b->failed_step.data()};
    lanes::BlockJob<double> job = b->blocks.job(0, b->parameters, b->state.data(), width, record, 0.0, step_size, k++);
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
  k["step/LivensEm (REML)"] = whole_step(LivensEm<HeavyTop<double>>());
  // lanes4/… in AVX2; lanes8/… in AVX-512 where the CPU has it
  for (const lanes::Isa isa : {lanes::Isa::avx2, lanes::Isa::avx512}) {
    if (isa != lanes::Isa::avx2 && lanes::best_isa() != isa) continue;
    const std::string lanes = "lanes" + std::to_string(lanes::width<double>(isa)) + "/step/";
    k[lanes + "ModifiedHht+shift"] = lane_block_step(ModifiedHht<HeavyTop<double>>(hht_settings<double>(true)), isa);
    k[lanes + "ModifiedHht"] = lane_block_step(ModifiedHht<HeavyTop<double>>(hht_settings<double>(false)), isa);
    k[lanes + "Hht"] = lane_block_step(Hht<HeavyTop<double>>(hht_settings<double>(false)), isa);
    k[lanes + "LivensEm (REML)"] = lane_block_step(LivensEm<HeavyTop<double>>(), isa);
  }
  return profile_main(argc, argv, k);
}
