// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Packed frames, row by row, on the CPU's widest SIMD target: their luma gathered into a
// contiguous run (for counting), and the LUT applied in place. Each has a scalar twin, the
// reference the SIMD code must equal byte for byte.

#include <cstddef>
#include <cstdint>

#include "packed_views.h"

namespace histeq {

// The luma of pixels [x, x + n) of row y into luma[0, n).
void gather_luma(const PackedYuvView &frame, int y, int x, int n, std::uint8_t *luma);
void gather_luma(const RgbView &frame, int y, int x, int n, std::uint8_t *luma);
void gather_luma_scalar(const RgbView &frame, int y, int x, int n, std::uint8_t *luma);
// The luma of whole rows [row_begin, row_end) into a plane: row y at luma + y * luma_stride.
template <typename View>
void gather_luma_rows(const View &frame, int row_begin, int row_end, std::uint8_t *luma,
                      std::ptrdiff_t luma_stride) {
  for (int y = row_begin; y < row_end; ++y)
    gather_luma(frame, y, 0, frame.width, luma + y * luma_stride);
}

// The luma bytes of packed 4:2:2 YUV replaced by lut[luma]; chroma bytes untouched.
void apply_lut(const PackedYuvView &frame, int row_begin, int row_end, const std::uint8_t *lut);
void apply_lut_scalar(const PackedYuvView &frame, int row_begin, int row_end,
                      const std::uint8_t *lut);
// R, G and B of packed RGB scaled by rgb.h's rule for this LUT of their luma; the fourth byte
// untouched. The SIMD map reads each pixel's luma back from `luma` (row y at
// luma + y * luma_stride, as gather_luma wrote it); the scalar reference computes it.
void apply_lut(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut,
               const std::uint8_t *luma, std::ptrdiff_t luma_stride);
void apply_lut_scalar(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut);
// R, G and B of each pixel of rows [row_begin, row_end) scaled by rgb.h's rule from its luma to
// its mapped luma, given at luma[y * stride + x] and mapped[y * stride + x] (CLAHE, where each
// pixel has its own mapping); the fourth byte untouched.
void scale_rgb(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *luma,
               const std::uint8_t *mapped, std::ptrdiff_t stride);
void scale_rgb_scalar(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *luma,
                      const std::uint8_t *mapped, std::ptrdiff_t stride);

}  // namespace histeq
