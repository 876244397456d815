// Scale-out without MPI: a study run as 1, 2 and 3 shards (`--shard i/K`) and merged gives the single
// run's file bit for bit — every dataset (trajectories, status, parameters, redraws, statistics
// with quantiles and histograms) and every root attribute (the files' bytes differ where HDF5 placed
// the chunks: a merge writes them in another order); a missing or interrupted shard gives a
// file that names the missing bodies and whose statistics count the others only; shards of other
// runs and overlapping shards are refused. The same for adaptive steps (the step records) and for
// mechanism scenarios (their assembly corrections, statistics and checkpoints), by the library, the
// command line and mpirun.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hdf5_read.hpp"
#include "heavy_top_study.hpp"
#include "mechanism_run.hpp"
#include "merge.hpp"
#include "run.hpp"
#include "scenario.hpp"
#include "shard.hpp"

using namespace quatstep;
using quatstep::testing::attribute_names;
using quatstep::testing::datasets;
using quatstep::testing::raw_bytes;
using quatstep::testing::read_dataset;
using quatstep::testing::read_string_attribute;
using quatstep::testing::ScratchDirectory;

namespace {

/// 301 heavy tops (a prime: the shards differ in size), tests/heavy_top_study.hpp's study (body 5
/// fails mid-run); statistics with quantiles, histograms, drifts and the Newton iterations (their
/// values per sample depend on the run's chunks: shards must reproduce them); every 7th body's
/// trajectory; t_end 0.1.
const std::string study = [] {
  std::string text = quatstep::testing::heavy_top_study(301) +
                     "[output]\nstride = 5\ntrajectories = \"every\"\ntrajectory_every = 7\n" +
                     quatstep::testing::statistics_table;
  text.replace(text.find("t_end = 0.2"), 11, "t_end = 0.1");
  text.replace(text.find("quantiles = "), 0,
               "observables = [\"energy_drift\", \"angular_momentum_drift\", \"newton_iterations\"]\n");
  return text;
}();

Scenario scenario(const std::string& text = study) {
  ScenarioOverrides o;
  o.backend = Backend::cpu;
  return parse_scenario(text, "study.toml", o);
}

RunResult run(const Scenario& sc, const std::string& file, const volatile std::sig_atomic_t* interrupt = nullptr) {
  RunOptions options;
  options.threads = 2;
  options.output = file;
  options.progress = ProgressMode::never;
  options.max_chunk_steps = 7;  // several windows; interrupted runs stop after the first
  options.interrupt = interrupt;
  return run_scenario(sc, options);
}

/// Shard files of `sc` split `count` ways: "dir/shard-i.h5".
std::vector<std::string> run_shards(const Scenario& sc, int count, const ScratchDirectory& dir) {
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) {
    files.push_back(dir.file("shard-" + std::to_string(i) + "-of-" + std::to_string(count) + ".h5"));
    run(shard_scenario(sc, shard_range(sc.ensemble_size, i, count)), files.back());
  }
  return files;
}

/// Every dataset and root attribute of `expected` in `actual`, the same bytes; no other dataset.
void expect_same_file(const std::string& expected, const std::string& actual, std::size_t at_least = 20) {
  const std::vector<std::string> names = datasets(expected);
  EXPECT_EQ(datasets(actual), names);
  ASSERT_GT(names.size(), at_least) << "trajectories, body results, parameters and statistics";
  for (const std::string& name : names) EXPECT_TRUE(raw_bytes(expected, name) == raw_bytes(actual, name)) << name;
  EXPECT_EQ(attribute_names(actual), attribute_names(expected));
  for (const std::string& name : attribute_names(expected))
    EXPECT_EQ(read_string_attribute(actual, name), read_string_attribute(expected, name)) << "attribute " << name;
}

}  // namespace

