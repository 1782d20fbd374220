// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clahe_tiles.h"

#include <algorithm>

namespace histeq {

void ClaheTiles::shape(const ClaheGrid &grid, int bins) {
  if (grid.tiles_x == grid_.tiles_x && grid.tiles_y == grid_.tiles_y &&
      grid.tile_width == grid_.tile_width && grid.tile_height == grid_.tile_height &&
      bins == bins_ && !tones_.empty())
    return;
  grid_ = grid;
  bins_ = bins;
  tones_.assign(std::size_t(grid.tiles()), ToneMap(bins));
  counts_.assign(std::size_t(grid.tiles()) * std::size_t(bins), 0);
  luts_.assign(std::size_t(grid.tiles()) * std::size_t(bins), 0);
}

template <typename Frame>
bool ClaheTiles::equalize(const Frame &frame, int bins, const Params &params, OutputRange range,
                          bool reset, RowPool &pool, std::vector<std::uint64_t> &histogram) {
  const int width = frame.width, height = frame.height;
  const ClaheGrid grid = clahe_grid(width, height, params.tiles_x, params.tiles_y);
  const bool reshaped = grid.tiles_x != grid_.tiles_x || grid.tiles_y != grid_.tiles_y ||
                        grid.tile_width != grid_.tile_width ||
                        grid.tile_height != grid_.tile_height || bins != bins_;
  shape(grid, bins);
  const unsigned bands = unsigned(std::min<int>(int(pool.size()), grid.tiles()));
  band_bins_.assign(std::size_t(bands) * std::size_t(bins), 0);

  // Each tile counts its padded rectangle; pixels inside the frame also go to its band's share
  // of the frame's histogram.
  pool.run(bands, grid.tiles(), [&](unsigned band, int first_tile, int end_tile) {
    std::uint64_t *own = &band_bins_[std::size_t(band) * std::size_t(bins)];
    for (int t = first_tile; t < end_tile; ++t) {
      std::uint64_t *counts = &counts_[std::size_t(t) * std::size_t(bins)];
      std::fill(counts, counts + bins, 0);
      const int x0 = (t % grid.tiles_x) * grid.tile_width;
      const int y0 = (t / grid.tiles_x) * grid.tile_height;
      for (int py = y0; py < y0 + grid.tile_height; ++py) {
        const int y = reflect_101(py, height);
        for (int px = x0; px < x0 + grid.tile_width; ++px) {
          const bool inside = px < width && py < height;
          const std::uint32_t level = frame.level(inside ? px : reflect_101(px, width), y);
          counts[level]++;
          if (inside) own[level]++;
        }
      }
    }
  });
  histogram.assign(std::size_t(bins), 0);
  for (unsigned b = 0; b < bands; ++b)
    for (int v = 0; v < bins; ++v) histogram[v] += band_bins_[std::size_t(b) * bins + v];

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
  pool.run(row_bands, height, [&](unsigned, int row_begin, int row_end) {
    for (int y = row_begin; y < row_end; ++y) {
      const TileBlend row = tile_blend(y, inverse_height, grid.tiles_y);
      const std::uint16_t *upper = &luts_[std::size_t(row.first) * grid.tiles_x * bins];
      const std::uint16_t *lower = &luts_[std::size_t(row.second) * grid.tiles_x * bins];
      for (int x = 0; x < width; ++x) {
        const TileBlend &column = columns_[x];
        const std::uint32_t v = frame.level(x, y);
        const std::size_t left = std::size_t(column.first) * bins + v;
        const std::size_t right = std::size_t(column.second) * bins + v;
        frame.set(x, y,
                  blend_levels(upper[left], upper[right], lower[left], lower[right], column.weight,
                               row.weight, top));
      }
    }
  });
  return restarted;
}

template bool ClaheTiles::equalize(const ClaheBytes &, int, const Params &, OutputRange, bool,
                                   RowPool &, std::vector<std::uint64_t> &);
template bool ClaheTiles::equalize(const ClaheWords &, int, const Params &, OutputRange, bool,
                                   RowPool &, std::vector<std::uint64_t> &);
template bool ClaheTiles::equalize(const ClahePackedYuv &, int, const Params &, OutputRange, bool,
                                   RowPool &, std::vector<std::uint64_t> &);

}  // namespace histeq
