// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>
#include <vector>

#include "plane.h"
#include "sample_layout.h"

namespace histeq {

// Replaces every visible sample of rows [row_begin, row_end) by lut[sample], in place. Bytes
// between the visible width and the stride are left untouched. Runs on the CPU's widest SIMD
// target.
void apply_lut(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut);

// The same, one sample at a time: the reference apply_lut must equal.
void apply_lut_scalar(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut);

// Sets every visible sample of rows [row_begin, row_end) to `value` (a plane of one level is
// mapped so), the padding untouched. Vector stores: glibc's memset takes rows from 2 KiB on by
// `rep stosb`, which filled a 4K plane 1.6x slower than vector stores on the AMD EPYC VM.
void fill_rows(LumaPlane8 plane, int row_begin, int row_end, std::uint8_t value);

// Whether this CPU's AVX2 gathers load table entries slower than scalar loads of the same lanes
// do, so that the SIMD passes load them lane by lane: AMD's (the AMD EPYC this was measured on
// took twice as long by VPGATHERDD; the Intel Xeon beside the GPU as long or less).
bool gathers_are_slow();

// The name of the SIMD target that apply_lut and the core's other dispatched passes run on now
// (Highway's name: "AVX3_DL", "AVX2", "NEON", ...).
const char *simd_target_name();

// A LUT of a word layout's levels as the SIMD map reads it, made once per frame: widened to 32
// bits for gathers, and for levels of up to kBytePermuteBits split into the bytes of its entries,
// which CPUs with AVX-512 VBMI look up 128 at a time by byte permutes (padded with zeros to whole
// 128-entry segments).
struct WordLut {
  static constexpr int kBytePermuteBits = 10;
  static constexpr int kSegmentLevels = 128;
  std::vector<std::int32_t> wide;
  std::vector<std::uint8_t> low, high;

  void assign(const std::uint16_t *lut, SampleLayout layout);
};

// Replaces every visible word of rows [row_begin, row_end) by the word of lut[its level], in
// place; `lut` assigned from the LUT of `layout`.
void apply_lut(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
               const WordLut &lut);
// The same, one word at a time: the reference.
void apply_lut_scalar(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                      const std::uint16_t *lut);

}  // namespace histeq
