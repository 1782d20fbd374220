// SPDX-License-Identifier: LGPL-2.1-or-later
// CLAHE on the GPU (clahe_kernels.h), bit-exact with the CPU core (ClaheTiles through
// CpuEqualizer and DeepCpuEqualizer on the same frames) frame by frame: every pixel layout and
// depth, grids from 1x1 to 64x64 on frames that divide and that do not (smaller than the grid
// too), the clip limit alone and every option with each tile's history, its cuts and the
// frame's report, host and device frames through one engine, out of place, and a grid change
// that restarts the history. Bytes outside the pixels are never written; chroma, alpha and
// padding bytes keep their values.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "clahe.h"
#include "cpu_equalizer.h"
#include "device_equalizer.h"
#include "device_history.h"
#include "engine_frames.h"
#include "frame_engine.h"
#include "gpu_test_support.h"
#include "params.h"

using histeq::cuda::DevicePlane;
using histeq::cuda::Packing;
using histeq::cuda::PixelLayout;

namespace {

struct LayoutCase {
  const char *name;
  PixelLayout layout;
};

const std::vector<LayoutCase> &layouts() {
  using histeq::luma_matrix;
  using histeq::LumaStandard;
  using histeq::cuda::deep_luma_layout;
  using histeq::cuda::packed_yuv_layout;
  using histeq::cuda::rgb_layout;
  static const std::vector<LayoutCase> all = {
      {"GRAY8", PixelLayout{}},
      {"I420_10LE", deep_luma_layout({10, 0})},
      {"P010_10LE", deep_luma_layout({10, 6})},
      {"P012_LE", deep_luma_layout({12, 4})},
      {"GRAY16_LE", deep_luma_layout({16, 0})},
      {"YUY2", packed_yuv_layout(0)},
      {"UYVY", packed_yuv_layout(1)},
      {"RGBA", rgb_layout(4, 0, 1, 2, luma_matrix(LumaStandard::kBt709))},
      {"xBGR", rgb_layout(4, 3, 2, 1, luma_matrix(LumaStandard::kBt601))},
      {"BGR", rgb_layout(3, 2, 1, 0, luma_matrix(LumaStandard::kBt2020))},
  };
  return all;
}

histeq::Settings clahe_settings(int tiles_x, int tiles_y, bool every_option) {
  histeq::Settings s;
  s.mode = histeq::Mode::kClahe;
  s.tiles_x = tiles_x;
  s.tiles_y = tiles_y;
  s.clip_limit = 2.5;
  if (every_option) {
    s.strength = 0.7;
    s.smoothing = 6;
    s.scene_threshold = 0.3;
    s.statistics = true;
  }
  return s;
}

std::size_t pitch_for(const PixelLayout &layout, int width, bool unaligned) {
  const std::size_t row = layout.row_bytes(width);
  return unaligned ? row + (layout.pixel_bytes == 2 ? 2 : 3) : (row / 16 + 1) * 16;
}

// PixelFrame `i` of a clip: regions of different brightness (so tiles differ), a gradient and noise
// over the whole depth, a bright square moving across, black pixels scattered (RGB's rule for
// luma 0), tinted RGB, and from frame `cut` on a darker scene (a cut). Padding bytes are random.
PixelFrame make_frame(const PixelLayout &layout, int width, int height, std::size_t pitch, int i,
                      int cut, std::mt19937 &rng) {
  PixelFrame frame = random_frame(layout, width, height, pitch, rng);
  const int levels = layout.levels();
  const int square = std::max(1, std::min(width, height) / 4);
  const int square_x = (i * std::max(1, width / 8)) % std::max(1, width);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const bool dark_scene = i >= cut;
      const int region = ((x * 3 / std::max(1, width)) + (y * 2 / std::max(1, height))) % 3;
      int level = (dark_scene ? levels / 16 : levels / 5) + region * levels / 7 +
                  (levels / 5) * (x + y) / std::max(1, width + height) +
                  int(rng() % unsigned(levels / 24 + 1));
      if (x >= square_x && x < square_x + square && y >= height / 3 && y < height / 3 + square)
        level = levels - 1 - int(rng() % unsigned(levels / 32 + 1));
      if ((7 * x + 3 * y + i) % 31 == 0) level = 0;
      level = std::clamp(level, 0, levels - 1);
      std::uint8_t *p = frame.pixel(x, y);
      switch (layout.packing) {
        case Packing::kLuma:
          if (layout.deep()) {
            *reinterpret_cast<std::uint16_t *>(p) = layout.sample.word_of(std::uint32_t(level));
          } else {
            *p = std::uint8_t(level);
          }
          break;
        case Packing::kPackedYuv:
          p[layout.luma] = std::uint8_t(level);
          break;
        case Packing::kRgb:
          for (int c : {layout.red, layout.green, layout.blue}) {
            const int tint = level == 0 ? 0 : int(rng() % 61) - 30;
            p[c] = std::uint8_t(std::clamp(level + tint, 0, 255));
          }
          break;
      }
    }
  return frame;
}

