// SPDX-License-Identifier: LGPL-2.1-or-later
#include "luma_histogram.h"

#include <cstring>

namespace histeq {

namespace {

// Four sub-histograms take consecutive bytes, so a run of equal pixels (the common case in
// video) does not serialize on one counter's store-to-load forwarding.
constexpr int kSubHistograms = 4;
// 32-bit sub-counters are flushed before they can overflow.
constexpr std::uint64_t kFlushPixels = std::uint64_t(1) << 31;

struct SubHistograms {
  std::uint32_t count[kSubHistograms][kLevels8];

  void count_word(std::uint64_t w) {
    count[0][w & 0xff]++;
    count[1][(w >> 8) & 0xff]++;
    count[2][(w >> 16) & 0xff]++;
    count[3][(w >> 24) & 0xff]++;
    count[0][(w >> 32) & 0xff]++;
    count[1][(w >> 40) & 0xff]++;
    count[2][(w >> 48) & 0xff]++;
    count[3][w >> 56]++;
  }

  void count_row(const std::uint8_t *p, int width) {
    int x = 0;
    for (; x + 16 <= width; x += 16) {
      std::uint64_t lo, hi;
      std::memcpy(&lo, p + x, 8);
      std::memcpy(&hi, p + x + 8, 8);
      count_word(lo);
      count_word(hi);
    }
    for (; x < width; ++x) count[x & 3][p[x]]++;
  }

  void flush_into(LumaHistogram8 &histogram) {
    for (int v = 0; v < kLevels8; ++v) {
      histogram[v] += std::uint64_t(count[0][v]) + count[1][v] + count[2][v] + count[3][v];
    }
    std::memset(count, 0, sizeof(count));
  }
};

}  // namespace

void accumulate_histogram(ConstLumaPlane8 plane, int row_begin, int row_end,
                          LumaHistogram8 &histogram) {
  SubHistograms sub{};
  std::uint64_t pending = 0;
  for (int y = row_begin; y < row_end; ++y) {
    if (pending + std::uint64_t(plane.width) > kFlushPixels) {
      sub.flush_into(histogram);
      pending = 0;
    }
    sub.count_row(plane.row(y), plane.width);
    pending += std::uint64_t(plane.width);
  }
  sub.flush_into(histogram);
}

LumaHistogram8 luma_histogram(ConstLumaPlane8 plane) {
  LumaHistogram8 histogram{};
  accumulate_histogram(plane, 0, plane.height, histogram);
  return histogram;
}

}  // namespace histeq
