// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include "plane.h"
#include "sample_layout.h"

namespace histeq {

// Replaces every visible sample of rows [row_begin, row_end) by lut[sample], in place. Bytes
// between the visible width and the stride are left untouched. Runs on the CPU's widest SIMD
// target.
void apply_lut(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut);

// The same, one sample at a time: the reference apply_lut must equal.
void apply_lut_scalar(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut);

// Replaces every visible word of rows [row_begin, row_end) by the word of lut[its level] (a LUT
// of layout.levels() levels, widened to 32 bits so that it can be gathered), in place.
void apply_lut(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
               const std::int32_t *lut);
// The same, one word at a time: the reference.
void apply_lut_scalar(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                      const std::uint16_t *lut);

}  // namespace histeq
