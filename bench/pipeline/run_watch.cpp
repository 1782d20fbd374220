// SPDX-License-Identifier: LGPL-2.1-or-later
#include "run_watch.h"

#include <cstdio>

std::string error_text(GstMessage *error) {
  GError *gerror = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error(error, &gerror, &debug);
  const std::string text =
      std::string(gerror->message) + " (" + (debug ? debug : "no details") + ")";
  g_clear_error(&gerror);
  g_free(debug);
  return text;
}

RunWatch::RunWatch(GstElement *pipeline, GstAppSrc *appsrc, GstBufferPool *pool, std::string name,
                   std::chrono::seconds limit)
    : pipeline_(pipeline),
      appsrc_(appsrc),
      pool_(pool),
      name_(std::move(name)),
      thread_([this, limit] { watch(limit); }) {}

RunWatch::~RunWatch() {
  if (thread_.joinable()) thread_.join();
}

bool RunWatch::wait_for_eos(Clock::time_point *at) {
  thread_.join();
  *at = eos_at_;
  return eos_;
}

void RunWatch::watch(std::chrono::seconds limit) {
  GstBus *bus = gst_element_get_bus(pipeline_);
  GstMessage *message =
      gst_bus_timed_pop_filtered(bus, GstClockTime(limit.count()) * GST_SECOND,
                                 GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  eos_at_ = Clock::now();
  eos_ = message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
  if (!message) {
    std::fprintf(stderr, "%s: no EOS within %lld s; giving up on this run\n", name_.c_str(),
                 static_cast<long long>(limit.count()));
  } else if (!eos_) {
    std::fprintf(stderr, "%s: %s; giving up on this run\n", name_.c_str(),
                 error_text(message).c_str());
  }
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  if (!eos_) {
    gave_up_ = true;
    gst_app_src_set_max_buffers(appsrc_, 0);
    gst_buffer_pool_set_flushing(pool_, TRUE);
  }
}
