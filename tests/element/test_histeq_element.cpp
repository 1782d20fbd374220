// SPDX-License-Identifier: LGPL-2.1-or-later
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "../address_space_limit.h"
#include "late_frames.h"
#include "posted_error.h"
#include "video_frames.h"

namespace {

struct Harness {
  GstHarness *h;
  explicit Harness(const char *description) : h(gst_harness_new(description)) {}
  ~Harness() { gst_harness_teardown(h); }
  void set_caps(const GstVideoInfo &info) {
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  }
};

// Pushes `input` (taking the reference the caller passes) and checks the output against the
// core: luma equalized, chroma and every padding byte as they were.
void expect_equalized(Harness &harness, const GstVideoInfo &info, GstBuffer *input) {
  const auto planes_in = visible_planes(info, input);
  const auto padding_in = padding_bytes(info, input);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  ASSERT_NE(output, nullptr);
  const auto planes_out = visible_planes(info, output);
  ASSERT_EQ(planes_out.size(), planes_in.size());
  EXPECT_EQ(planes_out[0], core_equalized_luma(planes_in[0], GST_VIDEO_INFO_WIDTH(&info),
                                               GST_VIDEO_INFO_HEIGHT(&info), range_of(info)));
  for (std::size_t p = 1; p < planes_in.size(); ++p)
    EXPECT_EQ(planes_out[p], planes_in[p]) << "plane " << p;
  EXPECT_EQ(padding_bytes(info, output), padding_in) << "padding";
  gst_buffer_unref(output);
}

}  // namespace

class EveryFormatAndSize
    : public ::testing::TestWithParam<std::tuple<GstVideoFormat, std::pair<int, int>>> {};

TEST_P(EveryFormatAndSize, LumaMatchesCoreAndChromaIsUntouched) {
  const auto [format, size] = GetParam();
  const GstVideoInfo info = video_info(format, size.first, size.second);
  Harness harness("histeq");
  harness.set_caps(info);
  std::mt19937 rng(size.first * 131 + format);
  for (int i = 0; i < 2; ++i) expect_equalized(harness, info, natural_frame(info, rng));
}

INSTANTIATE_TEST_SUITE_P(
    Formats, EveryFormatAndSize,
    ::testing::Combine(::testing::Values(GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420,
                                         GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
                                         GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y41B,
                                         GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444),
                       ::testing::Values(std::make_pair(1, 1), std::make_pair(3, 3),
                                         std::make_pair(385, 289), std::make_pair(1920, 1080))),
    [](const auto &info) {
      return std::string(gst_video_format_to_string(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param).first) + "x" +
             std::to_string(std::get<1>(info.param).second);
    });

TEST(HistEqElement, LimitedRangeCapsKeepLumaInsideSixteenToTwoThirtyFive) {
  for (auto [caps_range, core_range] :
       {std::make_pair(GST_VIDEO_COLOR_RANGE_16_235, histeq::limited_range(8)),
        std::make_pair(GST_VIDEO_COLOR_RANGE_0_255, histeq::full_range(8))}) {
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 64, 48, caps_range);
    Harness harness("histeq");
    harness.set_caps(info);
    std::mt19937 rng(7);
    GstBuffer *input = natural_frame(info, rng);
    const auto luma_in = visible_planes(info, input)[0];
    GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
    ASSERT_NE(output, nullptr);
    const auto luma_out = visible_planes(info, output)[0];
    EXPECT_EQ(luma_out, core_equalized_luma(luma_in, 64, 48, core_range));
    const auto [lo, hi] = std::minmax_element(luma_out.begin(), luma_out.end());
    EXPECT_EQ(*lo, core_range.lo);
    EXPECT_EQ(*hi, core_range.hi);
    gst_buffer_unref(output);
  }
}

