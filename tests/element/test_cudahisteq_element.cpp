// SPDX-License-Identifier: LGPL-2.1-or-later
// cudahisteq through GstHarness. Without a CUDA device (CI) only its registration and its
// start-up error are checked; with one, every output is compared with histeq's, the oracle.
#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <cuda_runtime_api.h>
#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "gpu_test_support.h"
#include "late_frames.h"
#include "pipeline_frames.h"
#include "video_frames.h"

namespace {

bool have_cuda_device() {
  return cuda_device_missing_reason().empty();
}

// The element's ERROR message after starting `description`, or "" if it started.
std::string start_error(const char *description) {
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description, &parse_error);
  if (!pipeline) {
    std::string text = parse_error->message;
    g_error_free(parse_error);
    return "parse: " + text;
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered(
      bus, 10 * GST_SECOND, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  std::string text;
  if (message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError *error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    text = error->message;
    g_error_free(error);
  }
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return text;
}

// A harness around `element` with its properties set before it starts (gst_harness_new
// starts the element at once, and depth only takes effect on start).
GstHarness *harness(const std::string &element) {
  return gst_harness_new_parse(element.c_str());
}

// Runs `frames` through a fresh harness of `element` and returns every output, in order.
std::vector<GstBuffer *> run_frames(const std::string &element, const GstVideoInfo &info,
                                    const std::vector<GstBuffer *> &frames) {
  GstHarness *h = harness(element);
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const GstFlowReturn ret = gst_harness_push(h, gst_buffer_copy_deep(frames[i]));
    EXPECT_EQ(ret, GST_FLOW_OK) << element << ": push of frame " << i;
  }
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos())) << element;
  std::vector<GstBuffer *> out;
  while (GstBuffer *buffer = gst_harness_try_pull(h)) out.push_back(buffer);
  while (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    ADD_FAILURE() << element << " posted an error: " << error->message << " (" << debug << ")";
    g_error_free(error);
    g_free(debug);
    gst_message_unref(message);
  }
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
  return out;
}

// The minimum latency the element reports to a query from downstream.
GstClockTime reported_latency(GstHarness *h) {
  GstQuery *query = gst_query_new_latency();
  EXPECT_TRUE(gst_pad_peer_query(h->sinkpad, query));
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency(query, &live, &min, &max);
  gst_query_unref(query);
  return min;
}

// What reaches a pad, in order: "buffer <PTS in ms>", or an event's type name (the sticky
// stream-start, caps and segment events left out).
class PadLog {
 public:
  explicit PadLog(GstPad *pad) : pad_(GST_PAD(gst_object_ref(pad))) {
    probe_ = gst_pad_add_probe(
        pad, GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
        [](GstPad *, GstPadProbeInfo *info, gpointer data) {
          static_cast<PadLog *>(data)->record(info);
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
  }
  ~PadLog() {
    gst_pad_remove_probe(pad_, probe_);
    gst_object_unref(pad_);
  }
  std::vector<std::string> entries() {
    const std::lock_guard<std::mutex> hold(lock_);
    return entries_;
  }

 private:
  void record(GstPadProbeInfo *info) {
    std::string entry;
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
      const GstClockTime pts = GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info));
      entry = "buffer " + std::to_string(GST_TIME_AS_MSECONDS(pts));
    } else {
      const GstEventType type = GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
      if (type == GST_EVENT_STREAM_START || type == GST_EVENT_CAPS || type == GST_EVENT_SEGMENT)
        return;
      entry = gst_event_type_get_name(type);
    }
    const std::lock_guard<std::mutex> hold(lock_);
    entries_.push_back(entry);
  }

  GstPad *pad_;
  gulong probe_ = 0;
  std::mutex lock_;
  std::vector<std::string> entries_;
};

// Holds the first frame out at the element's src pad (a blocking probe) until released, so
// the frames behind it stay in flight.
class HeldOutput {
 public:
  explicit HeldOutput(GstElement *element) : pad_(gst_element_get_static_pad(element, "src")) {
    probe_ = gst_pad_add_probe(
        pad_, GstPadProbeType(GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_BUFFER),
        [](GstPad *, GstPadProbeInfo *, gpointer) { return GST_PAD_PROBE_OK; }, nullptr, nullptr);
  }
  ~HeldOutput() {
    release();
    gst_object_unref(pad_);
  }
  void release() {
    if (probe_) gst_pad_remove_probe(pad_, probe_);
    probe_ = 0;
  }

 private:
  GstPad *pad_;
  gulong probe_ = 0;
};

// Pushes `count` natural frames, frame i from i s to i + 1 s.
::testing::AssertionResult push_one_second_frames(GstHarness *h, const GstVideoInfo &info,
                                                  std::mt19937 &rng, int count) {
  for (int i = 0; i < count; ++i) {
    GstBuffer *frame = natural_frame(info, rng);
    GST_BUFFER_PTS(frame) = i * GST_SECOND;
    GST_BUFFER_DURATION(frame) = GST_SECOND;
    const GstFlowReturn ret = gst_harness_push(h, frame);
    if (ret != GST_FLOW_OK)
      return ::testing::AssertionFailure() << "frame " << i << ": " << gst_flow_get_name(ret);
  }
  return ::testing::AssertionSuccess();
}

