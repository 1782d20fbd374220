// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Frames whose luma is not a plane of its own, as the engines see them: packed 4:2:2 YUV (a luma
// byte every second byte) and packed 8-bit RGB (a luma computed from R, G and B, rgb.h). Like
// PlaneView: no ownership, rows `stride` bytes apart, padding never written; width and height
// count pixels.

#include <cstddef>
#include <cstdint>

#include "rgb.h"

namespace histeq {

// YUY2 and YVYU keep a pixel's luma in its first byte (luma_offset 0), UYVY in its second (1).
// The chroma bytes between are never written.
struct PackedYuvView {
  std::uint8_t *data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;
  int luma_offset = 0;

  static constexpr int kPixelBytes = 2;
  std::uint8_t *row(int y) const { return data + y * stride; }
  std::uint64_t pixels() const { return std::uint64_t(width) * std::uint64_t(height); }
};

// Pixels of `pixel_bytes` (3 or 4) bytes with R, G and B at the given byte offsets; the fourth
// byte (alpha or padding) is never written. `matrix` makes their luma.
struct RgbView {
  std::uint8_t *data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;
  int pixel_bytes = 4;
  int red = 0;
  int green = 1;
  int blue = 2;
  LumaMatrix matrix = luma_matrix(LumaStandard::kBt709);

  std::uint8_t *row(int y) const { return data + y * stride; }
  std::uint64_t pixels() const { return std::uint64_t(width) * std::uint64_t(height); }
};

}  // namespace histeq
