// Everything a scenario draws, in the order the file gives it: keys drawn independently (each with its
// own law and seed) and joint designs over several keys. What the scenario parser builds from its
// [[ensemble.random]] tables and applies to each body.
//
//   SamplingPlan plan;
//   plan.add("model.inertia", Distribution::principal_inertia(Distribution::normal(mean, sd),
//                                                             InvalidPolicy::redraw), seed);
//   plan.add("initial.quaternion", Distribution::uniform_rotation(), seed);
//   plan.add(JointDesign::sobol("design 0", {{"initial.omega_body", law}}), seed);
//   plan.validate();                    // before any integration: SamplingError naming the key
//   BodyDraw d = plan.draw(17);         // body 17's values: key → value, in plan order
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sampling/design.hpp"
#include "sampling/distribution.hpp"

namespace quatstep::sampling {

struct Assignment {
  std::string key;
  std::vector<double> value;
};

/// One body's drawn values, and how many invalid draws were thrown away for it (all keys).
struct BodyDraw {
  std::vector<Assignment> values;
  /// What a body_shape drew besides the key and its mass key: the shape's dimensions, mass and density,
  /// as SamplingPlan::shape_records names them.
  std::vector<Assignment> shapes;
  int redraws = 0;
};

/// A record of what a body_shape drew: "<key>.shape_dimensions" (2 or 3 numbers), "<key>.shape_mass",
/// "<key>.shape_density".
struct ShapeRecord {
  std::string name;
  int size;
};

class SamplingPlan {
 public:
  /// `key` drawn from its own stream (seed, body, key). mass_key: for a body_shape, the key that
  /// receives the drawn mass (e.g. "model.mass"); empty for none. The law must already have the
  /// key's dimension (Distribution::for_dimension).
  void add(std::string key, Distribution distribution, std::uint64_t seed, std::string mass_key = {});
  /// A joint design, its streams keyed by (seed, design name).
  void add(JointDesign design, std::uint64_t seed);

  /// Before any drawing: every law's check(); no key drawn twice (that includes mass keys); no two
  /// entries on the same stream (equal seeds and equal FNV hashes of different names would correlate
  /// them: change a seed). Throws a SamplingError naming the key.
  void validate() const;
  /// No entry: nothing to draw.
  bool empty() const { return entries_.empty(); }
  /// The keys drawn (mass keys included), in plan order.
  std::vector<std::string> keys() const;
  /// The records of the body_shape draws, in plan order: BodyDraw::shapes of every body.
  std::vector<ShapeRecord> shape_records() const;

  /// Body `body`'s values. An invalid body (invalid = fail) is a SamplingError "model.inertia: body 17: …".
  BodyDraw draw(index_t body) const;

 private:
  struct Independent {
    std::string key;
    Distribution distribution;
    std::uint64_t seed;
    std::string mass_key;
  };
  struct Design {
    JointDesign design;
    std::uint64_t seed;
  };
  std::vector<std::variant<Independent, Design>> entries_;
};

}  // namespace quatstep::sampling