// Makes every push from the element's src pad come back with `flow` (the buffer is dropped),
// as from a downstream element that refuses frames.
void answer_every_push_with(GstElement *element, GstFlowReturn flow) {
  GstPad *src = gst_element_get_static_pad(element, "src");
  gst_pad_add_probe(
      src, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad *, GstPadProbeInfo *info, gpointer answer) {
        GST_PAD_PROBE_INFO_FLOW_RETURN(info) = GstFlowReturn(GPOINTER_TO_INT(answer));
        gst_buffer_unref(GST_PAD_PROBE_INFO_BUFFER(info));
        GST_PAD_PROBE_INFO_DATA(info) = nullptr;
        return GST_PAD_PROBE_HANDLED;
      },
      GINT_TO_POINTER(flow), nullptr);
  gst_object_unref(src);
}

}  // namespace

TEST(CudaHistEqElement, IsRegisteredAndDocumented) {
  GstElementFactory *factory = gst_element_factory_find("cudahisteq");
  ASSERT_NE(factory, nullptr);
  GstElement *element = gst_element_factory_create(factory, nullptr);
  for (const char *name : {"cuda-device-id", "depth", "histogram-method", "scan-method"}) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_NE(std::string(g_param_spec_get_blurb(spec)), "") << name;
  }
  gint device_id = 0;
  guint depth = 0;
  g_object_get(element, "cuda-device-id", &device_id, "depth", &depth, nullptr);
  EXPECT_EQ(device_id, -1);
  EXPECT_EQ(depth, 2u);
  g_object_set(element, "depth", 4u, nullptr);
  g_object_get(element, "depth", &depth, nullptr);
  EXPECT_EQ(depth, 4u);
  GParamSpec *method =
      g_object_class_find_property(G_OBJECT_GET_CLASS(element), "histogram-method");
  GEnumClass *values = G_ENUM_CLASS(g_type_class_ref(method->value_type));
  for (const char *nick : {"auto", "global-atomics", "shared-atomics", "shared-aggregated",
                           "warp-private", "replicated", "vectorized"})
    EXPECT_NE(g_enum_get_value_by_nick(values, nick), nullptr) << nick;
  g_type_class_unref(values);
  gst_object_unref(element);
  gst_object_unref(factory);
}

TEST(CudaHistEqElement, WithoutADeviceStartingFailsWithASentenceNamingHistEq) {
  if (have_cuda_device()) GTEST_SKIP() << "a CUDA device is present";
  const std::string error =
      start_error("videotestsrc num-buffers=2 ! video/x-raw,format=NV12 ! cudahisteq ! fakesink");
  EXPECT_NE(error.find("No CUDA device is available"), std::string::npos) << error;
  EXPECT_NE(error.find("histeq"), std::string::npos) << error;
}

TEST(CudaHistEqElement, AnInvalidDeviceIdIsAClearError) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::string error = start_error(
      "videotestsrc num-buffers=2 ! video/x-raw,format=NV12 ! cudahisteq cuda-device-id=999 ! "
      "fakesink");
  EXPECT_NE(error.find("CUDA device 999 does not exist"), std::string::npos) << error;
}

class CudaMatchesHistEq
    : public ::testing::TestWithParam<std::tuple<GstVideoFormat, std::pair<int, int>, guint>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(CudaMatchesHistEq, EveryFrameComesOutInOrderWithHistEqsBytes) {
  const auto [format, size, depth] = GetParam();
  const GstVideoInfo info =
      video_info(format, size.first, size.second,
                 size.first % 2 ? GST_VIDEO_COLOR_RANGE_16_235 : GST_VIDEO_COLOR_RANGE_0_255);
  std::mt19937 rng(size.first + depth);
  std::vector<GstBuffer *> frames;
  for (int i = 0; i < 5; ++i) {
    frames.push_back(natural_frame(info, rng));
    GST_BUFFER_PTS(frames.back()) = i * GST_SECOND / 30;
  }
  auto expected = run_frames("histeq", info, frames);
  auto actual = run_frames("cudahisteq depth=" + std::to_string(depth), info, frames);
  ASSERT_EQ(actual.size(), frames.size());
  ASSERT_EQ(expected.size(), frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(GST_BUFFER_PTS(actual[i]), GST_BUFFER_PTS(frames[i]));
    EXPECT_EQ(visible_planes(info, actual[i]), visible_planes(info, expected[i])) << "frame " << i;
  }
  unref_all(frames);
  unref_all(expected);
  unref_all(actual);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, CudaMatchesHistEq,
    ::testing::Combine(::testing::Values(GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420,
                                         GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
                                         GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y41B,
                                         GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444),
                       ::testing::Values(std::make_pair(1, 1), std::make_pair(3, 3),
                                         std::make_pair(385, 289), std::make_pair(1920, 1080)),
                       ::testing::Values(1u, 2u, 4u)),
    [](const auto &info) {
      return std::string(gst_video_format_to_string(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param).first) + "x" +
             std::to_string(std::get<1>(info.param).second) + "_depth" +
             std::to_string(std::get<2>(info.param));
    });

