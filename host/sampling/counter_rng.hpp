// Counter-based random numbers: every value is a pure function of (seed, body, stream, index), so a
// body's draws are the same whatever the thread count, the backend, the chunking of the bodies, the
// shard that draws them or the ensemble size.
//
// Generator: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC'11; the Random123 library), a keyed bijection of 128-bit counters:
//   key     = (seed low 32 bits, seed high 32 bits)
//   counter = (block, stream, body low 32 bits, body high 32 bits)
// `stream` is the FNV-1a hash of the key name ("model.inertia"); `block` numbers the 128-bit outputs of
// one (seed, body, stream), each giving two doubles. Bodies are int64 ≥ 0, so counters whose body
// word has the top bit set never belong to a body: global_stream() marks the draws that belong to a
// whole design or check (Latin-hypercube permutations, Sobol shifts, the validity probe).
//
// Doubles from the 32-bit words by integer arithmetic only: an integer k below 2^53, converted
// exactly, times a power of two (exact), so a GPU computes the same bits (no division, no library
// call, no rounding anywhere):
//   open_unit:   (k + 1/2)·2^-52, k < 2^52 → (0, 1), symmetric: 1 − u is exactly another such value,
//                so inverse-CDF tails are resolved alike on both sides, down to 2^-53 (±8.2σ)
//   closed_open: k·2^-53,         k < 2^53 → [0, 1)
//   open_closed: (k + 1)·2^-53,   k < 2^53 → (0, 1]
// This header compiles in device code too (nvcc: Random123's functions are made __host__ __device__).
#pragma once

#include <cstdint>
#include <string_view>

#include "quatstep/config.hpp"

#if defined(__CUDACC__) && !defined(R123_CUDA_DEVICE)
#define R123_CUDA_DEVICE __host__ __device__
#endif
#include <Random123/philox.h>

namespace quatstep::sampling {

/// FNV-1a (32 bits) of a key name: the `stream` word of the counter.
constexpr std::uint32_t stream_id(std::string_view name) {
  std::uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

/// What a draw that belongs to no single body is for.
enum class GlobalStream : std::uint64_t { validity_probe = 1, latin_hypercube = 2, sobol_shift = 3 };
/// The body word of such a draw: top bit set, then the purpose, then an index below 2^48.
QS_HD inline std::uint64_t global_stream(GlobalStream purpose, std::uint64_t index) {
  return (std::uint64_t(1) << 63) | (std::uint64_t(purpose) << 48) | index;
}

/// Word 0 of Philox block `block` of (seed, body, stream): random access, for keyed functions of an
/// integer (the Latin hypercube's Feistel rounds).
QS_HD inline std::uint32_t counter_word(std::uint64_t seed, std::uint64_t body, std::uint32_t stream,
                                        std::uint32_t block) {
  const r123::Philox4x32::ctr_type counter = {{block, stream, std::uint32_t(body), std::uint32_t(body >> 32)}};
  const r123::Philox4x32::key_type key = {{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
  return r123::Philox4x32()(counter, key).v[0];
}

/// (0, 1): (k + 1/2)·2^-52 with k the top 52 bits of hi:lo.
QS_HD inline double open_unit(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t k = (std::uint64_t(hi) << 20) | (lo >> 12);
  return double(2 * k + 1) * 0x1p-53;
}
/// [0, 1): k·2^-53 with k the top 53 bits of hi:lo.
QS_HD inline double closed_open_unit(std::uint32_t hi, std::uint32_t lo) {
  return double((std::uint64_t(hi) << 21) | (lo >> 11)) * 0x1p-53;
}
/// (0, 1]: (k + 1)·2^-53 with k the top 53 bits of hi:lo.
QS_HD inline double open_closed_unit(std::uint32_t hi, std::uint32_t lo) {
  return double(((std::uint64_t(hi) << 21) | (lo >> 11)) + 1) * 0x1p-53;
}

/// The sequence of uniforms of one (seed, body, stream): value n comes from words 2n and 2n + 1 of
/// the sequence, i.e. Philox block n/2; continuing the sequence (a redraw) never repeats a value.
class RandomStream {
 public:
  QS_HD RandomStream(std::uint64_t seed, std::uint64_t body, std::uint32_t stream)
      : key_{{std::uint32_t(seed), std::uint32_t(seed >> 32)}},
        counter_{{0u, stream, std::uint32_t(body), std::uint32_t(body >> 32)}} {}

  /// The next 32-bit word.
  QS_HD std::uint32_t word() {
    if (used_ == 4) {
      words_ = r123::Philox4x32()(counter_, key_);
      ++counter_.v[0];
      used_ = 0;
    }
    return words_.v[used_++];
  }
  /// The next value in (0, 1) (two words; see open_unit).
  QS_HD double open_unit() {
    const std::uint32_t hi = word();
    return sampling::open_unit(hi, word());
  }
  /// The next value in [0, 1) (two words).
  QS_HD double closed_open_unit() {
    const std::uint32_t hi = word();
    return sampling::closed_open_unit(hi, word());
  }

 private:
  r123::Philox4x32::key_type key_;
  r123::Philox4x32::ctr_type counter_;
  r123::Philox4x32::ctr_type words_{};
  int used_ = 4;
};

}  // namespace quatstep::sampling
