// The accuracy test and step-size rule (include/quatstep/adaptive/step_size_rule.hpp) and the
// adaptive settings (adaptive_settings.hpp): Negrut eq. (37) and its per-unit-step form, the limits,
// Chrono's halve/double rule, the composite error (34) with weights per coordinate kind, and the
// settings' keys and checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "quatstep/adaptive/adaptive_settings.hpp"
#include "quatstep/adaptive/step_size_rule.hpp"
#include "quatstep/models/free_rigid_body.hpp"

namespace quatstep {
namespace {

TEST(AdaptiveStepSizeRule, CubeRootWithinTwoUlps) {
  for (double x = 1e-3; x < 1e3; x *= 1.37) {
    const double y = detail::cube_root(x);
    EXPECT_NEAR(y, std::cbrt(x), 2 * std::numeric_limits<double>::epsilon() * std::cbrt(x)) << x;
  }
  EXPECT_NEAR(detail::cube_root(27.0f), 3.0f, 4 * std::numeric_limits<float>::epsilon());
}

TEST(AdaptiveStepSizeRule, ErrorPerStepFollowsNegrutEq37) {
  AdaptiveSettings<double> a;  // safety 0.9, limits [0.2, 5]
  double successes = 0;
  auto decide = [&](double e, bool after_rejection = false) { return decide_step(a, e, 1e-3, 2.0, after_rejection, successes); };
  // h_new = s·h·Θ^(−1/6), Θ = e²
  EXPECT_TRUE(decide(1.0).accept);
  EXPECT_NEAR(decide(1.0).factor, 0.9, 1e-15);
  EXPECT_NEAR(decide(0.125).factor, 1.8, 1e-15);
  EXPECT_FALSE(decide(8.0).accept);
  EXPECT_NEAR(decide(8.0).factor, 0.45, 1e-15);
  // limits, and no growth right after a rejection
  EXPECT_EQ(decide(0.0).factor, 5.0);
  EXPECT_EQ(decide(1e-6).factor, 5.0);
  EXPECT_EQ(decide(1e6).factor, 0.2);
  EXPECT_EQ(decide(1e-6, true).factor, 1.0);
  EXPECT_EQ(decide(INFINITY).factor, 0.2);
  EXPECT_FALSE(decide(NAN).accept);
}

TEST(AdaptiveStepSizeRule, ErrorPerUnitStepHoldsErrorOverStep) {
  AdaptiveSettings<double> a;
  a.control = ErrorControl::per_unit_step;
  double successes = 0;
  const double h = 1e-2;
  // e/h = 4 with h = 1e-2: rejected, h_new = 0.9·h·(e/h)^(−1/2)
  const StepDecision<double> d = decide_step(a, 4e-2, h, 2.0, false, successes);
  EXPECT_FALSE(d.accept);
  EXPECT_NEAR(d.factor, 0.45, 1e-15);
  EXPECT_TRUE(decide_step(a, 0.25e-2, h, 2.0, false, successes).accept);
  EXPECT_NEAR(decide_step(a, 0.25e-2, h, 2.0, false, successes).factor, 1.8, 1e-15);
}

TEST(AdaptiveStepSizeRule, HalveDoubleIsChronosRule) {
  AdaptiveSettings<double> a;
  a.control = ErrorControl::halve_double;
  double successes = 0;
  for (int k = 1; k <= 4; ++k) EXPECT_EQ(decide_step(a, 0.5, 1e-3, 3.0, false, successes).factor, 1.0) << k;
  EXPECT_EQ(decide_step(a, 0.5, 1e-3, 3.0, false, successes).factor, 2.0) << "doubles after 5 successes";
  EXPECT_EQ(successes, 0);
  for (int k = 1; k <= 4; ++k) decide_step(a, 0.5, 1e-3, 2.0, false, successes);
  EXPECT_EQ(decide_step(a, 0.5, 1e-3, 4.0, false, successes).factor, 1.0) << "4 Newton iterations reset the count";
  EXPECT_EQ(successes, 0);
  const StepDecision<double> rejected = decide_step(a, 1.5, 1e-3, 2.0, false, successes);
  EXPECT_FALSE(rejected.accept);
  EXPECT_EQ(rejected.factor, 0.5);
  EXPECT_EQ(failed_step_factor(a), 0.5);
}

// Eq. (34): RMS over the 7 coordinates of a free body of δ_i / (atol + rtol·max(|q_n,i|, |q_n+1,i|)),
// translation rows with the translation tolerances, Euler parameters with the rotation ones.
TEST(AdaptiveStepSizeRule, CompositeErrorWeighsEachCoordinateKind) {
  AdaptiveSettings<double> a;
  a.translation_atol = 1e-3;
  a.translation_rtol = 1e-2;
  a.rotation_atol = 1e-6;
  a.rotation_rtol = 0;
  Vec<double, 7> q0, q1, delta;
  q0 << 10, 0, 0, 1, 0, 0, 0;
  q1 << 20, 0, 0, 1, 0, 0, 0;
  delta << 0.201, 0, 0, 0, 2e-6, 0, 0;  // weights 0.201 (max |q| = 20) and 1e-6
  EXPECT_NEAR(composite_error(FreeRigidBody<double>{}, a, delta, q0, q1), std::sqrt((1.0 + 4.0) / 7), 1e-14);
}

// ---------------------------------------------------------------- settings
struct KeyCollector {
  std::map<std::string, double> values;
  std::map<std::string, bool> in_range;
  template <class T>
  void operator()(const char* name, T& value, const char*, const keys::Range& range) {
    values[name] = double(value);
    in_range[name] = range.contains(double(value));
  }
  template <class E>
  void operator()(const char* name, E& value, const char*, const keys::Choices<E>& choices) {
    values[name] = double(static_cast<int>(value));
    bool named = false;
    for (const keys::Choice<E>* c = choices.begin(); c != choices.end(); ++c) named = named || c->value == value;
    in_range[name] = named;
  }
};

TEST(AdaptiveSettingsKeys, EveryKeyIsDeclaredWithItsDefaultAllowed) {
  AdaptiveSettings<double> a;
  KeyCollector k;
  a.describe(k);
  for (const char* key : {"control", "rotation_atol", "rotation_rtol", "translation_atol", "translation_rtol",
                          "h_initial", "h_min", "h_max", "safety", "growth_limit", "shrink_limit", "predictor_degree"}) {
    ASSERT_EQ(k.values.count(key), 1u) << key;
    EXPECT_TRUE(k.in_range[key]) << key;
  }
  EXPECT_EQ(k.values.size(), 12u);
  EXPECT_NO_THROW(a.validate());
}

TEST(AdaptiveSettingsKeys, BadValuesAreRejectedByName) {
  auto key = [](AdaptiveSettings<double> a) {  // the key a keys::KeyError names
    try {
      a.validate();
    } catch (const keys::KeyError& e) {
      return e.key;
    }
    return std::string("accepted");
  };
  AdaptiveSettings<double> a;
  a.h_min = 0;
  EXPECT_EQ(key(a), "h_min");
  a = {};
  a.h_initial = 10;  // above h_max = 1
  EXPECT_EQ(key(a), "h_initial");
  a = {};
  a.rotation_atol = 0;
  EXPECT_EQ(key(a), "rotation_atol");
  a = {};
  a.shrink_limit = 1;
  EXPECT_EQ(key(a), "shrink_limit");
  a = {};
  a.predictor_degree = 4;
  EXPECT_EQ(key(a), "predictor_degree");
  a = {};
  a.safety = NAN;
  EXPECT_EQ(key(a), "safety");
}

}  // namespace
}  // namespace quatstep
