// SPDX-License-Identifier: LGPL-2.1-or-later
#include "passes_table.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "equalization.h"
#include "frames.h"
#include "luma_histogram.h"
#include "lut_map.h"
#include "packed_map.h"
#include "rgb.h"
#include "side_by_side.h"

namespace bench {

namespace {

double micros(double fps) {
  return 1e6 / fps;
}

}  // namespace

void passes_table(int runs) {
  std::printf(
      "\nThe count and the map timed apart, natural content, 1 thread, us per frame (median); the "
      "maps apply the frame's own LUT\n");
  std::printf("%-10s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "size", "count", "map", "calcHist",
              "cv::LUT", "10b cnt", "10b map", "RGBx cnt", "RGBx map", "RGB cnt", "RGB map");
  const FrameSize sizes[] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  for (const FrameSize size : sizes) {
    const HostFrame host = make_frame(Content::kNatural, size, size.width, 7u);
    const int width = size.width, height = size.height;
    const histeq::LumaHistogram8 counts =
        histeq::luma_histogram(histeq::ConstLumaPlane8{host.bytes.data(), width, height, width});
    std::array<std::uint8_t, histeq::kLevels8> lut{};
    histeq::build_equalization_lut(counts.data(), histeq::kLevels8, histeq::full_range(8),
                                   lut.data());

    const histeq::SampleLayout ten{10, 0};
    const std::vector<std::uint8_t> words = ten_bit_words(host.bytes);
    std::vector<std::uint64_t> deep_counts(ten.levels());
    histeq::accumulate_histogram(
        histeq::ConstLumaPlane16{reinterpret_cast<const std::uint16_t *>(words.data()), width,
                                 height, 2 * std::ptrdiff_t(width)},
        0, height, ten, deep_counts.data());
    std::vector<std::uint16_t> deep_levels(ten.levels());
    histeq::build_equalization_lut(deep_counts.data(), int(ten.levels()), histeq::full_range(10),
                                   deep_levels.data());
    histeq::WordLut deep_lut;
    deep_lut.assign(deep_levels.data(), ten);
    const auto plane16 = [&](std::uint8_t *p) {
      return histeq::LumaPlane16{reinterpret_cast<std::uint16_t *>(p), width, height,
                                 2 * std::ptrdiff_t(width)};
    };

    const std::vector<std::uint8_t> rgbx_frame = packed_frame(host.bytes, 4, true),
                                    rgb_frame = packed_frame(host.bytes, 3, true);
    // Each RGB frame's luma, as its count writes it and its map reads it back: the map is timed
    // alone on the luma its frame's count wrote before the timing.
    std::vector<std::uint8_t> rgbx_luma(host.bytes.size()), rgb_luma(host.bytes.size());
    const auto rgb_view = [&](std::uint8_t *p, int pixel_bytes) {
      return histeq::RgbView{p,
                             width,
                             height,
                             pixel_bytes * width,
                             pixel_bytes,
                             0,
                             1,
                             2,
                             histeq::luma_matrix(histeq::LumaStandard::kBt709)};
    };
    const auto rgb_count = [&](int pixel_bytes, std::vector<std::uint8_t> &luma) -> Equalize {
      return [&, pixel_bytes](std::uint8_t *p) {
        histeq::LumaHistogram8 histogram{};
        histeq::accumulate_histogram(rgb_view(p, pixel_bytes), 0, height, histogram, luma.data(),
                                     width);
      };
    };
    const auto rgb_map = [&](int pixel_bytes, const std::vector<std::uint8_t> &luma) -> Equalize {
      return [&, pixel_bytes](std::uint8_t *p) {
        histeq::apply_lut(rgb_view(p, pixel_bytes), 0, height, lut.data(), luma.data(), width);
      };
    };
    std::vector<std::uint8_t> scratch = rgbx_frame;
    rgb_count(4, rgbx_luma)(scratch.data());
    scratch = rgb_frame;
    rgb_count(3, rgb_luma)(scratch.data());

    const std::vector<double> fps = fps_side_by_side(
        {{[&](std::uint8_t *p) {
            histeq::luma_histogram(histeq::ConstLumaPlane8{p, width, height, width});
          },
          &host.bytes},
         {[&](std::uint8_t *p) {
            histeq::apply_lut(histeq::LumaPlane8{p, width, height, width}, 0, height, lut.data());
          },
          &host.bytes},
         {[&](std::uint8_t *p) {
            const cv::Mat plane(height, width, CV_8UC1, p);
            cv::Mat histogram;
            const int channels[] = {0};
            const int bins[] = {histeq::kLevels8};
            const float range[] = {0, 256};
            const float *ranges[] = {range};
            cv::calcHist(&plane, 1, channels, cv::Mat(), histogram, 1, bins, ranges);
          },
          &host.bytes},
         {[&](std::uint8_t *p) {
            cv::Mat plane(height, width, CV_8UC1, p);
            const cv::Mat table(1, histeq::kLevels8, CV_8UC1, lut.data());
            cv::LUT(plane, table, plane);
          },
          &host.bytes},
         {[&](std::uint8_t *p) {
            std::fill(deep_counts.begin(), deep_counts.end(), 0);
            const histeq::ConstLumaPlane16 plane{reinterpret_cast<const std::uint16_t *>(p), width,
                                                 height, 2 * std::ptrdiff_t(width)};
            histeq::accumulate_histogram(plane, 0, height, ten, deep_counts.data());
          },
          &words},
         {[&](std::uint8_t *p) { histeq::apply_lut(plane16(p), 0, height, ten, deep_lut); },
          &words},
         {rgb_count(4, rgbx_luma), &rgbx_frame},
         {rgb_map(4, rgbx_luma), &rgbx_frame},
         {rgb_count(3, rgb_luma), &rgb_frame},
         {rgb_map(3, rgb_luma), &rgb_frame}},
        runs);
    std::printf("%-10s %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f\n",
                size.label().c_str(), micros(fps[0]), micros(fps[1]), micros(fps[2]),
                micros(fps[3]), micros(fps[4]), micros(fps[5]), micros(fps[6]), micros(fps[7]),
                micros(fps[8]), micros(fps[9]));
  }
}

}  // namespace bench
