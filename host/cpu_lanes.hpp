// SIMD across bodies in the CPU backend: CpuEnsemble steps blocks of lanes::width<T>(isa) bodies at
// once, one body per lane, bit for bit the scalar step of each body (include/quatstep/simd/).
//
// Which steps have lanes: LaneForm<Integrator>::exists. Every fixed-step integrator of the registry
// on HeavyTop and FreeRigidBody, in double and in float: the HHT family (Hht, ModifiedHht, with or
// without the inertia shift), SimoVuQuoc, Zupan3, Krysl's MidpointLie and ExplicitNewmarkLie, the
// Livens schemes (LivensEm, LivensMidpoint; reduced, full and null-space), the Hamiltonian schemes
// (HamiltonianEm, HamiltonianMidpoint) and the explicit splittings NoSquish, SymmetricSplitting
// (orders 2, 4, 6) and ExactFreeSplitting (both compositions); and adaptive steps over the HHT
// family (AdaptiveHht, simd/lane_adaptive.hpp). Which bodies: the blocks of consecutive bodies whose
// steps take every data-dependent branch alike (lane_model.hpp: the same loads acting, the same
// profiles with a sinusoid, the same load windows), Blocks; with adaptive steps, where each body
// keeps its own time, bodies without load windows sorted by their next step size, SortedBlocks.
// Every other body, and the bodies past the last full block, take the scalar step. Mechanisms:
// cpu_mechanism_lanes.hpp (the generic models of the Livens schemes, livens_generic.hpp, are not in
// the registry, so no ensemble holds them).
//
// Run-time dispatch: the lane steps are compiled once per precision and instruction set, in the
// units generated from cpu_lane_steps.cpp.in: AVX2 (-mavx2: 4 doubles or 8 floats per block) and,
// where the compiler has it, AVX-512 (-mavx512f/dq/vl/bw: 8 doubles or 16 floats); none with
// QUATSTEP_CPU_LANES off, float only with QUATSTEP_CPU_FLOAT. A CPU with AVX-512 takes those
// (best_isa(); QUATSTEP_SIMD=avx2 in the environment keeps it to AVX2), one with AVX2 the AVX2 ones
// (available()); elsewhere, or with QUATSTEP_SIMD=off, every body takes the scalar step (two SSE2
// lanes ran 1.3–1.45× the scalar step in the study against 2.5–3.9× for four AVX2 lanes,
// studies/README.md; an SSE2 fallback is not built).
// Only plain numbers cross into those units (BlockJob, the settings), so no template of double or
// float is compiled with AVX2 or AVX-512 but the entry points LaneSteps (the test cpu_lanes_symbols
// checks the units' symbols).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "quatstep/adaptive/adaptive_ensemble.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/integrators/exact_free_flow.hpp"
#include "quatstep/integrators/explicit_newmark_lie.hpp"
#include "quatstep/integrators/hamiltonian_quaternion.hpp"
#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/livens_midpoint.hpp"
#include "quatstep/integrators/midpoint_lie.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/symmetric_splitting.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/simd/lane_model.hpp"

namespace quatstep::mechanism {
template <class S>
struct MechanismHhtSettings;  // mechanism/hht.hpp
template <class S>
struct MechanismLivensSettings;  // mechanism/livens.hpp
}  // namespace quatstep::mechanism

