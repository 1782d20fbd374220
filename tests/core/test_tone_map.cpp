// SPDX-License-Identifier: LGPL-2.1-or-later
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "frame_stats.h"
#include "params.h"
#include "tone_map.h"
#include "tone_steps.h"

using namespace histeq;

namespace {

using Histogram = std::array<std::uint64_t, 256>;
using Lut = std::array<std::uint8_t, 256>;

Histogram random_histogram(std::mt19937 &rng, int lo, int hi, std::uint64_t pixels) {
  Histogram h{};
  std::uniform_int_distribution<int> level(lo, hi);
  for (std::uint64_t i = 0; i < pixels; ++i) h[std::size_t(level(rng))]++;
  return h;
}

Lut classic_lut(const Histogram &h, OutputRange range) {
  Lut lut{};
  build_equalization_lut(h.data(), 256, range, lut.data());
  return lut;
}

Lut tone_lut(ToneMap &tone, const Histogram &h, const Params &params,
             OutputRange range = full_range(8), bool reset = false, bool *restarted = nullptr) {
  Lut lut{};
  const bool r = tone.build(h.data(), params, range, reset, lut.data());
  if (restarted) *restarted = r;
  return lut;
}

// OpenCV's CLAHE clip (modules/imgproc/src/clahe.cpp), written out on its own as a loop, over
// as many bins as `h` has.
template <typename Bins>
Bins opencv_clip(Bins h, double clip) {
  const auto bins = static_cast<long long>(h.size());
  std::uint64_t total = 0;
  for (auto c : h) total += c;
  long long limit = static_cast<long long>(clip * double(total) / double(bins));
  limit = std::max(limit, 1LL);
  long long clipped = 0;
  for (auto &c : h) {
    if ((long long)c > limit) {
      clipped += (long long)c - limit;
      c = std::uint64_t(limit);
    }
  }
  const long long batch = clipped / bins;
  long long residual = clipped - batch * bins;
  for (auto &c : h) c += std::uint64_t(batch);
  if (residual) {
    const long long step = std::max(bins / residual, 1LL);
    for (long long i = 0; i < bins && residual > 0; i += step, residual--) h[std::size_t(i)]++;
  }
  return h;
}

}  // namespace

TEST(Params, DefaultsAreTheClassicMapping) {
  const Params params = to_params(Settings{});
  EXPECT_TRUE(params.is_classic());
  EXPECT_FALSE(params.is_identity());
}

TEST(Params, ConvertsToFixedPoint) {
  Settings s;
  s.strength = 0.5;
  s.clip_limit = 2.0;
  s.smoothing = 10.0;
  s.scene_threshold = 0.3;
  const Params p = to_params(s);
  EXPECT_EQ(p.strength, 32768u);
  EXPECT_EQ(p.clip_limit, 131072u);
  EXPECT_EQ(p.history_weight, std::uint32_t(std::lround(std::exp(-0.1) * 65536)));
  EXPECT_EQ(p.scene_threshold, std::uint32_t(std::lround(0.3 * 65536)));
  EXPECT_TRUE(p.keep_history);
  s.strength = 0;
  EXPECT_TRUE(to_params(s).is_identity());
  s.strength = 7;  // clamped
  EXPECT_EQ(to_params(s).strength, kQ16One);
}

TEST(Params, StatisticsAloneKeepTheHistory) {
  Settings s;
  s.statistics = true;
  const Params p = to_params(s);
  EXPECT_TRUE(p.keep_history);
  EXPECT_EQ(p.history_weight, 0u);
  EXPECT_FALSE(p.is_classic());
}

TEST(ToneMap, DefaultsGiveTheClassicLut) {
  std::mt19937 rng(7);
  ToneMap tone(256);
  for (int i = 0; i < 50; ++i) {
    const Histogram h = random_histogram(rng, i, 255 - i, 1000 + 37 * i);
    for (OutputRange range : {full_range(8), limited_range(8)})
      EXPECT_EQ(tone_lut(tone, h, Params{}, range), classic_lut(h, range));
  }
}

TEST(ToneMap, StatisticsWithoutSmoothingKeepTheClassicLut) {
  std::mt19937 rng(8);
  ToneMap tone(256);
  Settings s;
  s.statistics = true;
  for (int i = 0; i < 20; ++i) {
    const Histogram h = random_histogram(rng, 10, 200, 5000);
    EXPECT_EQ(tone_lut(tone, h, to_params(s)), classic_lut(h, full_range(8)));
  }
}

