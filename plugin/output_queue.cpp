// SPDX-License-Identifier: LGPL-2.1-or-later
#include "output_queue.h"

GstFlowReturn OutputQueue::stopped_flow() const {
  return flushing_ || closed_ ? GST_FLOW_FLUSHING : downstream_;
}

bool OutputQueue::delivers(const PendingFrame &frame) const {
  return frame.flush_count == flush_count_ && keeps_pushing(stopped_flow());
}

void OutputQueue::append(PendingFrame frame) {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    frame.flush_count = flush_count_;
    frames_.push_back(frame);
  }
  changed_.notify_all();
}

GstFlowReturn OutputQueue::wait_for_room(const std::function<bool()> &has_room) {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [&] { return !keeps_pushing(stopped_flow()) || has_room(); });
  const GstFlowReturn flow = stopped_flow();
  return flow == GST_FLOW_NOT_LINKED ? GST_FLOW_OK : flow;
}

GstFlowReturn OutputQueue::wait_until_empty() {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [&] { return frames_.empty() || closed_; });
  return stopped_flow();
}

GstFlowReturn OutputQueue::flow() {
  const std::lock_guard<std::mutex> hold(lock_);
  return stopped_flow();
}

void OutputQueue::set_flushing(bool flushing) {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    flushing_ = flushing;
    if (flushing) {
      ++flush_count_;
    } else {
      downstream_ = GST_FLOW_OK;
    }
  }
  changed_.notify_all();
}

void OutputQueue::open() {
  const std::lock_guard<std::mutex> hold(lock_);
  flushing_ = closed_ = false;
  downstream_ = GST_FLOW_OK;
}

void OutputQueue::close() {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    closed_ = true;
    ++flush_count_;
  }
  changed_.notify_all();
}

bool OutputQueue::front(PendingFrame *frame, bool *deliver) {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [&] { return !frames_.empty() || closed_; });
  if (frames_.empty()) return false;
  *frame = frames_.front();
  *deliver = delivers(*frame);
  return true;
}

void OutputQueue::notify() {
  // Taking the lock orders this wake-up after a waiter's check of has_room(): without it, one
  // that had just found no room could miss it and sleep on.
  { const std::lock_guard<std::mutex> hold(lock_); }
  changed_.notify_all();
}

void OutputQueue::pop_front(const PendingFrame &frame, GstFlowReturn pushed) {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    frames_.pop_front();
    // A push that a flush overtook says nothing about the frames after the flush.
    if (frame.flush_count == flush_count_ && keeps_pushing(downstream_)) downstream_ = pushed;
  }
  changed_.notify_all();
}

std::deque<PendingFrame> OutputQueue::take_all() {
  std::deque<PendingFrame> frames;
  {
    const std::lock_guard<std::mutex> hold(lock_);
    frames.swap(frames_);
  }
  changed_.notify_all();
  return frames;
}
