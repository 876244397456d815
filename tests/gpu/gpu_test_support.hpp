// Shared by the GPU tests: skip with the reason when no device is usable, and compare arrays of
// results element by element with a report of the worst element.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cuda_device.hpp"

#define QUATSTEP_SKIP_WITHOUT_GPU()                                                          \
  do {                                                                                       \
    const std::string reason_ = quatstep::cuda::device_unusable_reason();                    \
    if (!reason_.empty()) GTEST_SKIP() << "GPU test skipped: " << reason_;                   \
  } while (0)

namespace quatstep::testing {

/// Number of elements whose bits differ (NaNs compare by their bits too), and the first one.
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << what << ": sizes " << a.size() << " vs " << b.size();
  std::size_t differ = 0, first = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(T)) != 0 && differ++ == 0) first = k;
  if (differ == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << differ << " of " << a.size() << " elements differ, first at "
                                       << first;
}

/// For a sample buffer ([sample][channel][body]): how many elements differ in each channel.
inline std::string differing_channels(const std::vector<double>& a, const std::vector<double>& b, std::size_t bodies,
                                      int channels) {
  std::vector<std::size_t> count(channels, 0);
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0) ++count[(k / bodies) % channels];
  std::string out = "differing elements per channel:";
  for (int c = 0; c < channels; ++c)
    if (count[c]) out += " " + std::to_string(c) + ":" + std::to_string(count[c]);
  return out;
}

}  // namespace quatstep::testing