TEST(HistEqElement, CustomStridesFromVideoMetaAreHonouredAndPaddingIsKept) {
  const int width = 101, height = 37;
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, width, height);
  // Strides far from GStreamer's defaults, with the luma plane after a gap.
  const gsize offsets[2] = {64, 64 + 160 * height + 32};
  const gint strides[2] = {160, 144};
  const gsize size = offsets[1] + strides[1] * ((height + 1) / 2);
  GstBuffer *input = gst_buffer_new_allocate(nullptr, size, nullptr);
  gst_buffer_memset(input, 0, 0x5a, size);
  gst_buffer_add_video_meta_full(input, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, width,
                                 height, 2, const_cast<gsize *>(offsets),
                                 const_cast<gint *>(strides));
  GstMapInfo map;
  gst_buffer_map(input, &map, GST_MAP_WRITE);
  std::mt19937 rng(3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) map.data[offsets[0] + y * strides[0] + x] = 90 + rng() % 40;
  std::vector<std::uint8_t> luma_in;
  for (int y = 0; y < height; ++y)
    luma_in.insert(luma_in.end(), map.data + offsets[0] + y * strides[0],
                   map.data + offsets[0] + y * strides[0] + width);
  gst_buffer_unmap(input, &map);

  Harness harness("histeq");
  harness.set_caps(info);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  ASSERT_NE(output, nullptr);
  gst_buffer_map(output, &map, GST_MAP_READ);
  ASSERT_EQ(map.size, size);
  const auto expected = core_equalized_luma(luma_in, width, height, histeq::full_range(8));
  for (int y = 0; y < height; ++y) {
    const std::uint8_t *row = map.data + offsets[0] + y * strides[0];
    ASSERT_TRUE(std::equal(row, row + width, expected.begin() + y * width)) << "row " << y;
    for (int x = width; x < strides[0]; ++x) ASSERT_EQ(row[x], 0x5a) << "padding " << y;
  }
  for (gsize i = 0; i < offsets[0]; ++i) ASSERT_EQ(map.data[i], 0x5a);
  for (gsize i = offsets[1]; i < size; ++i) ASSERT_EQ(map.data[i], 0x5a) << "chroma byte " << i;
  gst_buffer_unmap(output, &map);
  gst_buffer_unref(output);
}

TEST(HistEqElement, WritableBufferIsEqualizedInPlace) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  Harness harness("histeq");
  harness.set_caps(info);
  std::mt19937 rng(13);
  GstBuffer *input = natural_frame(info, rng);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  EXPECT_EQ(output, input);
  gst_buffer_unref(output);
}

TEST(HistEqElement, NonWritableInputIsLeftAsItWas) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 320, 240);
  Harness harness("histeq");
  harness.set_caps(info);
  std::mt19937 rng(11);
  GstBuffer *input = natural_frame(info, rng);
  const auto before = visible_planes(info, input);
  // Keeping a reference of our own makes the pushed buffer non-writable.
  expect_equalized(harness, info, gst_buffer_ref(input));
  EXPECT_EQ(visible_planes(info, input), before);
  gst_buffer_unref(input);
}

TEST(HistEqElement, CapsChangeMidStreamUsesTheNewSizeAndFormat) {
  Harness harness("histeq");
  std::mt19937 rng(5);
  for (const GstVideoInfo &info :
       {video_info(GST_VIDEO_FORMAT_I420, 64, 48), video_info(GST_VIDEO_FORMAT_NV12, 129, 67),
        video_info(GST_VIDEO_FORMAT_GRAY8, 33, 17)}) {
    harness.set_caps(info);
    expect_equalized(harness, info, natural_frame(info, rng));
  }
}

