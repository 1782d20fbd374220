// SPDX-License-Identifier: LGPL-2.1-or-later
#include "luma_histogram.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>
#include <vector>

#include "equal_run.h"
#include "level_range.h"
#include "packed_map.h"

namespace histeq {

namespace {

// Eight sub-histograms take consecutive bytes, so that a run of equal pixels (the common case
// in video) does not serialize on one counter's store-to-load forwarding.
constexpr int kSubHistograms = 8;
// 32-bit sub-counters are flushed before they can overflow.
constexpr std::uint64_t kFlushPixels = std::uint64_t(1) << 31;
constexpr std::uint64_t kEveryByte = 0x0101010101010101u;

// A row in steps of sixteen bytes: flat(word, steps) where `steps` steps of sixteen bytes in a
// row are all equal (the word holds eight of them), words(low, high) where sixteen are not.
// Returns where the steps end. A flat step whose next three steps hold the same byte starts a
// run (a flat area, a letterbox bar, a black frame, screen content), whose rest equal_run takes
// a vector at a time; shorter runs, common in natural content, cost no call.
template <typename Flat, typename Words>
int for_each_sixteen(const std::uint8_t *p, int width, Flat flat, Words words) {
  const auto same = [p](int at, std::uint64_t word) {
    std::uint64_t lo, hi;
    std::memcpy(&lo, p + at, 8);
    std::memcpy(&hi, p + at + 8, 8);
    return lo == word && hi == word;
  };
  int x = 0;
  while (x + 16 <= width) {
    std::uint64_t lo, hi;
    std::memcpy(&lo, p + x, 8);
    std::memcpy(&hi, p + x + 8, 8);
    if (lo == hi && lo == (lo & 0xff) * kEveryByte) {
      int steps = 1;
      if (x + 64 <= width && same(x + 16, lo) && same(x + 32, lo) && same(x + 48, lo))
        steps = 4 + equal_run(p + x + 64, width - x - 64, std::uint8_t(lo)) / 16;
      flat(lo, steps);
      x += 16 * steps;
    } else {
      words(lo, hi);
      x += 16;
    }
  }
  return x;
}

struct SubHistograms {
  std::uint32_t count[kSubHistograms][kLevels8];

  void count_word(std::uint64_t w) {
    for (int i = 0; i < 8; ++i) count[i][(w >> (8 * i)) & 0xff]++;
  }