std::vector<PixelFrame> make_clip(const PixelLayout &layout, int width, int height,
                                  std::size_t pitch, int frames, int cut) {
  std::mt19937 rng(unsigned(width * 131 + height * 7 + layout.pixel_bytes * 3 + layout.sample.bits +
                            layout.luma));
  std::vector<PixelFrame> clip;
  for (int i = 0; i < frames; ++i)
    clip.push_back(make_frame(layout, width, height, pitch, i, cut, rng));
  return clip;
}

struct Case {
  int width, height, tiles_x, tiles_y;
  bool unaligned;
};

std::string case_name(const Case &c) {
  return std::to_string(c.width) + "x" + std::to_string(c.height) + " grid " +
         std::to_string(c.tiles_x) + "x" + std::to_string(c.tiles_y) +
         (c.unaligned ? " unaligned rows" : "");
}

// (layout, every option or the clip limit alone).
class ClaheEngine : public ::testing::TestWithParam<std::tuple<std::size_t, bool>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
  const PixelLayout &layout() const { return layouts()[std::get<0>(GetParam())].layout; }
  bool every_option() const { return std::get<1>(GetParam()); }

  // Each case's grid is halved along its longer side until the engine keeps its tiles at this
  // depth (kMaxClaheTileBins).
  void expect_cases(const std::vector<Case> &wanted, int frames) {
    for (Case c : wanted) {
      while (std::uint64_t(c.tiles_x) * std::uint64_t(c.tiles_y) * layout().levels() >
             histeq::kMaxClaheTileBins)
        (c.tiles_x >= c.tiles_y ? c.tiles_x : c.tiles_y) /= 2;
      const histeq::Params params =
          histeq::to_params(clahe_settings(c.tiles_x, c.tiles_y, every_option()));
      const auto clip = make_clip(layout(), c.width, c.height,
                                  pitch_for(layout(), c.width, c.unaligned), frames, frames / 2);
      for (bool limited : {false, true}) {
        SCOPED_TRACE(case_name(c) + (limited ? " limited" : " full"));
        const auto expected = cpu_clip(clip, limited, {params});
        // The cut restarts the core's history (its report is compared to the GPU's below);
        // a frame of a few pixels may not change enough to cut.
        if (params.keep_history && c.width * c.height >= 64) {
          EXPECT_TRUE(expected[std::size_t(frames / 2)].restarted);
        }
        EngineOutput out;
        ASSERT_NO_FATAL_FAILURE(run_engine(clip, 3, limited, {params}, &out));
        expect_equal_to_the_core(out, expected, {params});
      }
    }
  }
};

}  // namespace

// Small frames: tiles of one pixel and grids larger than the frame (reflect-101 reflected more
// than once), sizes the grid divides and does not, square and lopsided grids.
TEST_P(ClaheEngine, SmallFramesEqualTheCore) {
  expect_cases({{1, 1, 8, 8, false},
                {3, 2, 8, 8, true},
                {7, 5, 2, 3, false},
                {16, 16, 8, 8, false},
                {67, 33, 8, 8, true},
                {67, 33, 1, 1, false},
                {130, 70, 16, 16, false},
                {130, 70, 64, 64, true},
                {385, 289, 3, 5, false}},
               6);
}

// Frames of video sizes: 4K 8x8 (the default grid), 1080p with a grid that does not divide it,
// 720p with the finest grid the depth allows.
TEST_P(ClaheEngine, VideoFramesEqualTheCore) {
  expect_cases({{1920, 1080, 7, 5, false}, {1280, 720, 64, 24, true}}, 4);
  expect_cases({{3840, 2160, 8, 8, false}}, 2);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ClaheEngine,
                         ::testing::Combine(::testing::Range<std::size_t>(0, layouts().size()),
                                            ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(layouts()[std::get<0>(info.param)].name) +
                                  (std::get<1>(info.param) ? "_every_option" : "_clip");
                         });

