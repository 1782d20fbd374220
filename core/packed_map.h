// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Packed frames, row by row, on the CPU's widest SIMD target: their luma gathered into a
// contiguous run (for counting), and the LUT applied in place. Each has a scalar twin, the
// reference the SIMD code must equal byte for byte.

#include <cstdint>

#include "packed_views.h"

namespace histeq {

// The luma of pixels [x, x + n) of row y into luma[0, n).
void gather_luma(const PackedYuvView &frame, int y, int x, int n, std::uint8_t *luma);
void gather_luma(const RgbView &frame, int y, int x, int n, std::uint8_t *luma);
void gather_luma_scalar(const RgbView &frame, int y, int x, int n, std::uint8_t *luma);

// The luma bytes of packed 4:2:2 YUV replaced by lut[luma]; chroma bytes untouched.
void apply_lut(const PackedYuvView &frame, int row_begin, int row_end, const std::uint8_t *lut);
void apply_lut_scalar(const PackedYuvView &frame, int row_begin, int row_end,
                      const std::uint8_t *lut);
// R, G and B of packed RGB scaled by rgb.h's rule for this LUT of their luma; the fourth byte
// untouched.
void apply_lut(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut);
void apply_lut_scalar(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut);

}  // namespace histeq