TEST(Shards, SplitRuleTilesTheEnsembleInOrder) {
  for (index_t n : {0, 1, 2, 301, 1000003}) {
    for (int k : {1, 2, 3, 7, 64}) {
      index_t next = 0;
      for (int i = 0; i < k; ++i) {
        const ShardRange s = shard_range(n, i, k);
        EXPECT_EQ(s.first, next) << n << " " << i << "/" << k;
        EXPECT_EQ(s.first, index_t(double(i) * double(n) / double(k))) << "⌊i·N/K⌋";
        EXPECT_LE(s.end - s.first, n / k + 1);
        EXPECT_GE(s.end - s.first, n / k);
        next = s.end;
      }
      EXPECT_EQ(next, n);
    }
  }
  EXPECT_EQ(parse_shard("2/3", 301).first, 200);
  for (const char* bad : {"3/3", "-1/3", "1", "1/0", "a/3", "1/3x"}) EXPECT_THROW(parse_shard(bad, 301), std::invalid_argument) << bad;
}

TEST(Shards, OneTwoThreeShardsMergedAreTheSingleRunBitForBit) {
  ScratchDirectory dir;
  const Scenario sc = scenario();
  const RunResult single = run(sc, dir.file("single.h5"));
  ASSERT_EQ(single.failures(), 1) << "body 5 fails";
  for (int k : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(k) + " shards");
    std::vector<std::string> shards = run_shards(sc, k, dir);
    std::reverse(shards.begin(), shards.end());  // any order of the arguments
    const std::string merged = dir.file("merged-" + std::to_string(k) + ".h5");
    const MergeResult r = merge_shards(merged, shards);
    EXPECT_TRUE(r.missing.empty());
    EXPECT_EQ(r.bodies, 301);
    index_t failures = 0;
    for (const MergedShard& s : r.shards) {
      failures += s.failures;
      EXPECT_TRUE(s.used) << s.problem;
    }
    EXPECT_EQ(failures, 1);
    expect_same_file(dir.file("single.h5"), merged);
  }
}

// Shards run with a --stride other than the file's merge at it: the merged file is the single run's
// with that stride (it took the file's before, and labelled the shards' samples with its times).
TEST(Shards, ShardsWithAnotherStrideMergeAtIt) {
  ScratchDirectory dir;
  ScenarioOverrides o;
  o.backend = Backend::cpu;
  o.stride = 10;  // the file's is 5
  const Scenario sc = parse_scenario(study, "study.toml", o);
  ASSERT_EQ(sc.stride, 10);
  run(sc, dir.file("single.h5"));
  const std::string merged = dir.file("merged.h5");
  const MergeResult r = merge_shards(merged, run_shards(sc, 2, dir));
  EXPECT_TRUE(r.missing.empty());
  expect_same_file(dir.file("single.h5"), merged);
  EXPECT_EQ(read_dataset(merged, "time").values.size(), 6u);  // t = 0, 0.02, …, 0.1
}

// `quatstep merge` (and mpirun) names the histogram ranges that missed values of the merged
// statistics, as the single run's summary does: the same worst sample and counts (the study's
// ranges: body 5's energy above, before it fails; nutation binned over [0, 0.3]: most tops above).
// No such line where every value fell inside (energy binned up to 3e5).
TEST(Shards, MergeSummaryNamesHistogramRangesThatMissTheirValues) {
  ScratchDirectory dir;
  std::string narrow = study, inside = study;
  narrow.replace(narrow.find("high = 3.14159265"), 17, "high = 0.3");
  inside.replace(inside.find("high = 8000.0"), 13, "high = 300000.0");
  for (const bool misses : {true, false}) {
    SCOPED_TRACE(misses ? "nutation over [0, 0.3]" : "every value inside");
    const Scenario sc = scenario(misses ? narrow : inside);
    const std::string file = dir.file(misses ? "narrow" : "inside");
    const RunResult single = run(sc, file + ".h5");
    ASSERT_EQ(single.histogram_misses.size(), 2u) << "energy and nutation have bins";
    for (const HistogramMiss& m : single.histogram_misses)
      ASSERT_EQ(m.below + m.above > 0, misses) << m.observable;
    const MergeResult r = merge_shards(file + "-merged.h5", run_shards(sc, 3, dir));
    ASSERT_EQ(r.histogram_misses.size(), single.histogram_misses.size());
    for (std::size_t k = 0; k < r.histogram_misses.size(); ++k) {
      const HistogramMiss &merged = r.histogram_misses[k], &expected = single.histogram_misses[k];
      EXPECT_EQ(merged.observable, expected.observable);
      EXPECT_EQ(merged.time, expected.time) << merged.observable;
      EXPECT_EQ(merged.below, expected.below) << merged.observable;
      EXPECT_EQ(merged.above, expected.above) << merged.observable;
      EXPECT_EQ(merged.count, expected.count) << merged.observable;
    }
    std::ostringstream summary;
    print_merge_summary(summary, "merged.h5", r);
    const std::string line = histogram_misses_summary(single.histogram_misses);
    EXPECT_EQ(line.empty(), !misses);
    EXPECT_EQ(summary.str().find("histogram ranges: " + line + " ([output.statistics] low, high)\n") != std::string::npos,
              misses) << summary.str();
    EXPECT_EQ(summary.str().find("histogram ranges") != std::string::npos, misses) << summary.str();
  }
}

