// SPDX-License-Identifier: LGPL-2.1-or-later
// The equalization options on both elements, against the CPU core frame by frame: the shared
// properties, every option on every format, the history's restarts, the statistics messages,
// a GstController ramp and passthrough at strength 0. cudahisteq's cases skip without a GPU.
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gst/check/gstharness.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gtest/gtest.h>

#include "cpu_equalizer.h"
#include "element_availability.h"
#include "frame_stats.h"
#include "params.h"
#include "pipeline_frames.h"
#include "video_frames.h"

namespace {

constexpr const char *kOptionNames[] = {"strength", "clip-limit", "smoothing", "scene-threshold",
                                        "post-messages"};

// Maps the luma of a frame of `info` through level -> clamp(level * gain / 4 + offset): a
// scene of another brightness and contrast, for cuts.
void relight(const GstVideoInfo &info, GstBuffer *buffer, int gain, int offset) {
  GstVideoFrame frame;
  ASSERT_TRUE(gst_video_frame_map(&frame, &info, buffer, GST_MAP_READWRITE));
  auto *luma = static_cast<std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
  for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&frame, 0); ++y)
    for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&frame, 0); ++x) {
      std::uint8_t &p = luma[y * stride + x];
      p = std::uint8_t(std::clamp(p * gain / 4 + offset, 0, 255));
    }
  gst_video_frame_unmap(&frame);
}

// A clip of `count` frames 1/30 s apart whose scene changes at frame count / 2.
std::vector<GstBuffer *> make_clip(const GstVideoInfo &info, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<GstBuffer *> clip;
  for (int i = 0; i < count; ++i) {
    GstBuffer *buffer = natural_frame(info, rng);
    if (i >= count / 2) relight(info, buffer, 2, -60);
    GST_BUFFER_PTS(buffer) = GstClockTime(i) * GST_SECOND / 30;
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    clip.push_back(buffer);
  }
  return clip;
}

// What the core makes of the clip's luma with one set of settings, the history restarting at
// the frames `restarts` names; with the histograms and restarts for the messages.
struct CoreFrames {
  std::vector<std::vector<std::uint8_t>> luma;
  std::vector<histeq::LumaHistogram8> histograms;
  std::vector<bool> restarted;
};

CoreFrames core_frames(const GstVideoInfo &info, const std::vector<GstBuffer *> &clip,
                       const std::vector<histeq::Settings> &settings,
                       const std::vector<bool> &restarts) {
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  histeq::CpuEqualizer cpu(1);
  CoreFrames out;
  for (std::size_t i = 0; i < clip.size(); ++i) {
    std::vector<std::uint8_t> luma = visible_planes(info, clip[i])[0];
    cpu.equalize(histeq::LumaPlane8{luma.data(), width, height, width}, range_of(info),
                 histeq::to_params(settings[i]), restarts[i]);
    out.luma.push_back(luma);
    out.histograms.push_back(cpu.histogram());
    out.restarted.push_back(cpu.restarted());
  }
  return out;
}

std::string option_args(const histeq::Settings &s) {
  return " strength=" + std::to_string(s.strength) + " clip-limit=" + std::to_string(s.clip_limit) +
         " smoothing=" + std::to_string(s.smoothing) +
         " scene-threshold=" + std::to_string(s.scene_threshold) +
         " post-messages=" + (s.statistics ? "true" : "false");
}

histeq::Settings settings_of(double strength, double clip, double smoothing, bool stats) {
  histeq::Settings s;
  s.strength = strength;
  s.clip_limit = clip;
  s.smoothing = smoothing;
  s.statistics = stats;
  return s;
}

// The "histeq" element messages posted on `bus`, in order.
std::vector<GstMessage *> take_statistics(GstBus *bus) {
  std::vector<GstMessage *> messages;
  while (GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    if (gst_message_has_name(m, "histeq")) {
      messages.push_back(m);
    } else {
      gst_message_unref(m);
    }
  }
  return messages;
}

void unref_all(std::vector<GstMessage *> &messages) {
  for (GstMessage *m : messages) gst_message_unref(m);
  messages.clear();
}

// The element `description` names, its properties set (before the harness starts it).
GstElement *make_element(const std::string &description) {
  GstElement *element = gst_parse_launch(description.c_str(), nullptr);
  EXPECT_NE(element, nullptr) << description;
  return element;
}

