#include "shard.hpp"

#include <algorithm>
#include <stdexcept>

#include "mechanism_run.hpp"
#include "run.hpp"

namespace quatstep {

ShardRange shard_range(index_t bodies, int index, int count) {
  if (count < 1 || index < 0 || index >= count)
    throw std::invalid_argument("shard " + std::to_string(index) + "/" + std::to_string(count) +
                                ": needs 0 <= index < count");
  // ⌊i·N/K⌋ without overflow for N up to 2^63 / K.
  const auto bound = [&](index_t i) { return bodies / count * i + bodies % count * i / count; };
  return {index, count, bound(index), bound(index + 1)};
}

ShardRange parse_shard(const std::string& text, index_t bodies) {
  const std::size_t slash = text.find('/');
  std::size_t used_i = 0, used_k = 0;
  int i = -1, k = 0;
  try {
    if (slash != std::string::npos) {
      i = std::stoi(text.substr(0, slash), &used_i);
      k = std::stoi(text.substr(slash + 1), &used_k);
    }
  } catch (const std::exception&) {
    used_i = 0;
  }
  if (slash == std::string::npos || used_i != slash || used_k != text.size() - slash - 1 || i < 0 || k < 1 || i >= k)
    throw std::invalid_argument("--shard " + text + ": expected INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 0/4");
  return shard_range(bodies, i, k);
}

namespace {

/// Throws unless `shard` lies in an ensemble of `size` run whole (`selection` empty).
void check_shard(const std::string& source, const std::vector<index_t>& selection, index_t size, const ShardRange& shard) {
  if (!selection.empty()) throw std::invalid_argument(source + ": a shard of a body selection (--bodies)");
  if (shard.first < 0 || shard.end > size || shard.first > shard.end)
    throw std::invalid_argument(source + ": shard bodies " + std::to_string(shard.first) + " … " +
                                std::to_string(shard.end - 1) + " outside the ensemble of " + std::to_string(size));
}

/// The shard's range as a selection, and the trajectories `choice` of the full run writes in it
/// (`rows`: the full run's, ensemble indices), listed — the shard alone would choose others.
void select_shard(const ShardRange& shard, const std::vector<index_t>& rows, std::vector<index_t>& selection,
                  TrajectoryChoice& choice) {
  selection.resize(std::size_t(shard.end - shard.first));
  for (index_t i = shard.first; i < shard.end; ++i) selection[std::size_t(i - shard.first)] = i;
  choice.kind = Trajectories::list;
  choice.listed.assign(std::lower_bound(rows.begin(), rows.end(), shard.first),
                       std::lower_bound(rows.begin(), rows.end(), shard.end));
}

}  // namespace

Scenario shard_scenario(const Scenario& full, const ShardRange& shard) {
  check_shard(full.source, full.selection, full.ensemble_size, shard);
  Scenario sc = full;
  TrajectoryChoice choice;
  select_shard(shard, select_trajectories(full).rows, sc.selection, choice);
  sc.ensemble_size = shard.end - shard.first;
  sc.shard = shard;
  sc.trajectories = choice.kind;
  sc.trajectory_bodies = choice.listed;
  return sc;
}

MechanismScenario shard_scenario(const MechanismScenario& full, const ShardRange& shard) {
  check_shard(full.source, full.selection, full.ensemble_size, shard);
  MechanismScenario sc = full;
  select_shard(shard, mechanism_trajectories(full).rows, sc.selection, sc.trajectories);
  sc.shard = shard;
  return sc;
}

void write_shard_attributes(const ShardRange& shard, index_t ensemble_bodies, RunOutput& out) {
  out.integer_attribute("shard_index", shard.index);
  out.integer_attribute("shard_count", shard.count);
  out.integer_attribute("shard_first", shard.first);
  out.integer_attribute("shard_end", shard.end);
  out.integer_attribute("ensemble_bodies", ensemble_bodies);
}

std::string bodies_text(const ShardRange& shard) {
  if (shard.end <= shard.first) return "no bodies";
  return "bodies " + std::to_string(shard.first) + " … " + std::to_string(shard.end - 1);
}

std::string shard_file_name(const std::string& output, const ShardRange& shard) {
  const std::size_t dot = output.rfind('.'), slash = output.rfind('/');
  const bool suffix = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  const std::string tag = ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
  return suffix ? output.substr(0, dot) + tag + output.substr(dot) : output + tag;
}

}  // namespace quatstep
