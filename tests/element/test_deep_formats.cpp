// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq on 10, 12 and 16-bit formats: the luma equalized at its own depth with one bin per
// level (the core's DeepCpuEqualizer, bit for bit), both ranges, every option, MSB-aligned
// formats' low bits zero, chroma and padding untouched, statistics with 2^bits bins.
// cudahisteq does not take these formats yet: its caps refuse them.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "luma_frame.h"
#include "video_frames.h"

namespace {

// A frame whose luma is a gradient over about 40% of the format's levels with noise, written as
// the format keeps its words; every other byte a pattern.
GstBuffer *deep_frame(const GstVideoInfo &info, std::mt19937 &rng) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame frame;
  gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  const double top = double(layout.levels() - 1);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
    auto *data = static_cast<std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
    const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < stride; ++x) data[y * stride + x] = std::uint8_t(rng());
  }
  const histeq::LumaPlane16 luma = histeq_luma_plane16(&frame);
  for (int y = 0; y < luma.height; ++y) {
    for (int x = 0; x < luma.width; ++x) {
      const double ramp = top * (0.25 + 0.4 * (x + y) / double(luma.width + luma.height));
      const double noise = double(int(rng() % 9) - 4) * top / 1023.0;
      luma.row(y)[x] = layout.word_of(std::uint32_t(std::clamp(ramp + noise, 0.0, top)));
    }
  }
  gst_video_frame_unmap(&frame);
  return buffer;
}

std::vector<std::uint16_t> words(const std::vector<std::uint8_t> &bytes) {
  std::vector<std::uint16_t> out(bytes.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = std::uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8);
  return out;
}

using DeepCase = std::tuple<GstVideoFormat, GstVideoColorRange>;

class DeepFormats : public ::testing::TestWithParam<DeepCase> {};

}  // namespace

TEST_P(DeepFormats, LumaIsEqualizedAtItsOwnDepthByHistEq) {
  const auto [format, color_range] = GetParam();
  const GstVideoInfo info = video_info(format, 161, 97, color_range);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  histeq::Settings settings;
  settings.strength = 0.9;
  settings.clip_limit = 2;
  settings.smoothing = 5;
  settings.statistics = true;
  GstHarness *h = gst_harness_new("histeq");
  g_object_set(h->element, "strength", settings.strength, "clip-limit", settings.clip_limit,
               "smoothing", settings.smoothing, "post-messages", TRUE, nullptr);
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  histeq::DeepCpuEqualizer reference(1, layout);
  std::mt19937 rng{unsigned(format)};
  for (int i = 0; i < 3; ++i) {
    GstBuffer *input = deep_frame(info, rng);
    const auto before = visible_planes(info, input);
    const auto padding = padding_bytes(info, input);
    GstBuffer *output = gst_harness_push_and_pull(h, input);
    ASSERT_NE(output, nullptr);
    const auto after = visible_planes(info, output);
    auto expected = words(before[0]);
    reference.equalize(
        histeq::LumaPlane16{expected.data(), GST_VIDEO_INFO_WIDTH(&info),
                            GST_VIDEO_INFO_HEIGHT(&info), GST_VIDEO_INFO_WIDTH(&info) * 2},
        histeq_output_range(&info), histeq::to_params(settings), i == 0);
    const auto out = words(after[0]);
    ASSERT_EQ(out, expected) << "frame " << i;
    const std::uint16_t low_bits = std::uint16_t((1u << layout.shift) - 1);
    std::set<std::uint16_t> levels;
    for (std::uint16_t word : out) {
      ASSERT_EQ(word & low_bits, 0) << "an MSB-aligned word's low bits";
      levels.insert(std::uint16_t(word >> layout.shift));
    }
    EXPECT_GT(levels.size(), 256u) << "more levels than 8 bits have";
    for (std::size_t p = 1; p < before.size(); ++p) EXPECT_EQ(after[p], before[p]) << p;
    EXPECT_EQ(padding_bytes(info, output), padding);
    gst_buffer_unref(output);
    GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT);
    ASSERT_NE(message, nullptr);
    guint bins = 0;
    gst_structure_get_uint(gst_message_get_structure(message), "bins", &bins);
    EXPECT_EQ(bins, layout.levels());
    gst_message_unref(message);
  }
  gst_bus_set_flushing(bus, TRUE);
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, DeepFormats,
    ::testing::Combine(::testing::Values(GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_I420_10LE,
                                         GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_I422_10LE,
                                         GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_Y444_10LE,
                                         GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
                                         GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P012_LE,
                                         GST_VIDEO_FORMAT_P016_LE),
                       ::testing::Values(GST_VIDEO_COLOR_RANGE_0_255,
                                         GST_VIDEO_COLOR_RANGE_16_235)),
    [](const auto &info) {
      return std::string(gst_video_format_to_string(std::get<0>(info.param))) +
             (std::get<1>(info.param) == GST_VIDEO_COLOR_RANGE_16_235 ? "_limited" : "_full");
    });

