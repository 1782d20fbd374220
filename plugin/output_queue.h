// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's frames between its two threads: the streaming thread maps each frame, hands it to
// the GPU and appends it here; the output task takes them in order, waits until each is done and
// pushes it downstream. A frame leaves as soon as the GPU is done with it, never waiting for the
// next one to arrive, so the frames in flight add no latency.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include <gst/video/video.h>

#include "gsthisteqbase.h"

struct PendingFrame {
  GstBuffer *buffer = nullptr;
  GstVideoFrame frame{};
  HistEqFrame settings;           // what it is equalized with, and its statistics' timestamps
  bool mapped = false;            // frame maps buffer (system memory, until the GPU is done)
  bool done = false;              // nothing to wait for (a GAP buffer, passthrough)
  std::uint64_t flush_count = 0;  // flushes before it was appended (set by append)
};

// Whether frames still go out after downstream answered `flow`: on OK, and on NOT_LINKED (the
// next frame is offered again, as a relinked pad would get it).
inline bool keeps_pushing(GstFlowReturn flow) {
  return flow == GST_FLOW_OK || flow == GST_FLOW_NOT_LINKED;
}

class OutputQueue {
 public:
  // Streaming thread.
  void append(PendingFrame frame);
  // Blocks until has_room() holds (checked under the queue's lock, each time the output task
  // takes a frame back), then GST_FLOW_OK; or returns flow() once that is not OK.
  GstFlowReturn wait_for_room(const std::function<bool()> &has_room);
  // Blocks until every frame appended so far has been pushed or dropped; returns flow().
  GstFlowReturn wait_until_empty();
  // FLUSHING while flushing or closed; else what downstream answered the last push. After EOS,
  // FLUSHING or an error from downstream the frames still in flight are finished and dropped
  // (NOT_LINKED drops nothing: the next frame is offered again).
  GstFlowReturn flow();
  // FLUSH_START: waiters return FLUSHING, and every frame appended before it is dropped, not
  // pushed, whenever the output task gets to it. FLUSH_STOP: frames appended from now on go
  // out again, and downstream's last answer is forgotten; it need not wait for the dropping.
  void set_flushing(bool flushing);
  // Around the output task's life: closed, waiters return FLUSHING and nothing waits for the
  // task. Frames appended meanwhile stay until take_all().
  void open();
  void close();

  // Output task. Blocks until a frame is there and gives the oldest, `deliver` saying whether
  // it is to be pushed or dropped; FALSE once closed with none left.
  bool front(PendingFrame *frame, bool *deliver);
  // The GPU handed a frame back: has_room() may hold now.
  void notify();
  // The oldest frame (`frame`, as front() gave it) left: pushed with `pushed`, or dropped.
  void pop_front(const PendingFrame &frame, GstFlowReturn pushed);

  // Every frame still here, for the element to release once nothing else touches them.
  std::deque<PendingFrame> take_all();

 private:
  GstFlowReturn stopped_flow() const;
  bool delivers(const PendingFrame &frame) const;

  std::mutex lock_;
  std::condition_variable changed_;
  std::deque<PendingFrame> frames_;
  GstFlowReturn downstream_ = GST_FLOW_OK;
  bool flushing_ = false;
  bool closed_ = true;
  std::uint64_t flush_count_ = 0;
};