// Frames leave as soon as the GPU is done with them: nothing waits for a later frame or EOS,
// at any depth, so the element adds no latency.
TEST(CudaHistEqElement, EachFrameLeavesWithoutWaitingForTheNext) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  for (const char *depth : {"1", "2", "4"}) {
    GstHarness *h = harness(std::string("cudahisteq depth=") + depth);
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
    std::mt19937 rng(4);
    for (int i = 0; i < 3; ++i) {
      GstBuffer *frame = natural_frame(info, rng);
      GST_BUFFER_PTS(frame) = i * GST_SECOND;
      ASSERT_EQ(gst_harness_push(h, frame), GST_FLOW_OK);
      GstBuffer *out = gst_harness_pull(h);
      ASSERT_NE(out, nullptr) << "depth " << depth << ", frame " << i;
      EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * GST_SECOND);
      gst_buffer_unref(out);
    }
    EXPECT_EQ(reported_latency(h), 0u) << "depth " << depth;
    gst_harness_teardown(h);
  }
}

// A serialized event must not overtake the frames before it (a GAP event reaching a sink ahead
// of held frames would make it drop them as late): they leave first, then the event.
class SerializedEvent : public ::testing::TestWithParam<GstEventType> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(SerializedEvent, LeavesAfterTheFramesInFlight) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness("cudahisteq depth=3");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  // The frames are held at the element's src pad until the event has been sent, so it finds
  // them in flight. What reaches the harness is logged in order.
  HeldOutput held(h->element);
  std::mt19937 rng(6);
  ASSERT_TRUE(push_one_second_frames(h, info, rng, 2));
  GstEvent *event = nullptr;
  switch (GetParam()) {
    case GST_EVENT_GAP:
      event = gst_event_new_gap(2 * GST_SECOND, GST_SECOND);
      break;
    case GST_EVENT_TAG:
      event = gst_event_new_tag(gst_tag_list_new(GST_TAG_TITLE, "equalized", nullptr));
      break;
    default:
      event = gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM,
                                   gst_structure_new_empty("histeq-test-marker"));
      break;
  }
  ASSERT_TRUE(GST_EVENT_IS_SERIALIZED(event));
  PadLog log(h->sinkpad);
  std::thread sender([&] { EXPECT_TRUE(gst_harness_push_event(h, event)); });
  // The event waits behind the held frames (its drain); let them go.
  g_usleep(100 * 1000);
  EXPECT_EQ(log.entries(), std::vector<std::string>{}) << "nothing overtook the held frames";
  held.release();
  sender.join();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"buffer 0", "buffer 1000",
                                                     gst_event_type_get_name(GetParam())}));
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Events, SerializedEvent,
                         ::testing::Values(GST_EVENT_GAP, GST_EVENT_TAG,
                                           GST_EVENT_CUSTOM_DOWNSTREAM),
                         [](const auto &info) {
                           std::string name = gst_event_type_get_name(info.param);
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// A DISCONT flag stays on its own frame: not on an older one still in flight (frame 4 here), nor
// on a later one after an event's drain (frame 0, then a TAG event).
TEST(CudaHistEqElement, DiscontMarksOnlyItsOwnFrame) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness("cudahisteq depth=3");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  std::mt19937 rng(8);
  const bool discont[] = {true, false, false, false, true, false};
  for (int i = 0; i < 6; ++i) {
    GstBuffer *frame = natural_frame(info, rng);
    GST_BUFFER_PTS(frame) = i * GST_SECOND;
    if (discont[i]) GST_BUFFER_FLAG_SET(frame, GST_BUFFER_FLAG_DISCONT);
    ASSERT_EQ(gst_harness_push(h, frame), GST_FLOW_OK);
    if (i == 0) {
      GstTagList *tags = gst_tag_list_new(GST_TAG_TITLE, "equalized", nullptr);
      ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_tag(tags)));
    }
  }
  gst_harness_push_event(h, gst_event_new_eos());
  ASSERT_EQ(gst_harness_buffers_received(h), 6u);
  for (int i = 0; i < 6; ++i) {
    GstBuffer *out = gst_harness_pull(h);
    EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * GST_SECOND);
    EXPECT_EQ(bool(GST_BUFFER_IS_DISCONT(out)), discont[i]) << "frame " << i;
    gst_buffer_unref(out);
  }
  gst_harness_teardown(h);
}

GstClockTime position_at(GstElement *element, const char *pad_name) {
  GstPad *pad = gst_element_get_static_pad(element, pad_name);
  gint64 position = -1;
  const bool answered = gst_pad_query_position(pad, GST_FORMAT_TIME, &position);
  gst_object_unref(pad);
  return answered ? GstClockTime(position) : GST_CLOCK_TIME_NONE;
}

