// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_qos.h"

void FrameQos::report(double proportion, GstClockTimeDiff diff, GstClockTime timestamp) {
  if (!GST_CLOCK_TIME_IS_VALID(timestamp)) return;
  // A sink ahead of the clock reports a negative diff; an earliest time before 0 holds no
  // frame back.
  const GstClockTimeDiff earliest = GstClockTimeDiff(timestamp) + diff;
  std::lock_guard<std::mutex> lock(mutex_);
  proportion_ = proportion;
  earliest_ = earliest >= 0 ? GstClockTime(earliest) : GST_CLOCK_TIME_NONE;
}

void FrameQos::reset() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    proportion_ = 1.0;
    earliest_ = GST_CLOCK_TIME_NONE;
  }
  processed_ = dropped_ = 0;
}

bool FrameQos::late(GstClockTime running_time, Lateness *lateness) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!GST_CLOCK_TIME_IS_VALID(running_time) || !GST_CLOCK_TIME_IS_VALID(earliest_) ||
      running_time > earliest_)
    return false;
  *lateness = {running_time, earliest_, proportion_};
  return true;
}

GstMessage *FrameQos::dropped(GstObject *element, const Lateness &lateness,
                              const GstSegment &segment, GstClockTime timestamp,
                              GstClockTime duration) {
  ++dropped_;
  GstMessage *message = gst_message_new_qos(
      element, FALSE, lateness.running_time,
      gst_segment_to_stream_time(&segment, GST_FORMAT_TIME, timestamp), timestamp, duration);
  // Jitter: how far before the earliest time the sink could still show it the frame fell.
  gst_message_set_qos_values(message, GST_CLOCK_DIFF(lateness.running_time, lateness.earliest),
                             lateness.proportion, 1000000);
  gst_message_set_qos_stats(message, GST_FORMAT_BUFFERS, processed_, dropped_);
  return message;
}