namespace quatstep::lanes {

/// The instruction sets with lane steps, by their register size in bytes: AVX2, and AVX-512 (F, DQ,
/// VL and BW: every AVX-512 server CPU since Skylake-SP, and AMD's since Zen 4).
enum class Isa { avx2 = 32, avx512 = 64 };
inline const char* to_string(Isa isa) { return isa == Isa::avx512 ? "AVX-512" : "AVX2"; }
/// Bodies per block: one register, four doubles or eight floats in AVX2, twice that in AVX-512.
template <class T>
constexpr int width(Isa isa) {
  return int(isa) / int(sizeof(T));
}
template <class T>
inline constexpr int max_width = width<T>(Isa::avx512);

/// Whether this build has the lane steps (QUATSTEP_CPU_LANES, host/CMakeLists.txt), in double and in
/// float (QUATSTEP_CPU_LANES_FLOAT: with QUATSTEP_CPU_FLOAT), and in AVX-512 as well as in AVX2
/// (QUATSTEP_CPU_LANES_AVX512: where the compiler has the flags).
#if QUATSTEP_CPU_LANES
inline constexpr bool built = true;
#else
inline constexpr bool built = false;
#endif
#if QUATSTEP_CPU_LANES && QUATSTEP_CPU_LANES_FLOAT
inline constexpr bool built_float = true;
#else
inline constexpr bool built_float = false;
#endif
#if QUATSTEP_CPU_LANES && QUATSTEP_CPU_LANES_AVX512
inline constexpr bool built_avx512 = true;
#else
inline constexpr bool built_avx512 = false;
#endif

/// QUATSTEP_SIMD in the environment, read once: unset, empty or "auto" (the widest lanes this build
/// and CPU have), "avx2" (AVX2 even where AVX-512 is there) or "off" (every body its scalar step).
/// Any other value is std::invalid_argument: a misspelt "Off" silently left the lanes on.
enum class SimdSetting { automatic, avx2, off };
inline SimdSetting simd_setting() {
  static const SimdSetting setting = [] {
    const char* env = std::getenv("QUATSTEP_SIMD");
    if (!env || !*env || std::strcmp(env, "auto") == 0) return SimdSetting::automatic;
    if (std::strcmp(env, "avx2") == 0) return SimdSetting::avx2;
    if (std::strcmp(env, "off") == 0) return SimdSetting::off;
    throw std::invalid_argument(std::string("QUATSTEP_SIMD=") + env + " in the environment: auto, avx2 or off");
  }();
  return setting;
}

/// Whether this build has the lane steps and this CPU runs them (AVX2 at least), and QUATSTEP_SIMD
/// is not "off".
inline bool available() {
  const SimdSetting setting = simd_setting();
#if QUATSTEP_CPU_LANES
  return setting != SimdSetting::off && __builtin_cpu_supports("avx2");
#else
  (void)setting;
  return false;
#endif
}

/// The instruction set the lanes take here: the widest this build and CPU have, or AVX2 with
/// QUATSTEP_SIMD=avx2 in the environment. The same bits either way.
inline Isa best_isa() {
  const SimdSetting setting = simd_setting();
#if QUATSTEP_CPU_LANES
  const bool avx512 = built_avx512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
  return avx512 && setting != SimdSetting::avx2 ? Isa::avx512 : Isa::avx2;
#else
  (void)setting;
  return Isa::avx2;
#endif
}

/// The models with lanes (none in a build without them: nothing then calls into the lane units).
enum class Model { heavy_top, free_rigid_body };
template <class T>
inline constexpr bool built_in = std::is_same_v<T, double> ? built : std::is_same_v<T, float> && built_float;
template <class M, class T = typename M::Scalar>
inline constexpr bool has_lanes =
    built_in<T> && (std::is_same_v<M, HeavyTop<T>> || std::is_same_v<M, FreeRigidBody<T>>);
template <class M>
inline constexpr Model model_of =
    std::is_same_v<M, HeavyTop<typename M::Scalar>> ? Model::heavy_top : Model::free_rigid_body;

/// Steps first_step … first_step + steps − 1 of the block of bodies first … first + width<T>(isa) − 1,
/// as advance_body does for each: the state in and out of the struct-of-arrays, the records updated.
/// With adaptive steps, h is the spacing of the output times and the bodies take their steps
/// through the output times first_step + 1 … first_step + steps, as advance_body_adaptive does.
template <class T>
struct BlockJob {
  Isa isa;
  Model model;
  const T* parameters;    ///< the block's model parameters, [parameter][lane] (for_each_parameter)
  LaneBranches branches;  ///< what every body of the block shares
  T* state;               ///< every body's state, component c of body i at [c·bodies + i]
  index_t bodies, first;
  BodyRecord record;
  T t0, h;
  index_t first_step, steps;
  AdaptiveRecord<T> adaptive;  ///< adaptive steps: every body's step records
};

/// The splittings with lanes, by their free flow.
enum class Flow { no_squish, symmetric };

template <class T, class Cap>
struct MechanismBlockJob;  // cpu_mechanism_lanes.hpp

/// The entry points into the lane units, T = double or float, I = AVX2 or AVX-512: each steps a block
/// (BlockJob) of one method. Defined and explicitly instantiated in the unit of T and I only (the
/// mechanisms' in the mechanism units, cpu_mechanism_lanes.cpp.in, for double).
template <class T, Isa I>
struct LaneSteps {
  static void hht(VelocityUpdate update, const HhtSettings<T>& settings, const BlockJob<T>& job);
  static void adaptive_hht(VelocityUpdate update, const HhtSettings<T>& settings, const AdaptiveSettings<T>& adaptive,
                           const BlockJob<T>& job);
  static void livens(LivensRule rule, LivensVariant variant, const LivensSettings<T>& settings, const BlockJob<T>& job);
  static void simo_vu_quoc(const SimoVuQuocSettings<T>& settings, const BlockJob<T>& job);
  static void midpoint_lie(const LieGroupSettings<T>& settings, const BlockJob<T>& job);
  static void explicit_newmark_lie(const LieGroupSettings<T>& settings, const BlockJob<T>& job);
  static void hamiltonian(LivensRule rule, const HamiltonianSettings<T>& settings, const BlockJob<T>& job);
  static void zupan3(const Zupan3Settings<T>& settings, const BlockJob<T>& job);
  static void splitting(Flow flow, const SplittingSettings<T>& settings, const BlockJob<T>& job);
  static void exact_free_splitting(const ExactFreeSplittingSettings<T>& settings, const BlockJob<T>& job);
  template <class Cap>  // mechanism::SmallCapacity, LargeCapacity
  static void mechanism_hht(VelocityUpdate update, const mechanism::MechanismHhtSettings<T>& settings,
                            const MechanismBlockJob<T, Cap>& job);
  template <class Cap>
  static void mechanism_livens(LivensRule rule, const mechanism::MechanismLivensSettings<T>& settings,
                               const MechanismBlockJob<T, Cap>& job);
  template <class Cap>
  static void mechanism_adaptive_hht(VelocityUpdate update, const mechanism::MechanismHhtSettings<T>& settings,
                                     const AdaptiveSettings<T>& adaptive, const MechanismBlockJob<T, Cap>& job);
};

/// The block of a model's precision, and f(LaneSteps<T, I>{}) with the entry points of its
/// precision T and instruction set I.
template <class M>
using JobOf = BlockJob<typename M::Scalar>;
template <class M, class F>
void with_steps(const JobOf<M>& job, F&& f) {
  using T = typename M::Scalar;
  if constexpr (built_avx512) {
    if (job.isa == Isa::avx512) return f(LaneSteps<T, Isa::avx512>{});
  }
  f(LaneSteps<T, Isa::avx2>{});
}

/// The lane step of an integrator, where it has one.
template <class Integrator>
struct LaneForm {
  static constexpr bool exists = false;
};
template <class M, VelocityUpdate U>
struct LaneForm<HhtFamily<M, U>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const HhtFamily<M, U>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.hht(U, i.settings, job); });
  }
};
template <class M, VelocityUpdate U>
struct LaneForm<AdaptiveHht<HhtFamily<M, U>>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const AdaptiveHht<HhtFamily<M, U>>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.adaptive_hht(U, i.integrator.settings, i.settings, job); });
  }
};
template <class M, LivensRule Rule, LivensVariant V>
struct LaneForm<LivensIntegrator<M, Rule, V>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const LivensIntegrator<M, Rule, V>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.livens(Rule, V, i.settings, job); });
  }
};

