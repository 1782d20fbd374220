// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cstdlib>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "../address_space_limit.h"
#include "cpu_equalizer.h"
#include "reference.h"

using namespace histeq;

namespace {

// Seed 000, Figure 2 (input) and Figure 5 (its equalized output).
const std::vector<std::uint8_t> kSeedInput = {
    52, 55, 61, 59, 79, 61,  76,  61,  62, 59, 55, 104, 94, 85,  59,  71, 63, 65, 66, 113, 144, 104,
    63, 72, 64, 70, 70, 126, 154, 109, 71, 69, 67, 73,  68, 106, 122, 88, 68, 68, 68, 79,  60,  70,
    77, 66, 58, 75, 69, 85,  64,  58,  55, 61, 65, 83,  70, 87,  69,  68, 65, 73, 78, 90};
const std::vector<std::uint8_t> kSeedOutput = {
    0,   12,  53,  32,  190, 53,  174, 53,  57,  32,  12,  227, 219, 202, 32,  154,
    65,  85,  93,  239, 251, 227, 65,  158, 73,  146, 146, 247, 255, 235, 154, 130,
    97,  166, 117, 231, 243, 210, 117, 117, 117, 190, 36,  146, 178, 93,  20,  170,
    130, 202, 73,  20,  12,  53,  85,  194, 146, 206, 130, 117, 85,  166, 182, 215};

// A plane with `padding` bytes after each row, filled with a sentinel that must survive.
struct PaddedPlane {
  static constexpr std::uint8_t kSentinel = 0xA5;
  int width, height, stride;
  std::vector<std::uint8_t> bytes;

  PaddedPlane(int w, int h, int padding)
      : width(w), height(h), stride(w + padding), bytes(std::size_t(stride) * h, kSentinel) {}

  void set_visible(const std::vector<std::uint8_t> &pixels) {
    for (int y = 0; y < height; ++y)
      std::copy_n(pixels.begin() + std::ptrdiff_t(y) * width, width, bytes.begin() + y * stride);
  }
  std::vector<std::uint8_t> visible() const {
    std::vector<std::uint8_t> out(std::size_t(width) * height);
    for (int y = 0; y < height; ++y)
      std::copy_n(bytes.begin() + y * stride, width, out.begin() + std::ptrdiff_t(y) * width);
    return out;
  }
  bool padding_intact() const {
    for (int y = 0; y < height; ++y)
      for (int x = width; x < stride; ++x)
        if (bytes[y * stride + x] != kSentinel) return false;
    return true;
  }
  LumaPlane8 view() { return LumaPlane8{bytes.data(), width, height, stride}; }
};

std::vector<std::uint8_t> equalize_copy(CpuEqualizer &eq, const std::vector<std::uint8_t> &pixels,
                                        int width, int height, OutputRange range, int padding = 0) {
  PaddedPlane plane(width, height, padding);
  plane.set_visible(pixels);
  eq.equalize(plane.view(), range);
  EXPECT_TRUE(plane.padding_intact());
  return plane.visible();
}

}  // namespace

TEST(CpuEqualizer, SeedReportEightByEightExample) {
  CpuEqualizer eq(1);
  EXPECT_EQ(equalize_copy(eq, kSeedInput, 8, 8, full_range(8)), kSeedOutput);
}

TEST(CpuEqualizer, EveryConstantFrameMapsToItself) {
  CpuEqualizer eq(2);
  for (int v = 0; v < 256; ++v) {
    const std::vector<std::uint8_t> frame(64 * 48, std::uint8_t(v));
    EXPECT_EQ(equalize_copy(eq, frame, 64, 48, full_range(8)), frame) << "value " << v;
    EXPECT_EQ(equalize_copy(eq, frame, 64, 48, limited_range(8)), frame) << "value " << v;
  }
}

// A flat frame is every pixel at the LUT's value for its level, also where that LUT is not the
// identity (the clip limit spreads the one bin over the others), on every thread count, with the
// row padding untouched.
TEST(CpuEqualizer, FlatFrameWithOptionsTakesItsLevelsMappedValue) {
  Settings settings;
  settings.strength = 0.8;
  settings.clip_limit = 2;
  settings.smoothing = 10;
  const Params options = to_params(settings);
  for (unsigned threads : {1u, 2u, 3u}) {
    for (const int v : {0, 17, 128, 255}) {
      CpuEqualizer eq(threads);
      PaddedPlane plane(333, 97, 11);
      plane.set_visible(std::vector<std::uint8_t>(333 * 97, std::uint8_t(v)));
      const CpuEqualizer::Lut lut = eq.equalize(plane.view(), full_range(8), options);
      if (v == 128) {
        ASSERT_NE(lut[128], 128) << "the mid-grey frame's LUT moves it";
      }
      EXPECT_EQ(plane.visible(), std::vector<std::uint8_t>(333 * 97, lut[v]))
          << "level " << v << ", " << threads << " threads";
      EXPECT_TRUE(plane.padding_intact());
    }
  }
}

