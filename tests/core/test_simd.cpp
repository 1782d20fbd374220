// SPDX-License-Identifier: LGPL-2.1-or-later
// The SIMD paths of the core against their scalar references, on every SIMD target this CPU
// runs (Highway's dynamic dispatch, forced to each in turn): byte for byte, at every width
// around the vector sizes, with row padding that must stay untouched.
#include <algorithm>
#include <utility>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "clahe.h"
#include "clahe_blend.h"
#include "equal_run.h"
#include "level_range.h"
#include "luma_histogram.h"
#include "lut_map.h"
#include "packed_map.h"

namespace {

using Lut = std::vector<std::uint8_t>;

std::vector<Lut> luts() {
  std::mt19937 random(7);
  Lut identity(256), reverse(256), noise(256), constant(256, 77), steps(256);
  for (int v = 0; v < 256; ++v) {
    identity[v] = std::uint8_t(v);
    reverse[v] = std::uint8_t(255 - v);
    noise[v] = std::uint8_t(random());
    steps[v] = std::uint8_t(v / 16 * 17);
  }
  return {identity, reverse, noise, constant, steps};
}

// Dispatch follows the forced target until the end of the scope.
class ForcedTarget {
 public:
  explicit ForcedTarget(std::int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~ForcedTarget() { hwy::SetSupportedTargetsForTest(0); }
};

}  // namespace

TEST(SimdTarget, DispatchRunsTheForcedTarget) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    EXPECT_STREQ(histeq::simd_target_name(), hwy::TargetName(target));
  }
}

// The core is built for the targets the project ships for (meson's Highway flags): a build that
// lost them would fall back to a baseline target on every CPU and still pass every test above.
TEST(SimdTarget, TheCoreIsBuiltForEveryTargetItShipsFor) {
#if HWY_ARCH_X86_64
  const std::int64_t shipped[] = {HWY_SSSE3, HWY_SSE4, HWY_AVX2, HWY_AVX3, HWY_AVX3_DL};
#elif HWY_ARCH_ARM_A64
  const std::int64_t shipped[] = {HWY_NEON, HWY_SVE, HWY_SVE2, HWY_SVE_256, HWY_SVE2_128};
#else
  const std::int64_t shipped[] = {HWY_SCALAR};
#endif
  int checked = 0;
  for (const std::int64_t target : shipped) {
    if ((hwy::SupportedTargets() & target) == 0) continue;
    const ForcedTarget forced(target);
    EXPECT_STREQ(histeq::simd_target_name(), hwy::TargetName(target));
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "this CPU runs none of the shipped targets";
}

// histeq-cpu-bench's --widest-target: targets set aside by DisableTargets are not dispatched to.
TEST(SimdTarget, DisabledTargetsAreNotDispatched) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  if (targets.size() < 2) GTEST_SKIP() << "this CPU runs one SIMD target";
  hwy::DisableTargets(targets[0]);
  const std::string capped = histeq::simd_target_name();
  hwy::DisableTargets(0);
  EXPECT_EQ(capped, hwy::TargetName(targets[1]));
  EXPECT_STREQ(histeq::simd_target_name(), hwy::TargetName(targets[0]));
}

TEST(ApplyLut, EveryTargetEqualsTheScalarReference) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  std::mt19937 random(11);
  for (const std::int64_t target : targets) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const Lut &lut : luts()) {
      for (int width : {1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 1927}) {
        const int height = 3;
        const int stride = width + 5;
        std::vector<std::uint8_t> plane(std::size_t(stride) * height);
        for (auto &b : plane) b = std::uint8_t(random());
        std::vector<std::uint8_t> reference = plane;
        const std::vector<std::uint8_t> before = plane;
        histeq::apply_lut(histeq::LumaPlane8{plane.data(), width, height, stride}, 0, height,
                          lut.data());
        histeq::apply_lut_scalar(histeq::LumaPlane8{reference.data(), width, height, stride}, 0,
                                 height, lut.data());
        ASSERT_EQ(plane, reference) << "width " << width;
        for (int y = 0; y < height; ++y)
          for (int x = width; x < stride; ++x)
            ASSERT_EQ(plane[std::size_t(y * stride + x)], before[std::size_t(y * stride + x)]);
      }
    }
  }
}

