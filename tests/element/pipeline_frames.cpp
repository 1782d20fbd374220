// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pipeline_frames.h"

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "video_frames.h"

std::string test_scene(int num_buffers, const std::string &format, int width, int height) {
  return "videotestsrc pattern=ball" +
         (num_buffers > 0 ? " num-buffers=" + std::to_string(num_buffers) : std::string()) +
         " ! video/x-raw,format=" + format + ",width=" + std::to_string(width) +
         ",height=" + std::to_string(height) + ",framerate=30/1";
}

PulledStream pull_frames(const std::string &source, const std::string &middle, int seek_after) {
  PulledStream stream;
  const std::string description =
      source + " ! " + middle + " ! appsink name=sink sync=false max-buffers=4";
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &parse_error);
  if (!pipeline) {
    stream.error = std::string("parse: ") + parse_error->message;
    g_error_free(parse_error);
    return stream;
  }
  GstAppSink *sink = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "sink"));
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  int pulled = 0;
  while (GstSample *sample = gst_app_sink_try_pull_sample(sink, 10 * GST_SECOND)) {
    GstVideoInfo info;
    gst_video_info_from_caps(&info, gst_sample_get_caps(sample));
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    stream.frames.push_back({GST_BUFFER_PTS(buffer), visible_planes(info, buffer)[0]});
    gst_sample_unref(sample);
    if (++pulled == seek_after) {
      stream.frames.clear();
      gst_element_seek(pipeline, 1.0, GST_FORMAT_TIME,
                       GstSeekFlags(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                       GST_SEEK_TYPE_SET, GST_SECOND, GST_SEEK_TYPE_SET, 2 * GST_SECOND);
    }
  }
  stream.eos = gst_app_sink_is_eos(sink);
  if (GstElement *eq = gst_bin_get_by_name(GST_BIN(pipeline), "eq")) {
    GstPad *pad = gst_element_get_static_pad(eq, "sink");
    if (GstCaps *caps = gst_pad_get_current_caps(pad)) {
      gchar *text = gst_caps_to_string(caps);
      stream.eq_caps = text;
      g_free(text);
      gst_caps_unref(caps);
    }
    gst_object_unref(pad);
    gst_object_unref(eq);
  }
  GstBus *bus = gst_element_get_bus(pipeline);
  if (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError *error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    stream.error = error->message;
    g_error_free(error);
    gst_message_unref(message);
  }
  gst_object_unref(bus);
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return stream;
}

void expect_same_frames(const std::vector<PulledFrame> &actual,
                        const std::vector<PulledFrame> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].pts, expected[i].pts) << "frame " << i;
    EXPECT_TRUE(actual[i].luma == expected[i].luma) << "frame " << i << " differs";
  }
}
