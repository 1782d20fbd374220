// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstddef>
#include <cstdint>

#include "host_device.h"
#include "rgb.h"
#include "sample_layout.h"

namespace histeq::cuda {

// Where a frame's pixels keep their luma: a plane of luma samples (bytes, or 10, 12 or 16 bits
// in 16-bit words); packed 4:2:2 YUV, a luma byte every second byte (YUY2, UYVY, YVYU); or
// packed 8-bit RGB of 3 or 4 bytes a pixel, its luma made from R, G and B (core/rgb.h). Only
// luma samples, or R, G and B, are ever written.
enum class Packing : std::uint8_t { kLuma, kPackedYuv, kRgb };

struct PixelLayout {
  Packing packing = Packing::kLuma;
  int pixel_bytes = 1;               // 1 luma byte or 2 a luma word, 2 packed YUV, 3 or 4 RGB
  int luma = 0;                      // packed YUV: the luma byte of a pixel (0 or 1)
  int red = 0, green = 1, blue = 2;  // RGB: the byte of each channel in a pixel
  LumaMatrix matrix = luma_matrix(LumaStandard::kBt709);
  SampleLayout sample;  // luma: where the bits of a sample are (8: a byte)

  // Luma in 16-bit words, equalized with 2^bits bins (deep_kernels.h).
  HISTEQ_HOST_DEVICE bool deep() const { return packing == Packing::kLuma && sample.bits > 8; }
  // The histogram's bins: one per luma level.
  HISTEQ_HOST_DEVICE int levels() const { return deep() ? int(sample.levels()) : 256; }

  HISTEQ_HOST_DEVICE std::size_t row_bytes(int width) const {
    return std::size_t(width) * std::size_t(pixel_bytes);
  }
};

constexpr PixelLayout packed_yuv_layout(int luma_offset) {
  return PixelLayout{Packing::kPackedYuv, 2, luma_offset, 0, 1, 2, {}, {}};
}

constexpr PixelLayout rgb_layout(int pixel_bytes, int red, int green, int blue, LumaMatrix matrix) {
  return PixelLayout{Packing::kRgb, pixel_bytes, 0, red, green, blue, matrix, {}};
}

// A plane of 16-bit luma words with `sample`'s bits.
constexpr PixelLayout deep_luma_layout(SampleLayout sample) {
  return PixelLayout{Packing::kLuma, 2, 0, 0, 1, 2, {}, sample};
}

// The sample depths the deep kernels are built for (the formats GStreamer has).
HISTEQ_HOST_DEVICE constexpr bool deep_bits(int bits) {
  return bits == 10 || bits == 12 || bits == 16;
}

// Whether the kernels walk `layout`: a byte of luma; a 16-bit word of 10, 12 or 16-bit luma
// whose bits lie within the word; 2-byte packed YUV with its luma at byte 0
// or 1; 4-byte RGB with R, G and B at three distinct bytes; 3-byte RGB with green in the
// middle. Its matrix must sum to kLumaOne, so that no luma passes 255 and leaves the 256 bins.
HISTEQ_HOST_DEVICE inline bool valid_layout(const PixelLayout &layout) {
  const LumaMatrix &m = layout.matrix;
  const int r = layout.red, g = layout.green, b = layout.blue;
  switch (layout.packing) {
    case Packing::kLuma:
      if (layout.sample.bits == 8) return layout.pixel_bytes == 1 && layout.sample.shift == 0;
      return layout.pixel_bytes == 2 && deep_bits(layout.sample.bits) && layout.sample.shift >= 0 &&
             layout.sample.bits + layout.sample.shift <= 16;
    case Packing::kPackedYuv:
      return layout.pixel_bytes == 2 && (layout.luma == 0 || layout.luma == 1) &&
             layout.sample.bits == 8;
    case Packing::kRgb:
      if (m.red + m.green + m.blue != kLumaOne || layout.sample.bits != 8) return false;
      if (layout.pixel_bytes == 3) return g == 1 && r + b == 2 && (r == 0 || r == 2);
      return layout.pixel_bytes == 4 && r >= 0 && g >= 0 && b >= 0 && r < 4 && g < 4 && b < 4 &&
             r != g && g != b && r != b;
  }
  return false;
}

// A frame in memory the device can address (device, mapped pinned or managed): `height` rows
// `pitch` bytes apart, each `width` pixels of `layout` (row_bytes() bytes) and then padding.
struct DevicePlane {
  std::uint8_t *data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;
  PixelLayout layout = {};

  HISTEQ_HOST_DEVICE std::size_t row_bytes() const { return layout.row_bytes(width); }
};

// True when every row starts on a 16-byte boundary, so the kernels can walk rows in 16-byte
// chunks (one uint4 load each); otherwise they walk them pixel by pixel.
HISTEQ_HOST_DEVICE inline bool rows_in_chunks(const DevicePlane &plane) {
  return reinterpret_cast<std::uintptr_t>(plane.data) % 16 == 0 && plane.pitch % 16 == 0;
}

}  // namespace histeq::cuda