template <class M>
struct LaneForm<SimoVuQuoc<M>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const SimoVuQuoc<M>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.simo_vu_quoc(i.settings, job); });
  }
};
template <class M>
struct LaneForm<Zupan3<M>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const Zupan3<M>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.zupan3(i.settings, job); });
  }
};
template <class M>
struct LaneForm<MidpointLie<M>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const MidpointLie<M>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.midpoint_lie(i.settings, job); });
  }
};
template <class M>
struct LaneForm<ExplicitNewmarkLie<M>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const ExplicitNewmarkLie<M>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.explicit_newmark_lie(i.settings, job); });
  }
};
template <class M, LivensRule Rule>
struct LaneForm<HamiltonianQuaternion<M, Rule>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const HamiltonianQuaternion<M, Rule>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.hamiltonian(Rule, i.settings, job); });
  }
};
template <class M, class F>
struct LaneForm<RigidBodySplitting<M, F>> {
  static constexpr bool exists =
      has_lanes<M> && (std::is_same_v<F, NoSquishFlow> || std::is_same_v<F, SymmetricSplittingFlow>);
  static void advance(const RigidBodySplitting<M, F>& i, const JobOf<M>& job) {
    constexpr Flow flow = std::is_same_v<F, NoSquishFlow> ? Flow::no_squish : Flow::symmetric;
    with_steps<M>(job, [&](auto steps) { steps.splitting(flow, i.settings, job); });
  }
};
template <class M>
struct LaneForm<ExactFreeSplitting<M>> {
  static constexpr bool exists = has_lanes<M>;
  static void advance(const ExactFreeSplitting<M>& i, const JobOf<M>& job) {
    with_steps<M>(job, [&](auto steps) { steps.exact_free_splitting(i.settings, job); });
  }
};