TEST(Shards, MissingShardIsNamedAndStatisticsCountThePresentBodies) {
  ScratchDirectory dir;
  const Scenario sc = scenario();
  run(sc, dir.file("single.h5"));
  const std::vector<std::string> shards = run_shards(sc, 3, dir);
  const std::string merged = dir.file("merged.h5");
  std::ofstream(dir.file("truncated.h5")) << "not HDF5: a shard killed before it wrote its header";
  const MergeResult r = merge_shards(merged, {shards[0], dir.file("truncated.h5"), shards[2]});
  EXPECT_FALSE(r.shards[1].used);
  EXPECT_NE(r.shards[1].problem.find("unreadable"), std::string::npos) << r.shards[1].problem;
  const ShardRange gap = shard_range(301, 1, 3);
  ASSERT_EQ(r.missing.size(), 1u);
  EXPECT_EQ(r.missing[0], std::make_pair(gap.first, gap.end));
  EXPECT_EQ(read_dataset(merged, "missing_bodies").values, (std::vector<double>{double(gap.first), double(gap.end)}));
  EXPECT_EQ(read_string_attribute(merged, "missing_bodies"), std::to_string(gap.end - gap.first));
  EXPECT_EQ(read_string_attribute(merged, "missing_bodies", "/statistics"), std::to_string(gap.end - gap.first));
  const std::vector<double> status = read_dataset(merged, "status").values;
  const std::vector<double> iterations = read_dataset(merged, "newton_iterations").values;
  for (index_t i = 0; i < 301; ++i) {
    EXPECT_EQ(status[i] == -1, i >= gap.first && i < gap.end) << "body " << i;
    EXPECT_EQ(iterations[i] == -1, i >= gap.first && i < gap.end) << "body " << i << ": 0 read as a count";
  }
  // The counts are the single run's less the missing shard's; the present bodies' rows are unchanged.
  for (const char* o : {"energy", "nutation", "newton_iterations"}) {
    const std::string count = std::string("statistics/") + o + "/count";
    const std::vector<double> all = read_dataset(dir.file("single.h5"), count).values, part = read_dataset(merged, count).values,
                              absent = read_dataset(shards[1], count).values;
    for (std::size_t j = 0; j < all.size(); ++j) EXPECT_EQ(part[j], all[j] - absent[j]) << o << " sample " << j;
    EXPECT_GT(absent[1], 90) << "the missing shard's bodies are not counted";
  }
  const std::vector<double> inertia = read_dataset(merged, "parameters/model.inertia").values,
                            full = read_dataset(dir.file("single.h5"), "parameters/model.inertia").values;
  for (index_t i = 0; i < 301 * 3; ++i)
    EXPECT_EQ(std::isnan(inertia[i]), i / 3 >= gap.first && i / 3 < gap.end) << "body " << i / 3;
  EXPECT_EQ(inertia[0], full[0]);
}

