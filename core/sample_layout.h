// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// How a video format keeps its luma samples: 8 bits in a byte, or `bits` significant bits of a
// 16-bit word, `shift` bits above its lowest (GStreamer's depth and shift: I420_10LE has 10 at
// shift 0, P010_10LE 10 at shift 6, its low bits zero). A sample's level is its significant
// bits, and the histogram has one bin per level: 2^bits.

#include <cstdint>

#include "host_device.h"

namespace histeq {

struct SampleLayout {
  int bits = 8;
  int shift = 0;

  HISTEQ_HOST_DEVICE std::uint32_t levels() const { return std::uint32_t(1) << bits; }
  // A word's level. Bits above the significant ones (set only in a malformed LSB-aligned word,
  // such as 0xFFFF in a 10-bit format) count as the top level; those below, as nothing.
  HISTEQ_HOST_DEVICE std::uint32_t level_of(std::uint32_t word) const {
    const std::uint32_t level = word >> shift;
    return level < levels() ? level : levels() - 1;
  }
  // The word of a level: MSB-aligned formats keep their low bits zero.
  HISTEQ_HOST_DEVICE std::uint16_t word_of(std::uint32_t level) const {
    return std::uint16_t(level << shift);
  }
};

}  // namespace histeq