// Out of place (DeviceEqualizer): `out` gets every pixel whole, its chroma, alpha and padding
// bytes from the input pixel; the input is left as it was; nothing outside `out`'s pixels is
// written. The input's rows are 16-byte aligned (counted in chunks), the output's are not (mapped
// pixel by pixel).
TEST(ClaheDevice, OutOfPlaceWritesWholePixels) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const histeq::Params params = histeq::to_params(clahe_settings(5, 4, true));
  for (const LayoutCase &c : layouts()) {
    SCOPED_TRACE(c.name);
    const int width = 203, height = 97;
    const std::size_t pitch = pitch_for(c.layout, width, false);
    const auto clip = make_clip(c.layout, width, height, pitch, 1, 1);
    const auto expected = cpu_clip(clip, false, {params});
    GuardedDevicePlane in(int(c.layout.row_bytes(width)), height, pitch);
    GuardedDevicePlane out(int(c.layout.row_bytes(width)), height,
                           pitch_for(c.layout, width, true));
    ASSERT_CUDA(in.upload(visible_bytes(clip[0])));
    std::vector<std::uint8_t> zeros(c.layout.row_bytes(width) * std::size_t(height), 0);
    ASSERT_CUDA(out.upload(zeros));
    histeq::cuda::DeviceEqualizer equalizer;
    ASSERT_CUDA(equalizer.init());
    histeq::cuda::DeviceHistory history;
    ASSERT_CUDA(history.init());
    DeviceBytes report(histeq::cuda::report_words(c.layout.levels()) * sizeof(std::uint64_t));
    DevicePlane in_plane = in.plane(), out_plane = out.plane();
    in_plane.width = out_plane.width = width;
    in_plane.layout = out_plane.layout = c.layout;
    histeq::cuda::DeviceTone tone;
    tone.params = params;
    tone.reset = true;
    tone.d_report = reinterpret_cast<unsigned long long *>(report.data);
    ASSERT_CUDA(history.attach(nullptr, histeq::cuda::history_shape(in_plane, params), &tone));
    ASSERT_CUDA(equalizer.equalize(in_plane, out_plane, histeq::full_range(c.layout.sample.bits),
                                   {}, nullptr, tone));
    ASSERT_CUDA(history.attached(nullptr, tone));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint8_t> got, input_after;
    bool out_guards = false, in_guards = false;
    ASSERT_CUDA(out.download(got, out_guards));
    ASSERT_CUDA(in.download(input_after, in_guards));
    EXPECT_TRUE(out_guards && in_guards);
    EXPECT_TRUE(got == visible_bytes(expected[0].frame));
    EXPECT_TRUE(input_after == visible_bytes(clip[0]));
  }
}

// A grid that changes mid-stream (and a switch to the global mode and back) restarts the history
// on the GPU as on the CPU: each frame equal to the core's, the restarts where the core has them.
TEST(ClaheHistory, NewGridsAndModesRestartTheHistory) {
  SKIP_WITHOUT_CUDA_DEVICE();
  histeq::Settings global = clahe_settings(8, 8, true);
  global.mode = histeq::Mode::kGlobal;
  const std::vector<histeq::Params> params = {histeq::to_params(clahe_settings(8, 8, true)),
                                              histeq::to_params(clahe_settings(8, 8, true)),
                                              histeq::to_params(clahe_settings(4, 6, true)),
                                              histeq::to_params(clahe_settings(4, 6, true)),
                                              histeq::to_params(global),
                                              histeq::to_params(clahe_settings(4, 6, true)),
                                              histeq::to_params(clahe_settings(16, 2, true))};
  for (const LayoutCase &c : {layouts()[0], layouts()[2], layouts()[7]}) {
    SCOPED_TRACE(c.name);
    const auto clip = make_clip(c.layout, 320, 180, pitch_for(c.layout, 320, false), 14, 100);
    const auto expected = cpu_clip(clip, false, params);
    for (std::size_t i : {2, 4, 5, 6, 7, 9, 11, 12, 13}) {
      EXPECT_TRUE(expected[i].restarted) << "frame " << i;
    }
    EngineOutput out;
    ASSERT_NO_FATAL_FAILURE(run_engine(clip, 2, false, params, &out));
    expect_equal_to_the_core(out, expected, params);
  }
}

// Finer grids on one slot (an engine of depth 1): its scratch and the history's buffers grow to
// the new tiles x bins, and each frame still equals the core's.
TEST(ClaheHistory, FinerGridsOnOneSlotGrowItsScratch) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<histeq::Params> params = {histeq::to_params(clahe_settings(2, 2, true)),
                                              histeq::to_params(clahe_settings(2, 2, true)),
                                              histeq::to_params(clahe_settings(8, 8, true)),
                                              histeq::to_params(clahe_settings(8, 8, true)),
                                              histeq::to_params(clahe_settings(16, 16, true)),
                                              histeq::to_params(clahe_settings(16, 16, true))};
  for (const LayoutCase &c : {layouts()[0], layouts()[3]}) {
    SCOPED_TRACE(c.name);
    const auto clip = make_clip(c.layout, 320, 180, pitch_for(c.layout, 320, false), 6, 100);
    const auto expected = cpu_clip(clip, false, params);
    EngineOutput out;
    ASSERT_NO_FATAL_FAILURE(run_engine(clip, 1, false, params, &out));
    expect_equal_to_the_core(out, expected, params);
  }
}
