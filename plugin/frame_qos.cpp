// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_qos.h"

void FrameQos::report(double proportion, GstClockTimeDiff diff, GstClockTime timestamp) {
  std::lock_guard<std::mutex> lock(mutex_);
  proportion_ = proportion;
  // A sink ahead of the clock reports a negative diff; an earliest time before 0 holds no
  // frame back.
  const GstClockTimeDiff earliest = GstClockTimeDiff(timestamp) + diff;
  earliest_ = GST_CLOCK_TIME_IS_VALID(timestamp) && earliest >= 0 ? GstClockTime(earliest)
                                                                  : GST_CLOCK_TIME_NONE;
}

void FrameQos::forget_reports() {
  std::lock_guard<std::mutex> lock(mutex_);
  proportion_ = 1.0;
  earliest_ = GST_CLOCK_TIME_NONE;
}

void FrameQos::restart() {
  forget_reports();
  processed_ = dropped_ = 0;
}

bool FrameQos::late(GstClockTime running_time) {
  GstClockTime earliest;
  double proportion;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    earliest = earliest_;
    proportion = proportion_;
  }
  if (!GST_CLOCK_TIME_IS_VALID(running_time) || !GST_CLOCK_TIME_IS_VALID(earliest) ||
      running_time > earliest) {
    ++processed_;
    return false;
  }
  ++dropped_;
  dropped_running_time_ = running_time;
  dropped_earliest_ = earliest;
  dropped_proportion_ = proportion;
  return true;
}

GstMessage *FrameQos::dropped_message(GstObject *element, const GstSegment &segment,
                                      GstClockTime timestamp, GstClockTime duration) const {
  GstMessage *message = gst_message_new_qos(
      element, FALSE, dropped_running_time_,
      gst_segment_to_stream_time(&segment, GST_FORMAT_TIME, timestamp), timestamp, duration);
  // Jitter: how far before the earliest time the sink could still show it the frame fell.
  gst_message_set_qos_values(message, GST_CLOCK_DIFF(dropped_running_time_, dropped_earliest_),
                             dropped_proportion_, 1000000);
  gst_message_set_qos_stats(message, GST_FORMAT_BUFFERS, processed_, dropped_);
  return message;
}