// A harness around the element itself (not a bin), with its own bus.
struct Harness {
  GstHarness *h;
  GstBus *bus;
  explicit Harness(const std::string &description) : bus(gst_bus_new()) {
    GstElement *element = make_element(description);
    h = gst_harness_new_with_element(element, "sink", "src");
    gst_object_unref(element);
    gst_element_set_bus(h->element, bus);
  }
  // Messages left on the bus hold the element, which holds the bus: flushing drops them.
  ~Harness() {
    gst_harness_teardown(h);
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
  }
  // Pushes every frame (a copy), then EOS; returns the outputs in order.
  std::vector<GstBuffer *> run(const std::vector<GstBuffer *> &clip) {
    for (std::size_t i = 0; i < clip.size(); ++i)
      EXPECT_EQ(gst_harness_push(h, gst_buffer_copy_deep(clip[i])), GST_FLOW_OK) << "frame " << i;
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
    std::vector<GstBuffer *> out;
    while (GstBuffer *buffer = gst_harness_try_pull(h)) out.push_back(buffer);
    return out;
  }
};

using OptionCase = std::tuple<std::string, histeq::Settings, GstVideoFormat, int, int, bool>;

class EveryOption : public ::testing::TestWithParam<OptionCase> {};

}  // namespace

TEST(SharedProperties, DeclaredOnceWithTheSameSpecsOnBothElements) {
  GstElement *cpu = gst_element_factory_make("histeq", nullptr);
  GstElement *gpu = gst_element_factory_make("cudahisteq", nullptr);
  ASSERT_NE(cpu, nullptr);
  if (!gpu) GTEST_SKIP() << "cudahisteq is not built";
  for (const char *name : kOptionNames) {
    GParamSpec *a = g_object_class_find_property(G_OBJECT_GET_CLASS(cpu), name);
    GParamSpec *b = g_object_class_find_property(G_OBJECT_GET_CLASS(gpu), name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a, b) << name << ": one GParamSpec, installed by the base class";
    EXPECT_TRUE(a->flags & GST_PARAM_CONTROLLABLE) << name;
    EXPECT_TRUE(a->flags & GST_PARAM_MUTABLE_PLAYING) << name;
    EXPECT_NE(std::string(g_param_spec_get_blurb(a)), "") << name;
  }
  GParamSpec *device = g_object_class_find_property(G_OBJECT_GET_CLASS(gpu), "cuda-device-id");
  GParamSpec *old = g_object_class_find_property(G_OBJECT_GET_CLASS(gpu), "device-id");
  ASSERT_NE(device, nullptr);
  ASSERT_NE(old, nullptr);
  EXPECT_TRUE(old->flags & G_PARAM_DEPRECATED);
  g_object_set(gpu, "device-id", 3, nullptr);
  gint id = -1;
  g_object_get(gpu, "cuda-device-id", &id, nullptr);
  EXPECT_EQ(id, 3) << "device-id is a synonym";
  // The defaults: today's output, OpenCV's equalizeHist.
  gdouble strength = 0, clip = 1, smoothing = 1;
  gboolean messages = TRUE;
  g_object_get(cpu, "strength", &strength, "clip-limit", &clip, "smoothing", &smoothing,
               "post-messages", &messages, nullptr);
  EXPECT_EQ(strength, 1.0);
  EXPECT_EQ(clip, 0.0);
  EXPECT_EQ(smoothing, 0.0);
  EXPECT_FALSE(messages);
  gst_object_unref(cpu);
  gst_object_unref(gpu);
}

// Eight frames with a cut half way and a DISCONT at frame 6: the output luma is the core's,
// chroma untouched; the history restarts at frame 0 (caps) and 6 (DISCONT) as the core's does.
TEST_P(EveryOption, OutputEqualsTheCoreFrameByFrame) {
  const auto [element, settings, format, width, height, limited] = GetParam();
  SKIP_UNLESS_RUNS(element);
  const GstVideoInfo info = video_info(
      format, width, height, limited ? GST_VIDEO_COLOR_RANGE_16_235 : GST_VIDEO_COLOR_RANGE_0_255);
  std::vector<GstBuffer *> clip = make_clip(info, 8, unsigned(width));
  GST_BUFFER_FLAG_SET(clip[6], GST_BUFFER_FLAG_DISCONT);
  const std::vector<bool> restarts = {true, false, false, false, false, false, true, false};
  const CoreFrames expected =
      core_frames(info, clip, std::vector<histeq::Settings>(clip.size(), settings), restarts);
  const std::string depth = element == "cudahisteq" ? " depth=3" : "";
  Harness harness(element + depth + option_args(settings));
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&info));
  std::vector<GstBuffer *> out = harness.run(clip);
  ASSERT_EQ(out.size(), clip.size());
  for (std::size_t i = 0; i < clip.size(); ++i) {
    const auto planes_in = visible_planes(info, clip[i]);
    const auto planes_out = visible_planes(info, out[i]);
    ASSERT_TRUE(planes_out[0] == expected.luma[i]) << "frame " << i;
    for (std::size_t p = 1; p < planes_in.size(); ++p)
      EXPECT_TRUE(planes_out[p] == planes_in[p]) << "frame " << i << " plane " << p;
  }
  std::vector<GstMessage *> messages = take_statistics(harness.bus);
  EXPECT_EQ(messages.size(), settings.statistics ? clip.size() : 0u);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const GstStructure *s = gst_message_get_structure(messages[i]);
    gboolean restarted = FALSE;
    ASSERT_TRUE(gst_structure_get_boolean(s, "restarted", &restarted));
    EXPECT_EQ(bool(restarted), expected.restarted[i]) << "frame " << i;
  }
  unref_all(messages);
  unref_all(out);
  unref_all(clip);
}

