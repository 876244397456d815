// Mechanism ensembles advanced step by step (host/mechanism_ensemble.hpp): however the steps are split
// into calls, the state and every channel are those of `quatstep run` of the same scenario bit for
// bit; arrays over a key replace the scenario's values as a sweep would; bad arrays and scenarios the
// ensemble does not take are refused naming the source, the mechanism and the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hdf5_read.hpp"
#include "mechanism_ensemble.hpp"
#include "mechanism_run.hpp"

namespace quatstep {
namespace {

using testing::read_dataset;
using testing::same_bits;
using testing::ScratchDirectory;

const std::string stiffness = "spring.return spring.stiffness";

/// The eight slider-cranks of examples/slider_crank_sweep.toml (stiffness swept from 50 to 800) over
/// 0.1 s: 100 steps, a sample every 10.
MechanismScenario sweep() {
  ScenarioOverrides shorter;
  shorter.t_end = 0.1;
  MechanismScenario sc = load_mechanism_scenario(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml", shorter);
  sc.backend = Backend::cpu;
  return sc;
}

/// The scenario's run written to `file`.
void run_to(const MechanismScenario& sc, const std::string& file) {
  RunOptions options;
  options.output = file;
  run_mechanism_scenario(sc, options);
}

/// Sample `j` of every channel of `file` (a run of `n` mechanisms) against the ensemble's current
/// channels; sample_newton_iterations too when `iterations`.
void expect_sample(const MechanismEnsemble& e, const std::string& file, index_t j, bool iterations) {
  const index_t n = e.mechanisms();
  const int scalars = channel_scalars(e.channels());
  std::vector<double> now(std::size_t(scalars * n));
  e.observe(SampleView<double>{now.data(), n, j, 1, 1, scalars});
  int offset = 0;
  for (const Channel& c : e.channels()) {
    if (c.name != "sample_newton_iterations" || iterations) {
      const auto d = read_dataset(file, c.name);  // samples × n × size
      for (index_t i = 0; i < n; ++i)
        for (int k = 0; k < c.size; ++k)
          ASSERT_TRUE(same_bits(now[std::size_t((offset + k) * n + i)], d.values[std::size_t((j * n + i) * c.size + k)]))
              << c.name << " component " << k << " of mechanism " << i << " at sample " << j;
    }
    offset += c.size;
  }
}

TEST(MechanismEnsemble, StepsSplitAnyWayAreTheRunsSamplesBitForBit) {
  ScratchDirectory dir;
  const MechanismScenario sc = sweep();
  ASSERT_EQ(sc.stride, 10);
  const std::string file = dir.file("run.h5");
  run_to(sc, file);

  // One output interval per call: every sample, Newton iterations included.
  const auto by_interval = make_mechanism_ensemble(sc, {});
  ASSERT_EQ(by_interval->mechanisms(), 8);
  expect_sample(*by_interval, file, 0, true);
  for (index_t j = 1; j <= 10; ++j) {
    by_interval->advance(10, SampleView<double>{nullptr, 8, 0, 0, 1, 0});
    expect_sample(*by_interval, file, j, true);
  }
  EXPECT_EQ(by_interval->steps_done(), 100);

  // Uneven calls (3 + 17 + 1 + 29 + 50 steps): the same state at the end, and the same records.
  const auto uneven = make_mechanism_ensemble(sc, {});
  for (index_t steps : {3, 17, 1, 29, 50}) uneven->advance(steps, SampleView<double>{nullptr, 8, 0, 0, 1, 0});
  expect_sample(*uneven, file, 10, false);
  const auto iterations = read_dataset(file, "newton_iterations");
  for (index_t i = 0; i < 8; ++i) EXPECT_EQ(double(uneven->newton_iterations()[i]), iterations.values[i]);
  const auto correction = read_dataset(file, "assembly_position_correction");
  for (index_t i = 0; i < 8; ++i) EXPECT_TRUE(same_bits(uneven->position_correction()[i], correction.values[i]));

  // Samples kept by the calls: 25 + 75 steps with a window of samples 1 … 10, split between them.
  const auto sampled = make_mechanism_ensemble(sc, {});
  const int scalars = channel_scalars(sampled->channels());
  std::vector<double> window(std::size_t(10 * scalars * 8));
  const SampleView<double> view{window.data(), 8, 1, 10, 10, scalars};
  sampled->advance(25, view);
  sampled->advance(75, view);
  int offset = 0;
  for (const Channel& c : sampled->channels()) {
    const auto d = read_dataset(file, c.name);
    for (index_t j = 1; j <= 10; ++j)
      for (index_t i = 0; i < 8; ++i)
        for (int k = 0; k < c.size; ++k) {
          // Samples 1 and 2 come from the call that began at step 0; sample 3's interval was split
          // (steps 20 … 24, then 25 … 29), so its count holds the second call's iterations alone.
          if (c.name == "sample_newton_iterations" && j == 3) continue;
          ASSERT_TRUE(same_bits(view(j, offset + k, i), d.values[std::size_t((j * 8 + i) * c.size + k)]))
              << c.name << " sample " << j << " mechanism " << i;
        }
    offset += c.size;
  }
}

TEST(MechanismEnsemble, ArraysOverAKeyAreTheSweepsMechanisms) {
  ScratchDirectory dir;
  const MechanismScenario swept = sweep();
  const std::string file = dir.file("run.h5");
  run_to(swept, file);

  MechanismScenario one = swept;  // the file's single mechanism, stiffness 200
  one.sweeps.clear();
  one.ensemble_size = 1;
  MechanismEnsembleSpec spec;
  spec.mechanisms = 8;
  std::vector<double> k(8);
  for (int i = 0; i < 8; ++i) k[i] = 50.0 + (800.0 - 50.0) * (double(i) / 7.0);  // the sweep's formula
  spec.arrays.push_back({stiffness, k});
  const auto e = make_mechanism_ensemble(one, spec);
  ASSERT_EQ(e->mechanisms(), 8);
  e->advance(90, SampleView<double>{nullptr, 8, 0, 0, 1, 0});
  e->advance(10, SampleView<double>{nullptr, 8, 0, 0, 1, 0});  // the last output interval's iterations
  expect_sample(*e, file, 10, true);

  // Without rows the single mechanism stays one, with rows it is repeated; a scenario of 8 takes 8 only.
  EXPECT_EQ(make_mechanism_ensemble(one, {})->mechanisms(), 1);
  EXPECT_EQ(make_mechanism_ensemble(one, {5, {}})->mechanisms(), 5);
  MechanismEnsembleSpec three = spec;
  three.mechanisms = 3;
  three.arrays[0].values.resize(3);
  EXPECT_EQ(make_mechanism_ensemble(one, three)->mechanisms(), 3);
  try {
    make_mechanism_ensemble(swept, three);
    ADD_FAILURE() << "3 rows for 8 mechanisms accepted";
  } catch (const ScenarioError& error) {
    EXPECT_NE(std::string(error.what()).find("3 rows, but the scenario has 8 mechanisms"), std::string::npos) << error.what();
  }
}

/// The message of the ScenarioError `make` throws ("" when it throws none).
template <class Make>
std::string refusal(Make make) {
  try {
    make();
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

TEST(MechanismEnsemble, BadArraysAndScenariosItDoesNotTakeAreRefusedNamingTheKey) {
  MechanismScenario one = sweep();
  one.sweeps.clear();
  one.ensemble_size = 1;
  const auto with = [&](const std::string& key, std::vector<double> values, index_t n) {
    MechanismEnsembleSpec spec;
    spec.mechanisms = n;
    spec.arrays.push_back({key, std::move(values)});
    return refusal([&] { make_mechanism_ensemble(one, spec); });
  };
  const std::string source = one.source;
  EXPECT_EQ(with(stiffness, {100, 200, -1, 300}, 4),
            source + ": mechanism 2: key 'spring.return spring.stiffness': -1, must be >= 0");
  EXPECT_NE(with("body.crank.mass", {1, 0}, 2).find("mechanism 1: key 'body.crank.mass': 0, must be > 0"), std::string::npos);
  EXPECT_NE(with("body.crank.inertia", {1, 1, 3}, 1).find("key 'body.crank.inertia'"), std::string::npos);
  const std::string unknown = with("spring.return.stiffness", {1}, 1);
  EXPECT_NE(unknown.find("'spring.return.stiffness' is not a numeric key of the mechanism (its keys: "), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find(stiffness), std::string::npos) << unknown;
  EXPECT_EQ(with(stiffness, {1, 2, 3}, 2),
            source + ": parameters: key '" + stiffness + "': 3 values, expected 1 per mechanism for 2 mechanisms");

  MechanismScenario adaptive = one;
  adaptive.time.adaptive = true;
  EXPECT_NE(refusal([&] { make_mechanism_ensemble(adaptive, {}); }).find("key 'time.adaptive'"), std::string::npos);
  MechanismScenario gpu = one;
  gpu.backend = Backend::cuda;
  EXPECT_NE(refusal([&] { make_mechanism_ensemble(gpu, {}); }).find("key 'run.backend'"), std::string::npos);
}

}  // namespace
}  // namespace quatstep