// Three one-second frames (0-3 s) pushed into cudahisteq depth=4, frame 0 held in its push at
// the src pad until released, so frames 1 and 2 stay in flight behind it.
class FramesInFlight : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_CUDA_DEVICE();
    h_ = harness("cudahisteq depth=4");
    gst_harness_set_src_caps(h_, gst_video_info_to_caps(&info_));
    held_ = std::make_unique<HeldOutput>(h_->element);
    ASSERT_TRUE(push_one_second_frames(h_, info_, rng_, 3));
  }
  void TearDown() override {
    held_.reset();
    if (h_) gst_harness_teardown(h_);
  }

  const GstVideoInfo info_ = video_info(GST_VIDEO_FORMAT_I420, 320, 240);
  std::mt19937 rng_{7};
  GstHarness *h_ = nullptr;
  std::unique_ptr<HeldOutput> held_;
};

TEST_F(FramesInFlight, ADrainQueryPushesThemAll) {
  std::thread drainer([&] {
    GstQuery *drain = gst_query_new_drain();
    EXPECT_TRUE(gst_pad_peer_query(h_->srcpad, drain));
    gst_query_unref(drain);
    EXPECT_EQ(gst_harness_buffers_received(h_), 3u) << "the query came back after all three";
  });
  g_usleep(100 * 1000);
  EXPECT_EQ(gst_harness_buffers_received(h_), 0u);
  held_->release();
  drainer.join();
}

// The sink pad is at the end of the last frame in, the src pad at the end of the last frame
// out (frame 0, in its push), and after a drain both are at 3 s. The base class tracks neither
// for frames it does not push itself.
TEST_F(FramesInFlight, PositionQueriesTellTheLastFrameInAndOut) {
  GstPad *src = gst_element_get_static_pad(h_->element, "src");
  for (int waited_ms = 0; !gst_pad_is_blocking(src) && waited_ms < 5000; waited_ms += 10)
    g_usleep(10 * 1000);
  ASSERT_TRUE(gst_pad_is_blocking(src)) << "frame 0 never reached the src pad";
  gst_object_unref(src);
  EXPECT_EQ(position_at(h_->element, "sink"), 3 * GST_SECOND);
  EXPECT_EQ(position_at(h_->element, "src"), 1 * GST_SECOND);
  held_->release();
  GstQuery *drain = gst_query_new_drain();
  EXPECT_TRUE(gst_pad_peer_query(h_->srcpad, drain));
  gst_query_unref(drain);
  EXPECT_EQ(position_at(h_->element, "src"), 3 * GST_SECOND);
}

// A flush drops all three; frame 3, after the flush, comes out.
TEST_F(FramesInFlight, AFlushDropsThem) {
  gst_harness_push_event(h_, gst_event_new_flush_start());
  gst_harness_push_event(h_, gst_event_new_flush_stop(TRUE));
  held_->release();
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  gst_harness_push_event(h_, gst_event_new_segment(&segment));
  GstBuffer *frame = natural_frame(info_, rng_);
  GST_BUFFER_PTS(frame) = 3 * GST_SECOND;
  ASSERT_EQ(gst_harness_push(h_, frame), GST_FLOW_OK);
  gst_harness_push_event(h_, gst_event_new_eos());
  ASSERT_EQ(gst_harness_buffers_received(h_), 1u);
  GstBuffer *out = gst_harness_pull(h_);
  EXPECT_EQ(GST_BUFFER_PTS(out), 3 * GST_SECOND);
  gst_buffer_unref(out);
}

// Downstream's answer to a push (EOS here, as from a sink that has had enough) goes back
// upstream with the next frame once the frames in flight are out.
TEST(CudaHistEqElement, DownstreamsFlowReturnReachesUpstream) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness("cudahisteq depth=2");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  answer_every_push_with(h->element, GST_FLOW_EOS);
  std::mt19937 rng(12);
  ASSERT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_OK);
  // A serialized event waits until the frame has been pushed.
  ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_tag(gst_tag_list_new_empty())));
  EXPECT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_EOS);
  gst_harness_teardown(h);
}

// A push that fails fatally just before EOS has no later frame to carry it upstream: the
// element posts it as an error instead of ending the stream as if all went well.
TEST(CudaHistEqElement, AFatalPushBeforeEosIsPostedAsAnError) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness("cudahisteq depth=2");
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  answer_every_push_with(h->element, GST_FLOW_NOT_NEGOTIATED);
  std::mt19937 rng(13);
  ASSERT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_OK);
  gst_harness_push_event(h, gst_event_new_eos());
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(message, nullptr);
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED)) << error->message;
  EXPECT_NE(std::string(error->message).find("not-negotiated"), std::string::npos)
      << error->message;
  g_error_free(error);
  gst_message_unref(message);
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

