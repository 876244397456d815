// Joint designs over several keys: every entry's law is applied (Distribution::transform) to its
// slice of one point u ∈ (0, 1)^d of the design, d = the sum of the entries' uniforms().
//
//   latin_hypercube  coordinate j of body k: u_j = (π_j(k) + v_jk)/N, π_j a random permutation of
//                    0 … N − 1, v_jk uniform in (0, 1): each coordinate has exactly one body in each of
//                    its N strata [s/N, (s + 1)/N) (McKay, Beckman, Conover, Technometrics 21, 1979;
//                    the strata's bounds as doubles, kept against rounding). π_j(k) is computed
//                    for one k alone: a 4-round Feistel network keyed by (seed, design name, j) on the
//                    smallest even number of bits that holds N, walked along its cycle until it lands
//                    below N (Black & Rogaway's cycle walking), so any body can be drawn on any shard.
//                    It needs N: body k's values depend on the ensemble size.
//   sobol            body k takes point k of the Sobol sequence (Boost.Random's sobol, Joe–Kuo direction
//                    numbers, up to 3667 dimensions, Gray-code order; point 0 is the origin) with a random
//                    digital shift (XOR of a 64-bit word per coordinate, keyed by seed and design name),
//                    which keeps every (t, m, s)-net property and moves the origin away from 0. It does not
//                    depend on N; the first 2^m bodies form a net.
// Coordinates are turned into (0, 1) doubles as in counter_rng.hpp, so a law's quantile never sees 0
// or 1. Entries may not redraw invalid bodies (that would undo the stratification): use
// invalid = fail, or a body shape whose dimensions cannot be <= 0.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sampling/distribution.hpp"

namespace quatstep::sampling {

struct DesignEntry {
  std::string key;
  Distribution distribution;
  std::string mass_key{};  ///< body_shape only: the key that receives the drawn mass; empty for none
};

class JointDesign {
 public:
  enum class Kind { latin_hypercube, sobol };

  /// `name` keys the design's random streams (e.g. "design 0"); ensemble_size >= 1.
  static JointDesign latin_hypercube(std::string name, std::vector<DesignEntry> entries, index_t ensemble_size);
  static JointDesign sobol(std::string name, std::vector<DesignEntry> entries);

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  const std::vector<DesignEntry>& entries() const { return entries_; }
  /// Coordinates of a point: the sum of the entries' uniforms().
  int dimension() const { return dimension_; }

  /// Body `body`'s point in (0, 1)^dimension().
  std::vector<double> point(std::uint64_t seed, index_t body) const;
  /// One Drawn per entry, in order; an invalid body (invalid = fail) has its problem set.
  std::vector<Drawn> sample(std::uint64_t seed, index_t body) const;

 private:
  JointDesign(Kind kind, std::string name, std::vector<DesignEntry> entries, index_t ensemble_size);

  Kind kind_;
  std::string name_;
  std::vector<DesignEntry> entries_;
  index_t ensemble_size_ = 0;  ///< latin_hypercube only
  int dimension_ = 0;
  struct SobolEngine;
  std::shared_ptr<const SobolEngine> sobol_;  ///< the direction numbers, built once
};

}  // namespace quatstep::sampling
