// The parameters of a coupled batch's blocks of SIMD lanes (cpu_batch_stepper.hpp), kept packed from
// step to step. A caller's loads reach a model only as additions to a few of its parameters
// (with_external_load: the constant part of its spatial torque and, for a body that translates, of
// its force), so each step adds its loads to the models' own values of those parameters in place:
// bit for bit the packing of every body's model built anew with its loads, which cost the float DEM
// bench more than the lane step itself. Which parameters those are is found by loading one model
// with NaN, one load component at a time. The branches a block takes (lane_branches) depend on the
// loads only through which of those sums are zero (TimeProfile::is_zero compares with zero); they
// are found anew, from the bodies' models with their loads, only when that changes.
//
// Memory: the packed models (lane_parameters<Model> scalars a body) beside the batch's own.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cpu_lanes.hpp"
#include "quatstep/coupled_step.hpp"
#include "quatstep/models/external_load.hpp"

namespace quatstep::lanes {

template <class Model>
class CoupledBlocks {
 public:
  using S = typename Model::Scalar;
  static constexpr int parameters = lane_parameters<Model>;

  /// Every full block of `width` bodies of `models` (bodies ≥ width), each body's model with zero loads.
  CoupledBlocks(const CoupledModels<Model>& models, index_t bodies, int width)
      : width_(width),
        bodies_(bodies),
        slots_(load_slots(models(0))),
        packed_(std::size_t(bodies / width) * width * parameters),
        own_(std::size_t(bodies / width) * width * slots_.size()),
        known_(std::size_t(bodies / width)) {
    const Vec3<S> none = Vec3<S>::Zero();
    const index_t blocks = bodies / width;
#pragma omp parallel for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
      for (int j = 0; j < width; ++j) {
        const Model m = models(b * width + j);
        pack_parameters(with_external_load(m, none, none), j, width, packed(b));
        S own[parameters];
        pack_parameters(m, 0, 1, own);
        for (std::size_t s = 0; s < slots_.size(); ++s)
          own_[(b * slots_.size() + s) * width + j] = own[slots_[s].parameter];
      }
    }
  }

  /// Block b's parameters with this step's loads (3 × bodies arrays, component-major, null for none:
  /// CpuBatchStepper::step's) and the branches its bodies share with them (laneable false: they
  /// differ, and the bodies step alone).
  LaneBranches take_loads(const CoupledModels<Model>& models, index_t b, const S* torque, const S* force) {
    const index_t first = b * width_;
    S* p = packed(b);
    Zeros zeros{};
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      const S* load = slots_[s].load < 3 ? torque : force;
      const index_t offset = index_t(slots_[s].load % 3) * bodies_ + first;
      const S* own = &own_[(b * slots_.size() + s) * width_];
      S* x = p + slots_[s].parameter * width_;
      for (int j = 0; j < width_; ++j) {
        x[j] = own[j] + (load ? load[offset + j] : S(0));  // with_external_load's profile.constant += load
        zeros.bits[s] |= std::uint32_t(x[j] == S(0)) << j;
      }
    }
    Known& known = known_[b];
    if (!known.valid || known.zeros.bits != zeros.bits) {
      const auto branches = [&](int j) { return lane_branches(models.with_loads(first + j, bodies_, torque, force)); };
      known.branches = branches(0);
      for (int j = 1; j < width_; ++j) known.branches.laneable &= branches(j) == known.branches;
      known.zeros = zeros, known.valid = true;
    }
    return known.branches;
  }
  /// Bodies per block.
  int width() const { return width_; }
  /// Block b's parameters, [parameter][lane], with the loads of its last take_loads.
  const S* block_parameters(index_t b) const { return &packed_[std::size_t(b) * width_ * parameters]; }

 private:
  /// Parameter `parameter` of a model takes load component `load` (0–2: torque, 3–5: force) added.
  struct Slot {
    int parameter, load;
  };
  static constexpr int max_slots = 6;
  /// Per slot, the lanes whose sum is zero.
  struct Zeros {
    std::array<std::uint32_t, max_slots> bits{};
  };
  struct Known {
    bool valid = false;
    Zeros zeros;
    LaneBranches branches;
  };

  /// The parameters a NaN in one component of the loads reaches, component by component.
  static std::vector<Slot> load_slots(const Model& m) {
    const Vec3<S> zero = Vec3<S>::Zero();
    S bare[parameters], loaded[parameters];
    pack_parameters(with_external_load(m, zero, zero), 0, 1, bare);
    std::vector<Slot> slots;
    for (int c = 0; c < 6; ++c) {
      Vec3<S> load[2] = {zero, zero};
      load[c / 3][c % 3] = std::numeric_limits<S>::quiet_NaN();
      pack_parameters(with_external_load(m, load[0], load[1]), 0, 1, loaded);
      for (int k = 0; k < parameters; ++k)
        if (std::memcmp(&bare[k], &loaded[k], sizeof(S)) != 0) slots.push_back({k, c});
    }
    if (slots.size() > max_slots)
      throw std::logic_error("CoupledBlocks: a model whose loads reach more parameters than it has load components");
    return slots;
  }
  S* packed(index_t b) { return &packed_[std::size_t(b) * width_ * parameters]; }

  int width_;
  index_t bodies_;
  std::vector<Slot> slots_;
  std::vector<S> packed_;  ///< [block][parameter][lane]
  std::vector<S> own_;     ///< [block][slot][lane]: each model's own value of the slot's parameter
  std::vector<Known> known_;  ///< per block: the zeros and the branches found for them
};

}  // namespace quatstep::lanes