TEST(CudaHistEqElement, CapsChangeDrainsAndUsesTheNewSize) {
  SKIP_WITHOUT_CUDA_DEVICE();
  GstHarness *h = harness("cudahisteq depth=3");
  std::mt19937 rng(6);
  std::vector<std::pair<GstVideoInfo, GstBuffer *>> pushed;
  for (const GstVideoInfo &info :
       {video_info(GST_VIDEO_FORMAT_NV12, 640, 480), video_info(GST_VIDEO_FORMAT_GRAY8, 129, 67)}) {
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
    for (int i = 0; i < 2; ++i) {
      GstBuffer *frame = natural_frame(info, rng);
      pushed.emplace_back(info, gst_buffer_copy_deep(frame));
      ASSERT_EQ(gst_harness_push(h, frame), GST_FLOW_OK);
    }
  }
  gst_harness_push_event(h, gst_event_new_eos());
  ASSERT_EQ(gst_harness_buffers_received(h), 4u);
  for (auto &[info, input] : pushed) {
    GstBuffer *out = gst_harness_pull(h);
    const auto before = visible_planes(info, input);
    const auto after = visible_planes(info, out);
    ASSERT_EQ(after.size(), before.size());
    EXPECT_EQ(after[0], core_equalized_luma(before[0], GST_VIDEO_INFO_WIDTH(&info),
                                            GST_VIDEO_INFO_HEIGHT(&info),
                                            info.colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235
                                                ? histeq::limited_range(8)
                                                : histeq::full_range(8)));
    gst_buffer_unref(out);
    gst_buffer_unref(input);
  }
  gst_harness_teardown(h);
}

// A RECONFIGURE from downstream is answered before the next frame: the frames in flight leave
// first, then the element renegotiates. Caps downstream no longer takes stop the stream with
// not-negotiated rather than frames pushed at a sink that refuses them.
TEST(CudaHistEqElement, DownstreamReconfigureDrainsThenRenegotiates) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness("cudahisteq depth=3");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  gst_harness_set_sink_caps(h, gst_video_info_to_caps(&info));
  std::mt19937 rng(11);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_OK);

  EXPECT_TRUE(gst_harness_push_upstream_event(h, gst_event_new_reconfigure()));
  ASSERT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_OK);
  EXPECT_GE(gst_harness_buffers_received(h), 2u)
      << "both frames in flight come out before the renegotiation";

  const GstVideoInfo gray = video_info(GST_VIDEO_FORMAT_GRAY8, 320, 240);
  gst_harness_set_sink_caps(h, gst_video_info_to_caps(&gray));
  EXPECT_TRUE(gst_harness_push_upstream_event(h, gst_event_new_reconfigure()));
  EXPECT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_NOT_NEGOTIATED);
  EXPECT_EQ(gst_harness_buffers_received(h), 3u) << "the frame in flight still came out";
  gst_harness_teardown(h);
}

// An ALLOCATION query from upstream (which it sends after a RECONFIGURE reached it, even with
// unchanged caps) lets the frames in flight out first: the base class may renegotiate before
// answering it, and those frames must leave under their own caps.
// 4K frames, so that without the drain they would most likely still be on the GPU.
TEST(CudaHistEqElement, AnAllocationQueryLetsTheFramesInFlightOutFirst) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 3840, 2160);
  GstHarness *h = harness("cudahisteq depth=3");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  std::mt19937 rng(12);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(gst_harness_push(h, natural_frame(info, rng)), GST_FLOW_OK);
  GstCaps *caps = gst_video_info_to_caps(&info);
  GstQuery *query = gst_query_new_allocation(caps, TRUE);
  EXPECT_TRUE(gst_pad_peer_query(h->srcpad, query));
  EXPECT_EQ(gst_harness_buffers_received(h), 3u);
  gst_query_unref(query);
  gst_caps_unref(caps);
  gst_harness_teardown(h);
}

// Caps cudahisteq refuses leave it unnegotiated: the frames after them are refused with
// not-negotiated, as histeq refuses them, instead of being read with the last caps' layout.
TEST(CudaHistEqElement, FramesUnderRefusedCapsAreNotNegotiated) {
  SKIP_WITHOUT_CUDA_DEVICE();
  GstHarness *h = harness("cudahisteq");
  gst_harness_set_src_caps_str(h, "video/x-raw,format=AYUV,width=16,height=16,framerate=30/1");
  EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 16 * 16 * 4, nullptr)),
            GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown(h);
}

// Upstream gets a pool of pinned host buffers, for every layout: 8-bit planes, deep words and
// packed pixels cross PCIe from them, and come out as histeq's.
class PinnedPool : public ::testing::TestWithParam<GstVideoFormat> {};