TEST(HistEqElement, TimestampsDurationOffsetsAndFlagsAreKept) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 32, 32);
  Harness harness("histeq");
  harness.set_caps(info);
  std::mt19937 rng(1);
  GstBuffer *input = natural_frame(info, rng);
  GST_BUFFER_PTS(input) = 40 * GST_MSECOND;
  GST_BUFFER_DTS(input) = 20 * GST_MSECOND;
  GST_BUFFER_DURATION(input) = 33 * GST_MSECOND;
  GST_BUFFER_OFFSET(input) = 7;
  GST_BUFFER_OFFSET_END(input) = 8;
  GST_BUFFER_FLAG_SET(input, GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_DELTA_UNIT);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(GST_BUFFER_PTS(output), 40 * GST_MSECOND);
  EXPECT_EQ(GST_BUFFER_DTS(output), 20 * GST_MSECOND);
  EXPECT_EQ(GST_BUFFER_DURATION(output), 33 * GST_MSECOND);
  EXPECT_EQ(GST_BUFFER_OFFSET(output), 7u);
  EXPECT_EQ(GST_BUFFER_OFFSET_END(output), 8u);
  EXPECT_TRUE(GST_BUFFER_FLAG_IS_SET(output, GST_BUFFER_FLAG_DISCONT));
  EXPECT_TRUE(GST_BUFFER_FLAG_IS_SET(output, GST_BUFFER_FLAG_DELTA_UNIT));
  gst_buffer_unref(output);
}

TEST(HistEqElement, GapBufferPassesUntouched) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 48, 32);
  Harness harness("histeq");
  harness.set_caps(info);
  std::mt19937 rng(2);
  GstBuffer *input = natural_frame(info, rng);
  GST_BUFFER_FLAG_SET(input, GST_BUFFER_FLAG_GAP);
  const auto before = visible_planes(info, input);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  ASSERT_NE(output, nullptr);
  EXPECT_TRUE(GST_BUFFER_FLAG_IS_SET(output, GST_BUFFER_FLAG_GAP));
  EXPECT_EQ(visible_planes(info, output), before);
  gst_buffer_unref(output);

  // Gaps often come as empty buffers; they are not frames and so not an error.
  GstBuffer *empty_gap = gst_buffer_new();
  GST_BUFFER_FLAG_SET(empty_gap, GST_BUFFER_FLAG_GAP);
  EXPECT_EQ(gst_harness_push(harness.h, empty_gap), GST_FLOW_OK);
}

// QoS, as cudahisteq does it (GstVideoFilter's own here): once the sink reports that frames up
// to 2.5 s can only be shown late, frame 2 is dropped with a QoS message counting the two frames
// before it, and frame 3 comes out DISCONT; with qos=false every frame comes out.
TEST(HistEqElement, QosDropsALateFrameOnlyWhenOn) {
  for (const bool qos : {true, false}) {
    Harness harness("histeq");
    GstHarness *h = harness.h;
    if (!qos) g_object_set(h->element, "qos", FALSE, nullptr);
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    harness.set_caps(info);
    std::mt19937 rng(3);
    ASSERT_EQ(push_frames_with_frame_two_late(h, info, 0, 5, rng), GST_FLOW_OK);
    std::vector<int> out;
    while (GstBuffer *buffer = gst_harness_try_pull(h)) {
      const int index = int(GST_BUFFER_PTS(buffer) / GST_SECOND);
      EXPECT_EQ(bool(GST_BUFFER_IS_DISCONT(buffer)), qos && index == 3) << "frame " << index;
      out.push_back(index);
      gst_buffer_unref(buffer);
    }
    EXPECT_EQ(out, qos ? std::vector<int>({0, 1, 3, 4}) : std::vector<int>({0, 1, 2, 3, 4}));
    EXPECT_EQ(take_late_frame_messages(bus), qos ? 1 : 0);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
  }
}

class BadBuffer : public ::testing::Test {
 protected:
  BadBuffer() : harness("histeq"), bus(gst_bus_new()) {
    gst_element_set_bus(harness.h->element, bus);
  }
  ~BadBuffer() override {
    gst_element_set_bus(harness.h->element, nullptr);
    gst_object_unref(bus);
  }
  Harness harness;
  GstBus *bus;
};

