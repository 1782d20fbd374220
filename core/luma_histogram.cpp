// SPDX-License-Identifier: LGPL-2.1-or-later
#include "luma_histogram.h"

#include <cstring>
#include <vector>

#include "packed_map.h"

namespace histeq {

namespace {

// Eight sub-histograms take consecutive bytes, so that a run of equal pixels (the common case
// in video) does not serialize on one counter's store-to-load forwarding.
constexpr int kSubHistograms = 8;
// 32-bit sub-counters are flushed before they can overflow.
constexpr std::uint64_t kFlushPixels = std::uint64_t(1) << 31;
constexpr std::uint64_t kEveryByte = 0x0101010101010101u;

struct SubHistograms {
  std::uint32_t count[kSubHistograms][kLevels8];

  void count_word(std::uint64_t w) {
    for (int i = 0; i < 8; ++i) count[i][(w >> (8 * i)) & 0xff]++;
  }

  // Sixteen equal bytes (flat areas, letterbox bars, graphics) take one addition instead of a
  // chain of sixteen increments of one counter; content without them pays two comparisons.
  void count_row(const std::uint8_t *p, int width) {
    int x = 0;
    for (; x + 16 <= width; x += 16) {
      std::uint64_t lo, hi;
      std::memcpy(&lo, p + x, 8);
      std::memcpy(&hi, p + x + 8, 8);
      if (lo == hi && lo == (lo & 0xff) * kEveryByte) {
        count[0][lo & 0xff] += 16;
        continue;
      }
      count_word(lo);
      count_word(hi);
    }
    for (; x < width; ++x) count[x & (kSubHistograms - 1)][p[x]]++;
  }

