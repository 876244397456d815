// Strict mode for mechanisms of SmallCapacity (the harness: mechanism_agreement.hpp): four-bars
// with spins, slider-cranks with dampers and double pendulums in one batch, one four-bar pushed 10⁶
// times harder than Kinon's until its Newton iteration fails.
#include "mechanism_agreement.hpp"

namespace quatstep {
namespace {

using Cap = mechanism::SmallCapacity;

struct MixedBatch {
  index_t failing = 3;
  double h = 2e-3;
  std::vector<testing::TestMechanism<Cap>> make(index_t failing_index) const {
    std::vector<testing::TestMechanism<Cap>> all;
    for (int k = 0; k < 8; ++k) {
      // Spins up to 0.21 rad/s: faster rigid spins of the loop make the Livens schemes' equivariant
      // joint gradient singular (docs/mechanisms.md, "Open points").
      all.push_back(testing::four_bar<Cap>(0.03 * k, index_t(all.size()) == failing_index ? 1e8 : 100.0));
      all.push_back(testing::slider_crank<Cap>(0.5 * k));
      all.push_back(testing::double_pendulum<Cap>());
    }
    return all;
  }
};

TEST(MechanismStrictAgreement, EveryRegisteredMethodIsBitwiseIdenticalOnCpuAndGpu) {
  testing::expect_every_method_identical<Cap>(MixedBatch{});
  QUATSTEP_SKIP_WITHOUT_GPU();  // the CPU half has run; the comparison needs the GPU
}

TEST(MechanismStrictAgreement, AdaptiveStepsAreBitwiseIdenticalOnCpuAndGpu) {
  testing::expect_adaptive_steps_identical<Cap>(MixedBatch{});
  QUATSTEP_SKIP_WITHOUT_GPU();
}

}  // namespace
}  // namespace quatstep