TEST(ApplyLut, EverySampleValueThroughEveryTarget) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const Lut &lut : luts()) {
      std::vector<std::uint8_t> plane(256);
      for (int v = 0; v < 256; ++v) plane[std::size_t(v)] = std::uint8_t(v);
      histeq::apply_lut(histeq::LumaPlane8{plane.data(), 256, 1, 256}, 0, 1, lut.data());
      ASSERT_EQ(plane, lut);
    }
  }
}

// Flat runs (counted sixteen at a time) at every alignment, mixed with noise over every level or
// over a few, odd widths, in planes counted a byte at a time and in planes large enough to be
// counted in pairs (each counted twice: the pairs' table is left cleared for the next count),
// on every target, against one count per sample.
TEST(LumaHistogram, FlatRunsAndNoiseCountLikeOneSampleAtATime) {
  std::mt19937 random(5);
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int height : {7, 61}) {
      for (int width : {1, 15, 16, 17, 33, 64, 100, 1927}) {
        // Flat stretches of up to 19 pixels (lone flat steps) and of up to 157 (runs of steps).
        for (const auto &[noise_levels, period] : {std::pair{256, 19}, {11, 19}, {11, 157}}) {
          const int stride = width + 3;
          std::vector<std::uint8_t> plane(std::size_t(stride) * height);
          for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
              const bool flat = (x + 3 * y) / period % 2 == 0;
              plane[std::size_t(y * stride + x)] =
                  std::uint8_t(flat ? 40 + y : 90 + int(random() % unsigned(noise_levels)));
            }
          }
          histeq::LumaHistogram8 expected{};
          for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) expected[plane[std::size_t(y * stride + x)]]++;
          const histeq::ConstLumaPlane8 view{plane.data(), width, height, stride};
          for (int count = 0; count < 2; ++count) {
            EXPECT_EQ(histeq::luma_histogram(view), expected)
                << width << "x" << height << ", noise over " << noise_levels
                << " levels, flat stretches of " << period;
          }
        }
      }
    }
  }
}

// The run of bytes equal to a value, in steps of 16, ending at every place in and past the
// vectors of every target; none where the first byte differs, and none read where n is 0.
TEST(EqualRun, EveryTargetEqualsTheScalarReference) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int n : {1, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 300}) {
      for (int end = 0; end <= n; ++end) {
        std::vector<std::uint8_t> bytes(std::size_t(n), 7);
        if (end < n) bytes[std::size_t(end)] = 8;
        EXPECT_EQ(histeq::equal_run(bytes.data(), n, 7), end / 16 * 16)
            << "n " << n << ", first other byte at " << end;
        EXPECT_EQ(histeq::equal_run_scalar(bytes.data(), n, 7), end / 16 * 16);
        EXPECT_EQ(histeq::equal_run(bytes.data(), n, 9), 0);
      }
    }
    EXPECT_EQ(histeq::equal_run(nullptr, 0, 7), 0);
  }
}

// Flat stretches of different levels side by side, each as long as a run the count measures at
// once (64 bytes and more) or shorter, meeting at 16-byte steps and between them, in planes
// counted over the sub-histograms (small) and over pairs (large), on every target.
TEST(LumaHistogram, NeighbouringFlatStretchesOfOtherLevelsKeepTheirOwnCounts) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const int stretch : {48, 64, 80, 128, 200}) {
      for (const auto &[width, height] : {std::pair{640, 8}, {1927, 61}}) {
        // The padding holds each row's last level, so a count that read past the width would
        // count more of it.
        const int stride = width + 21;
        std::vector<std::uint8_t> plane(std::size_t(stride) * height);
        histeq::LumaHistogram8 expected{};
        for (int y = 0; y < height; ++y) {
          for (int x = 0; x < stride; ++x) {
            const auto level = std::uint8_t((std::min(x, width - 1) / stretch + y) % 3 * 100);
            plane[std::size_t(y * stride + x)] = level;
            if (x < width) expected[level]++;
          }
        }
        const histeq::ConstLumaPlane8 view{plane.data(), width, height, stride};
        EXPECT_EQ(histeq::luma_histogram(view), expected)
            << width << "x" << height << ", stretches of " << stretch;
        histeq::LumaCounter counter;
        counter.restart(std::uint64_t(width) * std::uint64_t(height));
        counter.count(view, 0, height);
        histeq::LumaHistogram8 counted{};
        counter.add_to(counted);
        EXPECT_EQ(counted, expected) << width << "x" << height << ", stretches of " << stretch;
      }
    }
  }
}

