// SPDX-License-Identifier: LGPL-2.1-or-later
// Packed frames through CpuEqualizer: 4:2:2 YUV equalized as its luma plane would be (the same
// LUT, the same history), chroma and padding untouched; packed RGB by its luma (rgb.h), checked
// against a reference written here in 64-bit arithmetic, with hue kept and no channel clipped
// out of its ratio.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "luma_histogram.h"
#include "rgb.h"

using histeq::CpuEqualizer;
using histeq::LumaMatrix;
using histeq::LumaStandard;
using histeq::PackedYuvView;
using histeq::RgbView;

namespace {

constexpr LumaStandard kStandards[] = {LumaStandard::kBt709, LumaStandard::kBt601,
                                       LumaStandard::kBt2020};

// A low-contrast scene: a luma ramp over 30% of the range with noise, each pixel tinted.
std::vector<std::uint8_t> dull_levels(int width, int height, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::uint8_t> levels(std::size_t(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      levels[std::size_t(y) * width + x] =
          std::uint8_t(70 + 70 * (x + y) / (width + height) + random() % 9);
  return levels;
}

// Packed 4:2:2 rows of `stride` bytes: luma at luma_offset of each pixel, the other bytes (and
// the padding) a pattern the equalizer must leave.
std::vector<std::uint8_t> packed_yuv(const std::vector<std::uint8_t> &luma, int width, int height,
                                     int stride, int luma_offset, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::uint8_t> bytes(std::size_t(stride) * height);
  for (auto &b : bytes) b = std::uint8_t(random());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      bytes[std::size_t(y) * stride + 2 * x + luma_offset] = luma[std::size_t(y) * width + x];
  return bytes;
}

// Colourful pixels of a dull scene: each a level from dull_levels times a random tint.
std::vector<std::uint8_t> rgb_pixels(int width, int height, int stride, int pixel_bytes,
                                     unsigned seed) {
  std::mt19937 random(seed);
  const std::vector<std::uint8_t> levels = dull_levels(width, height, seed);
  std::vector<std::uint8_t> bytes(std::size_t(stride) * height);
  for (auto &b : bytes) b = std::uint8_t(random());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      std::uint8_t *p = &bytes[std::size_t(y) * stride + std::size_t(x) * pixel_bytes];
      const int level = levels[std::size_t(y) * width + x];
      for (int c = 0; c < 3; ++c)
        p[c] = std::uint8_t(std::clamp(level + int(random() % 61) - 30, 0, 255));
    }
  }
  return bytes;
}

// The rule of rgb.h, written again with 64-bit products and no tables.
void reference_map(std::uint8_t *rgb, const LumaMatrix &m, const std::uint8_t *lut) {
  const std::uint64_t r = rgb[0], g = rgb[1], b = rgb[2];
  const std::uint64_t y = (m.red * r + m.green * g + m.blue * b + 16384) / 32768;
  if (y == 0) {
    for (int c = 0; c < 3; ++c) rgb[c] = std::uint8_t(std::min<int>(255, rgb[c] + lut[0]));
    return;
  }
  const std::uint64_t largest = std::max({r, g, b});
  const std::uint64_t gain = (std::uint64_t(lut[y]) * 65536 + y / 2) / y;
  const std::uint64_t headroom = 255 * 65536 / largest;
  const std::uint64_t applied = std::min(gain, headroom);
  for (int c = 0; c < 3; ++c) {
    const std::uint64_t scaled = (rgb[c] * applied + 32768) / 65536;
    ASSERT_LE(scaled, 255u);
    rgb[c] = std::uint8_t(scaled);
  }
}

double hue_degrees(double r, double g, double b) {
  return std::atan2(std::sqrt(3.0) * (g - b), 2 * r - g - b) * 180 / M_PI;
}

}  // namespace

TEST(LumaMatrix, WeightsSumToOneSoAGreyPixelKeepsItsLevel) {
  for (LumaStandard standard : kStandards) {
    const LumaMatrix m = histeq::luma_matrix(standard);
    EXPECT_EQ(m.red + m.green + m.blue, histeq::kLumaOne);
    for (std::uint32_t v = 0; v < 256; ++v) EXPECT_EQ(histeq::rgb_luma(v, v, v, m), v);
  }
}

