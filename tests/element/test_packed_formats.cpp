// SPDX-License-Identifier: LGPL-2.1-or-later
// Both elements on packed formats: 4:2:2 YUV (YUY2, UYVY, YVYU) equalized in its luma bytes with
// chroma byte-identical; packed RGB (with and without alpha or padding) equalized by a luma of
// the chosen matrix, R, G and B scaled alike; alpha, padding and everything outside a crop
// rectangle untouched; every option; statistics of 256 bins. The expected frames come from the
// core on a copy of the buffer's bytes. cudahisteq's cases skip without a GPU.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "element_availability.h"
#include "video_frames.h"

namespace {

// Where a packed format keeps its samples, read from GStreamer's own format description.
struct PackedLayout {
  bool rgb;
  int pixel_bytes;
  int luma;              // packed YUV: the luma byte of a pixel
  int red, green, blue;  // packed RGB
  int fourth;            // the byte of a 4-byte RGB pixel that is none of R, G, B; else -1
};

PackedLayout packed_layout(GstVideoFormat format) {
  const GstVideoFormatInfo *f = gst_video_format_get_info(format);
  PackedLayout l{bool(GST_VIDEO_FORMAT_INFO_IS_RGB(f)),
                 int(GST_VIDEO_FORMAT_INFO_PSTRIDE(f, 0)),
                 int(GST_VIDEO_FORMAT_INFO_POFFSET(f, 0)),
                 int(GST_VIDEO_FORMAT_INFO_POFFSET(f, 0)),
                 int(GST_VIDEO_FORMAT_INFO_POFFSET(f, 1)),
                 int(GST_VIDEO_FORMAT_INFO_POFFSET(f, 2)),
                 -1};
  if (l.rgb && l.pixel_bytes == 4) l.fourth = 6 - l.red - l.green - l.blue;
  return l;
}

// A dull, colourful frame: each pixel a low-contrast level with its own tint (RGB, some pixels
// black), or a low-contrast luma with random chroma (YUV); every other byte, padding included,
// random.
GstBuffer *colourful_frame(const GstVideoInfo &info, std::mt19937 &rng) {
  const PackedLayout l = packed_layout(GST_VIDEO_INFO_FORMAT(&info));
  std::vector<std::uint8_t> bytes(GST_VIDEO_INFO_SIZE(&info));
  for (auto &b : bytes) b = std::uint8_t(rng());
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t *p = &bytes[std::size_t(y) * stride + std::size_t(x) * l.pixel_bytes];
      const int level = 80 + 60 * (x + y) / (width + height) + int(rng() % 9);
      if (!l.rgb) {
        p[l.luma] = std::uint8_t(level);
        continue;
      }
      // Black pixels scattered: RGB's rule for luma 0.
      const bool black = (7 * x + 3 * y) % 29 == 0;
      for (int c : {l.red, l.green, l.blue})
        p[c] = black ? 0 : std::uint8_t(std::clamp(level + int(rng() % 61) - 30, 0, 255));
    }
  return gst_buffer_new_memdup(bytes.data(), bytes.size());
}

std::vector<std::uint8_t> bytes_of(GstBuffer *buffer) {
  std::vector<std::uint8_t> bytes(gst_buffer_get_size(buffer));
  gst_buffer_extract(buffer, 0, bytes.data(), bytes.size());
  return bytes;
}

// The core's equalization of `bytes` (a whole frame of `info`), or of rectangle `r` of it.
const histeq::CpuEqualizer::Lut &core_equalize(histeq::CpuEqualizer &core, const GstVideoInfo &info,
                                               std::vector<std::uint8_t> &bytes, CropRect r,
                                               histeq::LumaStandard standard,
                                               const histeq::Params &params, bool reset) {
  const PackedLayout l = packed_layout(GST_VIDEO_INFO_FORMAT(&info));
  const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
  std::uint8_t *origin =
      bytes.data() + std::size_t(r.y) * stride + std::size_t(r.x) * l.pixel_bytes;
  const histeq::OutputRange range = range_of(info);
  if (l.rgb)
    return core.equalize(histeq::RgbView{origin, r.width, r.height, stride, l.pixel_bytes, l.red,
                                         l.green, l.blue, histeq::luma_matrix(standard)},
                         range, params, reset);
  return core.equalize(histeq::PackedYuvView{origin, r.width, r.height, stride, l.luma}, range,
                       params, reset);
}

