// Where the Euler parameters sit among a model's DAE coordinates, for the per-block formulas of the
// adaptive steps (local_error.hpp, step_size_rule.hpp, dense_output.hpp, adaptive_hht.hpp): a
// rigid-body model says it at compile time (n_quaternions, quaternion_offset, n); a mechanism has
// one block per body at run time, q = (r_1, e_1, …, r_nb, e_nb) (mechanism/dynamics.hpp), at a
// capacity its CapacityType fixes.
#pragma once

#include <type_traits>

#include "quatstep/config.hpp"

namespace quatstep {

template <class Model, class = void>
struct EulerParameterBlocks {
  static constexpr int capacity = Model::n_quaternions;  ///< the most blocks (loop bounds)
  QS_HD static int count(const Model&) { return Model::n_quaternions; }
  QS_HD static constexpr int offset(int b) { return Model::quaternion_offset(b); }
  QS_HD static int coordinates(const Model&) { return Model::n; }  ///< the coordinates in use
};

template <class Mech>
struct EulerParameterBlocks<Mech, std::void_t<typename Mech::CapacityType>> {
  static constexpr int capacity = Mech::max_bodies;
  QS_HD static int count(const Mech& m) { return m.n_bodies; }
  QS_HD static constexpr int offset(int b) { return 7 * b + 3; }
  QS_HD static int coordinates(const Mech& m) { return 7 * m.n_bodies; }
};

}  // namespace quatstep
