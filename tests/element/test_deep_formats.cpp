// SPDX-License-Identifier: LGPL-2.1-or-later
// Both elements on 10, 12 and 16-bit formats: the luma equalized at its own depth with one bin
// per level (the core's DeepCpuEqualizer on a copy of the input, bit for bit), both ranges, with
// the defaults and with every option, MSB-aligned formats' low bits zero, chroma and padding
// untouched, statistics of 2^bits bins holding the core's histogram; only a crop rectangle
// rewritten; a 4K frame. Both elements' templates take every deep format, cudahisteq's in CUDA
// memory too. cudahisteq's cases skip without a GPU.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "element_availability.h"
#include "luma_frame.h"
#include "video_frames.h"

namespace {

// A frame whose luma is a gradient over about 40% of the format's levels with noise, written as
// the format keeps its words; every other byte, padding and gaps included, random.
GstBuffer *deep_frame(const GstVideoInfo &info, std::mt19937 &rng) {
  std::vector<std::uint8_t> bytes(GST_VIDEO_INFO_SIZE(&info));
  for (auto &b : bytes) b = std::uint8_t(rng());
  GstBuffer *buffer = gst_buffer_new_memdup(bytes.data(), bytes.size());
  GstVideoFrame frame;
  gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  const double top = double(layout.levels() - 1);
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

// Where two sample vectors first differ, for a failure message that does not print them whole.
template <typename T>
std::string first_difference(const std::vector<T> &actual, const std::vector<T> &expected) {
  if (actual.size() != expected.size())
    return std::to_string(actual.size()) + " samples, expected " + std::to_string(expected.size());
  const auto at = std::mismatch(actual.begin(), actual.end(), expected.begin());
  if (at.first == actual.end()) return "none";
  return "sample " + std::to_string(at.first - actual.begin()) + " is " +
         std::to_string(*at.first) + ", expected " + std::to_string(*at.second);
}

// The counts of a statistics message's "histogram" array.
std::vector<std::uint64_t> posted_histogram(const GstStructure *s) {
  std::vector<std::uint64_t> counts;
  const GValue *array = gst_structure_get_value(s, "histogram");
  if (!array || !GST_VALUE_HOLDS_ARRAY(array)) return counts;
  for (guint i = 0; i < gst_value_array_get_size(array); ++i)
    counts.push_back(g_value_get_uint64(gst_value_array_get_value(array, i)));
  return counts;
}

constexpr GstVideoFormat kDeepFormats[] = {
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_I420_12LE,
    GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_Y444_10LE,
    GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P012_LE,   GST_VIDEO_FORMAT_P016_LE};

constexpr const char *kElements[] = {"histeq", "cudahisteq"};

// The element's defaults, or every option of the global mode (CLAHE is test_clahe.cpp's),
// statistics included.
enum class Options { kDefaults, kEvery };

histeq::Settings settings_of(Options options) {
  histeq::Settings settings;
  if (options == Options::kEvery) {
    settings.strength = 0.9;
    settings.clip_limit = 2;
    settings.smoothing = 5;
    settings.scene_threshold = 0.4;
    settings.statistics = true;
  }
  return settings;
}

// Pushes `frames` frames of `info` through `element` with `options` and checks each: its luma is
// the core's on a copy of the input, with the stream's history; MSB-aligned words keep their low
// bits zero; chroma and padding are as they came; with statistics, one message per frame of
// 2^bits bins holding the core's histogram of the frame, else none.
void expect_equalized_as_the_core(const char *element, const GstVideoInfo &info, Options options,
                                  int frames, unsigned seed) {
  const histeq::Settings settings = settings_of(options);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  GstHarness *h = gst_harness_new(element);
  if (options == Options::kEvery)
    g_object_set(h->element, "strength", settings.strength, "clip-limit", settings.clip_limit,
                 "smoothing", settings.smoothing, "scene-threshold", settings.scene_threshold,
                 "post-messages", gboolean(settings.statistics), nullptr);
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  histeq::DeepCpuEqualizer reference(1, layout);
  std::mt19937 rng{seed};
  for (int i = 0; i < frames; ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    GstBuffer *input = deep_frame(info, rng);
    const auto before = visible_planes(info, input);
    const auto padding = padding_bytes(info, input);
    auto expected = words(before[0]);
    reference.equalize(histeq::LumaPlane16{expected.data(), width, height, width * 2},
                       histeq_output_range(&info), histeq::to_params(settings), i == 0);
    GstBuffer *output = gst_harness_push_and_pull(h, input);
    ASSERT_NE(output, nullptr);
    const auto after = visible_planes(info, output);
    const auto out = words(after[0]);
    ASSERT_TRUE(out == expected) << first_difference(out, expected);
    const std::uint16_t low_bits = std::uint16_t((1u << layout.shift) - 1);
    std::set<std::uint16_t> levels;
    for (std::uint16_t word : out) {
      ASSERT_EQ(word & low_bits, 0) << "an MSB-aligned word's low bits";
      levels.insert(std::uint16_t(word >> layout.shift));
    }
    EXPECT_GT(levels.size(), 256u) << "more levels than 8 bits have";
    for (std::size_t p = 1; p < before.size(); ++p)
      EXPECT_TRUE(after[p] == before[p]) << "plane " << p << " changed";
    EXPECT_TRUE(padding_bytes(info, output) == padding) << "padding changed";
    gst_buffer_unref(output);
    GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT);
    if (!settings.statistics) {
      EXPECT_EQ(message, nullptr) << "statistics without post-messages";
      if (message) gst_message_unref(message);
      continue;
    }
    ASSERT_NE(message, nullptr);
    const GstStructure *s = gst_message_get_structure(message);
    guint bins = 0;
    gst_structure_get_uint(s, "bins", &bins);
    EXPECT_EQ(bins, layout.levels());
    guint64 pixels = 0;
    gst_structure_get_uint64(s, "pixels", &pixels);
    EXPECT_EQ(pixels, guint64(width) * guint64(height));
    const std::vector<std::uint64_t> histogram = posted_histogram(s);
    EXPECT_EQ(histogram.size(), std::size_t(layout.levels()));
    EXPECT_TRUE(histogram == reference.histogram())
        << "the posted histogram differs from the core's: "
        << first_difference(histogram, reference.histogram());
    gst_message_unref(message);
  }
  gst_bus_set_flushing(bus, TRUE);
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

using DeepCase = std::tuple<const char *, GstVideoFormat, GstVideoColorRange, Options>;

class DeepFormats : public ::testing::TestWithParam<DeepCase> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(std::get<0>(GetParam()))); }
};

