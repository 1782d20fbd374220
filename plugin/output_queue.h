// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's frames between its two threads: the streaming thread maps each frame, hands it to
// the GPU and appends it here; the output task takes them in order, waits until each is done and
// pushes it downstream. A frame leaves as soon as the GPU is done with it, never waiting for the
// next one to arrive, so the frames in flight add no latency.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include <gst/video/video.h>

struct PendingFrame {
  GstBuffer *buffer = nullptr;
  GstVideoFrame frame{};
  bool mapped = false;          // frame maps buffer (system memory, in the stream ring)
  bool in_cuda_memory = false;  // in CudaMemoryFrames
  bool done = false;            // nothing to wait for (a GAP buffer)
};

class OutputQueue {
 public:
  // Streaming thread.
  void append(const PendingFrame &frame);
  // Blocks until has_room() holds (checked under the queue's lock, each time the output task
  // takes a frame back), then GST_FLOW_OK; or returns FLUSHING, or the flow downstream answered.
  GstFlowReturn wait_for_room(const std::function<bool()> &has_room);
  // Blocks until every frame appended so far has been pushed (or dropped: see flow()).
  GstFlowReturn wait_until_empty();
  // GST_FLOW_OK, FLUSHING while flushing, else the first failure downstream answered a push
  // with; after one, the frames still in flight are finished and dropped.
  GstFlowReturn flow();
  // FLUSH_START: waiters return FLUSHING and the output task drops frames instead of pushing
  // them. Off again (FLUSH_STOP, once empty), downstream's last answer is forgotten too.
  void set_flushing(bool flushing);
  // Around the output task's life: closed, it takes no more frames, so nothing waits for it.
  void open();
  void close();

  // Output task. Blocks until a frame is there and gives the oldest, `deliver` saying whether it
  // is to be pushed or dropped; FALSE once closed with none left.
  bool front(PendingFrame *frame, bool *deliver);
  // The GPU handed a frame back: has_room() may hold now.
  void notify();
  // The oldest frame left (pushed with `pushed`, or dropped).
  void pop_front(GstFlowReturn pushed);

  // Every frame still here, for the element to release once the output task is stopped.
  std::deque<PendingFrame> take_all();

 private:
  GstFlowReturn stopped_flow() const;

  std::mutex lock_;
  std::condition_variable changed_;
  std::deque<PendingFrame> frames_;
  GstFlowReturn downstream_ = GST_FLOW_OK;
  bool flushing_ = false;
  bool closed_ = true;
};