TEST_P(PinnedPool, UpstreamGetsAPoolOfPinnedBuffersAndTheyAreEqualized) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GetParam(), 640, 360);
  GstHarness *h = harness("cudahisteq depth=2");
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_harness_set_src_caps(h, gst_caps_ref(caps));
  GstQuery *query = gst_query_new_allocation(caps, TRUE);
  ASSERT_TRUE(gst_pad_peer_query(h->srcpad, query));
  ASSERT_GE(gst_query_get_n_allocation_pools(query), 1u);
  GstBufferPool *pool = nullptr;
  gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
  GstBuffer *pooled = nullptr;
  ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &pooled, nullptr), GST_FLOW_OK);
  GstMemory *memory = gst_buffer_peek_memory(pooled, 0);
  EXPECT_TRUE(gst_memory_is_type(memory, "HistEqCudaPinnedHost"));
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(pooled, &map, GST_MAP_WRITE));
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, map.data), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
  std::mt19937 rng(8);
  GstBuffer *frame = natural_frame(info, rng);
  gst_buffer_extract(frame, 0, map.data, std::min(map.size, gst_buffer_get_size(frame)));
  gst_buffer_unmap(pooled, &map);

  GstHarness *cpu = gst_harness_new("histeq");
  gst_harness_set_src_caps(cpu, gst_video_info_to_caps(&info));
  GstBuffer *expected = gst_harness_push_and_pull(cpu, gst_buffer_copy_deep(pooled));
  ASSERT_NE(expected, nullptr);
  ASSERT_EQ(gst_harness_push(h, pooled), GST_FLOW_OK);
  gst_harness_push_event(h, gst_event_new_eos());
  GstBuffer *out = gst_harness_pull(h);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(visible_planes(info, out), visible_planes(info, expected));
  gst_buffer_unref(out);
  gst_buffer_unref(expected);
  gst_buffer_unref(frame);
  gst_harness_teardown(cpu);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
  gst_query_unref(query);
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Formats, PinnedPool,
                         ::testing::Values(GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE,
                                           GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_YUY2,
                                           GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB),
                         [](const auto &info) {
                           return std::string(gst_video_format_to_string(info.param));
                         });

// QoS (the qos property, on by default as on every video filter): after the sink reports that
// frames up to 2.5 s can only be shown late, frame 2 is dropped with a QoS message that counts
// the frames before it, they still come out, and frame 3 is marked DISCONT, even with an event
// right after it. With qos=false every frame comes out.
class Qos : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(Qos, ALateFrameIsDroppedOnlyWithQosOn) {
  const bool qos = GetParam();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness(std::string("cudahisteq depth=3 qos=") + (qos ? "true" : "false"));
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  std::mt19937 rng(10);
  // Frame 3 carries the DISCONT that the dropped frame 2 left for it, also when a serialized
  // event right after it drains it.
  ASSERT_EQ(push_frames_with_frame_two_late(h, info, 0, 4, rng), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_tag(gst_tag_list_new_empty())));
  ASSERT_EQ(push_frames_with_frame_two_late(h, info, 4, 6, rng), GST_FLOW_OK);
  gst_harness_push_event(h, gst_event_new_eos());
  const std::vector<int> expected =
      qos ? std::vector<int>{0, 1, 3, 4, 5} : std::vector<int>{0, 1, 2, 3, 4, 5};
  ASSERT_EQ(gst_harness_buffers_received(h), expected.size());
  for (int i : expected) {
    GstBuffer *out = gst_harness_pull(h);
    EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * GST_SECOND);
    EXPECT_EQ(bool(GST_BUFFER_IS_DISCONT(out)), qos && i == 3) << "frame " << i;
    gst_buffer_unref(out);
  }
  // Frames 0 and 1 count as processed once taken, though still in flight, as histeq counts them.
  EXPECT_EQ(take_late_frame_messages(bus), qos ? 1 : 0);
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(OnAndOff, Qos, ::testing::Bool(),
                         [](const auto &info) { return info.param ? "on" : "off"; });