TEST(Shards, InterruptedShardIsMissingUntilResumed) {
  ScratchDirectory dir;
  const Scenario sc = scenario();
  run(sc, dir.file("single.h5"));
  std::vector<std::string> shards = run_shards(sc, 2, dir);
  const std::string interrupted = dir.file("interrupted.h5");
  const volatile std::sig_atomic_t stop = 1;
  ASSERT_TRUE(run(shard_scenario(sc, shard_range(301, 1, 2)), interrupted, &stop).interrupted);
  const MergeResult r = merge_shards(dir.file("partial.h5"), {shards[0], interrupted});
  ASSERT_EQ(r.missing.size(), 1u);
  EXPECT_EQ(r.missing[0], std::make_pair(index_t(150), index_t(301)));
  EXPECT_FALSE(r.shards[1].used);
  EXPECT_NE(r.shards[1].problem.find("incomplete"), std::string::npos) << r.shards[1].problem;
  EXPECT_NE(r.shards[1].problem.find("--resume " + interrupted), std::string::npos) << r.shards[1].problem;
  // Resumed, the shard is the uninterrupted one: the merge is the single run.
  RunOptions resume;
  resume.output = interrupted;
  resume.resume = true;
  resume.progress = ProgressMode::never;
  run_scenario(load_interrupted_scenario(interrupted, Backend::cpu), resume);
  EXPECT_TRUE(merge_shards(dir.file("merged.h5"), {shards[0], interrupted}).missing.empty());
  expect_same_file(dir.file("single.h5"), dir.file("merged.h5"));
}

// More shards than bodies: ⌊i·N/K⌋ leaves some shards empty, [k, k), and those sorted by their
// first body alone came after the shard [k, k + 1) and were refused as overlapping it, whatever the
// order of the files (16 bodies in 20 shards) or only in some (2 in 3). With statistics an empty
// shard's run failed: its sample window of no bodies has no buffer (found 2026-12-06).
TEST(Shards, EmptyShardsOfMoreShardsThanBodiesMerge) {
  ScratchDirectory dir;
  for (const auto& [bodies, count] : {std::pair{2, 3}, std::pair{16, 20}}) {
    SCOPED_TRACE(std::to_string(bodies) + " bodies in " + std::to_string(count) + " shards");
    std::string text = quatstep::testing::heavy_top_study(bodies) + "[output]\nstride = 5\n" +
                       quatstep::testing::statistics_table;
    text.replace(text.find("t_end = 0.2"), 11, "t_end = 0.02");
    const std::string failing = "[[ensemble.override]]\nbody = 5\nmodel.body_torque = [0.0, 20000.0, 20000.0]\n";
    text.erase(text.find(failing), failing.size());  // no body 5 among 2
    const Scenario sc = scenario(text);
    const std::string single = dir.file("single-" + std::to_string(count) + ".h5");
    run(sc, single);
    std::vector<std::string> shards = run_shards(sc, count, dir);
    int empty = 0;
    for (int i = 0; i < count; ++i) empty += shard_range(bodies, i, count).end == shard_range(bodies, i, count).first;
    EXPECT_EQ(empty, count - bodies);
    for (bool reversed : {false, true}) {
      if (reversed) std::reverse(shards.begin(), shards.end());
      const std::string merged = dir.file("merged-" + std::to_string(count) + (reversed ? "-r" : "") + ".h5");
      const MergeResult r = merge_shards(merged, shards);
      EXPECT_TRUE(r.missing.empty());
      EXPECT_EQ(r.bodies, bodies);
      expect_same_file(single, merged, 5);
    }
  }
}

TEST(Shards, ShardsOfOtherRunsAndOverlapsAreRefused) {
  ScratchDirectory dir;
  const Scenario sc = scenario();
  const std::vector<std::string> halves = run_shards(sc, 2, dir), thirds = run_shards(sc, 3, dir);
  const auto refused = [&](const std::vector<std::string>& files, const std::string& says) {
    try {
      merge_shards(dir.file("refused.h5"), files);
      ADD_FAILURE() << "merged: " << files[0] << " " << files[1];
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(files[1]), std::string::npos) << e.what();
    }
  };
  refused({halves[0], thirds[0]}, "overlap");
  const std::string other = dir.file("other.h5");
  ScenarioOverrides o;
  o.backend = Backend::cpu;
  o.t_end = 0.05;
  run(shard_scenario(parse_scenario(study, "study.toml", o), shard_range(301, 1, 2)), other);
  refused({halves[0], other}, "t_end differs");
  o.t_end.reset();
  o.stride = 10;  // the file's is 5
  run(shard_scenario(parse_scenario(study, "study.toml", o), shard_range(301, 1, 2)), other);
  refused({halves[0], other}, "the stride of the samples differs");
  std::string reseeded = study;
  reseeded.replace(reseeded.find("seed = 3"), 8, "seed = 4");
  run(shard_scenario(scenario(reseeded), shard_range(301, 1, 2)), other);
  refused({halves[0], other}, "the scenario (TOML text) differs");
}