// Every sample of the rows set to one value at widths around the vector sizes, the padding
// untouched, on every target.
TEST(FillRows, EveryTargetSetsTheVisibleSamplesAlone) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int width : {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1927}) {
      const int stride = width + 7, height = 5;
      std::vector<std::uint8_t> plane(std::size_t(stride) * height, 0x5A);
      histeq::fill_rows(histeq::LumaPlane8{plane.data(), width, height, stride}, 1, 4, 0xC3);
      for (int y = 0; y < height; ++y) {
        for (int x = 0; x < stride; ++x) {
          const bool filled = y >= 1 && y < 4 && x < width;
          ASSERT_EQ(plane[std::size_t(y * stride + x)], filled ? 0xC3 : 0x5A)
              << "width " << width << ", row " << y << ", x " << x;
        }
      }
    }
  }
}

// The least and greatest level of any rows of planes of odd widths and strides, the extremes at
// every place in a row (in the vectors' lanes and past them), and of no rows, on every target.
TEST(LevelRange, LeastAndGreatestOfAnyRowsOnEveryTarget) {
  std::mt19937 random(11);
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int width : {1, 15, 63, 64, 65, 129, 1927}) {
      const int height = 5, stride = width + 7;
      std::vector<std::uint8_t> plane(std::size_t(stride) * height, 0);
      for (std::uint8_t &v : plane) v = std::uint8_t(100 + random() % 20);
      for (int y = 0; y < height; ++y) {
        // Padding beyond the width holds what the range must not see.
        for (int x = width; x < stride; ++x) plane[std::size_t(y * stride + x)] = x % 2 ? 0 : 255;
      }
      const histeq::ConstLumaPlane8 view{plane.data(), width, height, stride};
      for (int place : {0, width / 2, width - 1}) {
        plane[std::size_t(2 * stride + place)] = 3;
        plane[std::size_t(3 * stride + (width - 1 - place))] = 250;
        for (int begin = 0; begin <= height; ++begin) {
          for (int end = begin; end <= height; ++end) {
            std::uint8_t least = 0xff, greatest = 0;
            for (int y = begin; y < end; ++y) {
              const auto [lo, hi] = std::minmax_element(plane.begin() + y * stride,
                                                        plane.begin() + y * stride + width);
              least = std::min(least, *lo);
              greatest = std::max(greatest, *hi);
            }
            const histeq::LevelRange range = histeq::level_range(view, begin, end);
            EXPECT_EQ(range.least, least) << "width " << width << ", rows " << begin << ".." << end;
            EXPECT_EQ(range.greatest, greatest)
                << "width " << width << ", rows " << begin << ".." << end;
          }
        }
        plane[std::size_t(2 * stride + place)] = 110;
        plane[std::size_t(3 * stride + (width - 1 - place))] = 110;
      }
    }
  }
}

namespace {

struct RgbLayout {
  int pixel_bytes, red, green, blue;
};

constexpr RgbLayout kRgbLayouts[] = {{4, 0, 1, 2}, {4, 2, 1, 0}, {4, 1, 2, 3},
                                     {4, 3, 2, 1}, {3, 0, 1, 2}, {3, 2, 1, 0}};

constexpr int kPackedWidths[] = {1,  2,  3,  4,  5,   7,   8,   9,   15,  16,  17,
                                 31, 32, 33, 65, 127, 128, 129, 143, 200, 1927};

// A LUT that lifts black, so the luma-0 rule is taken too.
std::vector<Lut> packed_luts() {
  std::vector<Lut> all = luts();
  for (Lut &lut : all) lut[0] = std::max<std::uint8_t>(lut[0], 13);
  return all;
}

}  // namespace

