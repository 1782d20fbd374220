// SPDX-License-Identifier: LGPL-2.1-or-later
// Both elements in CLAHE mode (mode=clahe, tiles-x, tiles-y): every kind of format they take
// (8-bit planes, 10 and 16-bit words, packed YUV, packed RGB) equal to the core's ClaheTiles
// frame after frame with clip limit, strength and smoothing; a flush restarts every tile's
// history; the grid may change while playing; statistics keep the frame's own histogram; a grid
// too fine for the depth is an error. cudahisteq's cases skip without a GPU.
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "element_availability.h"
#include "luma_frame.h"
#include "posted_error.h"
#include "video_frames.h"

namespace {

std::vector<std::uint8_t> bytes_of(GstBuffer *buffer) {
  std::vector<std::uint8_t> bytes(gst_buffer_get_size(buffer));
  gst_buffer_extract(buffer, 0, bytes.data(), bytes.size());
  return bytes;
}

// A frame of `info` with random bytes everywhere and a dull, noisy luma with a bright blob, so
// tiles differ.
GstBuffer *blob_frame(const GstVideoInfo &info, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> bytes(GST_VIDEO_INFO_SIZE(&info));
  for (auto &b : bytes) b = std::uint8_t(rng());
  GstBuffer *buffer = gst_buffer_new_memdup(bytes.data(), bytes.size());
  GstVideoFrame frame;
  gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  const double top = double(layout.levels() - 1);
  const auto level = [&](int x, int y) {
    const double blob = (x - width / 3) * (x - width / 3) + (y - height / 2) * (y - height / 2) <
                                width * height / 16
                            ? 0.3
                            : 0.0;
    return std::uint32_t(top * (0.3 + 0.2 * x / width + blob) + rng() % 7);
  };
  switch (histeq_packing(&info)) {
    case HistEqPacking::kLumaPlane:
      if (layout.bits > 8) {
        const histeq::LumaPlane16 luma = histeq_luma_plane16(&frame);
        for (int y = 0; y < height; ++y)
          for (int x = 0; x < width; ++x) luma.row(y)[x] = layout.word_of(level(x, y));
      } else {
        const histeq::LumaPlane8 luma = histeq_luma_plane(&frame);
        for (int y = 0; y < height; ++y)
          for (int x = 0; x < width; ++x) luma.row(y)[x] = std::uint8_t(level(x, y));
      }
      break;
    case HistEqPacking::kPackedYuv: {
      const histeq::PackedYuvView view = histeq_packed_yuv_view(&frame);
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
          view.row(y)[2 * x + view.luma_offset] = std::uint8_t(level(x, y));
      break;
    }
    case HistEqPacking::kRgb: {
      const histeq::RgbView view =
          histeq_rgb_view(&frame, histeq::luma_matrix(histeq::LumaStandard::kBt709));
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          std::uint8_t *p = view.row(y) + view.pixel_bytes * x;
          const int l = int(level(x, y));
          p[view.red] = std::uint8_t(std::min(255, l + 20));
          p[view.green] = std::uint8_t(l);
          p[view.blue] = std::uint8_t(std::max(0, l - 15));
        }
      break;
    }
  }
  gst_video_frame_unmap(&frame);
  return buffer;
}

// The core's CLAHE on a copy of `input`, through the same views of the frame as the element's.
struct CoreClahe {
  histeq::CpuEqualizer bytes{1};
  histeq::DeepCpuEqualizer words{1};

  std::vector<std::uint8_t> run(const GstVideoInfo &info, GstBuffer *input,
                                const histeq::Params &params, bool reset) {
    GstBuffer *copy = gst_buffer_copy_deep(input);
    GstVideoFrame frame;
    gst_video_frame_map(&frame, &info, copy, GST_MAP_READWRITE);
    const histeq::OutputRange range = histeq_output_range(&info);
    const histeq::SampleLayout layout = histeq_sample_layout(&info);
    if (layout.bits > 8) {
      if (words.layout().bits != layout.bits || words.layout().shift != layout.shift)
        words.set_layout(layout);
      words.equalize(histeq_luma_plane16(&frame), range, params, reset);
    } else if (histeq_packing(&info) == HistEqPacking::kRgb) {
      bytes.equalize(histeq_rgb_view(&frame, histeq::luma_matrix(histeq::LumaStandard::kBt709)),
                     range, params, reset);
    } else if (histeq_packing(&info) == HistEqPacking::kPackedYuv) {
      bytes.equalize(histeq_packed_yuv_view(&frame), range, params, reset);
    } else {
      bytes.equalize(histeq_luma_plane(&frame), range, params, reset);
    }
    gst_video_frame_unmap(&frame);
    std::vector<std::uint8_t> out = bytes_of(copy);
    gst_buffer_unref(copy);
    return out;
  }
};

