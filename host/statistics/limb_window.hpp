// A thread's running sums of the limb pieces (exact_sum.hpp) of the values it adds, over a window of
// consecutive limbs, handed on only when a value's pieces fall outside the window and at the end.
// The GPU reduction (kernels/device_statistics.cu) hands them to its block's shared limbs with
// atomics: one observable's values across bodies mostly share their binary exponent, so a thread
// adds its many bodies with a handful of atomics instead of three per value — all 32 lanes of a
// warp adding to the same limb serialise. Integer addition is associative: the limbs end with the
// same integers whatever is held back and when (tests/statistics_test.cpp, LimbWindow.*).
#pragma once

#include <cstdint>

#include "exact_sum.hpp"
#include "quatstep/config.hpp"

namespace quatstep::statistics {

/// Limbs [base, base + width) with their running sums; a value's three pieces land in limbs
/// limb … limb + 2, and the window is placed one limb below them, so that values of the next
/// binary orders of magnitude (32 bits per limb) on either side still fit. Each held sum is below
/// (values added) · 2^32 in magnitude: under 2^62 for fewer than 2^30 values.
struct LimbWindow {
  static constexpr int width = 5;
  int base = -1;  ///< −1: empty
  std::int64_t sum[width] = {};

  /// Adds `v` (±pieces); `hand_on(limb, sum)` takes the held sums first when v does not fit.
  template <class HandOn>
  QS_HD void add(const LimbPieces& v, HandOn&& hand_on) {
    if ((v.d[0] | v.d[1] | v.d[2]) == 0) return;  // a zero moves no window
    if (base < 0 || v.limb < base || v.limb + 3 > base + width) {
      drain(hand_on);
      base = v.limb > 0 ? v.limb - 1 : 0;  // limb + 2 <= 65 < ExactSum::limbs: the window fits
    }
    // Limb by limb of the window, with the piece that lands there picked by comparison: no index
    // computed at run time, so that a GPU thread keeps the window in registers.
    const int at = v.limb - base;
    for (int w = 0; w < width; ++w) {
      const int k = w - at;
      const std::int64_t d = k == 0 ? v.d[0] : k == 1 ? v.d[1] : k == 2 ? v.d[2] : 0;
      sum[w] += v.negative ? -d : d;
    }
  }
  /// Hands on every nonzero held sum and empties the window.
  template <class HandOn>
  QS_HD void drain(HandOn&& hand_on) {
    if (base < 0) return;
    for (int w = 0; w < width; ++w)
      if (sum[w] != 0) hand_on(base + w, sum[w]), sum[w] = 0;
    base = -1;
  }
};

}  // namespace quatstep::statistics