std::string deep_case_name(const ::testing::TestParamInfo<DeepCase> &info) {
  const auto [element, format, range, options] = info.param;
  return std::string(element) + "_" + gst_video_format_to_string(format) +
         (range == GST_VIDEO_COLOR_RANGE_16_235 ? "_limited" : "_full") +
         (options == Options::kEvery ? "_every_option" : "_defaults");
}

class DeepElement : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(GetParam())); }
};

}  // namespace

// Three frames at an odd size, each as the core makes it.
TEST_P(DeepFormats, LumaIsEqualizedAtItsOwnDepthAsTheCore) {
  const auto [element, format, range, options] = GetParam();
  expect_equalized_as_the_core(element, video_info(format, 161, 97, range), options, 3,
                               unsigned(format));
}

INSTANTIATE_TEST_SUITE_P(
    Formats, DeepFormats,
    ::testing::Combine(::testing::ValuesIn(kElements), ::testing::ValuesIn(kDeepFormats),
                       ::testing::Values(GST_VIDEO_COLOR_RANGE_0_255, GST_VIDEO_COLOR_RANGE_16_235),
                       ::testing::Values(Options::kDefaults, Options::kEvery)),
    deep_case_name);

// Every deep format at 1080p with every option: the GPU's grid over a full-size frame of each
// layout (planar, semi-planar, 4:2:2, 4:4:4; 10, 12 and 16 bits), two frames each, the second
// following the first's history.
class DeepFormatsAt1080p
    : public ::testing::TestWithParam<std::tuple<const char *, GstVideoFormat>> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(std::get<0>(GetParam()))); }
};

TEST_P(DeepFormatsAt1080p, EqualsTheCoreWithEveryOption) {
  const auto [element, format] = GetParam();
  expect_equalized_as_the_core(element, video_info(format, 1920, 1080), Options::kEvery, 2,
                               unsigned(format) + 1080);
}

INSTANTIATE_TEST_SUITE_P(Formats, DeepFormatsAt1080p,
                         ::testing::Combine(::testing::ValuesIn(kElements),
                                            ::testing::ValuesIn(kDeepFormats)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  gst_video_format_to_string(std::get<1>(info.param));
                         });

