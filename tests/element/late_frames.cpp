// SPDX-License-Identifier: LGPL-2.1-or-later
#include "late_frames.h"

#include <gtest/gtest.h>

#include "qos_stats.h"
#include "video_frames.h"

GstFlowReturn push_frames_with_frame_two_late(GstHarness *h, const GstVideoInfo &info, int first,
                                              int end, std::mt19937 &rng) {
  for (int i = first; i < end; ++i) {
    if (i == 2 && !gst_harness_push_upstream_event(
                      h, gst_event_new_qos(GST_QOS_TYPE_UNDERFLOW, 2.0, 2500 * GST_MSECOND, 0)))
      return GST_FLOW_ERROR;
    GstBuffer *frame = natural_frame(info, rng);
    GST_BUFFER_PTS(frame) = i * GST_SECOND;
    GST_BUFFER_DURATION(frame) = GST_SECOND;
    const GstFlowReturn ret = gst_harness_push(h, frame);
    if (ret != GST_FLOW_OK) return ret;
  }
  return GST_FLOW_OK;
}

int take_late_frame_messages(GstBus *bus) {
  int messages = 0;
  while (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_QOS)) {
    GstClockTime running_time = 0;
    gst_message_parse_qos(message, nullptr, &running_time, nullptr, nullptr, nullptr);
    EXPECT_EQ(running_time, 2 * GST_SECOND);
    expect_qos_stats(message, 2, 1);
    gst_message_unref(message);
    ++messages;
  }
  return messages;
}
