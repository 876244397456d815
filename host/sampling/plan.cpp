#include "sampling/plan.hpp"

#include <map>
#include <utility>

#include "sampling/counter_rng.hpp"

namespace quatstep::sampling {
namespace {

/// The records of a body_shape law drawing `key` (shape_records): (name, size).
std::vector<ShapeRecord> shape_records_of(const std::string& key, const Distribution& law) {
  if (!law.shape_dimensions()) return {};
  return {{key + ".shape_dimensions", law.shape_dimensions()}, {key + ".shape_mass", 1}, {key + ".shape_density", 1}};
}

/// Appends d's value (and its mass, and a body_shape's records) to `out`; an invalid body is an error
/// naming key and body.
void assign(BodyDraw& out, Drawn&& d, const std::string& key, const Distribution& law, const std::string& mass_key,
            index_t body) {
  if (!d.problem.empty()) throw SamplingError(key + ": body " + std::to_string(body) + ": " + d.problem);
  out.redraws += d.redraws;
  out.values.push_back({key, std::move(d.value)});
  if (!mass_key.empty()) out.values.push_back({mass_key, {d.mass}});
  const std::vector<ShapeRecord> records = shape_records_of(key, law);
  if (!records.empty()) {
    out.shapes.push_back({records[0].name, std::move(d.dimensions)});
    out.shapes.push_back({records[1].name, {d.mass}});
    out.shapes.push_back({records[2].name, {d.density}});
  }
}

}  // namespace

void SamplingPlan::add(std::string key, Distribution distribution, std::uint64_t seed, std::string mass_key) {
  if (!mass_key.empty() && !distribution.draws_mass())
    throw SamplingError(key + ": mass_key '" + mass_key + "' needs a body_shape law");
  entries_.emplace_back(Independent{std::move(key), std::move(distribution), seed, std::move(mass_key)});
}

void SamplingPlan::add(JointDesign design, std::uint64_t seed) { entries_.emplace_back(Design{std::move(design), seed}); }

void SamplingPlan::validate() const {
  std::map<std::string, int> drawn;                                     // key → entry
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::string> streams;  // (seed, stream) → name
  const auto target = [&](const std::string& key, int entry) {
    if (!drawn.emplace(key, entry).second) throw SamplingError(key + ": drawn twice (entries " + std::to_string(drawn[key]) + " and " + std::to_string(entry) + ")");
  };
  const auto stream = [&](std::uint64_t seed, const std::string& name) {
    const auto [at, fresh] = streams.emplace(std::make_pair(seed, stream_id(name)), name);
    if (!fresh)
      throw SamplingError(name + ": shares its random stream with '" + at->second + "' (same seed " + std::to_string(seed) +
                          ", same 32-bit name hash): give one of them another seed");
  };
  for (int i = 0; i < int(entries_.size()); ++i) {
    if (const auto* e = std::get_if<Independent>(&entries_[i])) {
      target(e->key, i);
      if (!e->mass_key.empty()) target(e->mass_key, i);
      stream(e->seed, e->key);
      e->distribution.check(e->seed, e->key);
    } else {
      const auto& d = std::get<Design>(entries_[i]);
      for (const DesignEntry& k : d.design.entries()) {
        target(k.key, i);
        if (!k.mass_key.empty()) target(k.mass_key, i);
        k.distribution.check(d.seed, k.key);
      }
      stream(d.seed, d.design.name());
    }
  }
}

std::vector<std::string> SamplingPlan::keys() const {
  std::vector<std::string> out;
  const auto add = [&](const std::string& key, const std::string& mass_key) {
    out.push_back(key);
    if (!mass_key.empty()) out.push_back(mass_key);
  };
  for (const auto& entry : entries_) {
    if (const auto* e = std::get_if<Independent>(&entry)) add(e->key, e->mass_key);
    else
      for (const DesignEntry& k : std::get<Design>(entry).design.entries()) add(k.key, k.mass_key);
  }
  return out;
}

std::vector<ShapeRecord> SamplingPlan::shape_records() const {
  std::vector<ShapeRecord> out;
  const auto add = [&](const std::string& key, const Distribution& law) {
    for (ShapeRecord& r : shape_records_of(key, law)) out.push_back(std::move(r));
  };
  for (const auto& entry : entries_) {
    if (const auto* e = std::get_if<Independent>(&entry)) add(e->key, e->distribution);
    else
      for (const DesignEntry& k : std::get<Design>(entry).design.entries()) add(k.key, k.distribution);
  }
  return out;
}

BodyDraw SamplingPlan::draw(index_t body) const {
  BodyDraw out;
  for (const auto& entry : entries_) {
    if (const auto* e = std::get_if<Independent>(&entry)) {
      assign(out, e->distribution.sample(e->seed, body, e->key), e->key, e->distribution, e->mass_key, body);
    } else {
      const auto& d = std::get<Design>(entry);
      std::vector<Drawn> drawn = d.design.sample(d.seed, body);
      for (std::size_t k = 0; k < drawn.size(); ++k)
        assign(out, std::move(drawn[k]), d.design.entries()[k].key, d.design.entries()[k].distribution,
               d.design.entries()[k].mass_key, body);
    }
  }
  return out;
}

}  // namespace quatstep::sampling