histeq::Settings clahe_settings() {
  histeq::Settings settings;
  settings.mode = histeq::Mode::kClahe;
  settings.tiles_x = 5;
  settings.tiles_y = 3;
  settings.clip_limit = 2;
  settings.strength = 0.9;
  settings.smoothing = 3;
  return settings;
}

void apply(GstElement *element, const histeq::Settings &settings) {
  g_object_set(element, "strength", settings.strength, "clip-limit", settings.clip_limit,
               "smoothing", settings.smoothing, "tiles-x", guint(settings.tiles_x), "tiles-y",
               guint(settings.tiles_y), nullptr);
  gst_util_set_object_arg(G_OBJECT(element), "mode",
                          settings.mode == histeq::Mode::kClahe ? "clahe" : "global");
}

constexpr const char *kElements[] = {"histeq", "cudahisteq"};

class ClaheFormats : public ::testing::TestWithParam<std::tuple<const char *, GstVideoFormat>> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(std::get<0>(GetParam()))); }
};

}  // namespace

TEST_P(ClaheFormats, EqualsTheCoreFrameAfterFrameWithEveryOption) {
  const auto [element, format] = GetParam();
  const GstVideoInfo info = video_info(format, 203, 117, GST_VIDEO_COLOR_RANGE_16_235);
  const histeq::Settings settings = clahe_settings();
  GstHarness *h = gst_harness_new(element);
  apply(h->element, settings);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  CoreClahe core;
  for (unsigned i = 0; i < 4; ++i) {
    GstBuffer *input = blob_frame(info, i);
    const std::vector<std::uint8_t> expected =
        core.run(info, input, histeq::to_params(settings), i == 0);
    const std::vector<std::uint8_t> before = bytes_of(input);
    GstBuffer *output = gst_harness_push_and_pull(h, input);
    ASSERT_NE(output, nullptr);
    const std::vector<std::uint8_t> after = bytes_of(output);
    gst_buffer_unref(output);
    ASSERT_EQ(after, expected) << "frame " << i;
    EXPECT_NE(after, before) << "frame " << i << " was not equalized";
  }
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ClaheFormats,
    ::testing::Combine(::testing::ValuesIn(kElements),
                       ::testing::Values(GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
                                         GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420_10LE,
                                         GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_Y444_16LE,
                                         GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
                                         GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB)),
    [](const auto &info) {
      return std::string(std::get<0>(info.param)) + "_" +
             gst_video_format_to_string(std::get<1>(info.param));
    });

// An element in CLAHE mode, smoothing over 20 frames: after frames unlike the probe its tiles'
// histories differ from those of a fresh element, whose output for the probe is fresh_output.
class ClaheHistory : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override {
    SKIP_UNLESS_RUNS(std::string(GetParam()));
    h = gst_harness_new(GetParam());
    settings.smoothing = 20;
    apply(h->element, settings);
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  }
  void TearDown() override {
    if (h) gst_harness_teardown(h);
  }

  void push_three_frames(unsigned first_seed) {
    for (unsigned i = 0; i < 3; ++i)
      gst_buffer_unref(gst_harness_push_and_pull(h, blob_frame(info, first_seed + i)));
  }
  std::vector<std::uint8_t> fresh_output(GstBuffer *probe) const {
    CoreClahe fresh;
    return fresh.run(info, probe, histeq::to_params(settings), true);
  }

  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_GRAY8, 160, 96);
  histeq::Settings settings = clahe_settings();
  GstHarness *h = nullptr;
};

// After a flush every tile's smoothed histogram restarts: the next frame comes out as a fresh
// element makes it, though the frames before it were different.
TEST_P(ClaheHistory, AFlushRestartsEveryTilesHistory) {
  push_three_frames(100);
  GstBuffer *probe = blob_frame(info, 7);
  GstBuffer *without_flush = gst_harness_push_and_pull(h, gst_buffer_copy_deep(probe));
  gst_harness_push_event(h, gst_event_new_flush_start());
  gst_harness_push_event(h, gst_event_new_flush_stop(TRUE));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  gst_harness_push_event(h, gst_event_new_segment(&segment));
  GstBuffer *after_flush = gst_harness_push_and_pull(h, gst_buffer_copy_deep(probe));
  const std::vector<std::uint8_t> expected = fresh_output(probe);
  EXPECT_EQ(bytes_of(after_flush), expected);
  EXPECT_NE(bytes_of(without_flush), expected) << "the history made no difference";
  gst_buffer_unref(without_flush);
  gst_buffer_unref(after_flush);
  gst_buffer_unref(probe);
}