// 10-bit limited-range frames at 4K, as NVDEC hands them, with every option: the GPU's counts
// merged from many blocks and its map over a full-size frame.
TEST_P(DeepElement, A4KFrameEqualsTheCore) {
  expect_equalized_as_the_core(
      GetParam(), video_info(GST_VIDEO_FORMAT_P010_10LE, 3840, 2160, GST_VIDEO_COLOR_RANGE_16_235),
      Options::kEvery, 2, 11);
}

// A crop rectangle on a 16-bit format: its x counts samples of two bytes each. Only the
// rectangle is counted and rewritten.
TEST_P(DeepElement, OnlyTheCropRectangleIsEqualized) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_P010_10LE, 97, 61);
  const histeq::SampleLayout layout = histeq_sample_layout(&info);
  const CropRect r{13, 7, 50, 31};
  std::mt19937 rng{3};
  GstBuffer *input = deep_frame(info, rng);
  add_crop(input, r);
  const auto before = words(visible_planes(info, input)[0]);
  GstHarness *h = gst_harness_new(GetParam());
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

INSTANTIATE_TEST_SUITE_P(Elements, DeepElement, ::testing::ValuesIn(kElements),
                         [](const auto &info) { return std::string(info.param); });

TEST(DeepFormatRange, LimitedRangeScalesWithTheDepth) {
  const GstVideoInfo ten =
      video_info(GST_VIDEO_FORMAT_P010_10LE, 16, 16, GST_VIDEO_COLOR_RANGE_16_235);
  EXPECT_EQ(histeq_output_range(&ten).lo, 64u);
  EXPECT_EQ(histeq_output_range(&ten).hi, 940u);
  const GstVideoInfo sixteen = video_info(GST_VIDEO_FORMAT_GRAY16_LE, 16, 16);
  EXPECT_EQ(histeq_output_range(&sixteen).hi, 65535u);
  EXPECT_EQ(histeq_sample_layout(&ten).shift, 6);
  // Limited range at 12 and 16 bits: 16..235 scaled by 2^(bits - 8), as BT.2020 defines it at
  // 12 bits and GStreamer's gst_video_color_range_offsets takes it to 16.
  for (GstVideoFormat twelve_bits : {GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_P012_LE}) {
    const GstVideoInfo twelve = video_info(twelve_bits, 16, 16, GST_VIDEO_COLOR_RANGE_16_235);
    EXPECT_EQ(histeq_output_range(&twelve).lo, 256u) << gst_video_format_to_string(twelve_bits);
    EXPECT_EQ(histeq_output_range(&twelve).hi, 3760u) << gst_video_format_to_string(twelve_bits);
  }
  const GstVideoInfo limited_sixteen =
      video_info(GST_VIDEO_FORMAT_P016_LE, 16, 16, GST_VIDEO_COLOR_RANGE_16_235);
  EXPECT_EQ(histeq_output_range(&limited_sixteen).lo, 4096u);
  EXPECT_EQ(histeq_output_range(&limited_sixteen).hi, 60160u);
}

// Both elements' sink and src templates take every deep format in system memory, and
// cudahisteq's in CUDA memory too (NVDEC's P010_10LE stays on the GPU).
TEST(DeepFormatCaps, BothElementsTakeEveryDeepFormat) {
  for (const char *name : kElements) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (!factory) {
      EXPECT_STREQ(name, "cudahisteq") << "histeq is always built";
      continue;
    }
    EXPECT_EQ(gst_element_factory_get_num_pad_templates(factory), 2u) << name;
    gst_object_unref(factory);
    const bool in_cuda_memory = std::string(name) == "cudahisteq";
    for (GstPadDirection direction : {GST_PAD_SINK, GST_PAD_SRC}) {
      for (GstVideoFormat format : kDeepFormats) {
        const GstVideoInfo info = video_info(format, 16, 16);
        GstCaps *caps = gst_video_info_to_caps(&info);
        const char *pad = direction == GST_PAD_SINK ? "sink" : "src";
        EXPECT_TRUE(template_takes(name, direction, caps))
            << name << " " << pad << " " << gst_video_format_to_string(format);
        gst_caps_set_features_simple(caps, gst_caps_features_new("memory:CUDAMemory", nullptr));
        EXPECT_EQ(template_takes(name, direction, caps), in_cuda_memory)
            << name << " " << pad << " " << gst_video_format_to_string(format) << " in CUDA memory";
        gst_caps_unref(caps);
      }
    }
  }
}
