// SPDX-License-Identifier: LGPL-2.1-or-later
// 10, 12 and 16-bit luma through DeepCpuEqualizer: one bin per level, the same definition as
// 8 bits (an 8-bit layout in words gives the bytes' result), limited range scaled to the depth,
// MSB-aligned words (P010) keeping their low bits zero, and every option through ToneMap.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "tone_map.h"

using histeq::DeepCpuEqualizer;
using histeq::SampleLayout;

namespace {

// A gradient over 40% of the levels of `bits`, with noise: at 10 bits about 400 levels in, which
// equalization spreads over the whole range.
std::vector<std::uint32_t> gradient_levels(int width, int height, int bits, unsigned seed) {
  std::mt19937 random(seed);
  const double top = double((1u << bits) - 1);
  std::vector<std::uint32_t> levels(std::size_t(width) * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double ramp = top * (0.25 + 0.4 * (x + y) / double(width + height));
      const double noise = double(int(random() % 9) - 4) * top / 1023.0;
      levels[std::size_t(y) * width + x] = std::uint32_t(std::clamp(ramp + noise, 0.0, top));
    }
  }
  return levels;
}

std::vector<std::uint16_t> words_of(const std::vector<std::uint32_t> &levels, SampleLayout layout) {
  std::vector<std::uint16_t> words;
  for (std::uint32_t level : levels) words.push_back(layout.word_of(level));
  return words;
}

}  // namespace

TEST(DeepCpuEqualizer, EightBitsInWordsAreTheBytesResult) {
  const int width = 161, height = 97;
  const auto levels = gradient_levels(width, height, 8, 3);
  std::vector<std::uint8_t> bytes(levels.begin(), levels.end());
  auto words = words_of(levels, SampleLayout{8, 0});
  histeq::CpuEqualizer eight(1);
  DeepCpuEqualizer deep(2, SampleLayout{8, 0});
  for (const auto range : {histeq::full_range(8), histeq::limited_range(8)}) {
    auto b = bytes;
    auto w = words;
    eight.equalize(histeq::LumaPlane8{b.data(), width, height, width}, range);
    deep.equalize(histeq::LumaPlane16{w.data(), width, height, width * 2}, range);
    ASSERT_EQ(std::vector<std::uint16_t>(b.begin(), b.end()), w);
    EXPECT_TRUE(
        std::equal(deep.histogram().begin(), deep.histogram().end(), eight.histogram().begin()));
  }
}

TEST(DeepCpuEqualizer, TenBitsUseMoreThan256LevelsWithinTheRange) {
  const int width = 640, height = 360;
  const SampleLayout layout{10, 0};
  const auto levels = gradient_levels(width, height, 10, 5);
  for (const auto range : {histeq::full_range(10), histeq::limited_range(10)}) {
    auto words = words_of(levels, layout);
    DeepCpuEqualizer deep(2, layout);
    deep.equalize(histeq::LumaPlane16{words.data(), width, height, width * 2}, range);
    const std::set<std::uint16_t> distinct(words.begin(), words.end());
    EXPECT_GT(distinct.size(), 256u);
    EXPECT_EQ(*distinct.begin(), range.lo);
    EXPECT_EQ(*distinct.rbegin(), range.hi);
    EXPECT_EQ(deep.histogram().size(), 1024u);
    std::uint64_t pixels = 0;
    for (std::uint64_t count : deep.histogram()) pixels += count;
    EXPECT_EQ(pixels, std::uint64_t(width) * height);
  }
  EXPECT_EQ(histeq::limited_range(10).lo, 64u);
  EXPECT_EQ(histeq::limited_range(10).hi, 940u);
}

// P010 keeps its 10 bits at the top of the word: the result is the LSB-aligned one, shifted,
// and the low six bits stay zero.
TEST(DeepCpuEqualizer, MsbAlignedWordsKeepTheirLowBitsZero) {
  const int width = 333, height = 201;
  const auto levels = gradient_levels(width, height, 10, 7);
  auto lsb = words_of(levels, SampleLayout{10, 0});
  auto msb = words_of(levels, SampleLayout{10, 6});
  DeepCpuEqualizer low(1, SampleLayout{10, 0});
  DeepCpuEqualizer high(2, SampleLayout{10, 6});
  low.equalize(histeq::LumaPlane16{lsb.data(), width, height, width * 2}, histeq::full_range(10));
  high.equalize(histeq::LumaPlane16{msb.data(), width, height, width * 2}, histeq::full_range(10));
  for (std::size_t i = 0; i < msb.size(); ++i) {
    ASSERT_EQ(msb[i] & 0x3F, 0) << i;
    ASSERT_EQ(msb[i] >> 6, lsb[i]) << i;
  }
}

