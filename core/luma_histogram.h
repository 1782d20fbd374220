// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "packed_views.h"
#include "plane.h"
#include "sample_layout.h"

namespace histeq {

constexpr int kLevels8 = 256;

// Counts are 64-bit so that any frame GStreamer can describe is counted exactly.
using LumaHistogram8 = std::array<std::uint64_t, kLevels8>;

// Adds the counts of rows [row_begin, row_end) of `plane` to `histogram`. Only the visible
// width of each row is read.
void accumulate_histogram(ConstLumaPlane8 plane, int row_begin, int row_end,
                          LumaHistogram8 &histogram);

LumaHistogram8 luma_histogram(ConstLumaPlane8 plane);

// One thread's count of the rows of a plane it is given over several calls (the chunks of a frame
// that a thread of a RowPool takes), added to a histogram once at the end. Many pixels a thread
// are counted two bytes at a time into a table of pairs, which costs something to add up and
// clear: once a thread per frame rather than once a chunk. count() and add_to() run on one
// thread, the one whose table of pairs they use, and on that thread no other counter counts
// between them; a count is always ended by add_to(). A moved-from counter can only be assigned
// to or destroyed.
class LumaCounter {
 public:
  LumaCounter();
  ~LumaCounter();
  LumaCounter(LumaCounter &&) noexcept;
  LumaCounter &operator=(LumaCounter &&) noexcept;

  // Starts a count of about `pixels` pixels, which choose how they are counted, on a new
  // counter or one whose last count add_to() ended.
  void restart(std::uint64_t pixels);
  // Counts the visible width of rows [row_begin, row_end) of `plane`.
  void count(ConstLumaPlane8 plane, int row_begin, int row_end);
  // Counts the luma of rows [row_begin, row_end) of a packed frame. Packed YUV's is gathered a
  // block of rows at a time into the counter's own buffer; packed RGB's into `luma` (row y at
  // luma + y * luma_stride, as gather_luma gives it), where its map reads it back.
  void count(const PackedYuvView &frame, int row_begin, int row_end);
  void count(const RgbView &frame, int row_begin, int row_end, std::uint8_t *luma,
             std::ptrdiff_t luma_stride);
  // Adds what was counted since the last restart or add_to to `histogram`, and clears it.
  void add_to(LumaHistogram8 &histogram);

 private:
  struct Counts;
  std::unique_ptr<Counts> counts_;
};

// The same for the luma of packed RGB, which is also written to `luma` (the luma of row y at
// luma + y * luma_stride, as gather_luma gives it), for the map to read back.
void accumulate_histogram(const RgbView &frame, int row_begin, int row_end,
                          LumaHistogram8 &histogram, std::uint8_t *luma,
                          std::ptrdiff_t luma_stride);

// Adds the levels of rows [row_begin, row_end) of a plane of 16-bit words to `histogram`
// (layout.levels() bins).
void accumulate_histogram(ConstLumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                          std::uint64_t *histogram);

}  // namespace histeq
