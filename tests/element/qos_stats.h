// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The counts a QoS message carries, checked the same way for FrameQos alone and for both
// elements in a pipeline. Header-only: the FrameQos test links neither GStreamer's video
// library nor the test frames.

#include <gst/gst.h>
#include <gtest/gtest.h>

// Expects `message` to count in buffers: `processed` frames taken, `dropped` dropped.
inline void expect_qos_stats(GstMessage *message, guint64 processed, guint64 dropped) {
  GstFormat format = GST_FORMAT_UNDEFINED;
  guint64 processed_got = 0, dropped_got = 0;
  gst_message_parse_qos_stats(message, &format, &processed_got, &dropped_got);
  EXPECT_EQ(format, GST_FORMAT_BUFFERS);
  EXPECT_EQ(processed_got, processed);
  EXPECT_EQ(dropped_got, dropped);
}
