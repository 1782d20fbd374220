// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clahe_tiles.h"

#include <algorithm>
#include <type_traits>

#include "clahe_blend.h"
#include "luma_histogram.h"

namespace histeq {

bool ClaheTiles::shape(const ClaheGrid &grid, int bins) {
  if (grid == grid_ && bins == bins_ && !tones_.empty()) return false;
  grid_ = grid;
  bins_ = bins;
  tones_.assign(std::size_t(grid.tiles()), ToneMap(bins));
  counts_.assign(std::size_t(grid.tiles()) * std::size_t(bins), 0);
  luts_.assign(std::size_t(grid.tiles()) * std::size_t(bins), 0);
  return true;
}

template <typename Frame>
bool ClaheTiles::equalize(const Frame &frame, int bins, const Params &params, OutputRange range,
                          bool reset, RowPool &pool, std::vector<std::uint64_t> &histogram) {
  const int width = frame.width, height = frame.height;
  const ClaheGrid grid = clahe_grid(width, height, params.tiles_x, params.tiles_y);
  const bool reshaped = shape(grid, bins);
  const unsigned bands = unsigned(std::min<int>(int(pool.size()), grid.tiles()));

  // Each tile counts its padded rectangle.
  pool.run(bands, grid.tiles(), [&](unsigned, int first_tile, int end_tile) {
    for (int t = first_tile; t < end_tile; ++t) {
      std::uint64_t *counts = &counts_[std::size_t(t) * std::size_t(bins)];
      std::fill(counts, counts + bins, 0);
      const int x0 = (t % grid.tiles_x) * grid.tile_width;
      const int y0 = (t / grid.tiles_x) * grid.tile_height;
      const int x_end = x0 + grid.tile_width, inside_end = std::min(x_end, width);
      int py = y0;
      if constexpr (std::is_same_v<Frame, ClaheBytes>) {
        // The part inside the frame through the planar histogram's fast counting.
        const int rows = std::max(0, std::min(y0 + grid.tile_height, height) - y0);
        if (rows > 0 && inside_end > x0) {
          LumaHistogram8 inside{};
          accumulate_histogram(
              ConstLumaPlane8{frame.plane.row(y0) + x0, inside_end - x0, rows, frame.plane.stride},
              0, rows, inside);
          for (int v = 0; v < kLevels8; ++v) counts[v] += inside[v];
          for (; py < y0 + rows; ++py)
            for (int px = std::max(x0, width); px < x_end; ++px)
              counts[frame.level(reflect_101(px, width), py)]++;
        }
      }
      for (; py < y0 + grid.tile_height; ++py) {
        const int y = reflect_101(py, height);
        for (int px = x0; px < inside_end; ++px) counts[frame.level(px, y)]++;
        for (int px = std::max(x0, width); px < x_end; ++px)
          counts[frame.level(reflect_101(px, width), y)]++;
      }
    }
  });
  // The frame's own histogram: every tile's counts less those of the padding.
  histogram.assign(std::size_t(bins), 0);
  for (int t = 0; t < grid.tiles(); ++t)
    for (int v = 0; v < bins; ++v) histogram[v] += counts_[std::size_t(t) * bins + v];
  const int padded_width = grid.tiles_x * grid.tile_width;
  const int padded_height = grid.tiles_y * grid.tile_height;
  for (int py = 0; py < padded_height; ++py) {
    const int y = reflect_101(py, height);
    for (int px = py < height ? width : 0; px < padded_width; ++px)
      histogram[frame.level(reflect_101(px, width), y)]--;
  }

  bool restarted = false;
  for (int t = 0; t < grid.tiles(); ++t)
    restarted |= tones_[t].build(&counts_[std::size_t(t) * bins], params, range, reset || reshaped,
                                 &luts_[std::size_t(t) * bins]);

  const float inverse_width = 1.0f / float(grid.tile_width);
  const float inverse_height = 1.0f / float(grid.tile_height);
  columns_.resize(std::size_t(width));
  for (int x = 0; x < width; ++x) columns_[x] = tile_blend(x, inverse_width, grid.tiles_x);
  const std::uint32_t top = std::uint32_t(bins - 1);
  const unsigned row_bands = unsigned(std::min<int>(int(pool.size()), std::max(1, height)));
  if constexpr (std::is_same_v<Frame, ClaheBytes>) {
    blend_bytes(frame, inverse_height, pool);
    return restarted;
  }
  // Locals only inside the loop: a store of a byte may alias any memory, so members and
  // referenced values would be loaded again after every pixel.
  const TileBlend *columns = columns_.data();
  const std::uint16_t *luts = luts_.data();
  const std::size_t tile_row_bins = std::size_t(grid.tiles_x) * std::size_t(bins);
  const int tiles_y = grid.tiles_y;
  pool.run(row_bands, height, [=](unsigned, int row_begin, int row_end) {
    const Frame pixels = frame;
    for (int y = row_begin; y < row_end; ++y) {
      const TileBlend row = tile_blend(y, inverse_height, tiles_y);
      const std::uint16_t *upper = luts + std::size_t(row.first) * tile_row_bins;
      const std::uint16_t *lower = luts + std::size_t(row.second) * tile_row_bins;
      for (int x = 0; x < width; ++x) {
        const TileBlend column = columns[x];
        const std::uint32_t v = pixels.level(x, y);
        const std::size_t left = std::size_t(column.first) * std::size_t(bins) + v;
        const std::size_t right = std::size_t(column.second) * std::size_t(bins) + v;
        pixels.set(x, y,
                   blend_levels(upper[left], upper[right], lower[left], lower[right], column.weight,
                                row.weight, top));
      }
    }
  });
  return restarted;
}

void ClaheTiles::blend_bytes(const ClaheBytes &frame, float inverse_height, RowPool &pool) {
  const std::size_t bins = std::size_t(bins_);
  luts32_.assign(luts_.begin(), luts_.end());
  first_offset_.resize(columns_.size());
  second_offset_.resize(columns_.size());
  weight_.resize(columns_.size());
  for (std::size_t x = 0; x < columns_.size(); ++x) {
    first_offset_[x] = std::int32_t(std::size_t(columns_[x].first) * bins);
    second_offset_[x] = std::int32_t(std::size_t(columns_[x].second) * bins);
    weight_[x] = columns_[x].weight;
  }
  const std::size_t tile_row_bins = std::size_t(grid_.tiles_x) * bins;
  const unsigned row_bands = unsigned(std::min<int>(int(pool.size()), std::max(1, frame.height)));
  pool.run(row_bands, frame.height, [&](unsigned, int row_begin, int row_end) {
    for (int y = row_begin; y < row_end; ++y) {
      const TileBlend tiles = tile_blend(y, inverse_height, grid_.tiles_y);
      const ClaheRow row{first_offset_.data(),
                         second_offset_.data(),
                         weight_.data(),
                         luts32_.data() + std::size_t(tiles.first) * tile_row_bins,
                         luts32_.data() + std::size_t(tiles.second) * tile_row_bins,
                         tiles.weight,
                         std::uint32_t(bins_ - 1)};
      clahe_blend_row(row, frame.plane.row(y), frame.width);
    }
  });
}

template bool ClaheTiles::equalize(const ClaheBytes &, int, const Params &, OutputRange, bool,
                                   RowPool &, std::vector<std::uint64_t> &);
template bool ClaheTiles::equalize(const ClaheWords &, int, const Params &, OutputRange, bool,
                                   RowPool &, std::vector<std::uint64_t> &);
template bool ClaheTiles::equalize(const ClahePackedYuv &, int, const Params &, OutputRange, bool,
                                   RowPool &, std::vector<std::uint64_t> &);

}  // namespace histeq
