// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// QoS for an element that pushes its frames from a task of its own (cudahisteq): what the sink
// last reported in its QOS events and what the element did about it. GstBaseTransform's own QoS
// counts only the frames its generate_output makes, so its QoS messages would report none
// processed; this keeps the same rule (a frame whose running time is not after the sink's
// timestamp + diff is dropped) with counts of the frames the element really took.
//
//   QOS event (any thread):  qos.report(proportion, diff, timestamp);
//   each frame (streaming):  if (qos.late(running_time)) post qos.dropped_message(...), drop it
//   flush / start:           qos.forget_reports() / qos.restart()

#include <cstdint>
#include <mutex>

#include <gst/gst.h>

class FrameQos {
 public:
  void report(double proportion, GstClockTimeDiff diff, GstClockTime timestamp);
  // A flush: the reports were about the stream before it.
  void forget_reports();
  // A new run: the counts start again too.
  void restart();

  // Whether a frame at `running_time` would only be shown late; counts it as dropped if so,
  // else as processed.
  bool late(GstClockTime running_time);

  // The QoS message for the frame late() just dropped.
  GstMessage *dropped_message(GstObject *element, const GstSegment &segment, GstClockTime timestamp,
                              GstClockTime duration) const;

  std::uint64_t processed() const { return processed_; }
  std::uint64_t dropped() const { return dropped_; }

 private:
  mutable std::mutex mutex_;  // the report, set from downstream's threads
  double proportion_ = 1.0;
  GstClockTime earliest_ = GST_CLOCK_TIME_NONE;
  // The streaming thread's own.
  std::uint64_t processed_ = 0;
  std::uint64_t dropped_ = 0;
  GstClockTime dropped_running_time_ = GST_CLOCK_TIME_NONE;
  GstClockTime dropped_earliest_ = GST_CLOCK_TIME_NONE;
  double dropped_proportion_ = 1.0;
};