TEST(CudaHistEqElement, GapsTimestampsFlagsAndMetasPassThroughInOrder) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstHarness *h = harness("cudahisteq depth=3");
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  std::mt19937 rng(9);
  GstCaps *reference = gst_caps_from_string("timestamp/x-test");
  std::vector<GstBuffer *> inputs;
  for (int i = 0; i < 5; ++i) {
    // Frame 1 is a GAP with content, frame 3 an empty GAP, as demuxers send them.
    GstBuffer *buffer = i == 3 ? gst_buffer_new() : natural_frame(info, rng);
    if (i == 1 || i == 3) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_GAP);
    if (i == 0) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
    GST_BUFFER_PTS(buffer) = GST_BUFFER_DTS(buffer) = GstClockTime(i) * GST_SECOND / 30;
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    GST_BUFFER_OFFSET(buffer) = guint64(i);
    gst_buffer_add_reference_timestamp_meta(buffer, reference, 1000u * guint64(i),
                                            GST_CLOCK_TIME_NONE);
    inputs.push_back(gst_buffer_copy_deep(buffer));
    ASSERT_EQ(gst_harness_push(h, buffer), GST_FLOW_OK);
  }
  gst_harness_push_event(h, gst_event_new_eos());
  ASSERT_EQ(gst_harness_buffers_received(h), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    GstBuffer *out = gst_harness_pull(h);
    GstBuffer *in = inputs[i];
    EXPECT_EQ(GST_BUFFER_PTS(out), GST_BUFFER_PTS(in)) << i;
    EXPECT_EQ(GST_BUFFER_DTS(out), GST_BUFFER_DTS(in)) << i;
    EXPECT_EQ(GST_BUFFER_DURATION(out), GST_BUFFER_DURATION(in)) << i;
    EXPECT_EQ(GST_BUFFER_OFFSET(out), GST_BUFFER_OFFSET(in)) << i;
    EXPECT_EQ(GST_BUFFER_FLAGS(out) & (GST_BUFFER_FLAG_GAP | GST_BUFFER_FLAG_DISCONT),
              GST_BUFFER_FLAGS(in) & (GST_BUFFER_FLAG_GAP | GST_BUFFER_FLAG_DISCONT))
        << i;
    const GstReferenceTimestampMeta *meta = gst_buffer_get_reference_timestamp_meta(out, reference);
    ASSERT_NE(meta, nullptr) << i;
    EXPECT_EQ(meta->timestamp, 1000u * guint64(i));
    if (GST_BUFFER_FLAG_IS_SET(in, GST_BUFFER_FLAG_GAP)) {
      EXPECT_EQ(gst_buffer_get_size(out), gst_buffer_get_size(in)) << i;
      if (gst_buffer_get_size(in)) {
        EXPECT_EQ(visible_planes(info, out), visible_planes(info, in)) << i;
      }
    } else {
      const auto before = visible_planes(info, in);
      const auto after = visible_planes(info, out);
      EXPECT_EQ(after[0], core_equalized_luma(before[0], 320, 240, histeq::full_range(8))) << i;
      EXPECT_EQ(after[1], before[1]) << i;
    }
    gst_buffer_unref(out);
  }
  unref_all(inputs);
  gst_caps_unref(reference);
  gst_harness_teardown(h);
}

// Device memory held while it lives: as much as cudaMalloc gives, down to 1 MiB pieces.
class DeviceMemoryHog {
 public:
  DeviceMemoryHog() {
    for (std::size_t piece = std::size_t(1) << 30; piece >= (std::size_t(1) << 20); piece /= 2) {
      void *p = nullptr;
      while (cudaMalloc(&p, piece) == cudaSuccess) pieces_.push_back(p);
    }
    cudaGetLastError();  // the final refusal is expected, not an error of a later call
  }
  ~DeviceMemoryHog() {
    for (void *p : pieces_) cudaFree(p);
  }

 private:
  std::vector<void *> pieces_;
};

// Its own suite: compute-sanitizer (scripts/gpu-check.sh) reports every refused cudaMalloc,
// which is this test's point, so it runs outside the sanitizer's CudaHistEqElement.* filter.
TEST(CudaHistEqOutOfMemory, MidStreamIsAClearErrorAndNothingHangs) {
  SKIP_WITHOUT_CUDA_DEVICE();
  GstHarness *h = harness("cudahisteq depth=2");
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  const GstVideoInfo small = video_info(GST_VIDEO_FORMAT_GRAY8, 64, 64);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&small));
  std::mt19937 rng(10);
  ASSERT_EQ(gst_harness_push(h, natural_frame(small, rng)), GST_FLOW_OK);
  {
    const DeviceMemoryHog hog;
    // The caps change drains the small frame; the large one needs a new device plane.
    const GstVideoInfo large = video_info(GST_VIDEO_FORMAT_GRAY8, 3840, 2160);
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&large));
    EXPECT_EQ(gst_harness_push(h, natural_frame(large, rng)), GST_FLOW_ERROR);
  }
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(message, nullptr);
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT));
  EXPECT_NE(std::string(error->message).find("has no memory left for 2 frames of 3840x2160"),
            std::string::npos)
      << error->message;
  g_error_free(error);
  gst_message_unref(message);
  EXPECT_EQ(gst_harness_buffers_received(h), 1u) << "the frame before the failure came out";
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

namespace {

struct ElementFault {
  const char *plan;  // HISTEQ_CUDA_FAULT (cuda/fault_injection.h)
  GstResourceError code;
  const char *words;  // in the error's message
};

class CudaHistEqFault : public ::testing::TestWithParam<ElementFault> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
  void TearDown() override { g_unsetenv("HISTEQ_CUDA_FAULT"); }
};

}  // namespace