// ---------------------------------------------------------------- adaptive steps, mechanisms
namespace {

/// The adaptive heavy tops of examples/adaptive_heavy_tops.toml, 13 of them over 0.05 s: their own
/// step records per body.
Scenario adaptive_tops() {
  ScenarioOverrides o;
  o.backend = Backend::cpu;
  o.t_end = 0.05;
  std::string text = quatstep::testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/adaptive_heavy_tops.toml");
  text.replace(text.find("size = 64"), 9, "size = 13");
  return parse_scenario(text, "adaptive_heavy_tops.toml", o);
}

/// 7 slider-cranks of examples/slider_crank_sweep.toml (swept spring stiffness, the slider's inertia
/// drawn with invalid draws redrawn, the slider given a velocity across its cylinder: assembled by
/// projection, non-zero corrections) over 0.1 s, every 3rd mechanism's trajectory, the example's
/// statistics (quantiles, a histogram, the drifts); with `adaptive`, each its own steps.
MechanismScenario slider_cranks(bool adaptive) {
  const std::string example = quatstep::testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml");
  const std::string time = adaptive ? "[time]\ndt = 0.01\nt_end = 0.1\nadaptive = true\nrotation_atol = 1e-6\n"
                                      "translation_atol = 1e-6\nh_initial = 1e-4\n"
                                    : "[time]\ndt = 0.001\nt_end = 0.1\n";
  std::string head = example.substr(0, example.find("[time]"));
  head.replace(head.find("position = [0.5, 0.0, 0.0]"), 26, "position = [0.5, 0.0, 0.0]\nvelocity = [0.0, 0.05, 0.0]");
  const std::string text = head + time +
                           "[ensemble]\nsize = 7\n[[ensemble.sweep]]\nkey = \"spring.return spring.stiffness\"\n"
                           "from = 50.0\nto = 5000.0\n[[ensemble.random]]\nkey = \"body.slider.inertia\"\n"
                           "distribution = \"normal\"\nmean = [0.001, 0.001, 0.001]\nstddev = 0.0008\n"
                           "invalid = \"redraw\"\nseed = 2\n[output]\nstride = " + (adaptive ? "1" : "10") +
                           "\ntrajectories = \"every\"\ntrajectory_every = 3\n" +
                           example.substr(example.find("[output.statistics]"));
  ScenarioOverrides o;
  o.backend = Backend::cpu;
  return parse_mechanism_scenario(text, "slider_cranks.toml", o);
}

MechanismRunResult run(const MechanismScenario& sc, const std::string& file,
                       const volatile std::sig_atomic_t* interrupt = nullptr) {
  RunOptions options;
  options.threads = 2;
  options.output = file;
  options.progress = ProgressMode::never;
  options.max_chunk_steps = 2 * sc.stride;  // several windows; interrupted runs stop after the first
  options.interrupt = interrupt;
  return run_mechanism_scenario(sc, options);
}

/// The files of `sc` (either kind) run as `count` shards.
template <class S>
std::vector<std::string> shard_files(const S& sc, index_t size, int count, const ScratchDirectory& dir) {
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) {
    files.push_back(dir.file("shard-" + std::to_string(i) + "-of-" + std::to_string(count) + ".h5"));
    run(shard_scenario(sc, shard_range(size, i, count)), files.back());
  }
  return files;
}

}  // namespace

TEST(Shards, AdaptiveShardsMergeTheirStepRecords) {
  ScratchDirectory dir;
  const Scenario sc = adaptive_tops();
  run(sc, dir.file("single.h5"));
  for (int k : {2, 3}) {
    SCOPED_TRACE(std::to_string(k) + " shards");
    const std::string merged = dir.file("merged-" + std::to_string(k) + ".h5");
    EXPECT_TRUE(merge_shards(merged, shard_files(sc, 13, k, dir)).missing.empty());
    expect_same_file(dir.file("single.h5"), merged, 10);
  }
  const std::vector<double> accepted = read_dataset(dir.file("single.h5"), "accepted_steps").values;
  EXPECT_GT(*std::min_element(accepted.begin(), accepted.end()), 5) << "every body took its own steps";
}

