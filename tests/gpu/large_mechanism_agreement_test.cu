// Strict mode for mechanisms of LargeCapacity (the harness: mechanism_agreement.hpp), whose threads
// step in ≈ 200–240 kB of local memory each (docs/mechanisms.md, "On the GPU"): V8 crank drives and
// inline fours (problems/v_engine.hpp) at several crank angles and speeds, with four-bars,
// slider-cranks and double pendulums of the same capacity in one batch, one four-bar pushed 10⁶ times
// harder than Kinon's until its Newton iteration fails.
#include "mechanism_agreement.hpp"
#include "v_engine.hpp"

namespace quatstep::testing {
namespace {

struct EngineBatch {
  using Capacity = mechanism::LargeCapacity;
  index_t failing = 3;
  double h = 5e-4;
  std::vector<TestMechanism<Capacity>> make(index_t failing_index) const {
    std::vector<TestMechanism<Capacity>> all;
    for (int k = 0; k < 2; ++k) {
      all.push_back(engine<Capacity>(v8_geometry(), 0.3 + k, 50.0 + 25.0 * k, 10.0 + 40.0 * k));
      all.push_back(engine<Capacity>(inline_four_geometry(), 1.1 * k, 80.0, 20.0));
      all.push_back(slider_crank<Capacity>(0.5 * k));
      all.push_back(four_bar<Capacity>(0.1 * k, index_t(all.size()) == failing_index ? 1e8 : 100.0));
      all.push_back(double_pendulum<Capacity>());
    }
    return all;
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(StrictLargeMechanisms, MechanismStrictAgreement, EngineBatch);

}  // namespace
}  // namespace quatstep::testing
