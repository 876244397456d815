// Strict mode for mechanisms of LargeCapacity (the harness: mechanism_agreement.hpp), whose threads
// step in ≈ 200–240 kB of local memory each (docs/mechanisms.md, "On the GPU"): V8 crank drives and
// inline fours (problems/v_engine.hpp) at several crank angles and speeds, with four-bars,
// slider-cranks and double pendulums of the same capacity in one batch, one four-bar pushed 10⁶ times
// harder than Kinon's until its Newton iteration fails.
#include "mechanism_agreement.hpp"
#include "v_engine.hpp"

namespace quatstep {
namespace {

using Cap = mechanism::LargeCapacity;

struct EngineBatch {
  index_t failing = 3;
  double h = 5e-4;
  std::vector<testing::TestMechanism<Cap>> make(index_t failing_index) const {
    std::vector<testing::TestMechanism<Cap>> all;
    for (int k = 0; k < 2; ++k) {
      all.push_back(testing::engine<Cap>(testing::v8_geometry(), 0.3 + k, 50.0 + 25.0 * k, 10.0 + 40.0 * k));
      all.push_back(testing::engine<Cap>(testing::inline_four_geometry(), 1.1 * k, 80.0, 20.0));
      all.push_back(testing::slider_crank<Cap>(0.5 * k));
      all.push_back(testing::four_bar<Cap>(0.1 * k, index_t(all.size()) == failing_index ? 1e8 : 100.0));
      all.push_back(testing::double_pendulum<Cap>());
    }
    return all;
  }
};

TEST(LargeMechanismStrictAgreement, EveryRegisteredMethodIsBitwiseIdenticalOnCpuAndGpu) {
  testing::expect_every_method_identical<Cap>(EngineBatch{});
  QUATSTEP_SKIP_WITHOUT_GPU();  // the CPU half has run; the comparison needs the GPU
}

TEST(LargeMechanismStrictAgreement, AdaptiveStepsAreBitwiseIdenticalOnCpuAndGpu) {
  testing::expect_adaptive_steps_identical<Cap>(EngineBatch{});
  QUATSTEP_SKIP_WITHOUT_GPU();
}

}  // namespace
}  // namespace quatstep