TEST(Shards, MechanismShardsMergedAreTheSingleRunBitForBit) {
  for (bool adaptive : {false, true}) {
    SCOPED_TRACE(adaptive ? "adaptive steps" : "fixed steps");
    ScratchDirectory dir;
    const MechanismScenario sc = slider_cranks(adaptive);
    const MechanismRunResult single = run(sc, dir.file("single.h5"));
    ASSERT_EQ(single.failures(), 0);
    EXPECT_GT(*std::max_element(single.velocity_correction.begin(), single.velocity_correction.end()), 0.0);
    EXPECT_GT(single.redraws, 0) << "/redraws and its attributes are merged too";
    for (int k : {1, 2, 3}) {
      SCOPED_TRACE(std::to_string(k) + " shards");
      std::vector<std::string> shards = shard_files(sc, 7, k, dir);
      std::reverse(shards.begin(), shards.end());
      const std::string merged = dir.file("merged-" + std::to_string(k) + ".h5");
      const MergeResult r = merge_shards(merged, shards);
      EXPECT_TRUE(r.missing.empty());
      EXPECT_EQ(r.bodies, 7);
      expect_same_file(dir.file("single.h5"), merged);
    }
    // A missing shard: its mechanisms' records and corrections NaN or −1, the others' unchanged.
    const std::vector<std::string> thirds = shard_files(sc, 7, 3, dir);
    const std::string partial = dir.file("partial.h5");
    const MergeResult r = merge_shards(partial, {thirds[0], thirds[2]});
    const ShardRange gap = shard_range(7, 1, 3);
    ASSERT_EQ(r.missing, (std::vector<std::pair<index_t, index_t>>{{gap.first, gap.end}}));
    const std::vector<double> correction = read_dataset(partial, "assembly_velocity_correction").values,
                              full = read_dataset(dir.file("single.h5"), "assembly_velocity_correction").values;
    for (index_t i = 0; i < 7; ++i) {
      const bool missing = i >= gap.first && i < gap.end;
      EXPECT_EQ(std::isnan(correction[i]), missing) << "mechanism " << i;
      if (!missing) EXPECT_EQ(correction[i], full[i]) << "mechanism " << i;
    }
    if (adaptive) EXPECT_EQ(read_dataset(partial, "accepted_steps").values[gap.first], -1);
    const std::vector<double> count = read_dataset(partial, "statistics/energy/count").values;
    EXPECT_EQ(count.back(), 7 - (gap.end - gap.first)) << "the statistics count the mechanisms present";
  }
}

TEST(Shards, InterruptedMechanismShardResumesToTheSingleRun) {
  ScratchDirectory dir;
  const MechanismScenario sc = slider_cranks(false);
  run(sc, dir.file("single.h5"));
  const std::vector<std::string> halves = shard_files(sc, 7, 2, dir);
  const std::string interrupted = dir.file("interrupted.h5");
  const volatile std::sig_atomic_t stop = 1;
  ASSERT_TRUE(run(shard_scenario(sc, shard_range(7, 1, 2)), interrupted, &stop).interrupted);
  const MergeResult r = merge_shards(dir.file("partial.h5"), {halves[0], interrupted});
  EXPECT_NE(r.shards[1].problem.find("incomplete"), std::string::npos) << r.shards[1].problem;
  const MechanismScenario again = load_interrupted_mechanism_scenario(interrupted);
  ASSERT_TRUE(again.shard.has_value()) << "the file's shard range comes back";
  EXPECT_EQ(again.shard->first, 3);
  RunOptions resume;
  resume.output = interrupted;
  resume.resume = true;
  resume.progress = ProgressMode::never;
  EXPECT_FALSE(run_mechanism_scenario(again, resume).interrupted);
  EXPECT_TRUE(merge_shards(dir.file("merged.h5"), {halves[0], interrupted}).missing.empty());
  expect_same_file(dir.file("single.h5"), dir.file("merged.h5"));
}

#ifdef QUATSTEP_EXE
namespace {
using Outcome = quatstep::testing::CommandOutcome;
/// A shell command in `dir`, stdout and stderr captured.
Outcome shell(const std::string& command, const ScratchDirectory& dir) {
  const std::string cmd = "cd '" + dir.file("") + "' && " + command + " >stdout 2>stderr";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, quatstep::testing::read_text_file(dir.file("stdout")), quatstep::testing::read_text_file(dir.file("stderr"))};
}
const std::string quatstep_exe = std::string("'") + QUATSTEP_EXE + "'";
Outcome quatstep_cli(const std::string& args, const ScratchDirectory& dir) { return shell(quatstep_exe + " " + args, dir); }

