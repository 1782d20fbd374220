// SPDX-License-Identifier: LGPL-2.1-or-later
#include "late_frames.h"

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
