// SPDX-License-Identifier: LGPL-2.1-or-later
// The defaults are OpenCV's cv::equalizeHist, byte for byte, on full-range frames: with every
// option at its default, and with statistics on (which keeps the history but leaves the LUT
// the frame's own).
#include <algorithm>
#include <cstdio>
#include <string>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "cpu_equalizer.h"
#include "params.h"

namespace {

std::vector<std::uint8_t> make_pixels(std::mt19937 &rng, int width, int height, int kind) {
  std::vector<std::uint8_t> pixels(std::size_t(width) * std::size_t(height));
  std::normal_distribution<double> noise(0, 6);
  std::uniform_int_distribution<int> any(0, 255);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double v = 0;
      switch (kind) {
        case 0:  // foggy gradient
          v = 90 + 40.0 * x / width + 20.0 * y / height + noise(rng);
          break;
        case 1:  // uniform random
          v = any(rng);
          break;
        case 2:  // two flat levels
          v = (x / 7 + y / 5) % 2 ? 30 : 200;
          break;
        default:  // one level
          v = 77;
      }
      pixels[std::size_t(y) * width + x] = std::uint8_t(std::clamp(v, 0.0, 255.0));
    }
  return pixels;
}

}  // namespace

TEST(OpenCv, DefaultsEqualEqualizeHistByteForByte) {
  std::mt19937 rng(2024);
  histeq::Settings statistics;
  statistics.statistics = true;
  for (const histeq::Params &params : {histeq::Params{}, histeq::to_params(statistics)}) {
    histeq::CpuEqualizer ours(2);
    for (auto [width, height] : {std::pair{1, 1}, {3, 2}, {64, 48}, {641, 359}, {1920, 1080}}) {
      for (int kind = 0; kind < 4; ++kind) {
        SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) + " kind " +
                     std::to_string(kind));
        std::vector<std::uint8_t> pixels = make_pixels(rng, width, height, kind);
        const cv::Mat in(height, width, CV_8UC1, pixels.data());
        cv::Mat expected;
        cv::equalizeHist(in, expected);
        ours.equalize(histeq::LumaPlane8{pixels.data(), width, height, width},
                      histeq::full_range(8), params);
        ASSERT_TRUE(std::equal(pixels.begin(), pixels.end(), expected.data));
      }
    }
  }
}

// Small frames of narrow random spans land on ties (a quotient of exactly k + 0.5) often, where
// rounding half up would give one level more than OpenCV.
TEST(OpenCv, TwoThousandSmallRandomFramesMatch) {
  std::mt19937 rng(5);
  histeq::CpuEqualizer ours(1);
  for (int frame = 0; frame < 2000; ++frame) {
    const int width = 1 + int(rng() % 200), height = 1 + int(rng() % 100);
    const unsigned lo = rng() % 256, span = 1 + rng() % 256;
    std::vector<std::uint8_t> pixels(std::size_t(width) * std::size_t(height));
    for (auto &p : pixels) p = std::uint8_t(std::min(255u, lo + unsigned(rng() % span)));
    const cv::Mat in(height, width, CV_8UC1, pixels.data());
    cv::Mat expected;
    cv::equalizeHist(in, expected);
    ours.equalize(histeq::LumaPlane8{pixels.data(), width, height, width}, histeq::full_range(8));
    ASSERT_TRUE(std::equal(pixels.begin(), pixels.end(), expected.data)) << "frame " << frame;
  }
}

// CLAHE mode against OpenCV's createCLAHE(clip, grid).apply() on 8-bit frames whose sizes the
// grid divides and does not, grids 1x1 to 16x16, clip limits off and 0.5 to 40: at least 99.9%
// of all pixels identical and none off by more than one level. Both compute the tile LUTs and
// the blend in single precision in the same order; a pixel can differ only where OpenCV's
// compiled code rounds differently from ours (a fused multiply-add or another order of
// operations in its build), which moves a blend lying within a rounding of .5 to the other
// side.
TEST(OpenCv, ClaheMatchesCreateClaheToWithinOneLevel) {
  std::mt19937 rng(77);
  std::uint64_t pixels_compared = 0, pixels_differing = 0;
  int worst = 0;
  for (auto [width, height] :
       {std::pair{64, 64}, {97, 61}, {33, 17}, {640, 480}, {641, 359}, {1280, 720}}) {
    for (auto [tiles_x, tiles_y] : {std::pair{1, 1}, {2, 3}, {8, 8}, {16, 16}, {5, 7}}) {
      for (double clip : {0.0, 0.5, 2.0, 4.0, 40.0}) {
        for (int kind = 0; kind < 3; ++kind) {
          SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) + " tiles " +
                       std::to_string(tiles_x) + "x" + std::to_string(tiles_y) + " clip " +
                       std::to_string(clip) + " kind " + std::to_string(kind));
          std::vector<std::uint8_t> pixels = make_pixels(rng, width, height, kind);
          const cv::Mat in(height, width, CV_8UC1, pixels.data());
          cv::Mat expected;
          cv::createCLAHE(clip, cv::Size(tiles_x, tiles_y))->apply(in, expected);
          histeq::Settings settings;
          settings.mode = histeq::Mode::kClahe;
          settings.clip_limit = clip;
          settings.tiles_x = tiles_x;
          settings.tiles_y = tiles_y;
          histeq::CpuEqualizer ours(3);
          ours.equalize(histeq::LumaPlane8{pixels.data(), width, height, width},
                        histeq::full_range(8), histeq::to_params(settings), true);
          for (std::size_t i = 0; i < pixels.size(); ++i) {
            const int difference = std::abs(int(pixels[i]) - int(expected.data[i]));
            worst = std::max(worst, difference);
            pixels_differing += difference != 0;
            ASSERT_LE(difference, 1) << "pixel " << i;
          }
          pixels_compared += pixels.size();
        }
      }
    }
  }
  RecordProperty("pixels_compared", std::to_string(pixels_compared));
  RecordProperty("pixels_differing", std::to_string(pixels_differing));
  std::printf("CLAHE against OpenCV %s: %llu of %llu pixels differ (by at most %d)\n", CV_VERSION,
              static_cast<unsigned long long>(pixels_differing),
              static_cast<unsigned long long>(pixels_compared), worst);
  EXPECT_LE(double(pixels_differing), 0.001 * double(pixels_compared));
}
