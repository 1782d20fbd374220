// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Equalizing packed RGB by its luma, in integer arithmetic that the CPU and the GPU kernels share:
//   Y  = (Wr*R + Wg*G + Wb*B + 2^14) >> 15       the weights in Q15, summing to exactly 2^15
//   Y' = lut[Y]                                   the LUT of the luma histogram, as for YUV
//   R', G', B' = each channel times one gain: Y'/Y in Q16, lowered to 255/max(R, G, B) where the
//   largest channel would pass full scale, so the channels keep their ratios (hue and
//   saturation) and none clips alone.
// A pixel of luma 0 has no brightness to scale: lut[0] is added to each of its channels.
// Under CLAHE each pixel has its own mapped luma (clahe.h) in place of lut[Y], and the same rule
// follows.

#include <cstdint>

#include "host_device.h"

namespace histeq {

enum class LumaStandard { kBt709, kBt601, kBt2020 };

// Q15 weights of R, G and B; green takes what rounding leaves so that they sum to 2^15 and a
// grey pixel's luma is its level.
struct LumaMatrix {
  std::uint32_t red;
  std::uint32_t green;
  std::uint32_t blue;
};

constexpr std::uint32_t kLumaOne = 1u << 15;

constexpr LumaMatrix luma_matrix_of(double kr, double kb) {
  const auto red = std::uint32_t(kr * kLumaOne + 0.5);
  const auto blue = std::uint32_t(kb * kLumaOne + 0.5);
  return LumaMatrix{red, kLumaOne - red - blue, blue};
}

// Kr and Kb of ITU-R BT.709, BT.601 and BT.2020.
constexpr LumaMatrix luma_matrix(LumaStandard standard) {
  switch (standard) {
    case LumaStandard::kBt601:
      return luma_matrix_of(0.299, 0.114);
    case LumaStandard::kBt2020:
      return luma_matrix_of(0.2627, 0.0593);
    case LumaStandard::kBt709:
    default:
      return luma_matrix_of(0.2126, 0.0722);
  }
}

HISTEQ_HOST_DEVICE inline std::uint32_t rgb_luma(std::uint32_t r, std::uint32_t g, std::uint32_t b,
                                                 LumaMatrix m) {
  return (m.red * r + m.green * g + m.blue * b + kLumaOne / 2) >> 15;
}

// Q16 gain that takes luma `y` (1..255) to `mapped`, rounded to nearest.
HISTEQ_HOST_DEVICE inline std::uint32_t rgb_gain(std::uint32_t y, std::uint32_t mapped) {
  return ((mapped << 16) + y / 2) / y;
}

// The largest Q16 gain that keeps a channel of `largest` (1..255) at or under 255.
HISTEQ_HOST_DEVICE inline std::uint32_t rgb_headroom(std::uint32_t largest) {
  return (255u << 16) / largest;
}

// A channel times a gain no larger than its pixel's headroom, rounded, before the shift that
// takes the level out: the level is bits 16-23, what rounding left is below, and bits 24-31 are
// zero (the product is at most 255 << 16). Kept whole, a word's byte 2 can be moved into place
// by a byte permute without shifting it down first.
HISTEQ_HOST_DEVICE inline std::uint32_t rgb_scale_q16(std::uint32_t channel, std::uint32_t gain) {
  return channel * gain + (1u << 15);
}

HISTEQ_HOST_DEVICE inline std::uint32_t rgb_scale(std::uint32_t channel, std::uint32_t gain) {
  return rgb_scale_q16(channel, gain) >> 16;
}

// The divisions of the rule, tabulated once per LUT: gain[v] = rgb_gain(v, lut[v]) and
// headroom[v] = rgb_headroom(v) for v in 1..255 (entry 0 of each is never read).
struct RgbGainTables {
  std::uint32_t gain[256];
  std::uint32_t headroom[256];
};

// The headroom alone serves where each pixel has its own gain (CLAHE).
HISTEQ_HOST_DEVICE inline void fill_rgb_headroom(int v, RgbGainTables &tables) {
  tables.headroom[v] = v == 0 ? 0 : rgb_headroom(std::uint32_t(v));
}

HISTEQ_HOST_DEVICE inline void fill_rgb_gain_tables(const std::uint8_t *lut, int v,
                                                    RgbGainTables &tables) {
  tables.gain[v] = v == 0 ? 0 : rgb_gain(std::uint32_t(v), lut[v]);
  fill_rgb_headroom(v, tables);
}

// Every entry at once, on the host (a GPU block fills one entry a thread).
inline RgbGainTables rgb_gain_tables(const std::uint8_t *lut) {
  RgbGainTables tables;
  for (int v = 0; v < 256; ++v) fill_rgb_gain_tables(lut, v, tables);
  return tables;
}

inline RgbGainTables rgb_headroom_tables() {
  RgbGainTables tables;
  for (int v = 0; v < 256; ++v) fill_rgb_headroom(v, tables);
  return tables;
}

HISTEQ_HOST_DEVICE inline std::uint32_t rgb_lift(std::uint32_t channel, std::uint32_t lift) {
  return channel + lift > 255 ? 255 : channel + lift;
}

// A pixel's mapped channels, each as its level times 2^16 plus what rounding left (rgb_scale_q16).
struct RgbScaled {
  std::uint32_t r, g, b;
};

// One pixel of luma `y` (rgb_luma) whose luma maps to `mapped`, its channels mapped as
// rgb_scale_q16 leaves them; `gain` is rgb_gain(y, mapped) (unused where y is 0).
HISTEQ_HOST_DEVICE inline RgbScaled rgb_scale_q16_pixel(std::uint32_t r, std::uint32_t g,
                                                        std::uint32_t b, std::uint32_t y,
                                                        std::uint32_t mapped, std::uint32_t gain,
                                                        const RgbGainTables &tables) {
  if (y == 0)
    return RgbScaled{rgb_lift(r, mapped) << 16, rgb_lift(g, mapped) << 16,
                     rgb_lift(b, mapped) << 16};
  const std::uint32_t largest = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const std::uint32_t headroom = tables.headroom[largest];
  const std::uint32_t applied = gain < headroom ? gain : headroom;
  return RgbScaled{rgb_scale_q16(r, applied), rgb_scale_q16(g, applied), rgb_scale_q16(b, applied)};
}

// The same pixel in place.
HISTEQ_HOST_DEVICE inline void rgb_scale_pixel(std::uint8_t &r, std::uint8_t &g, std::uint8_t &b,
                                               std::uint32_t y, std::uint32_t mapped,
                                               std::uint32_t gain, const RgbGainTables &tables) {
  const RgbScaled scaled = rgb_scale_q16_pixel(r, g, b, y, mapped, gain, tables);
  r = std::uint8_t(scaled.r >> 16);
  g = std::uint8_t(scaled.g >> 16);
  b = std::uint8_t(scaled.b >> 16);
}

// One pixel with a mapping of its own (CLAHE), in place: no table of one LUT holds its gain, so
// it is divided here; `tables` needs only its headroom.
HISTEQ_HOST_DEVICE inline void rgb_rescale_pixel(std::uint8_t &r, std::uint8_t &g, std::uint8_t &b,
                                                 std::uint32_t y, std::uint32_t mapped,
                                                 const RgbGainTables &tables) {
  rgb_scale_pixel(r, g, b, y, mapped, y ? rgb_gain(y, mapped) : 0, tables);
}

// One pixel, in place: the whole rule above, with `lut` and its tables.
HISTEQ_HOST_DEVICE inline void rgb_map_pixel(std::uint8_t &r, std::uint8_t &g, std::uint8_t &b,
                                             LumaMatrix m, const std::uint8_t *lut,
                                             const RgbGainTables &tables) {
  const std::uint32_t y = rgb_luma(r, g, b, m);
  rgb_scale_pixel(r, g, b, y, lut[y], tables.gain[y], tables);
}

}  // namespace histeq