namespace {

std::vector<OptionCase> option_cases() {
  const histeq::Settings options[] = {
      histeq::Settings{},           settings_of(0.5, 0, 0, false), settings_of(1, 2, 0, false),
      settings_of(1, 0, 10, false), settings_of(1, 0, 0, true),    settings_of(0.7, 3, 10, true),
  };
  const std::tuple<GstVideoFormat, int, int, bool> formats[] = {
      {GST_VIDEO_FORMAT_GRAY8, 1, 1, false},
      {GST_VIDEO_FORMAT_I420, 385, 289, true},
      {GST_VIDEO_FORMAT_NV12, 1920, 1080, false},
      {GST_VIDEO_FORMAT_Y444, 67, 33, true},
  };
  std::vector<OptionCase> cases;
  for (const char *element : {"histeq", "cudahisteq"})
    for (const auto &s : options)
      for (const auto &[format, w, h, limited] : formats)
        cases.emplace_back(element, s, format, w, h, limited);
  return cases;
}

std::string option_case_name(const ::testing::TestParamInfo<OptionCase> &info) {
  const auto &[element, s, format, w, h, limited] = info.param;
  std::string name = element + "_s" + std::to_string(int(s.strength * 10)) + "_c" +
                     std::to_string(int(s.clip_limit)) + "_t" + std::to_string(int(s.smoothing)) +
                     (s.statistics ? "_msg_" : "_") + gst_video_format_to_string(format) + "_" +
                     std::to_string(w) + "x" + std::to_string(h) + (limited ? "_limited" : "_full");
  return name;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Options, EveryOption, ::testing::ValuesIn(option_cases()),
                         option_case_name);

namespace {

class EveryElement : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(GetParam()); }
};

std::uint64_t uint64_field(const GstStructure *s, const char *name) {
  guint64 value = 0;
  EXPECT_TRUE(gst_structure_get_uint64(s, name, &value)) << name;
  return value;
}

guint uint_field(const GstStructure *s, const char *name) {
  guint value = 0;
  EXPECT_TRUE(gst_structure_get_uint(s, name, &value)) << name;
  return value;
}

}  // namespace

