// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The one definition of what "equalized" means, shared by the CPU element and the CUDA kernels.
//
//   lut[v] = lo + round((cdf(v) - cdf_min) * (hi - lo) / (N - cdf_min))
//
// cdf(v) is the number of pixels <= v, cdf_min the first non-zero cdf value (the count of the
// darkest level present), N the pixel count, and [lo, hi] the output range:
//   full range    (GStreamer colorimetry range 0_255):   [0, 2^bits - 1]
//   limited range (GStreamer colorimetry range 16_235):  [16, 235] scaled by 2^(bits-8)
// With lo = 0 and hi = L - 1 this is the classic mapping of the reference reports. Rounding is
// half up and done in 64-bit integers, so every compiler and the GPU give the same bytes; the
// largest product, N * (hi - lo) for an 8K 16-bit frame, stays far below 2^63.
// Levels absent below the darkest present level map to lo (no pixel uses them). A frame of a
// single level (N == cdf_min) maps to itself: there is no contrast to stretch.

#include <cstdint>

#include "host_device.h"

namespace histeq {

struct OutputRange {
  std::uint32_t lo;
  std::uint32_t hi;
};

HISTEQ_HOST_DEVICE constexpr OutputRange full_range(int bits) {
  return {0u, (1u << bits) - 1u};
}

HISTEQ_HOST_DEVICE constexpr OutputRange limited_range(int bits) {
  return {16u << (bits - 8), 235u << (bits - 8)};
}

HISTEQ_HOST_DEVICE inline std::uint32_t equalized_level(std::uint32_t level, std::uint64_t cdf,
                                                        std::uint64_t cdf_min, std::uint64_t total,
                                                        OutputRange range) {
  if (total == cdf_min) return level;
  if (cdf < cdf_min) return range.lo;
  const std::uint64_t numerator = (cdf - cdf_min) * (range.hi - range.lo);
  const std::uint64_t denominator = total - cdf_min;
  return range.lo + std::uint32_t((2 * numerator + denominator) / (2 * denominator));
}

// Builds the whole LUT from a histogram of `levels` bins (levels = 2^bits).
template <typename Sample>
void build_equalization_lut(const std::uint64_t *histogram, int levels, OutputRange range,
                            Sample *lut) {
  std::uint64_t total = 0;
  for (int v = 0; v < levels; ++v) total += histogram[v];
  std::uint64_t cdf = 0;
  std::uint64_t cdf_min = 0;
  for (int v = 0; v < levels; ++v) {
    cdf += histogram[v];
    if (cdf_min == 0) cdf_min = cdf;
    lut[v] = Sample(equalized_level(std::uint32_t(v), cdf, cdf_min, total, range));
  }
}

}  // namespace histeq
