// SPDX-License-Identifier: LGPL-2.1-or-later
#include "output_queue.h"

GstFlowReturn OutputQueue::stopped_flow() const {
  return flushing_ ? GST_FLOW_FLUSHING : downstream_;
}

void OutputQueue::append(const PendingFrame &frame) {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    frames_.push_back(frame);
  }
  changed_.notify_all();
}

GstFlowReturn OutputQueue::wait_for_room(const std::function<bool()> &has_room) {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [&] { return stopped_flow() != GST_FLOW_OK || has_room(); });
  return stopped_flow();
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
    if (!flushing) downstream_ = GST_FLOW_OK;
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
    flushing_ = closed_ = true;
  }
  changed_.notify_all();
}

bool OutputQueue::front(PendingFrame *frame, bool *deliver) {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [&] { return !frames_.empty() || closed_; });
  if (frames_.empty()) return false;
  *frame = frames_.front();
  *deliver = stopped_flow() == GST_FLOW_OK;
  return true;
}

void OutputQueue::notify() {
  // Taking the lock orders this wake-up after a waiter's check of has_room(): without it, one
  // that had just found no room could miss it and sleep on.
  { const std::lock_guard<std::mutex> hold(lock_); }
  changed_.notify_all();
}

void OutputQueue::pop_front(GstFlowReturn pushed) {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    frames_.pop_front();
    if (pushed != GST_FLOW_OK && downstream_ == GST_FLOW_OK) downstream_ = pushed;
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