// One message per frame, in order, saying what the core's statistics say of its input; the
// histogram sums to the pixel count; timestamps in stream and running time after a segment
// that starts at 1 s.
TEST_P(EveryElement, StatisticsMessagesDescribeEachInputFrame) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 181);
  std::vector<GstBuffer *> clip = make_clip(info, 6, 5);
  for (std::size_t i = 0; i < clip.size(); ++i)
    GST_BUFFER_PTS(clip[i]) = GST_SECOND + GstClockTime(i) * GST_SECOND / 30;
  Harness harness(GetParam() + " post-messages=true");
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&info));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  segment.start = GST_SECOND;
  segment.time = 5 * GST_SECOND;
  ASSERT_TRUE(gst_harness_push_event(harness.h, gst_event_new_segment(&segment)));
  std::vector<GstBuffer *> out = harness.run(clip);
  ASSERT_EQ(out.size(), clip.size());
  std::vector<GstMessage *> messages = take_statistics(harness.bus);
  ASSERT_EQ(messages.size(), clip.size());
  for (std::size_t i = 0; i < clip.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const GstStructure *s = gst_message_get_structure(messages[i]);
    EXPECT_EQ(GST_MESSAGE_SRC(messages[i]), GST_OBJECT(harness.h->element));
    const GstClockTime pts = GST_BUFFER_PTS(clip[i]);
    EXPECT_EQ(uint64_field(s, "timestamp"), pts);
    EXPECT_EQ(uint64_field(s, "running-time"), pts - GST_SECOND);
    EXPECT_EQ(uint64_field(s, "stream-time"), pts - GST_SECOND + 5 * GST_SECOND);
    EXPECT_EQ(uint64_field(s, "duration"), GST_SECOND / 30);
    const auto luma = visible_planes(info, clip[i])[0];
    histeq::LumaHistogram8 histogram{};
    for (std::uint8_t p : luma) histogram[p]++;
    const histeq::FrameStats expected = histeq::frame_stats(histogram.data(), 256);
    EXPECT_EQ(uint_field(s, "bins"), 256u);
    EXPECT_EQ(uint64_field(s, "pixels"), luma.size());
    const GValue *counts = gst_structure_get_value(s, "histogram");
    ASSERT_NE(counts, nullptr);
    ASSERT_EQ(gst_value_array_get_size(counts), 256u);
    std::uint64_t sum = 0;
    for (guint v = 0; v < 256; ++v) {
      const std::uint64_t count = g_value_get_uint64(gst_value_array_get_value(counts, v));
      EXPECT_EQ(count, histogram[v]) << "level " << v;
      sum += count;
    }
    EXPECT_EQ(sum, luma.size());
    double mean = 0;
    EXPECT_TRUE(gst_structure_get_double(s, "mean", &mean));
    EXPECT_DOUBLE_EQ(mean, expected.mean);
    EXPECT_EQ(uint_field(s, "min"), expected.min);
    EXPECT_EQ(uint_field(s, "max"), expected.max);
    for (std::size_t p = 0; p < expected.percentile.size(); ++p) {
      const std::string name = "percentile-" + std::to_string(histeq::FrameStats::kPercentiles[p]);
      EXPECT_EQ(uint_field(s, name.c_str()), expected.percentile[p]) << name;
    }
  }
  unref_all(messages);
  unref_all(out);
  unref_all(clip);
}

TEST_P(EveryElement, NoMessagesWhenOff) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 64, 48);
  std::vector<GstBuffer *> clip = make_clip(info, 4, 6);
  Harness harness(GetParam() + " smoothing=5");
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&info));
  std::vector<GstBuffer *> out = harness.run(clip);
  EXPECT_EQ(out.size(), clip.size());
  std::vector<GstMessage *> messages = take_statistics(harness.bus);
  EXPECT_TRUE(messages.empty());
  unref_all(messages);
  unref_all(out);
  unref_all(clip);
}

// The history restarts with the first frame after a flush, a new segment, new caps and a
// DISCONT, and nowhere else in a clip of one scene.
TEST_P(EveryElement, HistoryRestartsOnFlushSegmentCapsAndDiscont) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_GRAY8, 96, 64);
  const GstVideoInfo other = video_info(GST_VIDEO_FORMAT_GRAY8, 80, 64);
  std::mt19937 rng(3);
  Harness harness(GetParam() + " smoothing=10 post-messages=true");
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&info));
  auto push = [&](const GstVideoInfo &i, bool discont) {
    GstBuffer *b = natural_frame(i, rng);
    if (discont) GST_BUFFER_FLAG_SET(b, GST_BUFFER_FLAG_DISCONT);
    ASSERT_EQ(gst_harness_push(harness.h, b), GST_FLOW_OK);
  };
  push(info, false);  // 0: the first frame
  push(info, false);  // 1
  ASSERT_TRUE(gst_harness_push_event(harness.h, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(harness.h, gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(harness.h, gst_event_new_segment(&segment)));
  push(info, false);  // 2: after the flush
  push(info, false);  // 3
  ASSERT_TRUE(gst_harness_push_event(harness.h, gst_event_new_segment(&segment)));
  push(info, false);  // 4: after a segment
  push(info, false);  // 5
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&other));
  push(other, false);  // 6: new caps
  push(other, false);  // 7
  push(other, true);   // 8: DISCONT
  push(other, false);  // 9
  ASSERT_TRUE(gst_harness_push_event(harness.h, gst_event_new_eos()));
  while (GstBuffer *b = gst_harness_try_pull(harness.h)) gst_buffer_unref(b);
  std::vector<GstMessage *> messages = take_statistics(harness.bus);
  std::vector<bool> restarted;
  for (GstMessage *m : messages) {
    gboolean r = FALSE;
    gst_structure_get_boolean(gst_message_get_structure(m), "restarted", &r);
    restarted.push_back(r);
  }
  // Frames flushed before they were pushed (cudahisteq's in flight) post no message.
  const std::vector<bool> expected = {true,  false, true,  false, true,
                                      false, true,  false, true,  false};
  EXPECT_EQ(std::vector<bool>(restarted.end() - std::min<std::ptrdiff_t>(8, restarted.size()),
                              restarted.end()),
            std::vector<bool>(expected.end() - 8, expected.end()));
  unref_all(messages);
}