TEST(DeepFormats, LimitedRangeScalesWithTheDepth) {
  const GstVideoInfo ten =
      video_info(GST_VIDEO_FORMAT_P010_10LE, 16, 16, GST_VIDEO_COLOR_RANGE_16_235);
  EXPECT_EQ(histeq_output_range(&ten).lo, 64u);
  EXPECT_EQ(histeq_output_range(&ten).hi, 940u);
  const GstVideoInfo sixteen = video_info(GST_VIDEO_FORMAT_GRAY16_LE, 16, 16);
  EXPECT_EQ(histeq_output_range(&sixteen).hi, 65535u);
  EXPECT_EQ(histeq_sample_layout(&ten).shift, 6);
}

// Until its kernels take 16-bit words, cudahisteq's caps refuse these formats: negotiation
// fails instead of frames being cut to 8 bits.
TEST(DeepFormats, CudaHistEqRefusesThemForNow) {
  GstElementFactory *factory = gst_element_factory_find("cudahisteq");
  if (!factory) GTEST_SKIP() << "cudahisteq is not built here";
  GstElement *element = gst_element_factory_create(factory, nullptr);
  GstPad *sink = gst_element_get_static_pad(element, "sink");
  GstCaps *caps = gst_caps_from_string("video/x-raw,format=P010_10LE,width=16,height=16");
  GstCaps *template_caps = gst_pad_get_pad_template_caps(sink);
  EXPECT_FALSE(gst_caps_can_intersect(caps, template_caps));
  gst_caps_unref(template_caps);
  gst_caps_unref(caps);
  gst_object_unref(sink);
  gst_object_unref(element);
  gst_object_unref(factory);
}

// A crop rectangle on a 16-bit format: its x counts samples of two bytes each. Only the
// rectangle is counted and rewritten.
TEST(DeepFormats, OnlyTheCropRectangleIsEqualized) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_P010_10LE, 97, 61);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  const CropRect r{13, 7, 50, 31};
  std::mt19937 rng{3};
  GstBuffer *input = deep_frame(info, rng);
  add_crop(input, r);
  const auto before = words(visible_planes(info, input)[0]);
  GstHarness *h = gst_harness_new("histeq");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  GstBuffer *output = gst_harness_push_and_pull(h, input);
  ASSERT_NE(output, nullptr);
  const auto after = words(visible_planes(info, output)[0]);
  std::vector<std::uint16_t> inside;
  for (int y = r.y; y < r.y + r.height; ++y)
    inside.insert(inside.end(), before.begin() + y * 97 + r.x,
                  before.begin() + y * 97 + r.x + r.width);
  histeq::DeepCpuEqualizer reference(1, layout);
  reference.equalize(histeq::LumaPlane16{inside.data(), r.width, r.height, r.width * 2},
                     histeq_output_range(&info));
  std::vector<std::uint16_t> expected = before;
  for (int y = 0; y < r.height; ++y)
    std::copy_n(inside.begin() + y * r.width, r.width, expected.begin() + (r.y + y) * 97 + r.x);
  EXPECT_EQ(after, expected);
  gst_buffer_unref(output);
  gst_harness_teardown(h);
}