TEST(ToneMap, ClipMatchesOpenCvsClipThenTheClassicMapping) {
  std::mt19937 rng(9);
  for (double clip : {0.5, 1.0, 2.0, 3.0, 4.0, 40.0}) {
    for (int i = 0; i < 10; ++i) {
      // Peaked histograms, so the limit bites.
      Histogram h = random_histogram(rng, 30, 90, 20000);
      h[60] += 9000 + 1000 * std::uint64_t(i);
      Settings s;
      s.clip_limit = clip;
      ToneMap tone(256);
      EXPECT_EQ(tone_lut(tone, h, to_params(s)), classic_lut(opencv_clip(h, clip), full_range(8)))
          << "clip " << clip << " round " << i;
    }
  }
}

// At 10, 12 and 16 bits the limit counts in the format's own bins, floor(clip * T / 2^bits), and
// the excess spreads over all of them.
TEST(ToneMap, ClipCountsInTheBinsOfTheDepth) {
  std::mt19937 rng(12);
  for (const int bits : {10, 12, 16}) {
    const std::size_t bins = std::size_t(1) << bits;
    using DeepLut = std::vector<std::uint16_t>;
    const auto classic = [&](const std::vector<std::uint64_t> &h) {
      DeepLut lut(bins);
      build_equalization_lut(h.data(), int(bins), full_range(bits), lut.data());
      return lut;
    };
    for (const double clip : {1.0, 2.0, 4.0}) {
      std::vector<std::uint64_t> h(bins, 0);
      std::uniform_int_distribution<std::size_t> level(bins / 8, bins / 2);
      for (int i = 0; i < 200000; ++i) h[level(rng)]++;
      h[bins / 4] += 50000;
      Settings s;
      s.clip_limit = clip;
      ToneMap tone{int(bins)};
      DeepLut got(bins);
      tone.build(h.data(), to_params(s), full_range(bits), false, got.data());
      EXPECT_EQ(got, classic(opencv_clip(h, clip))) << bits << " bits, clip " << clip;
      // A limit counted in 256 bins (2^(bits - 8) times higher) gives another LUT here.
      EXPECT_NE(got, classic(opencv_clip(h, clip * double(bins) / 256))) << bits << " bits";
    }
  }
}

TEST(ToneMap, ClipKeepsThePixelCount) {
  Histogram h{};
  h[10] = 1000;
  h[200] = 23;
  const std::uint64_t ceiling = clip_ceiling(1023, 2 * kQ16One, 256);
  EXPECT_EQ(ceiling, 7u);  // floor(2 * 1023 / 256)
  std::uint64_t excess = 0;
  for (auto c : h) excess += clip_excess(c, ceiling);
  const ClipSpread spread = clip_spread(ceiling, excess, 256);
  std::uint64_t total = 0;
  for (int v = 0; v < 256; ++v) total += clipped_bin(h[std::size_t(v)], v, spread);
  EXPECT_EQ(total, 1023u);
}

TEST(ToneMap, StrengthBlendsWithIdentity) {
  std::mt19937 rng(10);
  const Histogram h = random_histogram(rng, 40, 120, 8000);
  const Lut full = classic_lut(h, full_range(8));
  ToneMap tone(256);
  Settings s;
  s.strength = 0;
  const Lut none = tone_lut(tone, h, to_params(s));
  s.strength = 0.5;
  const Lut half = tone_lut(tone, h, to_params(s));
  for (int v = 0; v < 256; ++v) {
    EXPECT_EQ(none[std::size_t(v)], v);
    // Half way, rounded half up.
    EXPECT_EQ(half[std::size_t(v)], (v + full[std::size_t(v)] + 1) / 2) << v;
  }
}

TEST(ToneSteps, BlendedLevelIsTheWideRoundedBlendAtEveryDepth) {
  // 32-bit words must hold the blend of 16-bit levels at every strength: compare with the
  // blend in 64-bit words, at the extremes and over random levels.
  const auto wide = [](std::uint64_t v, std::uint64_t level, std::uint64_t strength) {
    return std::uint32_t((v * (kQ16One - strength) + level * strength + kQ16One / 2) >> 16);
  };
  std::mt19937 random(30);
  for (std::uint32_t strength : {0u, 1u, 32768u, 65535u, kQ16One}) {
    for (std::uint32_t v : {0u, 1u, 255u, 65534u, 65535u})
      for (std::uint32_t level : {0u, 1u, 255u, 65534u, 65535u})
        ASSERT_EQ(blended_level(v, level, strength), wide(v, level, strength))
            << v << " " << level << " " << strength;
  }
  for (int i = 0; i < 1000000; ++i) {
    const std::uint32_t v = random() % 65536, level = random() % 65536;
    const std::uint32_t strength = random() % (kQ16One + 1);
    ASSERT_EQ(blended_level(v, level, strength), wide(v, level, strength))
        << v << " " << level << " " << strength;
  }
}