// Whether byte `x` of a row may change: a luma byte of packed YUV, or R, G or B of RGB, of a
// pixel in [x0, x0 + width).
bool may_change(const PackedLayout &l, int x, int x0, int width) {
  if (x < x0 * l.pixel_bytes || x >= (x0 + width) * l.pixel_bytes) return false;
  return l.rgb ? x % l.pixel_bytes != l.fourth : x % l.pixel_bytes == l.luma;
}

constexpr GstVideoFormat kPackedFormats[] = {
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_YVYU, GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGR};

constexpr const char *kElements[] = {"histeq", "cudahisteq"};

class PackedFormats : public ::testing::TestWithParam<std::tuple<const char *, GstVideoFormat>> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(element())); }
  const char *element() const { return std::get<0>(GetParam()); }
  GstVideoFormat format() const { return std::get<1>(GetParam()); }
  void expect_every_option_equalized(GstVideoColorRange range);
};

std::string element_and_format(
    const ::testing::TestParamInfo<std::tuple<const char *, GstVideoFormat>> &info) {
  return std::string(std::get<0>(info.param)) + "_" +
         gst_video_format_to_string(std::get<1>(info.param));
}

}  // namespace

// Three frames with every option at an odd size, in both ranges: each equals the core's, the
// bytes that are not luma (or R, G, B) are byte-identical, and the statistics have 256 bins.
TEST_P(PackedFormats, EqualizedAsTheCoreWithEveryOptionAndNothingElseChanges) {
  for (const GstVideoColorRange range :
       {GST_VIDEO_COLOR_RANGE_0_255, GST_VIDEO_COLOR_RANGE_16_235}) {
    expect_every_option_equalized(range);
    if (HasFatalFailure()) return;
  }
}

void PackedFormats::expect_every_option_equalized(GstVideoColorRange range) {
  SCOPED_TRACE(range == GST_VIDEO_COLOR_RANGE_0_255 ? "full range" : "limited range");
  const GstVideoFormat format = this->format();
  const PackedLayout l = packed_layout(format);
  const GstVideoInfo info = video_info(format, 161, 97, range);
  histeq::Settings settings;
  settings.strength = 0.9;
  settings.clip_limit = 2;
  settings.smoothing = 5;
  settings.scene_threshold = 0.3;
  settings.statistics = true;
  GstHarness *h = gst_harness_new(element());
  g_object_set(h->element, "strength", settings.strength, "clip-limit", settings.clip_limit,
               "smoothing", settings.smoothing, "scene-threshold", settings.scene_threshold,
               "post-messages", TRUE, nullptr);
  gst_util_set_object_arg(G_OBJECT(h->element), "luma-matrix", "bt601");
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  histeq::CpuEqualizer core(1);
  std::mt19937 rng{unsigned(format)};
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
  for (int i = 0; i < 3; ++i) {
    GstBuffer *input = colourful_frame(info, rng);
    const std::vector<std::uint8_t> before = bytes_of(input);
    std::vector<std::uint8_t> expected = before;
    core_equalize(core, info, expected, CropRect{0, 0, width, height}, histeq::LumaStandard::kBt601,
                  histeq::to_params(settings), i == 0);
    GstBuffer *output = gst_harness_push_and_pull(h, input);
    ASSERT_NE(output, nullptr);
    const std::vector<std::uint8_t> after = bytes_of(output);
    gst_buffer_unref(output);
    ASSERT_EQ(after, expected) << "frame " << i;
    ASSERT_NE(after, before) << "frame " << i << " was not equalized";
    for (std::size_t at = 0; at < after.size(); ++at) {
      const int y = int(at / stride), x = int(at % stride);
      if (y >= height || !may_change(l, x, 0, width)) {
        ASSERT_EQ(after[at], before[at]) << "row " << y << " byte " << x;
      }
    }
    GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT);
    ASSERT_NE(message, nullptr);
    guint bins = 0;
    gst_structure_get_uint(gst_message_get_structure(message), "bins", &bins);
    EXPECT_EQ(bins, 256u);
    guint64 pixels = 0;
    gst_structure_get_uint64(gst_message_get_structure(message), "pixels", &pixels);
    EXPECT_EQ(pixels, guint64(width) * height);
    gst_message_unref(message);
  }
  gst_bus_set_flushing(bus, TRUE);
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

