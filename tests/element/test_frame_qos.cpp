// SPDX-License-Identifier: LGPL-2.1-or-later
// cudahisteq's FrameQos on its own (no GPU needed): which frames a sink's QoS reports make
// late, what a flush and a new run forget, and the QoS message a dropped frame posts.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "frame_qos.h"
#include "qos_stats.h"

namespace {

constexpr GstClockTime kMs = GST_MSECOND;

TEST(FrameQos, WithoutAReportNoFrameIsLate) {
  const FrameQos qos;
  FrameQos::Lateness lateness;
  for (const GstClockTime t : {GstClockTime(0), GstClockTime(5 * GST_SECOND), GST_CLOCK_TIME_NONE})
    EXPECT_FALSE(qos.late(t, &lateness));
}

// A sink 500 ms behind at its frame of 2 s can show nothing before 2.5 s: frames up to and
// including 2.5 s are late, the next ones and frames without a time are not.
TEST(FrameQos, FramesUpToTheSinksEarliestTimeAreLate) {
  FrameQos qos;
  qos.report(1.5, GstClockTimeDiff(500 * kMs), 2 * GST_SECOND);
  FrameQos::Lateness lateness;
  ASSERT_TRUE(qos.late(2 * GST_SECOND, &lateness));
  EXPECT_EQ(lateness.running_time, 2 * GST_SECOND);
  EXPECT_EQ(lateness.earliest, 2500 * kMs);
  EXPECT_DOUBLE_EQ(lateness.proportion, 1.5);
  EXPECT_TRUE(qos.late(2500 * kMs, &lateness));
  EXPECT_FALSE(qos.late(2501 * kMs, &lateness));
  EXPECT_FALSE(qos.late(GST_CLOCK_TIME_NONE, &lateness));
}

// A sink ahead of the clock reports a negative diff (a frame early by up to its own timestamp):
// only frames up to timestamp + diff are late. A report without a timestamp changes nothing.
TEST(FrameQos, AnEarlySinkHoldsBackOnlyFramesBeforeItsEarliestTime) {
  FrameQos qos;
  FrameQos::Lateness lateness;
  qos.report(0.5, -GstClockTimeDiff(200 * kMs), 200 * kMs);
  EXPECT_TRUE(qos.late(0, &lateness));
  EXPECT_FALSE(qos.late(1, &lateness));
  qos.report(0.5, -GstClockTimeDiff(100 * kMs), 200 * kMs);
  EXPECT_TRUE(qos.late(100 * kMs, &lateness));
  EXPECT_FALSE(qos.late(150 * kMs, &lateness));
  qos.report(3.0, GstClockTimeDiff(GST_SECOND), GST_CLOCK_TIME_NONE);
  EXPECT_TRUE(qos.late(100 * kMs, &lateness));
  EXPECT_DOUBLE_EQ(lateness.proportion, 0.5);
}

// A flush (or a new run) forgets the sink's report and starts the counts again, as a QoS
// message counts since the last flush.
TEST(FrameQos, AResetForgetsTheReportAndTheCounts) {
  FrameQos qos;
  qos.report(2.0, GstClockTimeDiff(GST_SECOND), 3 * GST_SECOND);
  FrameQos::Lateness lateness;
  ASSERT_TRUE(qos.late(GST_SECOND, &lateness));
  qos.taken();
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  gst_message_unref(qos.dropped(nullptr, lateness, segment, GST_SECOND, 0));
  EXPECT_EQ(qos.processed(), 1u);
  EXPECT_EQ(qos.dropped_count(), 1u);
  qos.reset();
  EXPECT_FALSE(qos.late(GST_SECOND, &lateness));
  EXPECT_EQ(qos.processed(), 0u);
  EXPECT_EQ(qos.dropped_count(), 0u);
}

// The message names the dropped frame's times, how late it was and the proportion the sink
// asked for, and counts the frames taken and dropped so far.
TEST(FrameQos, TheDroppedFramesMessageCarriesItsTimesAndTheCounts) {
  FrameQos qos;
  qos.taken();
  qos.taken();
  qos.report(1.25, GstClockTimeDiff(1500 * kMs), 2 * GST_SECOND);
  // The segment starts at 10 s of the stream, so the frame at PTS 13 s runs at 3 s.
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  segment.start = segment.time = 10 * GST_SECOND;
  FrameQos::Lateness lateness;
  ASSERT_TRUE(qos.late(3 * GST_SECOND, &lateness));
  GstObject *element = GST_OBJECT(gst_object_ref_sink(gst_bin_new("equalizer")));
  GstMessage *message = qos.dropped(element, lateness, segment, 13 * GST_SECOND, 40 * kMs);

  EXPECT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_QOS);
  EXPECT_EQ(GST_MESSAGE_SRC(message), element);
  gboolean live = TRUE;
  guint64 running_time = 0, stream_time = 0, timestamp = 0, duration = 0;
  gst_message_parse_qos(message, &live, &running_time, &stream_time, &timestamp, &duration);
  EXPECT_FALSE(live);
  EXPECT_EQ(running_time, 3 * GST_SECOND);
  EXPECT_EQ(stream_time, 13 * GST_SECOND);
  EXPECT_EQ(timestamp, 13 * GST_SECOND);
  EXPECT_EQ(duration, 40 * kMs);
  gint64 jitter = 0;
  gdouble proportion = 0;
  gint quality = 0;
  gst_message_parse_qos_values(message, &jitter, &proportion, &quality);
  EXPECT_EQ(jitter, gint64(500 * kMs));
  EXPECT_DOUBLE_EQ(proportion, 1.25);
  expect_qos_stats(message, 2, 1);
  gst_message_unref(message);
  gst_object_unref(element);
}

}  // namespace
