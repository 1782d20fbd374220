// SPDX-License-Identifier: LGPL-2.1-or-later
#include "output_task.h"

GST_DEBUG_CATEGORY_EXTERN(gst_cuda_hist_eq_debug);
#define GST_CAT_DEFAULT gst_cuda_hist_eq_debug

GstClockTime histeq_buffer_end(GstBuffer *buffer) {
  if (!GST_BUFFER_PTS_IS_VALID(buffer)) return GST_CLOCK_TIME_NONE;
  return GST_BUFFER_PTS(buffer) +
         (GST_BUFFER_DURATION_IS_VALID(buffer) ? GST_BUFFER_DURATION(buffer) : 0);
}

OutputTask::OutputTask(GstPad *src, FrameFinisher *finisher)
    : src_(src), finisher_(finisher), pad_activate_mode_(GST_PAD_ACTIVATEMODEFUNC(src)) {
  gst_pad_set_activatemode_function_full(src, activate_mode, this, nullptr);
}

// The task's own pointer comes back as the pad's activation data.
gboolean OutputTask::activate_mode(GstPad *pad, GstObject *parent, GstPadMode mode,
                                   gboolean active) {
  OutputTask *task = static_cast<OutputTask *>(pad->activatemodedata);
  if (mode == GST_PAD_MODE_PULL && active) return FALSE;
  if (mode == GST_PAD_MODE_PUSH) {
    if (active) {
      task->queue_.open();
      if (!gst_pad_start_task(pad, loop, task, nullptr)) return FALSE;
    } else {
      task->stop();
    }
  }
  return task->pad_activate_mode_(pad, parent, mode, active);
}

void OutputTask::stop() {
  queue_.close();
  gst_pad_stop_task(src_);
}

void OutputTask::loop(gpointer task) {
  static_cast<OutputTask *>(task)->send_oldest();
}

void OutputTask::send_oldest() {
  PendingFrame pending;
  bool deliver = false;
  if (!queue_.front(&pending, &deliver)) {
    gst_pad_pause_task(src_);
    return;
  }
  histeq::cuda::FrameReport report;
  GstFlowReturn ret = GST_FLOW_OK;
  if (!pending.done) {
    ret = finisher_->finish(pending, &report);
    queue_.notify();
  }
  // Statistics only for frames that go out: a flush drops the others unseen.
  if (ret == GST_FLOW_OK && deliver && !pending.done) finisher_->post_statistics(pending, report);
  if (ret == GST_FLOW_OK && deliver) {
    GST_LOG_OBJECT(src_, "frame %" GST_TIME_FORMAT " out",
                   GST_TIME_ARGS(GST_BUFFER_PTS(pending.buffer)));
    const GstClockTime end = histeq_buffer_end(pending.buffer);
    if (GST_CLOCK_TIME_IS_VALID(end)) position_ = end;
    ret = gst_pad_push(src_, pending.buffer);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT(src_, "downstream answered %s", gst_flow_get_name(ret));
  } else {
    gst_buffer_unref(pending.buffer);
  }
  queue_.pop_front(pending, ret);
}
