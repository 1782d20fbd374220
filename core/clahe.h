// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// CLAHE as OpenCV's createCLAHE(clipLimit, tileGridSize).apply() defines it, per pixel and per
// tile, for the CPU and the GPU kernels alike:
//  - The grid: a frame whose size both tile counts divide is cut into tiles as it is; otherwise
//    it is first padded at the right by tiles_x - width % tiles_x columns and at the bottom by
//    tiles_y - height % tiles_y rows (even along a side that divides), mirrored without
//    repeating the edge (reflect-101).
//  - Each tile's histogram (padding included) is clipped and spread as the global clip limit
//    is (tone_steps.h), and its LUT is lo + rint(cdf * (hi - lo) / total) in single precision:
//    OpenCV's cdf * 255 / area on full-range 8-bit frames.
//  - Each pixel of the unpadded frame takes the LUTs of the four nearest tile centres, blended
//    bilinearly in single precision in OpenCV's order of operations, rounded to nearest even.
// The floating-point steps are each one correctly rounded operation, spelled out so that no
// compiler can contract them into a fused multiply-add on either side.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "equalization.h"
#include "host_device.h"

namespace histeq {

HISTEQ_HOST_DEVICE inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

HISTEQ_HOST_DEVICE inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

HISTEQ_HOST_DEVICE inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

// x rounded to the nearest integer, ties to even, for 0 <= x < 2^23: adding 2^23 leaves no
// fraction bits, so the addition itself rounds (to nearest even, the default mode) and the
// subtraction is exact. Two plain operations where rintf may be a library call.
HISTEQ_HOST_DEVICE inline float round_even(float x) {
  return sub_rn(add_rn(x, 8388608.0f), 8388608.0f);
}

// The tiles of a frame: how many across and down, and each one's size in the padded frame.
struct ClaheGrid {
  int tiles_x = 1;
  int tiles_y = 1;
  int tile_width = 1;
  int tile_height = 1;

  HISTEQ_HOST_DEVICE int tiles() const { return tiles_x * tiles_y; }
  HISTEQ_HOST_DEVICE bool operator==(const ClaheGrid &other) const {
    return tiles_x == other.tiles_x && tiles_y == other.tiles_y && tile_width == other.tile_width &&
           tile_height == other.tile_height;
  }
  HISTEQ_HOST_DEVICE std::uint64_t tile_area() const {
    return std::uint64_t(tile_width) * std::uint64_t(tile_height);
  }
};

HISTEQ_HOST_DEVICE inline ClaheGrid clahe_grid(int width, int height, int tiles_x, int tiles_y) {
  int padded_width = width, padded_height = height;
  if (width % tiles_x != 0 || height % tiles_y != 0) {
    padded_width = width + tiles_x - width % tiles_x;
    padded_height = height + tiles_y - height % tiles_y;
  }
  return ClaheGrid{tiles_x, tiles_y, padded_width / tiles_x, padded_height / tiles_y};
}

// The most tiles x bins an engine keeps state for (the CPU about 40 bytes each, the GPU 22 and
// its history 16): any grid at 8 and 10 bits, 1024 tiles at 12 bits, 8x8 at 16 bits.
constexpr std::uint64_t kMaxClaheTileBins = std::uint64_t(1) << 22;

// The source index of padded index `i` along a side of `size` (reflect-101: ..., 2, 1, | 0, 1,
// ..., n-1, | n-2, n-3, ...), reflected again while a wide padding still falls outside.
HISTEQ_HOST_DEVICE inline int reflect_101(int i, int size) {
  if (size == 1) return 0;
  while (i < 0 || i >= size) i = i < 0 ? -i : 2 * (size - 1) - i;
  return i;
}

// A tile's LUT entry for cumulative count `cdf` of `total` (the tile's area, or the nominal
// total of a smoothed histogram).
HISTEQ_HOST_DEVICE inline std::uint32_t tile_level(std::uint64_t cdf, std::uint64_t total,
                                                   OutputRange range) {
  const std::uint32_t span = range.hi - range.lo;
  const float scale = float(span) / float(total);
  const float scaled = round_even(mul_rn(float(cdf), scale));
  return range.lo + (scaled >= float(span) ? span : std::uint32_t(scaled));
}

// Where pixel `i` falls between two tile centres along one side: the nearer tiles before and
// after it (clamped to the grid) and the weight of the second. `inverse_tile` is 1.0f / the
// tile's size, rounded once.
struct TileBlend {
  int first;
  int second;
  float weight;
};

HISTEQ_HOST_DEVICE inline TileBlend tile_blend(int i, float inverse_tile, int tiles) {
  const float position = sub_rn(mul_rn(float(i), inverse_tile), 0.5f);
  // floor(position), which is at least -0.5.
  const int first = position < 0.0f ? -1 : int(position);
  return TileBlend{first < 0 ? 0 : first, first + 1 > tiles - 1 ? tiles - 1 : first + 1,
                   sub_rn(position, float(first))};
}

// round_even(x) as an integer, for 0 <= x < 2^23 - 1/2: the sum with 2^23 has that integer in
// its mantissa bits, so no conversion instruction is needed.
HISTEQ_HOST_DEVICE inline std::uint32_t round_even_integer(float x) {
  const float shifted = add_rn(x, 8388608.0f);
#if defined(__CUDA_ARCH__)
  const std::uint32_t bits = __float_as_uint(shifted);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
#endif
  return bits & 0x7fffffu;
}

// The bilinear blend of the four tiles' levels (as floats, exactly) for one pixel (never
// negative), rounded to nearest even and kept within `top`: ((l11 * (1 - x) + l12 * x) * (1 - y)
// + (l21 * (1 - x) + l22 * x) * y), with x1 = 1 - x and y1 = 1 - y given (a caller that blends
// many pixels of one column or row takes them once).
HISTEQ_HOST_DEVICE inline std::uint32_t blend_level_values(float l11, float l12, float l21,
                                                           float l22, float x, float x1, float y,
                                                           float y1, std::uint32_t top) {
  const float upper = add_rn(mul_rn(l11, x1), mul_rn(l12, x));
  const float lower = add_rn(mul_rn(l21, x1), mul_rn(l22, x));
  const std::uint32_t blended = round_even_integer(add_rn(mul_rn(upper, y1), mul_rn(lower, y)));
  return blended >= top ? top : blended;
}

HISTEQ_HOST_DEVICE inline std::uint32_t blend_level_values(float l11, float l12, float l21,
                                                           float l22, float x, float y,
                                                           std::uint32_t top) {
  return blend_level_values(l11, l12, l21, l22, x, sub_rn(1.0f, x), y, sub_rn(1.0f, y), top);
}

HISTEQ_HOST_DEVICE inline std::uint32_t blend_levels(std::uint32_t l11, std::uint32_t l12,
                                                     std::uint32_t l21, std::uint32_t l22, float x,
                                                     float y, std::uint32_t top) {
  return blend_level_values(float(l11), float(l12), float(l21), float(l22), x, y, top);
}

// The first index i of [0, size) whose tile_blend(i, inverse_tile, ...) has its unclamped first
// tile at k or later (size if none): the pixels of one span between tile centres start there.
// The first tile only grows with i, since every step of tile_blend rounds monotonically.
HISTEQ_HOST_DEVICE inline int first_blended_from(int k, float inverse_tile, int size) {
  int low = 0, high = size;
  while (low < high) {
    const int middle = low + (high - low) / 2;
    const float position = sub_rn(mul_rn(float(middle), inverse_tile), 0.5f);
    const int first = position < 0.0f ? -1 : int(position);
    if (first >= k) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return low;
}

}  // namespace histeq