// Bits above a 10-bit word's ten (a malformed word) count as the top level and come out as its
// LUT entry; the row padding is never touched.
TEST(DeepCpuEqualizer, OutOfRangeWordsCountAsTheTopLevel) {
  const int width = 5, height = 2, stride_words = 8;
  std::vector<std::uint16_t> words(std::size_t(stride_words) * height, 0xBEEF);
  const std::uint16_t samples[] = {0, 100, 1023, 0xFFFF, 2048, 1, 2, 3, 4, 1023};
  for (int i = 0; i < width * height; ++i)
    words[std::size_t(i / width) * stride_words + i % width] = samples[i];
  DeepCpuEqualizer deep(1, SampleLayout{10, 0});
  const auto &lut = deep.equalize(
      histeq::LumaPlane16{words.data(), width, height, stride_words * 2}, histeq::full_range(10));
  EXPECT_EQ(deep.histogram()[1023], 4u);
  EXPECT_EQ(words[3], lut[1023]);
  EXPECT_EQ(words[4], lut[1023]);
  for (int y = 0; y < height; ++y)
    for (int x = width; x < stride_words; ++x)
      EXPECT_EQ(words[std::size_t(y) * stride_words + x], 0xBEEF);
}

// Every word counts at its level (SampleLayout::level_of) in each layout the count takes its own
// way: LSB-aligned (a clamp, no shift), P010's and P012's MSB alignment (a shift, no clamp), any
// other shift, and 16 bits; random words, malformed ones included.
TEST(DeepCpuEqualizer, EveryLayoutCountsEachWordAtItsLevel) {
  std::mt19937 random(29);
  const int width = 261, height = 7;
  for (const SampleLayout layout :
       {SampleLayout{10, 0}, SampleLayout{10, 6}, SampleLayout{12, 0}, SampleLayout{12, 4},
        SampleLayout{10, 2}, SampleLayout{9, 3}, SampleLayout{16, 0}}) {
    SCOPED_TRACE(std::to_string(layout.bits) + " bits at shift " + std::to_string(layout.shift));
    std::vector<std::uint16_t> words(std::size_t(width) * height);
    for (auto &word : words) word = std::uint16_t(random());
    std::vector<std::uint64_t> expected(layout.levels(), 0);
    for (const std::uint16_t word : words) expected[layout.level_of(word)]++;
    DeepCpuEqualizer deep(1, layout);
    deep.equalize(histeq::LumaPlane16{words.data(), width, height, width * 2},
                  histeq::full_range(layout.bits));
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), deep.histogram().begin()));
  }
}

// One level everywhere, counted by one thread in one pass over the frame: in a 4K frame, in rows
// of more than eight times 65536 words, and in rows of 7 words (all of them the first
// sub-histogram's, left over from no step of eight): its bin holds every word (the count's 16-bit
// sub-counters are flushed before they wrap).
TEST(DeepCpuEqualizer, OneLevelEverywhereCountsEveryWord) {
  for (const auto &[width, height] :
       {std::pair{3840, 2160}, std::pair{600001, 2}, std::pair{7, 20000}}) {
    for (const SampleLayout layout : {SampleLayout{10, 0}, SampleLayout{12, 4}}) {
      std::vector<std::uint16_t> words(std::size_t(width) * height, layout.word_of(700));
      DeepCpuEqualizer deep(1, layout);
      deep.equalize(histeq::LumaPlane16{words.data(), width, height, std::ptrdiff_t(width) * 2},
                    histeq::full_range(layout.bits));
      EXPECT_EQ(deep.histogram()[700], std::uint64_t(width) * height)
          << width << "x" << height << ", " << layout.bits << " bits";
    }
  }
}

// Every option at 12 and 16 bits: the output is ToneMap's LUT of the same stream, applied.
TEST(DeepCpuEqualizer, EveryOptionFollowsToneMapAtEveryDepth) {
  histeq::Settings settings;
  settings.strength = 0.7;
  settings.clip_limit = 3;
  settings.smoothing = 6;
  const histeq::Params params = histeq::to_params(settings);
  for (int bits : {12, 16}) {
    const SampleLayout layout{bits, 0};
    const int width = 257, height = 129;
    DeepCpuEqualizer deep(2, layout);
    histeq::ToneMap reference(int(layout.levels()));
    std::vector<std::uint16_t> lut(layout.levels());
    for (int frame = 0; frame < 4; ++frame) {
      const auto levels = gradient_levels(width, height, bits, unsigned(11 + frame));
      auto words = words_of(levels, layout);
      std::vector<std::uint64_t> histogram(layout.levels(), 0);
      for (std::uint32_t level : levels) histogram[level]++;
      const bool restarted = reference.build(histogram.data(), params, histeq::full_range(bits),
                                             frame == 0, lut.data());
      deep.equalize(histeq::LumaPlane16{words.data(), width, height, width * 2},
                    histeq::full_range(bits), params, frame == 0);
      EXPECT_EQ(deep.restarted(), restarted) << bits << " bits, frame " << frame;
      EXPECT_EQ(deep.histogram(), histogram);
      for (std::size_t i = 0; i < levels.size(); ++i)
        ASSERT_EQ(words[i], lut[levels[i]]) << bits << " bits, frame " << frame << ", pixel " << i;
    }
  }
}