TEST(LumaMatrix, LumaIsTheStandardsWeightedSumRounded) {
  struct Weights {
    LumaStandard standard;
    double kr, kb;
  };
  std::mt19937 random(5);
  for (const Weights &w :
       {Weights{LumaStandard::kBt709, 0.2126, 0.0722}, Weights{LumaStandard::kBt601, 0.299, 0.114},
        Weights{LumaStandard::kBt2020, 0.2627, 0.0593}}) {
    const LumaMatrix m = histeq::luma_matrix(w.standard);
    for (int i = 0; i < 100000; ++i) {
      const std::uint32_t r = random() % 256, g = random() % 256, b = random() % 256;
      const double exact = w.kr * r + (1 - w.kr - w.kb) * g + w.kb * b;
      // Red's and blue's Q15 weights are within 2^-16 of the standard's and green's (the rest)
      // within 2^-15, so the luma is a rounding away plus at most 255 * 2^-14.
      ASSERT_LE(std::abs(double(histeq::rgb_luma(r, g, b, m)) - exact), 0.5 + 255.0 / 16384.0);
    }
  }
}

TEST(RgbMap, AnIdentityLutLeavesEveryPixel) {
  std::uint8_t lut[256];
  for (int v = 0; v < 256; ++v) lut[v] = std::uint8_t(v);
  const histeq::RgbGainTables tables = histeq::rgb_gain_tables(lut);
  const LumaMatrix m = histeq::luma_matrix(LumaStandard::kBt709);
  for (int r = 0; r < 256; r += 3)
    for (int g = 0; g < 256; g += 5)
      for (int b = 0; b < 256; b += 7) {
        std::uint8_t pr = std::uint8_t(r), pg = std::uint8_t(g), pb = std::uint8_t(b);
        histeq::rgb_map_pixel(pr, pg, pb, m, lut, tables);
        ASSERT_EQ(int(pr) * 65536 + pg * 256 + pb, r * 65536 + g * 256 + b);
      }
}

TEST(RgbMap, EveryColourUnderAStretchingLutEqualsTheReference) {
  // Levels 40..140 spread to 0..255, then constant: gains above and below one, large enough to
  // push many colours against full scale.
  std::uint8_t lut[256];
  for (int v = 0; v < 256; ++v) lut[v] = std::uint8_t(std::clamp((v - 40) * 255 / 100, 0, 255));
  lut[0] = 9;  // a lifted black
  const histeq::RgbGainTables tables = histeq::rgb_gain_tables(lut);
  for (LumaStandard standard : kStandards) {
    const LumaMatrix m = histeq::luma_matrix(standard);
    for (int r = 0; r < 256; ++r)
      for (int g = 0; g < 256; g += 3)
        for (int b = 0; b < 256; b += 2) {
          std::uint8_t expected[3] = {std::uint8_t(r), std::uint8_t(g), std::uint8_t(b)};
          reference_map(expected, m, lut);
          std::uint8_t pr = std::uint8_t(r), pg = std::uint8_t(g), pb = std::uint8_t(b);
          histeq::rgb_map_pixel(pr, pg, pb, m, lut, tables);
          ASSERT_EQ(int(pr) * 65536 + pg * 256 + pb,
                    expected[0] * 65536 + expected[1] * 256 + expected[2])
              << "rgb " << r << " " << g << " " << b;
        }
  }
}

class PackedYuv : public ::testing::TestWithParam<int> {};