// Back in CLAHE mode after global frames, the tiles start afresh: the frame comes out as a new
// element makes it, not blended with the tiles' histories from before the switch.
TEST_P(ClaheHistory, SwitchingModeRestartsTheHistory) {
  push_three_frames(200);
  gst_util_set_object_arg(G_OBJECT(h->element), "mode", "global");
  gst_buffer_unref(gst_harness_push_and_pull(h, blob_frame(info, 300)));
  gst_util_set_object_arg(G_OBJECT(h->element), "mode", "clahe");
  GstBuffer *probe = blob_frame(info, 9);
  const std::vector<std::uint8_t> expected = fresh_output(probe);
  GstBuffer *output = gst_harness_push_and_pull(h, probe);
  EXPECT_EQ(bytes_of(output), expected);
  gst_buffer_unref(output);
}

INSTANTIATE_TEST_SUITE_P(Elements, ClaheHistory, ::testing::ValuesIn(kElements));

class Clahe : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(GetParam())); }
};

// The grid and the mode change while playing; each frame follows the settings it arrived under.
TEST_P(Clahe, GridAndModeChangeWhilePlaying) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 128, 72);
  GstHarness *h = gst_harness_new(GetParam());
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  histeq::Settings settings;
  settings.mode = histeq::Mode::kClahe;
  for (auto [mode, tiles_x, tiles_y] : {std::tuple{histeq::Mode::kClahe, 8, 8},
                                        {histeq::Mode::kClahe, 2, 6},
                                        {histeq::Mode::kGlobal, 2, 6},
                                        {histeq::Mode::kClahe, 1, 1}}) {
    settings.mode = mode;
    settings.tiles_x = tiles_x;
    settings.tiles_y = tiles_y;
    apply(h->element, settings);
    GstBuffer *input = blob_frame(info, unsigned(tiles_x * 10 + tiles_y));
    CoreClahe core;
    const std::vector<std::uint8_t> expected =
        core.run(info, input, histeq::to_params(settings), true);
    GstBuffer *output = gst_harness_push_and_pull(h, input);
    EXPECT_EQ(bytes_of(output), expected) << tiles_x << "x" << tiles_y;
    gst_buffer_unref(output);
  }
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Elements, Clahe, ::testing::ValuesIn(kElements));

// An element in CLAHE mode with a bus of its own, for its messages.
class ClaheOnABus : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override {
    SKIP_UNLESS_RUNS(std::string(GetParam()));
    h = gst_harness_new(GetParam());
    bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
  }
  void TearDown() override {
    if (!h) return;
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
  }
  GstHarness *h = nullptr;
  GstBus *bus = nullptr;
};

// Statistics in CLAHE mode describe the frame as it came in: its own histogram, not the
// tiles' padded ones.
TEST_P(ClaheOnABus, StatisticsCountTheFramesOwnPixels) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_GRAY8, 97, 61);
  apply(h->element, clahe_settings());
  g_object_set(h->element, "post-messages", TRUE, nullptr);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  GstBuffer *input = blob_frame(info, 5);
  std::vector<std::uint64_t> counts(256, 0);
  const std::vector<std::vector<std::uint8_t>> planes = visible_planes(info, input);
  for (std::uint8_t b : planes[0]) counts[b]++;
  gst_buffer_unref(gst_harness_push_and_pull(h, input));
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT);
  ASSERT_NE(message, nullptr);
  const GValue *histogram =
      gst_structure_get_value(gst_message_get_structure(message), "histogram");
  ASSERT_EQ(gst_value_array_get_size(histogram), 256u);
  for (guint v = 0; v < 256; ++v)
    EXPECT_EQ(g_value_get_uint64(gst_value_array_get_value(histogram, v)), counts[v]) << v;
  gst_message_unref(message);
}

// A grid whose tiles' histograms would not fit the memory CLAHE allows at this depth is a clear
// error, not an allocation of gigabytes.
TEST_P(ClaheOnABus, AGridTooFineForTheDepthIsAnError) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_GRAY16_LE, 64, 64);
  histeq::Settings settings = clahe_settings();
  settings.tiles_x = 64;
  settings.tiles_y = 64;
  apply(h->element, settings);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  EXPECT_EQ(
      gst_harness_push(h, gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr)),
      GST_FLOW_ERROR);
  const PostedError posted(bus);
  ASSERT_NE(posted.error, nullptr);
  EXPECT_NE(posted.text().find("use at most 64 tiles at this depth"), std::string::npos)
      << posted.text();
}

INSTANTIATE_TEST_SUITE_P(Elements, ClaheOnABus, ::testing::ValuesIn(kElements));