TEST(CpuEqualizer, OnePixelFrameIsUnchanged) {
  CpuEqualizer eq(0);
  EXPECT_EQ(equalize_copy(eq, {123}, 1, 1, full_range(8), 7), std::vector<std::uint8_t>{123});
}

TEST(CpuEqualizer, AllLevelsInLimitedRangeAreCompressed) {
  std::vector<std::uint8_t> frame(256 * 4);
  for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = std::uint8_t(i);
  CpuEqualizer eq(1);
  const auto full = equalize_copy(eq, frame, 256, 4, full_range(8));
  const auto limited = equalize_copy(eq, frame, 256, 4, limited_range(8));
  EXPECT_EQ(full, reference::equalize(frame, 0, 255));
  EXPECT_EQ(limited, reference::equalize(frame, 16, 235));
  EXPECT_NE(full, limited);
}

// Random and natural-like frames, odd sizes, padded strides, 1..N threads, both ranges.
class CpuEqualizerRandom
    : public ::testing::TestWithParam<std::tuple<int, int, int, unsigned, bool>> {};

TEST_P(CpuEqualizerRandom, MatchesPlainReference) {
  const auto [width, height, padding, threads, limited] = GetParam();
  std::mt19937 rng(width * 7919 + height * 31 + padding + threads);
  std::vector<std::uint8_t> frame(std::size_t(width) * height);
  // A low-contrast gradient with noise, the content the element is for.
  std::normal_distribution<double> noise(0.0, 6.0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double base = 90.0 + 40.0 * x / std::max(1, width - 1) + 10.0 * y / std::max(1, height);
      frame[std::size_t(y) * width + x] = std::uint8_t(std::clamp(base + noise(rng), 0.0, 255.0));
    }
  CpuEqualizer eq(threads);
  const OutputRange range = limited ? limited_range(8) : full_range(8);
  EXPECT_EQ(equalize_copy(eq, frame, width, height, range, padding),
            reference::equalize(frame, int(range.lo), int(range.hi)));

  std::uniform_int_distribution<int> uniform(0, 255);
  for (auto &p : frame) p = std::uint8_t(uniform(rng));
  EXPECT_EQ(equalize_copy(eq, frame, width, height, range, padding),
            reference::equalize(frame, int(range.lo), int(range.hi)));
}

INSTANTIATE_TEST_SUITE_P(Sizes, CpuEqualizerRandom,
                         ::testing::Values(std::make_tuple(1, 1, 0, 1u, false),
                                           std::make_tuple(3, 3, 5, 1u, true),
                                           std::make_tuple(7, 3, 9, 2u, false),
                                           std::make_tuple(17, 1, 15, 1u, false),
                                           std::make_tuple(385, 289, 63, 4u, false),
                                           std::make_tuple(385, 289, 63, 4u, true),
                                           std::make_tuple(1920, 1080, 128, 0u, false),
                                           std::make_tuple(1920, 1080, 0, 3u, true),
                                           std::make_tuple(4097, 2161, 31, 0u, false)));

namespace {

// Exits 0 when a pool asked for 64 threads under an address-space limit started fewer,
// equalized with them and let no exception out.
[[noreturn]] void equalize_under_an_address_space_limit() {
  if (!limit_address_space_to_a_few_thread_stacks()) std::exit(2);
  CpuEqualizer eq(64);
  if (eq.threads() >= 64 || eq.requested_threads() != 64) std::exit(3);
  std::vector<std::uint8_t> pixels(640 * 480);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint8_t(i * 7);
  const auto expected = reference::equalize(pixels, 0, 255);
  eq.equalize(LumaPlane8{pixels.data(), 640, 480, 640}, full_range(8));
  std::exit(pixels == expected ? 0 : 4);
}

}  // namespace

// Under an address-space limit most worker threads cannot get a stack: the pool starts the
// ones it can, equalizes with them, and no exception escapes. In a child process, so the limit
// stays there.
TEST(RowPoolDeathTest, ThreadsThatCannotStartAreLeftOut) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's shadow memory does not fit under an address-space limit";
#endif
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(equalize_under_an_address_space_limit(), ::testing::ExitedWithCode(0), "");
}
