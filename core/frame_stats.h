// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What the elements' statistics messages say about a frame, from its luma histogram alone (so
// both engines only need to hand the histogram back).

#include <array>
#include <cstdint>

namespace histeq {

struct FrameStats {
  static constexpr std::array<int, 5> kPercentiles = {1, 5, 50, 95, 99};

  std::uint64_t pixels = 0;
  double mean = 0.0;
  std::uint32_t min = 0;
  std::uint32_t max = 0;
  // percentile[i]: the lowest level at or below which at least kPercentiles[i] % of the
  // pixels lie.
  std::array<std::uint32_t, kPercentiles.size()> percentile{};
};

// All zero for an empty histogram.
FrameStats frame_stats(const std::uint64_t *counts, int bins);

}  // namespace histeq
