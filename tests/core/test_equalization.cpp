// SPDX-License-Identifier: LGPL-2.1-or-later
#include <array>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "equalization.h"
#include "luma_histogram.h"

using namespace histeq;

namespace {

std::array<std::uint8_t, 256> lut_of(const std::vector<std::uint8_t> &pixels, OutputRange range) {
  const int width = int(pixels.size());
  const LumaHistogram8 histogram =
      luma_histogram(ConstLumaPlane8{pixels.data(), width, 1, std::ptrdiff_t(width)});
  std::array<std::uint8_t, 256> lut{};
  build_equalization_lut(histogram.data(), kLevels8, range, lut.data());
  return lut;
}

}  // namespace

TEST(OutputRange, FullAndLimitedAtEveryDepth) {
  EXPECT_EQ(full_range(8).lo, 0u);
  EXPECT_EQ(full_range(8).hi, 255u);
  EXPECT_EQ(limited_range(8).lo, 16u);
  EXPECT_EQ(limited_range(8).hi, 235u);
  EXPECT_EQ(limited_range(10).lo, 64u);
  EXPECT_EQ(limited_range(10).hi, 940u);
  EXPECT_EQ(limited_range(12).lo, 256u);
  EXPECT_EQ(limited_range(12).hi, 3760u);
  EXPECT_EQ(limited_range(16).lo, 4096u);
  EXPECT_EQ(limited_range(16).hi, 60160u);
  EXPECT_EQ(full_range(10).hi, 1023u);
  EXPECT_EQ(full_range(12).hi, 4095u);
  EXPECT_EQ(full_range(16).hi, 65535u);
}

TEST(EqualizedLevel, RoundsHalfToEvenAsOpenCv) {
  // 1 * (255 / 2) = 127.5 -> 128
  EXPECT_EQ(equalized_level(1, 2, 1, 3, full_range(8)), 128u);
  // 3 * (255 / 10) = 76.5 -> 76, where half up would give 77
  EXPECT_EQ(equalized_level(1, 4, 1, 11, full_range(8)), 76u);
  // 1 * (255 / 3) = 85 exactly
  EXPECT_EQ(equalized_level(1, 2, 1, 4, full_range(8)), 85u);
}

TEST(EqualizedLevel, SingleLevelFrameIsIdentity) {
  for (std::uint32_t v = 0; v < 256; ++v) {
    EXPECT_EQ(equalized_level(v, 100, 100, 100, full_range(8)), v);
    EXPECT_EQ(equalized_level(v, 100, 100, 100, limited_range(8)), v);
  }
}

TEST(EqualizedLevel, NoOverflowAt8KSixteenBit) {
  const std::uint64_t n = 7680ull * 4320ull;
  EXPECT_EQ(equalized_level(65535, n, 1, n, full_range(16)), 65535u);
  EXPECT_EQ(equalized_level(0, 1, 1, n, full_range(16)), 0u);
}

TEST(LumaHistogram, CountsOnlyVisibleWidthAndAllRows) {
  const int width = 37, height = 5, stride = 64;
  std::vector<std::uint8_t> plane(stride * height, 200);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) plane[y * stride + x] = std::uint8_t((x * 7 + y) & 255);
  const LumaHistogram8 h = luma_histogram(ConstLumaPlane8{plane.data(), width, height, stride});
  EXPECT_EQ(std::accumulate(h.begin(), h.end(), std::uint64_t(0)), std::uint64_t(width * height));
  LumaHistogram8 expected{};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) expected[(x * 7 + y) & 255]++;
  EXPECT_EQ(h, expected);
}

TEST(Lut, TwoValuesSpreadToTheEnds) {
  std::vector<std::uint8_t> pixels(100, 90);
  std::fill(pixels.begin() + 50, pixels.end(), 110);
  const auto lut = lut_of(pixels, full_range(8));
  EXPECT_EQ(lut[90], 0);
  EXPECT_EQ(lut[110], 255);
  const auto limited = lut_of(pixels, limited_range(8));
  EXPECT_EQ(limited[90], 16);
  EXPECT_EQ(limited[110], 235);
}

TEST(Lut, AllLevelsOnceIsIdentityInFullRange) {
  std::vector<std::uint8_t> pixels(256);
  std::iota(pixels.begin(), pixels.end(), 0);
  const auto lut = lut_of(pixels, full_range(8));
  for (int v = 0; v < 256; ++v) EXPECT_EQ(lut[v], v) << "level " << v;
}

TEST(Lut, LimitedRangeStaysInsideSixteenToTwoThirtyFive) {
  std::vector<std::uint8_t> pixels(256);
  std::iota(pixels.begin(), pixels.end(), 0);
  const auto lut = lut_of(pixels, limited_range(8));
  EXPECT_EQ(lut[0], 16);
  EXPECT_EQ(lut[255], 235);
  for (int v = 0; v < 256; ++v) {
    EXPECT_GE(lut[v], 16);
    EXPECT_LE(lut[v], 235);
    if (v > 0) {
      EXPECT_GE(lut[v], lut[v - 1]);
    }
  }
}