TEST(PackedYuvSimd, EveryTargetEqualsTheScalarReference) {
  std::mt19937 random(13);
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const Lut &lut : luts()) {
      for (int luma_offset : {0, 1}) {
        for (int width : kPackedWidths) {
          const int height = 3, stride = 2 * width + 6;
          std::vector<std::uint8_t> frame(std::size_t(stride) * height);
          for (auto &b : frame) b = std::uint8_t(random());
          std::vector<std::uint8_t> reference = frame;
          const histeq::PackedYuvView view{frame.data(), width, height, stride, luma_offset};
          std::vector<std::uint8_t> luma(std::size_t(width) + 1, 0);
          histeq::gather_luma(view, 1, 0, width, luma.data());
          for (int x = 0; x < width; ++x)
            ASSERT_EQ(luma[x], frame[std::size_t(stride) + 2 * x + luma_offset]) << width;
          histeq::apply_lut(view, 0, height, lut.data());
          histeq::apply_lut_scalar(
              histeq::PackedYuvView{reference.data(), width, height, stride, luma_offset}, 0,
              height, lut.data());
          ASSERT_EQ(frame, reference) << "width " << width << " luma at " << luma_offset;
        }
      }
    }
  }
}

TEST(PackedRgbSimd, EveryTargetEqualsTheScalarReference) {
  std::mt19937 random(17);
  const histeq::LumaMatrix matrix = histeq::luma_matrix(histeq::LumaStandard::kBt2020);
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const Lut &lut : packed_luts()) {
      for (const RgbLayout &l : kRgbLayouts) {
        for (int width : kPackedWidths) {
          const int height = 3, stride = l.pixel_bytes * width + 5;
          std::vector<std::uint8_t> frame(std::size_t(stride) * height);
          // Dark and bright pixels among random ones: luma 0 and full-scale channels.
          for (std::size_t i = 0; i < frame.size(); ++i)
            frame[i] = std::uint8_t(i % 11 == 0 ? random() % 3 : i % 13 == 0 ? 255 : random());
          std::vector<std::uint8_t> reference = frame;
          const histeq::RgbView view{frame.data(), width,   height, stride, l.pixel_bytes,
                                     l.red,        l.green, l.blue, matrix};
          // The map reads back the luma that the count gathered, row by row.
          std::vector<std::uint8_t> luma(std::size_t(width) * height, 0), expected = luma;
          for (int y = 0; y < height; ++y) {
            histeq::gather_luma(view, y, 0, width, &luma[std::size_t(y) * width]);
            histeq::gather_luma_scalar(view, y, 0, width, &expected[std::size_t(y) * width]);
          }
          ASSERT_EQ(luma, expected) << "width " << width;
          histeq::apply_lut(view, 0, height, lut.data(), luma.data(), width);
          histeq::RgbView reference_view = view;
          reference_view.data = reference.data();
          histeq::apply_lut_scalar(reference_view, 0, height, lut.data());
          ASSERT_EQ(frame, reference)
              << "width " << width << " pixel bytes " << l.pixel_bytes << " red at " << l.red;
        }
      }
    }
  }
}

// scale_rgb divides in the lanes where the scalar rule reads rgb.h's tables: every luma, mapped
// luma and largest channel, on every target and for 4- and 3-byte pixels.
TEST(PackedRgbSimd, ScalingEqualsTheScalarReferenceForEveryLumaMappingAndLargestChannel) {
  constexpr int kSide = 256;  // pixel (x, y) goes from luma x to mapped luma y
  std::vector<std::uint8_t> luma(kSide * kSide), mapped(kSide * kSide);
  for (int i = 0; i < kSide * kSide; ++i) {
    luma[i] = std::uint8_t(i % kSide);
    mapped[i] = std::uint8_t(i / kSide);
  }
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const RgbLayout &l : {kRgbLayouts[0], kRgbLayouts[5]}) {
      const int stride = l.pixel_bytes * kSide;
      std::vector<std::uint8_t> frame(std::size_t(stride) * kSide), reference;
      for (int largest = 0; largest < 256; ++largest) {
        for (std::size_t i = 0; i < frame.size(); i += l.pixel_bytes) {
          frame[i + l.red] = std::uint8_t(largest);
          frame[i + l.green] = std::uint8_t(largest * 2 / 3);
          frame[i + l.blue] = std::uint8_t(largest / 5);
          if (l.pixel_bytes == 4) frame[i + 6 - l.red - l.green - l.blue] = 0xA5;
        }
        reference = frame;
        histeq::RgbView view{frame.data(),  kSide, kSide,   stride,
                             l.pixel_bytes, l.red, l.green, l.blue};
        histeq::scale_rgb(view, 0, kSide, luma.data(), mapped.data(), kSide);
        view.data = reference.data();
        histeq::scale_rgb_scalar(view, 0, kSide, luma.data(), mapped.data(), kSide);
        ASSERT_EQ(frame, reference)
            << "largest channel " << largest << ", pixel bytes " << l.pixel_bytes;
      }
    }
  }
}

