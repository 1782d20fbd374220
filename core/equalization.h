// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The one definition of what "equalized" means, shared by the CPU element and the CUDA kernels.
//
//   lut[v] = lo + round((cdf(v) - cdf_min) * ((hi - lo) / (N - cdf_min)))
//
// cdf(v) is the number of pixels <= v, cdf_min the first non-zero cdf value (the count of the
// darkest level present), N the pixel count, and [lo, hi] the output range:
//   full range    (GStreamer colorimetry range 0_255):   [0, 2^bits - 1]
//   limited range (GStreamer colorimetry range 16_235):  [16, 235] scaled by 2^(bits-8)
// With lo = 0 and hi = 255 this is OpenCV's equalizeHist, computed as it computes it, so the
// bytes are its bytes: the scale is a single-precision quotient, the product a single-precision
// product, and the rounding to nearest with ties to even (cvRound). Both are single IEEE
// operations, correctly rounded on the CPU and on the GPU (nvcc divides to IEEE precision unless
// told otherwise, and a lone product cannot be contracted), so the two agree to the bit. Exact
// rational rounding half up would differ from OpenCV by one level wherever the quotient lands
// on or near a half (one random small frame in thirty had such a pixel).
// Levels absent below the darkest present level map to lo (no pixel uses them). A frame of a
// single level (N == cdf_min) maps to itself: there is no contrast to stretch.

#include <cmath>
#include <cstdint>
#include <type_traits>

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

// Count: the word the counts are taken in. Where a frame's counts are known to fit 32 bits they
// may be taken in 32-bit words (equalized_level<std::uint32_t>): they convert to the same floats,
// and the GPU converts 32-bit words in fewer steps. std::common_type_t keeps the counts out of
// deduction, so a caller that names no Count passes 64-bit words whatever its arguments' types.
template <typename Count = std::uint64_t>
HISTEQ_HOST_DEVICE inline std::uint32_t equalized_level(std::uint32_t level,
                                                        std::common_type_t<Count> cdf,
                                                        std::common_type_t<Count> cdf_min,
                                                        std::common_type_t<Count> total,
                                                        OutputRange range) {
  if (total == cdf_min) return level;
  if (cdf < cdf_min) return range.lo;
  const float scale = float(range.hi - range.lo) / float(total - cdf_min);
  const float scaled = rintf(float(cdf - cdf_min) * scale);
  const std::uint32_t span = range.hi - range.lo;
  return range.lo + (scaled >= float(span) ? span : std::uint32_t(scaled));
}

// Builds the whole LUT from a histogram of `levels` bins (levels = 2^bits). cdf_min is known
// before the first level, as the kernels know it: every entry, absent levels' too, is the one
// they compute, and the LUT never decreases (a single-level frame is the identity throughout).
template <typename Sample>
void build_equalization_lut(const std::uint64_t *histogram, int levels, OutputRange range,
                            Sample *lut) {
  std::uint64_t total = 0;
  std::uint64_t cdf_min = 0;
  for (int v = 0; v < levels; ++v) {
    total += histogram[v];
    if (cdf_min == 0) cdf_min = histogram[v];
  }
  std::uint64_t cdf = 0;
  for (int v = 0; v < levels; ++v) {
    cdf += histogram[v];
    lut[v] = Sample(equalized_level(std::uint32_t(v), cdf, cdf_min, total, range));
  }
}

}  // namespace histeq