// The GPU fails frame 5 of a stream (a failed launch, a failed copy, no memory left), through
// the engine's test-only hook: the push of that frame returns an error and the element posts one
// clear ERROR, frames 0-4 still come out, in order and as histeq makes them, and nothing hangs.
// Started again, without the fault, the same element equalizes a stream as before.
TEST_P(CudaHistEqFault, MidStreamFailureIsAClearErrorAfterEveryEarlierFrame) {
  const ElementFault fault = GetParam();
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 385, 289);
  std::mt19937 rng(21);
  std::vector<GstBuffer *> frames;
  for (int i = 0; i < 8; ++i) {
    frames.push_back(natural_frame(info, rng));
    GST_BUFFER_PTS(frames.back()) = i * GST_SECOND / 30;
  }
  auto expected = run_frames("histeq", info, frames);
  ASSERT_EQ(expected.size(), frames.size());

  g_setenv("HISTEQ_CUDA_FAULT", fault.plan, TRUE);
  GstHarness *h = harness("cudahisteq depth=2");
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(gst_harness_push(h, gst_buffer_copy_deep(frames[std::size_t(i)])), GST_FLOW_OK) << i;
  EXPECT_EQ(gst_harness_push(h, gst_buffer_copy_deep(frames[5])), GST_FLOW_ERROR);
  for (int i = 0; i < 5; ++i) {
    GstBuffer *out = gst_harness_pull(h);
    ASSERT_NE(out, nullptr) << "frame " << i << " did not come out";
    EXPECT_EQ(GST_BUFFER_PTS(out), GST_BUFFER_PTS(frames[std::size_t(i)]));
    EXPECT_EQ(visible_planes(info, out), visible_planes(info, expected[std::size_t(i)]))
        << "frame " << i;
    gst_buffer_unref(out);
  }
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(message, nullptr);
  GError *error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, fault.code)) << error->message;
  EXPECT_NE(std::string(error->message).find(fault.words), std::string::npos) << error->message;
  g_error_free(error);
  gst_message_unref(message);
  EXPECT_EQ(gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR), nullptr) << "one error, not several";

  // A new start reads the environment again: the stream goes through whole.
  g_unsetenv("HISTEQ_CUDA_FAULT");
  ASSERT_EQ(gst_element_set_state(h->element, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  ASSERT_NE(gst_element_set_state(h->element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  // The element forgot the stream's sticky events when it stopped.
  ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_stream_start("after-the-fault")));
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  for (std::size_t i = 0; i < frames.size(); ++i)
    ASSERT_EQ(gst_harness_push(h, gst_buffer_copy_deep(frames[i])), GST_FLOW_OK) << i;
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
  for (std::size_t i = 0; i < frames.size(); ++i) {
    GstBuffer *out = gst_harness_pull(h);
    ASSERT_NE(out, nullptr) << "frame " << i << " after the restart";
    EXPECT_EQ(visible_planes(info, out), visible_planes(info, expected[i])) << "restart " << i;
    gst_buffer_unref(out);
  }
  EXPECT_EQ(gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR), nullptr);
  gst_bus_set_flushing(bus, TRUE);
  gst_element_set_bus(h->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(h);
  unref_all(frames);
  unref_all(expected);
}

INSTANTIATE_TEST_SUITE_P(Faults, CudaHistEqFault,
                         ::testing::Values(ElementFault{"launch@5", GST_RESOURCE_ERROR_FAILED,
                                                        "The GPU failed while equalizing"},
                                           ElementFault{"copy@5", GST_RESOURCE_ERROR_FAILED,
                                                        "The GPU failed while equalizing"},
                                           ElementFault{
                                               "out-of-memory@5", GST_RESOURCE_ERROR_NO_SPACE_LEFT,
                                               "has no memory left for 2 frames of 385x289"}),
                         [](const auto &info) {
                           std::string name = info.param.plan;
                           for (char &c : name)
                             if (c == '-' || c == '@') c = '_';
                           return name;
                         });

namespace {

class RealPipeline : public ::testing::TestWithParam<guint> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

}  // namespace

TEST_P(RealPipeline, EveryFrameOfAFiniteSourceComesOutAsHistEqMadeIt) {
  const auto gpu = pull_frames(test_scene(37), "cudahisteq depth=" + std::to_string(GetParam()));
  const auto cpu = pull_frames(test_scene(37), "histeq");
  EXPECT_EQ(gpu.error, "");
  EXPECT_TRUE(gpu.eos);
  ASSERT_EQ(gpu.frames.size(), 37u) << "frames in = frames out, EOS arriving with frames in flight";
  expect_same_frames(gpu.frames, cpu.frames);
}

TEST_P(RealPipeline, FlushingSeekMidStreamResumesAtTheTargetWithNothingStale) {
  const auto gpu = pull_frames(test_scene(0), "cudahisteq depth=" + std::to_string(GetParam()), 10);
  const auto cpu = pull_frames(test_scene(0), "histeq", 10);
  EXPECT_EQ(gpu.error, "");
  EXPECT_TRUE(gpu.eos);
  ASSERT_EQ(gpu.frames.size(), 30u) << "the frames of [1 s, 2 s) at 30 fps";
  for (std::size_t i = 0; i < gpu.frames.size(); ++i)
    EXPECT_EQ(gpu.frames[i].pts, GST_SECOND + gst_util_uint64_scale_int(i, GST_SECOND, 30)) << i;
  expect_same_frames(gpu.frames, cpu.frames);
}

INSTANTIATE_TEST_SUITE_P(Depths, RealPipeline, ::testing::Values(1u, 2u, 3u, 4u),
                         [](const auto &info) { return "depth" + std::to_string(info.param); });