TEST(ClaheBlendSimd, EveryTargetEqualsTheScalarReference) {
  std::mt19937 random(19);
  const int tiles_x = 5, bins = 256, width = 1927;
  std::vector<std::int32_t> upper(std::size_t(tiles_x) * bins), lower(upper.size());
  for (auto &level : upper) level = std::int32_t(random() % 256);
  for (auto &level : lower) level = std::int32_t(random() % 256);
  std::vector<std::int32_t> first(width), second(width);
  std::vector<float> weight(width);
  for (int x = 0; x < width; ++x) {
    const histeq::TileBlend blend = histeq::tile_blend(x, 1.0f / 385.0f, tiles_x);
    first[x] = blend.first * bins;
    second[x] = blend.second * bins;
    weight[x] = blend.weight;
  }
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (float row_weight : {0.0f, 0.25f, 0.5f, 0.9993f}) {
      const histeq::ClaheRow row{
          first.data(), second.data(), weight.data(), upper.data(), lower.data(), row_weight, 255};
      for (int n : {1, 7, 8, 9, 31, 33, 1927}) {
        std::vector<std::uint8_t> levels(std::size_t(n) + 3);
        for (auto &b : levels) b = std::uint8_t(random());
        std::vector<std::uint8_t> reference = levels;
        histeq::clahe_blend_row(row, levels.data(), n);
        histeq::clahe_blend_row_scalar(row, reference.data(), n);
        ASSERT_EQ(levels, reference) << "width " << n << " row weight " << row_weight;
      }
    }
  }
}

// Words of every depth and alignment, malformed ones (bits above the depth) included; depths of
// fewer levels than a byte permute's 128 entries (its table padded) and other shifts too.
TEST(ApplyLutWords, EveryTargetEqualsTheScalarReference) {
  std::mt19937 random(23);
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const ForcedTarget forced(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const histeq::SampleLayout layout :
         {histeq::SampleLayout{10, 0}, histeq::SampleLayout{10, 6}, histeq::SampleLayout{12, 0},
          histeq::SampleLayout{12, 4}, histeq::SampleLayout{16, 0}, histeq::SampleLayout{7, 0},
          histeq::SampleLayout{9, 3}, histeq::SampleLayout{6, 0}, histeq::SampleLayout{4, 12}}) {
      std::vector<std::uint16_t> lut(layout.levels());
      for (auto &level : lut) level = std::uint16_t(random() % layout.levels());
      histeq::WordLut word_lut;
      word_lut.assign(lut.data(), layout);
      for (int width : {1, 7, 8, 9, 17, 200, 1927}) {
        const int height = 3, stride_words = width + 5;
        std::vector<std::uint16_t> plane(std::size_t(stride_words) * height);
        for (auto &word : plane) word = std::uint16_t(random());
        std::vector<std::uint16_t> reference = plane;
        const std::ptrdiff_t stride = std::ptrdiff_t(stride_words) * 2;
        histeq::apply_lut(histeq::LumaPlane16{plane.data(), width, height, stride}, 0, height,
                          layout, word_lut);
        histeq::apply_lut_scalar(histeq::LumaPlane16{reference.data(), width, height, stride}, 0,
                                 height, layout, lut.data());
        ASSERT_EQ(plane, reference)
            << layout.bits << " bits at shift " << layout.shift << ", width " << width;
      }
    }
  }
}
