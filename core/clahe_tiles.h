// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// CLAHE on the CPU for one stream (clahe.h's definition): every tile's histogram over the
// padded frame, its LUT by ToneMap (so clip limit, strength, smoothing and scene cuts apply per
// tile, each tile with its own history), and the blend of the four nearest tiles per pixel.
// Frames are reached through an accessor with width, height, level(x, y) and set(x, y, level),
// so planes of bytes or words and packed luma share one implementation.

#include <cstdint>
#include <vector>

#include "clahe.h"
#include "packed_views.h"
#include "params.h"
#include "plane.h"
#include "row_pool.h"
#include "sample_layout.h"
#include "tone_map.h"

namespace histeq {

// The frames ClaheTiles takes: a plane of byte levels, a plane of words (levels where the
// SampleLayout puts them), and the luma bytes of packed 4:2:2 YUV.
struct ClaheBytes {
  PlaneView<std::uint8_t> plane;
  int width, height;
  std::uint32_t level(int x, int y) const { return plane.row(y)[x]; }
  void set(int x, int y, std::uint32_t level) const { plane.row(y)[x] = std::uint8_t(level); }
};

struct ClaheWords {
  PlaneView<std::uint16_t> plane;
  SampleLayout layout;
  int width, height;
  std::uint32_t level(int x, int y) const { return layout.level_of(plane.row(y)[x]); }
  void set(int x, int y, std::uint32_t level) const { plane.row(y)[x] = layout.word_of(level); }
};

struct ClahePackedYuv {
  PackedYuvView frame;
  int width, height;
  std::uint8_t &luma(int x, int y) const {
    return frame.row(y)[PackedYuvView::kPixelBytes * x + frame.luma_offset];
  }
  std::uint32_t level(int x, int y) const { return luma(x, y); }
  void set(int x, int y, std::uint32_t level) const { luma(x, y) = std::uint8_t(level); }
};

class ClaheTiles {
 public:
  // Equalizes `frame` in place with `bins` levels; `reset` restarts every tile's history.
  // Returns whether any tile's history restarted. `histogram` receives the frame's own
  // histogram (the unpadded pixels), for statistics.
  template <typename Frame>
  bool equalize(const Frame &frame, int bins, const Params &params, OutputRange range, bool reset,
                RowPool &pool, std::vector<std::uint64_t> &histogram);

 private:
  // Makes the tiles' state for this grid and depth, unless it has it already; returns whether
  // it made a new one, which has no history.
  bool shape(const ClaheGrid &grid, int bins);
  // The blend of a plane of bytes, a row at a time on the widest SIMD target.
  void blend_bytes(const ClaheBytes &frame, float inverse_height, RowPool &pool);

  ClaheGrid grid_{};
  int bins_ = 0;
  std::vector<ToneMap> tones_;
  std::vector<std::uint64_t> counts_;  // tiles x bins
  std::vector<std::uint16_t> luts_;    // tiles x bins
  std::vector<TileBlend> columns_;
  // blend_bytes' inputs: the LUTs as 32-bit integers (to gather), each column's offsets and
  // weight.
  std::vector<std::int32_t> luts32_, first_offset_, second_offset_;
  std::vector<float> weight_;
};

}  // namespace histeq