/// The study, writing study.h5, in `dir`; and the single process's run of it.
void single_run(const ScratchDirectory& dir) {
  std::string text = study;
  text.replace(text.find("[output]\n"), 9, "[output]\nfile = \"study.h5\"\n");
  std::ofstream(dir.file("study.toml")) << text;
  ASSERT_EQ(quatstep_cli("run study.toml --backend cpu --quiet", dir).exit_code, 0);
}
}  // namespace

TEST(Shards, CommandLineShardsAndMerge) {
  ScratchDirectory dir;
  single_run(dir);
  for (int i = 0; i < 3; ++i) {
    const Outcome o = quatstep_cli("run study.toml --backend cpu --quiet --shard " + std::to_string(i) + "/3", dir);
    ASSERT_EQ(o.exit_code, 0) << o.err;
  }
  std::string shards;
  for (int i = 0; i < 3; ++i) shards += " study.shard-" + std::to_string(i) + "-of-3.h5";
  const Outcome merged = quatstep_cli("merge all.h5" + shards, dir);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  expect_same_file(dir.file("study.h5"), dir.file("all.h5"));
  // The same bytes, too: chunks placed when each dataset is created (746 bytes of chunk addresses
  // differed before, found 2026-12-04) ...
  const std::string first = quatstep::testing::read_text_file(dir.file("study.h5"));
  EXPECT_GT(first.size(), 10000u);
  EXPECT_TRUE(quatstep::testing::read_text_file(dir.file("all.h5")) == first) << "the merged file's bytes differ";
  // ... and the same run twice writes the same bytes: no modification times in the object headers
  // (13 bytes differed between two runs seconds apart before, found 2026-12-04).
  ASSERT_EQ(quatstep_cli("run study.toml --backend cpu --quiet --output again.h5", dir).exit_code, 0);
  EXPECT_TRUE(quatstep::testing::read_text_file(dir.file("again.h5")) == first) << "two runs of one scenario gave files that differ";
  const Outcome partial = quatstep_cli("merge partial.h5 study.shard-0-of-3.h5 study.shard-2-of-3.h5", dir);
  EXPECT_EQ(partial.exit_code, 4);
  EXPECT_NE(partial.err.find("missing bodies 100 … 199"), std::string::npos) << partial.err;
  const Outcome bad = quatstep_cli("run study.toml --shard 3/3", dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--shard 3/3"), std::string::npos) << bad.err;
}

/// examples/slider_crank_sweep.toml over 0.05 s, writing cranks.h5, in `dir`; and its single run.
void single_mechanism_run(const ScratchDirectory& dir) {
  std::string text = quatstep::testing::read_text_file(std::string(QUATSTEP_EXAMPLES) + "/slider_crank_sweep.toml");
  text.replace(text.find("t_end = 2.0"), 11, "t_end = 0.05");
  text.replace(text.find("[output]\n"), 9, "[output]\nfile = \"cranks.h5\"\n");
  std::ofstream(dir.file("cranks.toml")) << text;
  ASSERT_EQ(quatstep_cli("run cranks.toml --backend cpu --quiet", dir).exit_code, 0);
}

TEST(Shards, CommandLineMechanismShardsAndMerge) {
  ScratchDirectory dir;
  single_mechanism_run(dir);
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    const Outcome o = quatstep_cli("run cranks.toml --backend cpu --shard " + std::to_string(i) + "/3", dir);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("mechanisms"), std::string::npos) << "the mechanism summary: " << o.out;
    shards += " cranks.shard-" + std::to_string(i) + "-of-3.h5";
  }
  const Outcome merged = quatstep_cli("merge all.h5" + shards, dir);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  expect_same_file(dir.file("cranks.h5"), dir.file("all.h5"));
  EXPECT_TRUE(quatstep::testing::read_text_file(dir.file("all.h5")) ==
              quatstep::testing::read_text_file(dir.file("cranks.h5")))
      << "the merged file's bytes differ";
  const Outcome bodies = quatstep_cli("run cranks.toml --shard 0/2 --bodies 1", dir);
  EXPECT_NE(bodies.exit_code, 0) << "--shard with --bodies";
}