TEST_F(BadBuffer, TooSmallForItsCapsIsAnErrorThatSaysSo) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 1920, 1080);
  harness.set_caps(info);
  GstBuffer *input = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info) / 2, nullptr);
  EXPECT_EQ(gst_harness_push(harness.h, input), GST_FLOW_ERROR);
  const PostedError posted(bus);
  ASSERT_NE(posted.error, nullptr);
  EXPECT_TRUE(g_error_matches(posted.error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
  EXPECT_NE(posted.text().find("smaller than its caps say"), std::string::npos) << posted.text();
  EXPECT_NE(posted.text().find(std::to_string(GST_VIDEO_INFO_SIZE(&info) / 2) + " bytes"),
            std::string::npos)
      << posted.text();
  EXPECT_NE(posted.text().find("1920x1080 NV12"), std::string::npos) << posted.text();
  EXPECT_NE(posted.debug_text().find("gst_video_frame_map"), std::string::npos)
      << posted.debug_text();
}

TEST_F(BadBuffer, VideoMetaReachingPastTheMemoryIsAnError) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 64, 48);
  harness.set_caps(info);
  GstBuffer *input = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  // Planes laid out twice as far apart as the memory allows.
  gsize offsets[3] = {0, 2 * GST_VIDEO_INFO_PLANE_OFFSET(&info, 1),
                      2 * GST_VIDEO_INFO_PLANE_OFFSET(&info, 2)};
  gint strides[3] = {GST_VIDEO_INFO_PLANE_STRIDE(&info, 0), GST_VIDEO_INFO_PLANE_STRIDE(&info, 1),
                     GST_VIDEO_INFO_PLANE_STRIDE(&info, 2)};
  gst_buffer_add_video_meta_full(input, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, 64, 48, 3,
                                 offsets, strides);
  EXPECT_EQ(gst_harness_push(harness.h, input), GST_FLOW_ERROR);
  const PostedError posted(bus);
  ASSERT_NE(posted.error, nullptr);
  EXPECT_TRUE(g_error_matches(posted.error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
  EXPECT_NE(posted.text().find("places plane 1 of a 64x48 I420 frame"), std::string::npos)
      << posted.text();
}

// A 64x48 GRAY8 buffer of exactly 3072 bytes whose meta puts its one plane elsewhere: each
// layout would read or write outside the buffer (or alias rows) and is refused, naming the
// plane and the sizes.
TEST_F(BadBuffer, VideoMetaPlanesOutsideTheBufferOrWithBadStridesAreRefused) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_GRAY8, 64, 48);
  harness.set_caps(info);
  struct Layout {
    gsize offset;
    gint stride;
    const char *says;
  };
  for (const Layout &layout :
       {Layout{0, 65, "at bytes 0 to 3119 (stride 65)"},
        Layout{0, 4096, "at bytes 0 to 192576 (stride 4096)"},
        Layout{3071, 64, "at bytes 3071 to 6143 (stride 64)"},
        Layout{0, -64, "a stride of -64 bytes"}, Layout{0, 0, "a stride of 0 bytes"},
        Layout{0, 32, "a stride of 32 bytes, but its rows are 64"}}) {
    SCOPED_TRACE(layout.says);
    GstBuffer *input = gst_buffer_new_allocate(nullptr, 3072, nullptr);
    gsize offsets[1] = {layout.offset};
    gint strides[1] = {layout.stride};
    gst_buffer_add_video_meta_full(input, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 64, 48,
                                   1, offsets, strides);
    EXPECT_EQ(gst_harness_push(harness.h, input), GST_FLOW_ERROR);
    const PostedError posted(bus);
    ASSERT_NE(posted.error, nullptr);
    EXPECT_TRUE(g_error_matches(posted.error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
    EXPECT_NE(posted.text().find("plane 0 of a 64x48 GRAY8 frame"), std::string::npos)
        << posted.text();
    EXPECT_NE(posted.text().find(layout.says), std::string::npos) << posted.text();
    if (layout.stride >= 64) {
      EXPECT_NE(posted.text().find("the buffer holds 3072 bytes"), std::string::npos)
          << posted.text();
    }
  }
}

// 16-bit samples are read as words: a luma plane at an odd offset, with an odd stride or in
// memory at an odd address is refused by name, not read misaligned. Each layout lies inside
// the buffer, so only the alignment is wrong.
TEST_F(BadBuffer, SixteenBitLumaOffTheirWordsIsRefused) {
  struct Layout {
    GstVideoFormat format;
    gsize offset;
    gint stride;
    const char *says;
  };
  for (const Layout &layout :
       {Layout{GST_VIDEO_FORMAT_GRAY16_LE, 1, 64, "starts 1 bytes past a multiple of 2"},
        Layout{GST_VIDEO_FORMAT_GRAY16_LE, 0, 65, "a stride of 65 bytes"},
        Layout{GST_VIDEO_FORMAT_I420_10LE, 1, 64, "starts 1 bytes past a multiple of 2"}}) {
    SCOPED_TRACE(layout.says);
    const GstVideoInfo info = video_info(layout.format, 32, 8);
    harness.set_caps(info);
    GstBuffer *input = gst_buffer_new_allocate(nullptr, 1024, nullptr);
    // The chroma planes of I420_10LE (32 bytes by 4 rows each) where they fit.
    gsize offsets[3] = {layout.offset, 600, 800};
    gint strides[3] = {layout.stride, 32, 32};
    gst_buffer_add_video_meta_full(input, GST_VIDEO_FRAME_FLAG_NONE, layout.format, 32, 8,
                                   GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
    EXPECT_EQ(gst_harness_push(harness.h, input), GST_FLOW_ERROR);
    const PostedError posted(bus);
    ASSERT_NE(posted.error, nullptr);
    EXPECT_TRUE(g_error_matches(posted.error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
    EXPECT_NE(posted.text().find(layout.says), std::string::npos) << posted.text();
    EXPECT_NE(posted.text().find(std::string(gst_video_format_to_string(layout.format)) +
                                 " samples are 2 bytes wide"),
              std::string::npos)
        << posted.text();
  }
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_GRAY16_LE, 32, 8);
  harness.set_caps(info);
  // No meta: memory one byte into an allocation of our own.
  std::vector<std::uint8_t> storage(GST_VIDEO_INFO_SIZE(&info) + 2);
  auto *odd = reinterpret_cast<guint8 *>((reinterpret_cast<guintptr>(storage.data()) | 1));
  GstBuffer *input = gst_buffer_new_wrapped_full(GstMemoryFlags(0), odd, GST_VIDEO_INFO_SIZE(&info),
                                                 0, GST_VIDEO_INFO_SIZE(&info), nullptr, nullptr);
  EXPECT_EQ(gst_harness_push(harness.h, input), GST_FLOW_ERROR);
  const PostedError posted(bus);
  ASSERT_NE(posted.error, nullptr);
  EXPECT_NE(posted.text().find("starts 1 bytes past a multiple of 2"), std::string::npos)
      << posted.text();
}

// GLib criticals from any library, counted while a test runs.
class CriticalCounter {
 public:
  CriticalCounter() { previous_ = g_log_set_default_handler(count, this); }
  ~CriticalCounter() { g_log_set_default_handler(previous_, nullptr); }
  int criticals = 0;

 private:
  static void count(const gchar *, GLogLevelFlags level, const gchar *, gpointer self) {
    if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
      ++static_cast<CriticalCounter *>(self)->criticals;
  }
  GLogFunc previous_;
};

TEST_F(BadBuffer, VideoMetaContradictingTheCapsIsAnErrorNotACritical) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  harness.set_caps(info);
  GstBuffer *input = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_add_video_meta(input, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 32, 24);
  const CriticalCounter counter;
  EXPECT_EQ(gst_harness_push(harness.h, input), GST_FLOW_ERROR);
  EXPECT_EQ(counter.criticals, 0);
  const PostedError posted(bus);
  ASSERT_NE(posted.error, nullptr);
  EXPECT_TRUE(g_error_matches(posted.error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
  EXPECT_NE(posted.text().find("describes a 32x24 NV12 frame, but the caps say 64x48 NV12"),
            std::string::npos)
      << posted.text();
}

TEST(HistEqElement, UnsupportedCapsAreRefused) {
  Harness harness("histeq");
  // A supported format is accepted, so a refusal below is about the format alone.
  GstCaps *supported =
      gst_caps_from_string("video/x-raw,format=NV12,width=16,height=16,framerate=30/1");
  EXPECT_TRUE(gst_pad_peer_query_accept_caps(harness.h->srcpad, supported));
  gst_caps_unref(supported);
  for (const char *caps_string :
       {"video/x-raw,format=RGB16,width=16,height=16,framerate=30/1",
        "video/x-raw,format=v210,width=16,height=16,framerate=30/1",
        "video/x-raw,format=GRAY16_BE,width=16,height=16,framerate=30/1"}) {
    GstCaps *caps = gst_caps_from_string(caps_string);
    EXPECT_FALSE(gst_pad_peer_query_accept_caps(harness.h->srcpad, caps)) << caps_string;
    gst_caps_unref(caps);
    Harness pushing("histeq");
    gst_harness_set_src_caps_str(pushing.h, caps_string);
    EXPECT_EQ(gst_harness_push(pushing.h, gst_buffer_new_allocate(nullptr, 16 * 16 * 3, nullptr)),
              GST_FLOW_NOT_NEGOTIATED)
        << caps_string;
  }
}

TEST(HistEqElement, ThreadCountRoundTripsAndChangesWhilePlayingKeepTheOutput) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 1280, 720);
  Harness harness("histeq");
  harness.set_caps(info);
  std::mt19937 rng(9);
  for (guint threads : {1u, 4u, 0u}) {
    g_object_set(harness.h->element, "n-threads", threads, nullptr);
    guint read_back = 99;
    g_object_get(harness.h->element, "n-threads", &read_back, nullptr);
    EXPECT_EQ(read_back, threads);
    expect_equalized(harness, info, natural_frame(info, rng));
  }
}

namespace {

// The threads of this process, as /proc/self/task lists them.
int process_threads() {
  int threads = 0;
  if (GDir *tasks = g_dir_open("/proc/self/task", 0, nullptr)) {
    while (g_dir_read_name(tasks)) ++threads;
    g_dir_close(tasks);
  }
  return threads;
}

// Waits up to a second for at most `most` threads: a joined thread's task can leave the list a
// moment after the join returns.
int threads_settled_at_most(int most) {
  int threads = process_threads();
  for (int i = 0; i < 100 && threads > most; ++i) {
    g_usleep(10000);
    threads = process_threads();
  }
  return threads;
}

}  // namespace

TEST(HistEqElement, StoppedElementKeepsNoWorkerThreads) {
  ASSERT_GT(process_threads(), 0) << "no /proc/self/task";
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 1280, 720);
  Harness harness("histeq");
  g_object_set(harness.h->element, "n-threads", 4u, nullptr);
  harness.set_caps(info);
  std::mt19937 rng(5);
  // The pool starts with the first frame: the caller's thread and three workers. Other threads
  // of the process may end meanwhile (a test before this one's), none start.
  expect_equalized(harness, info, natural_frame(info, rng));
  const int running = process_threads();
  for (GstState stopped : {GST_STATE_READY, GST_STATE_NULL}) {
    ASSERT_NE(gst_element_set_state(harness.h->element, stopped), GST_STATE_CHANGE_FAILURE);
    const int left = threads_settled_at_most(running - 3);
    EXPECT_LE(left, running - 3) << gst_element_state_get_name(stopped);
    // Playing again, the element starts a pool and equalizes as before.
    ASSERT_NE(gst_element_set_state(harness.h->element, GST_STATE_PLAYING),
              GST_STATE_CHANGE_FAILURE);
    harness.set_caps(info);
    expect_equalized(harness, info, natural_frame(info, rng));
    EXPECT_GE(process_threads(), left + 3) << gst_element_state_get_name(stopped);
  }
}

namespace {

std::atomic<bool> fewer_threads_warned{false};

void watch_for_fewer_threads(GstDebugCategory *category, GstDebugLevel level, const gchar *,
                             const gchar *, gint, GObject *, GstDebugMessage *message, gpointer) {
  if (level == GST_LEVEL_WARNING &&
      std::strcmp(gst_debug_category_get_name(category), "histeq") == 0 &&
      std::strstr(gst_debug_message_get(message), "worker threads could start"))
    fewer_threads_warned = true;
}

// Exits 0 when histeq, asked for 64 threads under an address-space limit that leaves room for
// few thread stacks, warned that fewer started and equalized the frame with them.
[[noreturn]] void equalize_a_frame_under_an_address_space_limit() {
  gst_debug_set_active(TRUE);
  gst_debug_set_threshold_for_name("histeq", GST_LEVEL_WARNING);
  gst_debug_add_log_function(watch_for_fewer_threads, nullptr, nullptr);
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 640, 480);
  Harness harness("histeq");
  g_object_set(harness.h->element, "n-threads", 64u, nullptr);
  harness.set_caps(info);
  std::mt19937 rng(13);
  GstBuffer *input = natural_frame(info, rng);
  const auto planes_in = visible_planes(info, input);
  const auto expected = core_equalized_luma(planes_in[0], 640, 480, histeq::full_range(8));
  if (!limit_address_space_to_a_few_thread_stacks()) std::_Exit(2);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  if (output == nullptr) std::_Exit(3);
  const bool equalized = visible_planes(info, output)[0] == expected;
  gst_buffer_unref(output);
  if (!equalized) std::_Exit(4);
  std::_Exit(fewer_threads_warned ? 0 : 5);
}

}  // namespace