TEST(ToneSteps, EqualizedLevelIsTheSameIn32BitWords) {
  std::mt19937 random(31);
  for (int i = 0; i < 1000000; ++i) {
    const std::uint32_t total = random() % 0x7fffffffu + 1;
    const std::uint32_t cdf_min = random() % total + 1;
    const std::uint32_t cdf = random() % total + 1;
    const std::uint32_t v = random() % 256;
    const OutputRange range = i % 2 ? full_range(8) : limited_range(8);
    ASSERT_EQ(equalized_level<std::uint32_t>(v, cdf, cdf_min, total, range),
              equalized_level(v, cdf, cdf_min, total, range))
        << cdf << " " << cdf_min << " " << total;
  }
}

TEST(ToneSteps, NormalizedBinIsTheQuotientWithinOneUnit) {
  std::mt19937_64 random(20);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t total = 1 + random() % ((std::uint64_t(1) << 32) - 1);
    const std::uint64_t count = i % 3 == 0 ? total : random() % (total + 1);
    const long double exact = (long double)count * kUnitQ30 / total;
    const std::uint64_t normalized = normalized_bin(count, bin_scale(total));
    ASSERT_LE(std::fabs((long double)normalized - exact), 1.0L) << count << " / " << total;
  }
  EXPECT_EQ(normalized_bin(7, bin_scale(7)), kUnitQ30);
  EXPECT_EQ(normalized_bin(0, bin_scale(7)), 0u);
}

TEST(ToneMap, SmoothingFollowsAnExponentialAverage) {
  Histogram dark{}, bright{};
  dark[50] = 600;
  dark[60] = 400;
  bright[150] = 300;
  bright[160] = 700;
  Settings s;
  s.smoothing = 4;
  s.scene_threshold = 1.0;  // never a cut
  const Params p = to_params(s);
  ToneMap tone(256);
  bool restarted = false;
  tone_lut(tone, dark, p, full_range(8), false, &restarted);
  EXPECT_TRUE(restarted);  // no history yet
  EXPECT_NEAR(double(tone.smoothed()[50]), 0.6 * kUnitQ30, 1.0);
  tone_lut(tone, bright, p, full_range(8), false, &restarted);
  EXPECT_FALSE(restarted);
  const double w = std::exp(-0.25);
  EXPECT_NEAR(double(tone.smoothed()[50]) / kUnitQ30, 0.6 * w, 1e-4);
  EXPECT_NEAR(double(tone.smoothed()[160]) / kUnitQ30, 0.7 * (1 - w), 1e-4);
  // The LUT follows the smoothed histogram, not the frame: the bright frame's darkest level,
  // black in its own LUT, keeps the dark frames' weight below it.
  const Lut smoothed = tone_lut(tone, bright, p);
  EXPECT_EQ(classic_lut(bright, full_range(8))[150], 0);
  EXPECT_GT(smoothed[150], 100);
}

TEST(ToneMap, HistoryRestartsOnResetAndOnSceneCut) {
  Histogram a{}, b{}, a_bit_off{};
  a[80] = 1000;
  b[200] = 1000;
  a_bit_off[80] = 900;
  a_bit_off[81] = 100;  // total variation distance 0.1
  Settings s;
  s.smoothing = 10;
  s.scene_threshold = 0.25;
  const Params p = to_params(s);
  ToneMap tone(256);
  bool restarted = false;
  tone_lut(tone, a, p, full_range(8), false, &restarted);
  EXPECT_TRUE(restarted);
  tone_lut(tone, a_bit_off, p, full_range(8), false, &restarted);
  EXPECT_FALSE(restarted);
  const Lut cut = tone_lut(tone, b, p, full_range(8), false, &restarted);
  EXPECT_TRUE(restarted);
  EXPECT_EQ(cut, classic_lut(b, full_range(8)));  // the cut frame's own LUT
  tone_lut(tone, b, p, full_range(8), true, &restarted);
  EXPECT_TRUE(restarted);
  tone_lut(tone, b, p, full_range(8), false, &restarted);
  EXPECT_FALSE(restarted);
}