// ---------------------------------------------------------------- mpirun -np K quatstep run
namespace {
#ifdef QUATSTEP_MPIEXEC
/// `mpirun -np ranks …` as root on a machine with fewer cores than ranks; a minute at most.
std::string mpirun(int ranks) {
  return std::string("timeout 120 '") + QUATSTEP_MPIEXEC + "' --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " ";
}
#define SKIP_WITHOUT_MPI()
#else
std::string mpirun(int) { return {}; }
#define SKIP_WITHOUT_MPI() GTEST_SKIP() << "this build has no MPI (QUATSTEP_MPI=OFF, or no MPI found: apt-get install libopenmpi-dev openmpi-bin)"
#endif
}  // namespace

TEST(MpiRanks, OneTwoThreeRanksWriteTheSingleRunBitForBit) {
  SKIP_WITHOUT_MPI();
  ScratchDirectory dir;
  single_run(dir);
  for (int ranks : {1, 2, 3}) {
    const std::string file = "mpi-" + std::to_string(ranks) + ".h5";
    const Outcome o =
        shell(mpirun(ranks) + quatstep_exe + " run study.toml --backend cpu --threads 1 --output " + file, dir);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    expect_same_file(dir.file("study.h5"), dir.file(file));
    // The ranks' failures, reported with their shards: body 5 is in shard 0.
    const ShardRange holder = shard_range(301, 0, ranks);
    const std::string line = "shard " + std::to_string(holder.index) + "/" + std::to_string(ranks) + ", bodies " +
                             std::to_string(holder.first) + " … " + std::to_string(holder.end - 1) + ", 1 failed bodies";
    EXPECT_NE(o.out.find(line), std::string::npos) << o.out;
    for (int r = 0; r < ranks; ++r)
      EXPECT_FALSE(std::ifstream(dir.file("mpi-" + std::to_string(ranks) + ".shard-" + std::to_string(r) + "-of-" +
                                          std::to_string(ranks) + ".h5")))
          << "a complete merge removes the shard files";
  }
}

TEST(MpiRanks, MechanismRanksWriteTheSingleRunBitForBit) {
  SKIP_WITHOUT_MPI();
  ScratchDirectory dir;
  single_mechanism_run(dir);
  const Outcome o = shell(mpirun(3) + quatstep_exe + " run cranks.toml --backend cpu --threads 1 --output mpi.h5", dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  expect_same_file(dir.file("cranks.h5"), dir.file("mpi.h5"));
  EXPECT_NE(o.out.find("shard 2/3, bodies 5 … 7, 0 failed bodies"), std::string::npos) << o.out;
}

TEST(MpiRanks, KilledRankEndsTheJobAndMergeNamesItsBodies) {
  SKIP_WITHOUT_MPI();
  ScratchDirectory dir;
  single_run(dir);
  // Rank 1 dies before it starts; mpirun must end (not hang) with a non-zero status.
  const Outcome o = shell(mpirun(2) + "sh -c '[ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && kill -9 $$; exec \"$0\" \"$@\"' " +
                              quatstep_exe + " run study.toml --backend cpu --threads 1 --quiet --output killed.h5",
                          dir);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.exit_code, 124) << "mpirun hung until the timeout";
  EXPECT_FALSE(std::ifstream(dir.file("killed.h5"))) << "no result file pretends to hold every body";
  EXPECT_NE(o.err.find("job has been aborted"), std::string::npos) << "mpirun says why: " << o.err;
  // Merging what is there never claims rank 1's bodies: a non-zero status naming them (rank 0's
  // shard complete) or saying that no shard is complete (rank 0 ended mid-run too).
  const Outcome m = quatstep_cli("merge killed.h5 killed.shard-0-of-2.h5 killed.shard-1-of-2.h5", dir);
  EXPECT_TRUE((m.exit_code == 4 && m.err.find("missing bodies 150 … 300") != std::string::npos) ||
              (m.exit_code == 1 && m.err.find("no complete shard file") != std::string::npos))
      << m.exit_code << ": " << m.err;
}
#endif