  void flush_into(LumaHistogram8 &histogram) {
    for (int v = 0; v < kLevels8; ++v) {
      std::uint64_t sum = 0;
      for (int i = 0; i < kSubHistograms; ++i) sum += count[i][v];
      histogram[v] += sum;
    }
    std::memset(count, 0, sizeof(count));
  }
};

// Counts rows [row_begin, row_end) of `width` bytes each, row y at row_of(y).
template <typename RowOf>
void accumulate_rows(int row_begin, int row_end, int width, LumaHistogram8 &histogram,
                     RowOf row_of) {
  SubHistograms sub{};
  std::uint64_t pending = 0;
  for (int y = row_begin; y < row_end; ++y) {
    if (pending + std::uint64_t(width) > kFlushPixels) {
      sub.flush_into(histogram);
      pending = 0;
    }
    sub.count_row(row_of(y), width);
    pending += std::uint64_t(width);
  }
  sub.flush_into(histogram);
}

// Rows whose luma is not contiguous: `gather(row, x, n, out)` writes the luma of pixels
// [x, x + n) of a row into `out`, which is counted as a contiguous run.
template <typename Gather>
void accumulate_gathered(int row_begin, int row_end, int width, LumaHistogram8 &histogram,
                         Gather gather) {
  constexpr int kChunk = 2048;
  std::uint8_t luma[kChunk];
  SubHistograms sub{};
  std::uint64_t pending = 0;
  for (int y = row_begin; y < row_end; ++y) {
    if (pending + std::uint64_t(width) > kFlushPixels) {
      sub.flush_into(histogram);
      pending = 0;
    }
    for (int x = 0; x < width; x += kChunk) {
      const int n = width - x < kChunk ? width - x : kChunk;
      gather(y, x, n, luma);
      sub.count_row(luma, n);
    }
    pending += std::uint64_t(width);
  }
  sub.flush_into(histogram);
}

// Words of up to 12-bit levels (`levels` of them), level_of(word) each, over eight
// sub-histograms that take consecutive words, as the bytes' do, so that a run of equal words does
// not chain through one counter's store-to-load forwarding. 16-bit counters keep the eight within
// 68 KB (18 KB at 10 bits); they are flushed before any can pass 0xffff, a row taken in runs of
// at most kRunWords.
template <typename LevelOf>
void count_words(ConstLumaPlane16 plane, int row_begin, int row_end, std::uint32_t levels,
                 std::uint64_t *histogram, LevelOf level_of) {
  constexpr int kTables = 8;
  constexpr int kRunWords = 1 << 16;
  // Tables of 2 or 8 KiB end to end would put one level's counters of several tables a multiple
  // of 4 KiB apart, where the CPU takes a load to depend on an earlier store to the other (4K
  // aliasing). 256 bytes between the tables keep them apart (64 were slower on AMD Zen 4);
  // bench/README.md has the figures.
  const std::size_t stride = levels + 128;
  std::vector<std::uint16_t> sub(std::size_t(kTables) * stride, 0);
  std::uint16_t *t[kTables];
  for (int k = 0; k < kTables; ++k) t[k] = sub.data() + std::size_t(k) * stride;
  const auto flush = [&] {
    for (std::uint32_t v = 0; v < levels; ++v) {
      std::uint64_t sum = 0;
      for (int k = 0; k < kTables; ++k) sum += t[k][v];
      histogram[v] += sum;
    }
    std::fill(sub.begin(), sub.end(), 0);
  };
  // The most one counter has gained since the last flush: a run gives each table one word of
  // each of its steps of eight, and table 0 the run's last few words too.
  std::uint32_t gained = 0;
  for (int y = row_begin; y < row_end; ++y) {
    const std::uint16_t *row = plane.row(y);
    for (std::ptrdiff_t from = 0; from < plane.width; from += kRunWords) {
      const int n = int(std::min<std::ptrdiff_t>(kRunWords, plane.width - from));
      const std::uint32_t gain = std::uint32_t(n / kTables + kTables);
      if (gained + gain > 0xffff) {
        flush();
        gained = 0;
      }
      gained += gain;
      const std::uint16_t *p = row + from;
      int x = 0;
      for (; x + kTables <= n; x += kTables) {
        for (int k = 0; k < kTables; ++k) t[k][level_of(p[x + k])]++;
      }
      for (; x < n; ++x) t[0][level_of(p[x])]++;
    }
  }
  flush();
}

}  // namespace

void accumulate_histogram(ConstLumaPlane8 plane, int row_begin, int row_end,
                          LumaHistogram8 &histogram) {
  accumulate_rows(row_begin, row_end, plane.width, histogram, [&](int y) { return plane.row(y); });
}

void accumulate_histogram(const PackedYuvView &frame, int row_begin, int row_end,
                          LumaHistogram8 &histogram) {
  accumulate_gathered(
      row_begin, row_end, frame.width, histogram,
      [&](int y, int x, int n, std::uint8_t *luma) { gather_luma(frame, y, x, n, luma); });
}

void accumulate_histogram(const RgbView &frame, int row_begin, int row_end,
                          LumaHistogram8 &histogram, std::uint8_t *luma,
                          std::ptrdiff_t luma_stride) {
  accumulate_rows(row_begin, row_end, frame.width, histogram, [&](int y) {
    std::uint8_t *row = luma + y * luma_stride;
    gather_luma(frame, y, 0, frame.width, row);
    return row;
  });
}

void accumulate_histogram(ConstLumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                          std::uint64_t *histogram) {
  // 2^16 bins keep one table of 64-bit counters.
  const std::uint32_t levels = layout.levels();
  if (levels > 4096) {
    for (int y = row_begin; y < row_end; ++y) {
      const std::uint16_t *p = plane.row(y);
      for (int x = 0; x < plane.width; ++x) histogram[layout.level_of(p[x])]++;
    }
    return;
  }
  // The common layouts take their level with no shift by a variable count (several
  // micro-operations on Intel cores) and no clamp where no word can pass the top level.
  const std::uint32_t top = levels - 1;
  if (layout.shift == 0) {
    count_words(plane, row_begin, row_end, levels, histogram,
                [top](std::uint32_t word) { return word < top ? word : top; });
  } else if (layout.bits + layout.shift == 16 && layout.shift == 6) {
    count_words(plane, row_begin, row_end, levels, histogram,
                [](std::uint32_t word) { return word >> 6; });
  } else if (layout.bits + layout.shift == 16 && layout.shift == 4) {
    count_words(plane, row_begin, row_end, levels, histogram,
                [](std::uint32_t word) { return word >> 4; });
  } else {
    count_words(plane, row_begin, row_end, levels, histogram,
                [layout](std::uint32_t word) { return layout.level_of(word); });
  }
}

LumaHistogram8 luma_histogram(ConstLumaPlane8 plane) {
  LumaHistogram8 histogram{};
  accumulate_histogram(plane, 0, plane.height, histogram);
  return histogram;
}

}  // namespace histeq