TEST(ToneMap, AnExposureDriftOfAFewCodesIsNoSceneCut) {
  // Spikes every 9 levels: level by level, a shift of 2 codes changes every bin (a distance of
  // 1), band by band it moves an eighth of the mass.
  Histogram spiky{}, shifted{};
  for (int v = 20; v < 200; v += 9) {
    spiky[std::size_t(v)] = 100;
    shifted[std::size_t(v + 2)] = 100;
  }
  Settings s;
  s.smoothing = 10;
  const Params p = to_params(s);
  ToneMap tone(256);
  bool restarted = false;
  tone_lut(tone, spiky, p, full_range(8), false, &restarted);
  tone_lut(tone, shifted, p, full_range(8), false, &restarted);
  EXPECT_FALSE(restarted);
}

TEST(ToneMap, FramesWithoutHistoryStartItAfresh) {
  Histogram a{};
  a[80] = 1000;
  Settings s;
  s.smoothing = 10;
  ToneMap tone(256);
  bool restarted = false;
  tone_lut(tone, a, to_params(s), full_range(8), false, &restarted);
  tone_lut(tone, a, to_params(Settings{}), full_range(8), false, &restarted);
  EXPECT_FALSE(tone.has_history());
  tone_lut(tone, a, to_params(s), full_range(8), false, &restarted);
  EXPECT_TRUE(restarted);
}

TEST(FrameStats, PercentilesMeanAndExtremes) {
  Histogram h{};
  h[10] = 1;
  h[20] = 4;
  h[30] = 90;
  h[40] = 4;
  h[250] = 1;
  const FrameStats s = frame_stats(h.data(), 256);
  EXPECT_EQ(s.pixels, 100u);
  EXPECT_EQ(s.min, 10u);
  EXPECT_EQ(s.max, 250u);
  EXPECT_DOUBLE_EQ(s.mean, (10 + 80 + 2700 + 160 + 250) / 100.0);
  EXPECT_EQ(s.percentile, (std::array<std::uint32_t, 5>{10, 20, 30, 30, 40}));
}

TEST(FrameStats, EmptyHistogramIsAllZero) {
  Histogram h{};
  const FrameStats s = frame_stats(h.data(), 256);
  EXPECT_EQ(s.pixels, 0u);
  EXPECT_EQ(s.max, 0u);
}

TEST(CpuEqualizer, AppliesTheToneMapsLutAndReportsTheHistogram) {
  std::mt19937 rng(11);
  std::vector<std::uint8_t> pixels(641 * 359);
  std::uniform_int_distribution<int> level(30, 100);
  for (auto &p : pixels) p = std::uint8_t(level(rng));
  std::vector<std::uint8_t> frame = pixels;
  Settings s;
  s.strength = 0.75;
  s.clip_limit = 3;
  s.smoothing = 5;
  s.statistics = true;
  const Params params = to_params(s);
  CpuEqualizer eq(2);
  eq.equalize(LumaPlane8{frame.data(), 641, 359, 641}, limited_range(8), params, true);
  EXPECT_TRUE(eq.restarted());
  Histogram h{};
  for (auto p : pixels) h[p]++;
  EXPECT_EQ(eq.histogram(), h);
  ToneMap tone(256);
  const Lut lut = tone_lut(tone, h, params, limited_range(8), true);
  for (std::size_t i = 0; i < pixels.size(); ++i) ASSERT_EQ(frame[i], lut[pixels[i]]) << i;
}

// Levels absent from the histogram get the entries the kernels give them (the CPU and GPU LUTs
// agree everywhere, not only where pixels are), and the LUT never decreases: with smoothing,
// a frame's pixel can sit on a level the smoothed histogram rounds to zero.
TEST(ToneMap, AbsentLevelsMatchTheKernelsAndTheLutNeverDecreases) {
  Histogram single{};
  single[7] = 1;
  for (OutputRange range : {full_range(8), limited_range(8)}) {
    const Lut lut = classic_lut(single, range);
    for (int v = 0; v < 256; ++v) EXPECT_EQ(lut[std::size_t(v)], v) << "single level: identity";
  }
  Histogram two{};
  two[40] = 3;
  two[90] = 5;
  Settings s;
  s.strength = 0.24;
  for (OutputRange range : {full_range(8), limited_range(8)}) {
    ToneMap tone(256);
    const Lut lut = tone_lut(tone, two, to_params(s), range);
    for (int v = 1; v < 256; ++v) EXPECT_GE(lut[std::size_t(v)], lut[std::size_t(v - 1)]) << v;
  }
}
