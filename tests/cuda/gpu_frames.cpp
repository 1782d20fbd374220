// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpu_frames.h"

#include <algorithm>
#include <random>

#include "cpu_equalizer.h"

std::string content_name(Content content) {
  switch (content) {
    case Content::kUniform:
      return "uniform";
    case Content::kNatural:
      return "natural";
    case Content::kConstant:
      return "constant";
    case Content::kTwoValues:
      return "two-values";
    case Content::kAllLevels:
      return "all-levels";
    case Content::kFlatTiles:
      return "flat-tiles";
  }
  return "unknown";
}

std::vector<std::uint8_t> make_frame(Content content, int width, int height, unsigned seed) {
  std::vector<std::uint8_t> frame(std::size_t(width) * height);
  std::mt19937 rng(seed);
  switch (content) {
    case Content::kUniform:
      for (auto &p : frame) p = std::uint8_t(rng());
      break;
    case Content::kNatural: {
      std::normal_distribution<float> noise(0.f, 4.f);
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const float base = 80.f + 50.f * x / std::max(1, width) + 20.f * y / std::max(1, height);
          frame[std::size_t(y) * width + x] =
              std::uint8_t(std::clamp(base + noise(rng), 0.f, 255.f));
        }
      break;
    }
    case Content::kConstant:
      std::fill(frame.begin(), frame.end(), std::uint8_t(seed));
      break;
    case Content::kTwoValues:
      for (auto &p : frame) p = (rng() & 1) ? 200 : 37;
      break;
    case Content::kAllLevels:
      for (std::size_t i = 0; i < frame.size(); ++i) frame[i] = std::uint8_t(i * 7 + i / 256);
      break;
    case Content::kFlatTiles: {
      constexpr int kTile = 24;
      const int tiles_x = (width + kTile - 1) / kTile;
      std::vector<std::uint8_t> levels(std::size_t(tiles_x) * ((height + kTile - 1) / kTile));
      for (auto &level : levels) level = std::uint8_t(rng() % 6 * 40 + 20);
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
          frame[std::size_t(y) * width + x] = levels[std::size_t(y / kTile) * tiles_x + x / kTile];
      break;
    }
  }
  return frame;
}

std::vector<std::uint8_t> cpu_equalized(std::vector<std::uint8_t> frame, int width, int height,
                                        histeq::OutputRange range) {
  histeq::CpuEqualizer equalizer(0);
  equalizer.equalize(histeq::LumaPlane8{frame.data(), width, height, width}, range);
  return frame;
}
