// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's output task: it runs on the src pad while the pad is active in push mode, like a
// queue's, takes the frames from the OutputQueue in order, has the element finish each one (wait
// for the GPU), posts its statistics and pushes it at once. After a flush, a failure downstream
// or on the GPU, the frames still in flight are finished and dropped instead, and the streaming
// thread hands the failure upstream (OutputQueue::flow). Pull mode is refused: frames leave only
// from the task.

#include <atomic>

#include <gst/gst.h>

#include "device_tone.h"
#include "output_queue.h"

// What the output task needs of its element.
class FrameFinisher {
 public:
  // Waits until the GPU is done with `frame`, the oldest one submitted, and unmaps it; `report`
  // gets what the GPU says of it.
  virtual GstFlowReturn finish(PendingFrame &frame, histeq::cuda::FrameReport *report) = 0;
  // Posts the statistics of `frame`, finished and about to go out.
  virtual void post_statistics(const PendingFrame &frame,
                               const histeq::cuda::FrameReport &report) = 0;

 protected:
  ~FrameFinisher() = default;
};

class OutputTask {
 public:
  // Takes over `src`'s activation: the task starts before the pad's own activation in push mode
  // and stops before its deactivation. `src` and `finisher` outlive the task.
  OutputTask(GstPad *src, FrameFinisher *finisher);
  OutputTask(const OutputTask &) = delete;
  OutputTask &operator=(const OutputTask &) = delete;

  OutputQueue &queue() { return queue_; }
  // Stops the task (src pad deactivation, and the element's stop); a streaming thread waiting
  // for it returns FLUSHING.
  void stop();

  // Where the last frame sent out ends (GST_CLOCK_TIME_NONE before any), for POSITION queries
  // at the src pad: the base class keeps this only for frames it pushes itself.
  GstClockTime position() const { return position_; }
  void forget_position() { position_ = GST_CLOCK_TIME_NONE; }

 private:
  static gboolean activate_mode(GstPad *pad, GstObject *parent, GstPadMode mode, gboolean active);
  static void loop(gpointer task);
  // One frame, in order, pushed once done (or dropped).
  void send_oldest();

  GstPad *src_;
  FrameFinisher *finisher_;
  GstPadActivateModeFunction pad_activate_mode_;  // the pad's own (the base class's)
  OutputQueue queue_;
  std::atomic<GstClockTime> position_{GST_CLOCK_TIME_NONE};
};

// The end of a frame (its timestamp when it has no duration), as the base class reckons a
// position; GST_CLOCK_TIME_NONE without a timestamp.
GstClockTime histeq_buffer_end(GstBuffer *buffer);