  // Sixteen equal bytes (flat areas, letterbox bars, graphics) take one addition instead of a
  // chain of sixteen increments of one counter; content without them pays two comparisons.
  void count_row(const std::uint8_t *p, int width) {
    int x = for_each_sixteen(
        p, width,
        [&](std::uint64_t flat, int steps) { count[0][flat & 0xff] += 16 * std::uint32_t(steps); },
        [&](std::uint64_t lo, std::uint64_t hi) {
          count_word(lo);
          count_word(hi);
        });
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

// The table of pairs of the calling thread, all zero between counts (PairCounts::flush_into
// clears what it adds up). It lives as long as the thread: 256 KiB a thread that counts large
// frames, cleared once, where one per count would be allocated and cleared each time.
std::uint32_t *pair_table() {
  thread_local const std::unique_ptr<std::uint32_t[]> pairs(
      new std::uint32_t[kLevels8 * kLevels8]());
  return pairs.get();
}

// The counter that holds counts in the calling thread's table of pairs, from its count() to its
// add_to(): no other counter may count in pairs on the thread meanwhile, since add_to() takes
// and clears every pair in its range (checked where assertions are on).
thread_local const void *pair_table_holder = nullptr;

// Counts bytes two at a time, each pair of neighbouring bytes one increment of a counter of its
// 65536 values in the thread's pair_table(): half the increments of counting bytes one by one,
// and a run of similar pixels spreads over the pairs of their levels instead of chaining on a
// few counters.
class PairCounts {
 public:
  // The bytes to be counted lie in `range` (as well as in those of earlier calls).
  void widen(LevelRange range) {
    range_.least = std::min(range_.least, range.least);
    range_.greatest = std::max(range_.greatest, range.greatest);
  }

  void count_row(std::uint32_t *pairs, const std::uint8_t *p, int width) {
    // Sixteen equal bytes are eight pairs of one value. A run of them (flat areas, letterbox
    // bars, graphics) is added up here and counted once it ends, not added to one counter again
    // and again, which would chain each addition on the last one's store.
    std::uint32_t flat_pair = 0, flat_pairs = 0;
    int x = for_each_sixteen(
        p, width,
        [&](std::uint64_t flat, int steps) {
          if (std::uint32_t(flat & 0xffff) != flat_pair) {
            pairs[flat_pair] += flat_pairs;
            flat_pair = std::uint32_t(flat & 0xffff);
            flat_pairs = 0;
          }
          flat_pairs += 8 * std::uint32_t(steps);
        },
        [&](std::uint64_t lo, std::uint64_t hi) {
          for (int i = 0; i < 4; ++i) pairs[(lo >> (16 * i)) & 0xffff]++;
          for (int i = 0; i < 4; ++i) pairs[(hi >> (16 * i)) & 0xffff]++;
        });
    pairs[flat_pair] += flat_pairs;
    for (; x + 2 <= width; x += 2) pairs[p[x] | p[x + 1] << 8]++;
    if (x < width) lone_[p[x]]++;
  }

  // Each pair counts its first byte (its low one) and its second. Only the pairs of levels in
  // the range can be other than zero: natural content spans part of the levels, and adds up a
  // fraction of the table.
  void flush_into(std::uint32_t *pairs, LumaHistogram8 &histogram) {
    std::uint32_t firsts[kLevels8] = {};
    for (int second = range_.least; second <= range_.greatest; ++second) {
      std::uint32_t *row = pairs + second * kLevels8;
      std::uint32_t seconds = 0;
      for (int first = range_.least; first <= range_.greatest; ++first) {
        seconds += row[first];
        firsts[first] += row[first];
        row[first] = 0;
      }
      histogram[second] += seconds;
    }
    for (int v = 0; v < kLevels8; ++v) histogram[v] += std::uint64_t(firsts[v]) + lone_[v];
    std::memset(lone_, 0, sizeof(lone_));
  }

 private:
  LevelRange range_;
  std::uint32_t lone_[kLevels8] = {};
};

// Below this many pixels a thread, the pairs' table costs more to add up and clear than counting
// pairs saves (bench/README.md).
constexpr std::uint64_t kMinPixelsForPairs = 64 * 1024;

}  // namespace

// One thread's counts in bytes or in pairs, how many pixels they hold, and what they held
// before they were flushed to keep their 32-bit counters from overflowing.
struct LumaCounter::Counts {
  bool in_pairs = false;
  std::uint64_t pending = 0;
  SubHistograms bytes{};
  PairCounts pairs;
  LumaHistogram8 flushed{};
  // A block of packed YUV's luma, gathered to be counted (nothing reads it after).
  std::vector<std::uint8_t> gathered;