// A crop rectangle: its x counts pixels of pixel_bytes each; only the rectangle is counted and
// rewritten.
TEST_P(PackedFormats, OnlyTheCropRectangleIsEqualized) {
  const GstVideoFormat format = this->format();
  const GstVideoInfo info = video_info(format, 97, 61);
  const CropRect r{13, 7, 50, 31};
  std::mt19937 rng{3};
  GstBuffer *input = colourful_frame(info, rng);
  add_crop(input, r);
  std::vector<std::uint8_t> expected = bytes_of(input);
  histeq::CpuEqualizer core(1);
  core_equalize(core, info, expected, r, histeq::LumaStandard::kBt709, {}, true);
  GstHarness *h = gst_harness_new(element());
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  GstBuffer *output = gst_harness_push_and_pull(h, input);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(bytes_of(output), expected);
  gst_buffer_unref(output);
  gst_harness_teardown(h);
}

// A 4K frame: the GPU's chunks and its grid of many blocks, each format's rows as the kernels
// walk them at full size.
TEST_P(PackedFormats, A4KFrameEqualsTheCore) {
  const GstVideoInfo info = video_info(format(), 3840, 2160);
  std::mt19937 rng{11};
  GstBuffer *input = colourful_frame(info, rng);
  std::vector<std::uint8_t> expected = bytes_of(input);
  histeq::CpuEqualizer core(1);
  core_equalize(core, info, expected, CropRect{0, 0, 3840, 2160}, histeq::LumaStandard::kBt709, {},
                true);
  GstHarness *h = gst_harness_new(element());
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  GstBuffer *output = gst_harness_push_and_pull(h, input);
  ASSERT_NE(output, nullptr);
  EXPECT_TRUE(bytes_of(output) == expected);
  gst_buffer_unref(output);
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Formats, PackedFormats,
                         ::testing::Combine(::testing::ValuesIn(kElements),
                                            ::testing::ValuesIn(kPackedFormats)),
                         element_and_format);

class PackedRgbElement : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(std::string(GetParam())); }
};

// The luma-matrix property chooses the weights: the same frame comes out as the core makes it
// with each matrix, and differently between them.
TEST_P(PackedRgbElement, TheLumaMatrixPropertyChoosesTheWeights) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_BGRx, 120, 80);
  std::mt19937 rng{8};
  GstBuffer *frame = colourful_frame(info, rng);
  std::vector<std::vector<std::uint8_t>> outputs;
  for (const char *matrix : {"bt709", "bt601", "bt2020"}) {
    SCOPED_TRACE(matrix);
    GstHarness *h = gst_harness_new(GetParam());
    gst_util_set_object_arg(G_OBJECT(h->element), "luma-matrix", matrix);
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
    std::vector<std::uint8_t> expected = bytes_of(frame);
    histeq::CpuEqualizer core(1);
    const histeq::LumaStandard standard =
        std::string(matrix) == "bt709"   ? histeq::LumaStandard::kBt709
        : std::string(matrix) == "bt601" ? histeq::LumaStandard::kBt601
                                         : histeq::LumaStandard::kBt2020;
    core_equalize(core, info, expected, CropRect{0, 0, 120, 80}, standard, {}, true);
    GstBuffer *output = gst_harness_push_and_pull(h, gst_buffer_copy_deep(frame));
    ASSERT_NE(output, nullptr);
    outputs.push_back(bytes_of(output));
    EXPECT_EQ(outputs.back(), expected);
    gst_buffer_unref(output);
    gst_harness_teardown(h);
  }
  gst_buffer_unref(frame);
  EXPECT_NE(outputs[0], outputs[1]);
  EXPECT_NE(outputs[0], outputs[2]);
}

INSTANTIATE_TEST_SUITE_P(Elements, PackedRgbElement, ::testing::ValuesIn(kElements));

// Both elements' templates take every packed format, in system memory and (cudahisteq) in CUDA
// memory.
TEST(PackedFormatCaps, BothElementsTakeEveryPackedFormat) {
  for (const char *name : kElements) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (!factory) {
      EXPECT_STREQ(name, "cudahisteq") << "histeq is always built";
      continue;
    }
    GstElement *element = gst_element_factory_create(factory, nullptr);
    GstPad *sink = gst_element_get_static_pad(element, "sink");
    GstCaps *template_caps = gst_pad_get_pad_template_caps(sink);
    for (GstVideoFormat format : kPackedFormats) {
      const GstVideoInfo info = video_info(format, 16, 16);
      GstCaps *caps = gst_video_info_to_caps(&info);
      EXPECT_TRUE(gst_caps_can_intersect(caps, template_caps))
          << name << " " << gst_video_format_to_string(format);
      gst_caps_unref(caps);
    }
    gst_caps_unref(template_caps);
    gst_object_unref(sink);
    gst_object_unref(element);
    gst_object_unref(factory);
  }
}
