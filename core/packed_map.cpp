// SPDX-License-Identifier: LGPL-2.1-or-later
// The LUT applied to packed frames: the luma bytes of 4:2:2 YUV, and R, G and B of packed RGB
// through rgb.h's rule, its divisions tabulated once per band of rows.
#include "lut_map.h"

namespace histeq {

void apply_lut(const PackedYuvView &frame, int row_begin, int row_end, const std::uint8_t *lut) {
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = frame.row(y) + frame.luma_offset;
    for (int x = 0; x < frame.width; ++x, p += PackedYuvView::kPixelBytes) *p = lut[*p];
  }
}

void apply_lut(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut) {
  RgbGainTables tables;
  for (int v = 0; v < 256; ++v) fill_rgb_gain_tables(lut, v, tables);
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = frame.row(y);
    for (int x = 0; x < frame.width; ++x, p += frame.pixel_bytes)
      rgb_map_pixel(p[frame.red], p[frame.green], p[frame.blue], frame.matrix, lut, tables);
  }
}

}  // namespace histeq