  void flush() {
    if (in_pairs) {
      pairs.flush_into(pair_table(), flushed);
    } else {
      bytes.flush_into(flushed);
    }
    pending = 0;
  }
};

LumaCounter::LumaCounter() : counts_(std::make_unique<Counts>()) {}
LumaCounter::~LumaCounter() = default;
LumaCounter::LumaCounter(LumaCounter &&) noexcept = default;
LumaCounter &LumaCounter::operator=(LumaCounter &&) noexcept = default;

void LumaCounter::restart(std::uint64_t pixels) {
  // A new counter holds no counts, and add_to() leaves none.
  assert(counts_->pending == 0);
  counts_->in_pairs = pixels >= kMinPixelsForPairs;
}

void LumaCounter::count(ConstLumaPlane8 plane, int row_begin, int row_end) {
  Counts &c = *counts_;
  std::uint32_t *pairs = c.in_pairs ? pair_table() : nullptr;
  if (c.in_pairs) {
    assert(pair_table_holder == nullptr || pair_table_holder == this);
    pair_table_holder = this;
    c.pairs.widen(level_range(plane, row_begin, row_end));
  }
  for (int y = row_begin; y < row_end; ++y) {
    if (c.pending + std::uint64_t(plane.width) > kFlushPixels) c.flush();
    if (c.in_pairs) {
      c.pairs.count_row(pairs, plane.row(y), plane.width);
    } else {
      c.bytes.count_row(plane.row(y), plane.width);
    }
    c.pending += std::uint64_t(plane.width);
  }
}

namespace {

// A packed frame's luma is gathered and counted a few rows at a time, so that the count reads the
// luma bytes from the cache the gathering left them in rather than from memory: 128 KiB of luma
// and the 256-512 KiB of packed pixels it came from stay within one core's L2 cache (1-2 MiB on
// current x86 cores); blocks of 16 to 256 rows of 4K RGBx counted alike (bench/README.md).
constexpr std::ptrdiff_t kGatheredLumaBytes = 128 * 1024;

// block(top, bottom) for rows [row_begin, row_end) of a packed frame `width` pixels wide, in
// blocks of at most kGatheredLumaBytes of luma (at least a row).
template <typename Block>
void for_each_block(int width, int row_begin, int row_end, Block block) {
  const int rows = int(std::max<std::ptrdiff_t>(1, kGatheredLumaBytes / std::max(1, width)));
  for (int top = row_begin; top < row_end;) {
    const int bottom = row_end - top > rows ? top + rows : row_end;
    block(top, bottom);
    top = bottom;
  }
}

}  // namespace

void LumaCounter::count(const PackedYuvView &frame, int row_begin, int row_end) {
  std::vector<std::uint8_t> &gathered = counts_->gathered;
  const std::size_t width = std::size_t(std::max(0, frame.width));
  for_each_block(frame.width, row_begin, row_end, [&](int top, int bottom) {
    const int rows = bottom - top;
    if (gathered.size() < std::size_t(rows) * width) gathered.resize(std::size_t(rows) * width);
    for (int y = top; y < bottom; ++y)
      gather_luma(frame, y, 0, frame.width, gathered.data() + std::size_t(y - top) * width);
    count(ConstLumaPlane8{gathered.data(), frame.width, rows, std::ptrdiff_t(width)}, 0, rows);
  });
}

void LumaCounter::count(const RgbView &frame, int row_begin, int row_end, std::uint8_t *luma,
                        std::ptrdiff_t luma_stride) {
  const ConstLumaPlane8 plane{luma, frame.width, frame.height, luma_stride};
  for_each_block(frame.width, row_begin, row_end, [&](int top, int bottom) {
    gather_luma_rows(frame, top, bottom, luma, luma_stride);
    count(plane, top, bottom);
  });
}

void LumaCounter::add_to(LumaHistogram8 &histogram) {
  Counts &c = *counts_;
  c.flush();
  if (c.in_pairs && pair_table_holder == this) pair_table_holder = nullptr;
  for (int v = 0; v < kLevels8; ++v) histogram[v] += c.flushed[v];
  // flush() cleared the counts themselves.
  c.flushed = {};
  c.pairs = PairCounts{};
}

namespace {

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
  LumaCounter counter;
  counter.restart(std::uint64_t(plane.width) * std::uint64_t(std::max(0, row_end - row_begin)));
  counter.count(plane, row_begin, row_end);
  counter.add_to(histogram);
}

void accumulate_histogram(const RgbView &frame, int row_begin, int row_end,
                          LumaHistogram8 &histogram, std::uint8_t *luma,
                          std::ptrdiff_t luma_stride) {
  LumaCounter counter;
  counter.restart(std::uint64_t(frame.width) * std::uint64_t(std::max(0, row_end - row_begin)));
  counter.count(frame, row_begin, row_end, luma, luma_stride);
  counter.add_to(histogram);
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