/// Model m's parameters into lane j of a block of `width`, [parameter][lane] (for_each_parameter).
template <class M, class T = typename M::Scalar>
void pack_parameters(M m, int j, int width, T* out) {
  T* p = out + j;
  for_each_parameter(m, [&](T x) { *p = x, p += width; });
}

/// The blocks of an ensemble of models M: which are stepped in lanes. A block's parameters are
/// packed for the lanes when it is stepped (pack), not kept: they would double the models' memory.
template <class M>
struct Blocks {
  using T = typename M::Scalar;
  /// A parameter buffer for pack() of any instruction set's block.
  static constexpr int max_parameters_per_block = lane_parameters<M> * max_width<T>;
  Isa isa;
  int width;                           ///< bodies per block
  std::vector<LaneBranches> branches;  ///< per full block; laneable = false: its bodies step alone

  explicit Blocks(const std::vector<M>& models, Isa isa = best_isa())
      : isa(isa), width(lanes::width<T>(isa)), branches(models.size() / width) {
    for (std::size_t b = 0; b < branches.size(); ++b) {
      LaneBranches shared = lane_branches(models[b * width]);
      for (int j = 1; j < width; ++j) shared.laneable &= lane_branches(models[b * width + j]) == shared;
      branches[b] = shared;
    }
  }
  /// The parameters of the `width` models from `block`, [parameter][lane], into out[parameters_per_block].
  void pack(const M* block, T* out) const {
    for (int j = 0; j < width; ++j) pack_parameters(block[j], j, width, out);
  }
  bool lanes(index_t block) const { return block < index_t(branches.size()) && branches[block].laneable; }
  /// The bodies in lanes.
  index_t bodies() const {
    const auto laneable = [](const LaneBranches& b) { return b.laneable; };
    return index_t(width) * index_t(std::count_if(branches.begin(), branches.end(), laneable));
  }
  /// Block b's job for steps first_step … (the caller sets steps), its parameters packed.
  BlockJob<T> job(index_t b, const T* parameters, T* state, index_t bodies, const BodyRecord& record, T t0, T h,
                  index_t first_step) const {
    return {isa, model_of<M>, parameters, branches[b], state, bodies, b * width, record, t0, h, first_step, 0, {}};
  }
};

/// Members of an ensemble with their own times (adaptive steps) cut into blocks between output times:
/// a block runs until its slowest-stepping member reaches the time, so the members are ordered by kind
/// (what the members of a block must share; −1: a member that steps alone) and within a kind by a
/// step size (bodies: their next step; mechanisms: their mean step so far), and cut into blocks in
/// that order. Which members share a block changes no
/// member's bits. The members of a block are not consecutive in the ensemble: the caller gathers their
/// state and records into a block of its own and scatters them back.
struct KindOrder {
  int width;                    ///< members per block
  std::vector<int> kind;        ///< per member: its kind, or −1 (it steps alone)
  std::vector<index_t> order;   ///< the members, block b = order[b·width …]
  std::vector<int> block_kind;  ///< per block: the kind all its members share, or −1 (they step alone)