// Threads that cannot start are left out: the element warns and equalizes with those that did.
// In a child process, so the limit stays there.
TEST(HistEqElementDeathTest, ThreadsThatCannotStartAreLeftOutWithAWarning) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's shadow memory does not fit under an address-space limit";
#endif
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(equalize_a_frame_under_an_address_space_limit(), ::testing::ExitedWithCode(0), "");
}

TEST(HistEqElement, FactoryAndPropertyAreDocumented) {
  GstElementFactory *factory = gst_element_factory_find("histeq");
  ASSERT_NE(factory, nullptr);
  EXPECT_STREQ(gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS),
               "Filter/Effect/Video");
  for (const char *key : {GST_ELEMENT_METADATA_LONGNAME, GST_ELEMENT_METADATA_DESCRIPTION,
                          GST_ELEMENT_METADATA_AUTHOR})
    EXPECT_GT(std::strlen(gst_element_factory_get_metadata(factory, key)), 0u) << key;

  GstElement *element = gst_element_factory_create(factory, nullptr);
  ASSERT_NE(element, nullptr);
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "n-threads");
  ASSERT_NE(spec, nullptr);
  ASSERT_EQ(G_PARAM_SPEC_VALUE_TYPE(spec), G_TYPE_UINT);
  const GParamSpecUInt *uint_spec = G_PARAM_SPEC_UINT(spec);
  EXPECT_EQ(uint_spec->minimum, 0u);
  EXPECT_GT(uint_spec->maximum, 1u);
  EXPECT_EQ(uint_spec->default_value, 0u);
  EXPECT_NE(std::string(g_param_spec_get_blurb(spec)).find("0 = one per core"), std::string::npos);
  gst_object_unref(element);
  gst_object_unref(factory);
}
