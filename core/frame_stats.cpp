// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_stats.h"

namespace histeq {

FrameStats frame_stats(const std::uint64_t *counts, int bins) {
  FrameStats stats;
  std::uint64_t weighted = 0;
  bool seen = false;
  for (int v = 0; v < bins; ++v) {
    if (!counts[v]) continue;
    if (!seen) stats.min = std::uint32_t(v);
    seen = true;
    stats.max = std::uint32_t(v);
    stats.pixels += counts[v];
    weighted += counts[v] * std::uint64_t(v);
  }
  if (!stats.pixels) return stats;
  stats.mean = double(weighted) / double(stats.pixels);
  std::uint64_t cdf = 0;
  std::size_t next = 0;
  for (int v = 0; v < bins && next < stats.percentile.size(); ++v) {
    cdf += counts[v];
    while (next < stats.percentile.size() &&
           cdf * 100 >= std::uint64_t(FrameStats::kPercentiles[next]) * stats.pixels)
      stats.percentile[next++] = std::uint32_t(v);
  }
  return stats;
}

}  // namespace histeq