// strength ramps from 0 to 1 over the clip through an interpolation control source: every
// frame's output is the core's for the strength at its timestamp.
TEST_P(EveryElement, AControllerRampOfStrengthIsFollowedFrameByFrame) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 160, 90);
  std::vector<GstBuffer *> clip = make_clip(info, 10, 9);
  Harness harness(GetParam());
  GstControlSource *ramp = gst_interpolation_control_source_new();
  g_object_set(ramp, "mode", GST_INTERPOLATION_MODE_LINEAR, nullptr);
  GstTimedValueControlSource *points = GST_TIMED_VALUE_CONTROL_SOURCE(ramp);
  gst_timed_value_control_source_set(points, 0, 0.0);
  gst_timed_value_control_source_set(points, 9 * GST_SECOND / 30, 1.0);
  gst_object_add_control_binding(
      GST_OBJECT(harness.h->element),
      gst_direct_control_binding_new_absolute(GST_OBJECT(harness.h->element), "strength", ramp));
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&info));
  std::vector<histeq::Settings> settings(clip.size());
  std::vector<bool> restarts(clip.size(), false);
  for (std::size_t i = 0; i < clip.size(); ++i) {
    gdouble value = 0;
    ASSERT_TRUE(gst_control_source_get_value(ramp, GST_BUFFER_PTS(clip[i]), &value));
    settings[i].strength = value;
  }
  const CoreFrames expected = core_frames(info, clip, settings, restarts);
  std::vector<GstBuffer *> out = harness.run(clip);
  ASSERT_EQ(out.size(), clip.size());
  for (std::size_t i = 0; i < clip.size(); ++i)
    EXPECT_TRUE(visible_planes(info, out[i])[0] == expected.luma[i])
        << "frame " << i << " strength " << settings[i].strength;
  // The first frame, at strength 0, passed through untouched.
  EXPECT_TRUE(visible_planes(info, out[0])[0] == visible_planes(info, clip[0])[0]);
  gst_object_unref(ramp);
  unref_all(out);
  unref_all(clip);
}

// At strength 0 the element is passthrough: the very buffer goes on, neither copied nor
// written, and no statistics are computed.
TEST_P(EveryElement, AtStrengthZeroTheBufferPassesUntouched) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_I420, 64, 48);
  std::mt19937 rng(4);
  Harness harness(GetParam() + " strength=0");
  gst_harness_set_src_caps(harness.h, gst_video_info_to_caps(&info));
  GstBuffer *input = natural_frame(info, rng);
  const auto before = visible_planes(info, input);
  gst_buffer_ref(input);
  GstBuffer *output = gst_harness_push_and_pull(harness.h, input);
  EXPECT_EQ(output, input) << "the same buffer, not a copy";
  EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(harness.h->element)));
  EXPECT_EQ(visible_planes(info, output), before);
  gst_buffer_unref(output);
  gst_buffer_unref(input);
}

INSTANTIATE_TEST_SUITE_P(Elements, EveryElement, ::testing::Values("histeq", "cudahisteq"));

// Frames in CUDA memory (cudaupload ! cudahisteq ! cudadownload) with every option on, over a
// moving scene, give histeq's bytes.
TEST(CudaMemoryOptions, EveryOptionGivesHistEqsBytes) {
  SKIP_UNLESS_RUNS(std::string("cudahisteq"));
  for (const char *name : {"cudaupload", "cudadownload"}) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (!factory) GTEST_SKIP() << "GStreamer's nvcodec plugin (" << name << ") is not installed";
    gst_object_unref(factory);
  }
  for (const histeq::Settings &s : {settings_of(0.7, 3, 10, true), settings_of(1, 2, 0, false),
                                    settings_of(0.5, 0, 30, false)}) {
    SCOPED_TRACE(option_args(s));
    const auto gpu =
        pull_frames(test_scene(40, "NV12", 640, 360),
                    "cudaupload ! cudahisteq name=eq" + option_args(s) + " ! cudadownload");
    const auto cpu = pull_frames(test_scene(40, "NV12", 640, 360), "histeq" + option_args(s));
    EXPECT_EQ(gpu.error, "");
    EXPECT_NE(gpu.eq_caps.find("memory:CUDAMemory"), std::string::npos) << gpu.eq_caps;
    ASSERT_EQ(gpu.frames.size(), 40u);
    expect_same_frames(gpu.frames, cpu.frames);
  }
}
