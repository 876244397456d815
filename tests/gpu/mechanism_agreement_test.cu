// Strict mode for mechanisms of SmallCapacity (the harness: mechanism_agreement.hpp): four-bars
// with spins, slider-cranks with dampers and double pendulums in one batch, one four-bar pushed 10⁶
// times harder than Kinon's until its Newton iteration fails.
#include "mechanism_agreement.hpp"

namespace quatstep::testing {
namespace {

struct MixedBatch {
  using Capacity = mechanism::SmallCapacity;
  index_t failing = 3;
  double h = 2e-3;
  std::vector<TestMechanism<Capacity>> make(index_t failing_index) const {
    std::vector<TestMechanism<Capacity>> all;
    for (int k = 0; k < 8; ++k) {
      // Spins up to 0.21 rad/s: faster rigid spins of the loop make the Livens schemes' equivariant
      // joint gradient singular (docs/mechanisms.md, "Open points").
      all.push_back(four_bar<Capacity>(0.03 * k, index_t(all.size()) == failing_index ? 1e8 : 100.0));
      all.push_back(slider_crank<Capacity>(0.5 * k));
      all.push_back(double_pendulum<Capacity>());
    }
    return all;
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(StrictSmallMechanisms, MechanismStrictAgreement, MixedBatch);

}  // namespace
}  // namespace quatstep::testing
