// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// QoS for an element that pushes its frames from a task of its own (cudahisteq): what the sink
// last reported in its QOS events and what the element did about it. GstBaseTransform's own QoS
// counts only the frames its generate_output makes, so its QoS messages would report none
// processed; this keeps the same rule (a frame whose running time is not after the sink's
// timestamp + diff is dropped) with counts of the frames the element really took.
//
//   QOS event (any thread):  qos.report(proportion, diff, timestamp);
//   each frame (streaming):  if (qos.late(running_time, &lateness))
//                              post qos.dropped(element, lateness, ...) and drop it;
//                            else qos.taken();
//   start, flush:            qos.reset();

#include <cstdint>
#include <mutex>

#include <gst/gst.h>

class FrameQos {
 public:
  // How late a frame is, for its QoS message.
  struct Lateness {
    GstClockTime running_time = GST_CLOCK_TIME_NONE;
    GstClockTime earliest = GST_CLOCK_TIME_NONE;  // the first running time the sink can show
    double proportion = 1.0;
  };

  // A QOS event; one without a timestamp is ignored, as GstBaseTransform ignores it.
  void report(double proportion, GstClockTimeDiff diff, GstClockTime timestamp);
  // A new run or a flush: no report stands and the counts start again (a QoS message counts
  // since the last flush).
  void reset();

  // Whether a frame at `running_time` would only be shown late (and how late, if so).
  bool late(GstClockTime running_time, Lateness *lateness) const;
  // Counts a frame the element took.
  void taken() { ++processed_; }
  // Counts a dropped frame and returns its QoS message.
  GstMessage *dropped(GstObject *element, const Lateness &lateness, const GstSegment &segment,
                      GstClockTime timestamp, GstClockTime duration);

  std::uint64_t processed() const { return processed_; }
  std::uint64_t dropped_count() const { return dropped_; }

 private:
  mutable std::mutex mutex_;  // the report, set from downstream's threads
  double proportion_ = 1.0;
  GstClockTime earliest_ = GST_CLOCK_TIME_NONE;
  // The streaming thread's own.
  std::uint64_t processed_ = 0;
  std::uint64_t dropped_ = 0;
};