  KindOrder(int width, std::vector<int> kinds) : width(width), kind(std::move(kinds)), order(kind.size()) {
    const std::vector<double> none(kind.size(), 0.0);
    sort(none.data());
  }

  /// Order the members by kind, then by key (a step size; a NaN counts as +∞), then by index, and
  /// cut the blocks.
  template <class T>
  void sort(const T* key) {
    struct Entry {
      int kind;
      T key;
      index_t member;
      bool operator<(const Entry& o) const {
        return kind != o.kind ? kind < o.kind : key != o.key ? key < o.key : member < o.member;
      }
    };
    std::vector<Entry> entries(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      entries[i] = {kind[i], std::isnan(key[i]) ? T(INFINITY) : key[i], index_t(i)};
    std::sort(entries.begin(), entries.end());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = entries[i].member;
    block_kind.assign(order.size() / width, -1);
    for (std::size_t b = 0; b < block_kind.size(); ++b) {
      const int k = kind[order[b * width]];
      bool shared = k >= 0;
      for (int j = 1; j < width; ++j) shared &= kind[order[b * width + j]] == k;
      block_kind[b] = shared ? k : -1;
    }
  }
  /// The blocks, the last one partial (its members step alone).
  index_t blocks() const { return (index_t(order.size()) + width - 1) / width; }
  bool lanes(index_t block) const { return block < index_t(block_kind.size()) && block_kind[block] >= 0; }
  /// The members of `block` (width of them, fewer in the last).
  const index_t* members_of(index_t block) const { return order.data() + block * width; }
  index_t size_of(index_t block) const { return std::min<index_t>(width, index_t(order.size()) - block * width); }
  /// The members in lanes.
  index_t in_lanes() const {
    return index_t(width) * index_t(std::count_if(block_kind.begin(), block_kind.end(), [](int k) { return k >= 0; }));
  }
};

/// KindOrder of bodies: their kind the branches their loads take (LaneBranches: the bodies of a block
/// must share them, and have no load windows).
template <class M>
struct SortedBlocks : KindOrder {
  using T = typename M::Scalar;
  static constexpr int max_parameters_per_block = Blocks<M>::max_parameters_per_block;
  Isa isa;
  std::vector<LaneBranches> kinds;  ///< the branches of each kind of body

  explicit SortedBlocks(const std::vector<M>& models, Isa isa = best_isa()) : SortedBlocks(classify(models), isa) {}

  /// The bodies of `block`, and the bodies in lanes.
  const index_t* bodies_of(index_t block) const { return members_of(block); }
  index_t bodies() const { return in_lanes(); }
  void pack(const std::vector<M>& models, index_t block, T* out) const {
    for (int j = 0; j < width; ++j) pack_parameters(models[bodies_of(block)[j]], j, width, out);
  }
  /// Block b's job on its gathered state (width bodies, component c of lane j at state[c·width + j]) and
  /// records, through the output times first_step + 1 … first_step + steps.
  BlockJob<T> job(index_t b, const T* parameters, T* state, const BodyRecord& record, const AdaptiveRecord<T>& adaptive,
                  T t0, T h, index_t first_step, index_t steps) const {
    const LaneBranches& branches = kinds[block_kind[b]];
    return {isa, model_of<M>, parameters, branches, state, width, 0, record, t0, h, first_step, steps, adaptive};
  }

 private:
  /// Each body's kind (−1: loads with windows, it steps alone), and the kinds' branches.
  struct Kinds {
    std::vector<int> kind;
    std::vector<LaneBranches> branches;
  };
  static Kinds classify(const std::vector<M>& models) {
    Kinds k{std::vector<int>(models.size(), -1), {}};
    for (std::size_t i = 0; i < models.size(); ++i) {
      const LaneBranches b = lane_branches(models[i]);
      if (!b.windowless()) continue;
      const auto found = std::find(k.branches.begin(), k.branches.end(), b);
      k.kind[i] = int(found - k.branches.begin());
      if (found == k.branches.end()) k.branches.push_back(b);
    }
    return k;
  }
  SortedBlocks(Kinds k, Isa isa)
      : KindOrder(lanes::width<T>(isa), std::move(k.kind)), isa(isa), kinds(std::move(k.branches)) {}
};

}  // namespace quatstep::lanes