// The same frames as a luma plane and as packed 4:2:2 through two equalizers: the same LUTs,
// frame after frame with every option, the same luma, and no other byte changed.
TEST_P(PackedYuv, EqualsThePlanarLumaWithEveryOptionAndLeavesChroma) {
  const int luma_offset = GetParam();
  const int width = 333, height = 47, stride = 2 * width + 10;
  histeq::Settings settings;
  settings.strength = 0.8;
  settings.clip_limit = 3;
  settings.smoothing = 4;
  settings.statistics = true;
  const histeq::Params params = histeq::to_params(settings);
  CpuEqualizer planar(1), packed(2);
  for (unsigned frame = 0; frame < 6; ++frame) {
    std::vector<std::uint8_t> luma = dull_levels(width, height, frame);
    std::vector<std::uint8_t> bytes = packed_yuv(luma, width, height, stride, luma_offset, frame);
    const std::vector<std::uint8_t> before = bytes;
    const auto planar_lut = planar.equalize(histeq::LumaPlane8{luma.data(), width, height, width},
                                            histeq::limited_range(8), params, frame == 0);
    const auto packed_lut =
        packed.equalize(PackedYuvView{bytes.data(), width, height, stride, luma_offset},
                        histeq::limited_range(8), params, frame == 0);
    ASSERT_EQ(packed_lut, planar_lut) << "frame " << frame;
    EXPECT_EQ(packed.histogram(), planar.histogram());
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < stride; ++x) {
        const std::size_t i = std::size_t(y) * stride + x;
        const bool is_luma = x < 2 * width && x % 2 == luma_offset;
        const std::uint8_t expected = is_luma ? luma[std::size_t(y) * width + x / 2] : before[i];
        ASSERT_EQ(bytes[i], expected) << "row " << y << " byte " << x;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(LumaFirstOrSecond, PackedYuv, ::testing::Values(0, 1));

// LumaCounter over packed frames, as a pool's chunks call it: rows [begin, end) in two calls,
// gathered in blocks of 128 KiB of luma (several blocks of 517-pixel rows, a first call's block
// smaller than the next, a row a block where one row's luma passes 128 KiB), each row counted
// once; packed RGB's luma written to the plane its map reads, and no row outside the range
// touched.
struct CounterCase {
  int width, height, begin, split, end;
  friend std::ostream &operator<<(std::ostream &out, const CounterCase &c) {
    return out << c.width << "x" << c.height << " rows " << c.begin << ".." << c.split << ".."
               << c.end;
  }
};

class PackedLumaCounter : public ::testing::TestWithParam<CounterCase> {};

TEST_P(PackedLumaCounter, GathersAndCountsExactlyTheRowsAsked) {
  const CounterCase c = GetParam();
  constexpr std::uint8_t kUntouched = 0xA5;
  const std::size_t pixels = std::size_t(c.width) * std::size_t(c.height);
  std::mt19937 random(7);
  // UYVY rows padded to 2 * width + 6 bytes; RGBx rows of 4 * width.
  const std::ptrdiff_t uyvy_stride = std::ptrdiff_t(2) * c.width + 6;
  std::vector<std::uint8_t> bytes(std::max(4 * pixels, std::size_t(uyvy_stride) * c.height));
  for (std::uint8_t &b : bytes) b = std::uint8_t(random());
  const LumaMatrix m = histeq::luma_matrix(LumaStandard::kBt709);
  const PackedYuvView uyvy{bytes.data(), c.width, c.height, uyvy_stride, 1};
  const RgbView rgbx{bytes.data(), c.width, c.height, std::ptrdiff_t(4) * c.width, 4, 0, 1, 2, m};
  // The histogram of rows [begin, end) of `luma_of`, which `count` (begin, end) counted in two.
  const auto expect_counts = [&](auto count, auto luma_of) {
    histeq::LumaCounter counter;
    counter.restart(std::uint64_t(c.width) * std::uint64_t(c.end - c.begin));
    count(counter, c.begin, c.split);
    count(counter, c.split, c.end);
    histeq::LumaHistogram8 histogram{}, expected{};
    counter.add_to(histogram);
    for (int y = c.begin; y < c.end; ++y)
      for (int x = 0; x < c.width; ++x) ++expected[luma_of(y, x)];
    EXPECT_EQ(histogram, expected);
  };
  expect_counts(
      [&](histeq::LumaCounter &counter, int begin, int end) { counter.count(uyvy, begin, end); },
      [&](int y, int x) { return bytes[std::size_t(y) * uyvy_stride + 2 * x + 1]; });
  const auto rgb_luma = [&](int y, int x) {
    const std::uint8_t *p = &bytes[(std::size_t(y) * c.width + x) * 4];
    return std::uint8_t(histeq::rgb_luma(p[0], p[1], p[2], m));
  };
  std::vector<std::uint8_t> luma(pixels, kUntouched);
  expect_counts([&](histeq::LumaCounter &counter, int begin,
                    int end) { counter.count(rgbx, begin, end, luma.data(), c.width); },
                rgb_luma);
  for (int y = 0; y < c.height; ++y) {
    const bool asked = y >= c.begin && y < c.end;
    for (int x = 0; x < c.width; ++x)
      ASSERT_EQ(luma[std::size_t(y) * c.width + x], asked ? rgb_luma(y, x) : kUntouched)
          << "row " << y << " pixel " << x;
  }
}

INSTANTIATE_TEST_SUITE_P(Blocks, PackedLumaCounter,
                         ::testing::Values(CounterCase{517, 901, 3, 450, 898},
                                           CounterCase{517, 901, 3, 10, 898},
                                           CounterCase{333, 47, 0, 0, 47},
                                           CounterCase{1, 300000, 7, 140000, 299990},
                                           CounterCase{140000, 5, 1, 2, 5}));

struct RgbCase {
  int pixel_bytes, red, green, blue;
};

class PackedRgb : public ::testing::TestWithParam<RgbCase> {};

// RGB frames: the histogram is that of their luma, the LUT the planar one of that luma, each
// pixel the reference's, the fourth byte and padding untouched; split over threads or not (the
// frame is large enough for three bands, whose maps read back the luma their counts wrote).
TEST_P(PackedRgb, IsEqualizedByItsLumaAndEachPixelIsTheReferences) {
  const RgbCase c = GetParam();
  const int width = 517, height = 901, stride = width * c.pixel_bytes + 7;
  const LumaMatrix m = histeq::luma_matrix(LumaStandard::kBt601);
  std::vector<std::uint8_t> bytes = rgb_pixels(width, height, stride, c.pixel_bytes, 3);
  const std::vector<std::uint8_t> before = bytes;
  std::vector<std::uint8_t> luma;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::uint8_t *p = &before[std::size_t(y) * stride + std::size_t(x) * c.pixel_bytes];
      luma.push_back(std::uint8_t(histeq::rgb_luma(p[c.red], p[c.green], p[c.blue], m)));
    }
  CpuEqualizer planar(1);
  const auto lut =
      planar.equalize(histeq::LumaPlane8{luma.data(), width, height, width}, histeq::full_range(8));
  for (unsigned threads : {1u, 3u}) {
    SCOPED_TRACE(threads);
    std::vector<std::uint8_t> frame = before;
    CpuEqualizer rgb(threads);
    const RgbView view{frame.data(), width,   height, stride, c.pixel_bytes,
                       c.red,        c.green, c.blue, m};
    ASSERT_EQ(rgb.equalize(view, histeq::full_range(8)), lut);
    EXPECT_EQ(rgb.histogram(), planar.histogram());
    // The byte of a 4-byte pixel that is none of R, G and B.
    const int fourth = c.pixel_bytes == 4 ? 6 - c.red - c.green - c.blue : -1;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < stride; ++x) {
        const std::size_t i = std::size_t(y) * stride + x;
        if (x >= width * c.pixel_bytes || x % c.pixel_bytes == fourth) {
          ASSERT_EQ(frame[i], before[i]) << "row " << y << " byte " << x;
        }
      }
      for (int x = 0; x < width; ++x) {
        const std::size_t i = std::size_t(y) * stride + std::size_t(x) * c.pixel_bytes;
        std::uint8_t expected[3] = {before[i + c.red], before[i + c.green], before[i + c.blue]};
        reference_map(expected, m, lut.data());
        ASSERT_EQ(frame[i + c.red], expected[0]);
        ASSERT_EQ(frame[i + c.green], expected[1]);
        ASSERT_EQ(frame[i + c.blue], expected[2]);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, PackedRgb,
                         ::testing::Values(RgbCase{4, 0, 1, 2}, RgbCase{4, 2, 1, 0},
                                           RgbCase{4, 1, 2, 3}, RgbCase{4, 3, 2, 1},
                                           RgbCase{3, 0, 1, 2}, RgbCase{3, 2, 1, 0}));

// Equalizing a dull colourful frame keeps each coloured pixel's hue (median shift under 2
// degrees) and the ratios of its channels, also where the gain had to be lowered to fit, under
// every luma matrix and in both ranges. A pixel whose luma rounds to 0 has no brightness to
// scale: rgb.h lifts each of its channels by lut[0] instead (0 in full range, where its ratios
// stay; 16 in limited range, where a dark colour moves toward grey).
namespace {

std::string colour_case_name(
    const ::testing::TestParamInfo<std::tuple<LumaStandard, histeq::OutputRange>> &info) {
  const char *names[] = {"bt709", "bt601", "bt2020"};
  return std::string(names[int(std::get<0>(info.param))]) +
         (std::get<1>(info.param).lo == 0 ? "_full" : "_limited");
}

class PackedRgbColour
    : public ::testing::TestWithParam<std::tuple<LumaStandard, histeq::OutputRange>> {};

}  // namespace

TEST_P(PackedRgbColour, HueAndChannelRatiosAreKept) {
  const auto [standard, range] = GetParam();
  const histeq::LumaMatrix m = histeq::luma_matrix(standard);
  const int width = 640, height = 360, stride = width * 4;
  std::vector<std::uint8_t> frame = rgb_pixels(width, height, stride, 4, 11);
  // Dark coloured pixels whose luma rounds to 0 under every matrix: (0, 0, 1..4) and (1, 0, 0).
  for (int k = 0; k < 40; ++k) {
    frame[4 * std::size_t(k)] = std::uint8_t(k % 5 == 4);
    frame[4 * std::size_t(k) + 1] = 0;
    frame[4 * std::size_t(k) + 2] = std::uint8_t(k % 5 == 4 ? 0 : 1 + k % 5);
  }
  const std::vector<std::uint8_t> before = frame;
  CpuEqualizer equalizer(1);
  const auto lut =
      equalizer.equalize(RgbView{frame.data(), width, height, stride, 4, 0, 1, 2, m}, range);
  std::vector<double> shifts;
  int limited = 0, lifted = 0;
  for (std::size_t i = 0; i < frame.size(); i += 4) {
    const int r0 = before[i], g0 = before[i + 1], b0 = before[i + 2];
    const int r1 = frame[i], g1 = frame[i + 1], b1 = frame[i + 2];
    const int largest0 = std::max({r0, g0, b0}), largest1 = std::max({r1, g1, b1});
    if (histeq::rgb_luma(std::uint32_t(r0), std::uint32_t(g0), std::uint32_t(b0), m) == 0) {
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(frame[i + c], std::min(before[i + c] + lut[0], 255)) << "pixel " << i / 4;
      lifted += largest0 > 0;
      continue;
    }
    if (largest1 == 255) ++limited;
    // c1 / largest1 equals c0 / largest0 up to the rounding of both channels.
    for (int c = 0; c < 3; ++c) {
      const double ratio0 = double(before[i + c]) / largest0;
      const double ratio1 = double(frame[i + c]) / std::max(largest1, 1);
      ASSERT_LE(std::abs(ratio1 - ratio0), 1.0 / std::max(largest1, 1) + 1e-9) << "pixel " << i / 4;
    }
    if (largest0 - std::min({r0, g0, b0}) >= 24) {
      double shift = std::abs(hue_degrees(r1, g1, b1) - hue_degrees(r0, g0, b0));
      shifts.push_back(std::min(shift, 360 - shift));
    }
  }
  ASSERT_GT(shifts.size(), frame.size() / 40);
  std::nth_element(shifts.begin(), shifts.begin() + shifts.size() / 2, shifts.end());
  EXPECT_LT(shifts[shifts.size() / 2], 2.0);
  EXPECT_GT(limited, 0) << "no pixel reached full scale: the headroom rule went untested";
  EXPECT_EQ(lifted, 40);
}

INSTANTIATE_TEST_SUITE_P(
    MatricesAndRanges, PackedRgbColour,
    ::testing::Combine(::testing::Values(LumaStandard::kBt709, LumaStandard::kBt601,
                                         LumaStandard::kBt2020),
                       ::testing::Values(histeq::full_range(8), histeq::limited_range(8))),
    colour_case_name);

// CLAHE sees the same luma through every layout: packed 4:2:2 equals the plane of its luma
// bytes, and 16-bit words holding 8-bit levels equal the bytes, frame after frame with
// smoothing per tile.
TEST(PackedClahe, EveryLayoutOfTheSameLumaGivesTheSameLevels) {
  const int width = 150, height = 90;
  histeq::Settings settings;
  settings.mode = histeq::Mode::kClahe;
  settings.tiles_x = 4;
  settings.tiles_y = 6;
  settings.clip_limit = 3;
  settings.smoothing = 4;
  const histeq::Params params = histeq::to_params(settings);
  CpuEqualizer planar(1), packed(2);
  histeq::DeepCpuEqualizer words(3, histeq::SampleLayout{8, 6});
  for (unsigned frame = 0; frame < 4; ++frame) {
    std::vector<std::uint8_t> luma = dull_levels(width, height, frame);
    std::vector<std::uint8_t> bytes = packed_yuv(luma, width, height, 2 * width, 1, frame);
    std::vector<std::uint16_t> msb(luma.size());
    for (std::size_t i = 0; i < luma.size(); ++i) msb[i] = std::uint16_t(luma[i] << 6);
    planar.equalize(histeq::LumaPlane8{luma.data(), width, height, width}, histeq::full_range(8),
                    params, frame == 0);
    packed.equalize(PackedYuvView{bytes.data(), width, height, 2 * width, 1}, histeq::full_range(8),
                    params, frame == 0);
    words.equalize(histeq::LumaPlane16{msb.data(), width, height, 2 * width}, histeq::full_range(8),
                   params, frame == 0);
    for (std::size_t i = 0; i < luma.size(); ++i) {
      ASSERT_EQ(bytes[2 * i + 1], luma[i]) << "frame " << frame << " pixel " << i;
      ASSERT_EQ(msb[i], luma[i] << 6) << "frame " << frame << " pixel " << i;
    }
    EXPECT_EQ(packed.histogram(), planar.histogram());
  }
}
