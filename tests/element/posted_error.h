// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <string>

#include <gst/gst.h>

// The ERROR message an element posted on `bus`, popped; `error` stays null when there is none.
struct PostedError {
  GError *error = nullptr;
  gchar *debug = nullptr;
  explicit PostedError(GstBus *bus) {
    if (GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
      gst_message_parse_error(message, &error, &debug);
      gst_message_unref(message);
    }
  }
  ~PostedError() {
    g_clear_error(&error);
    g_free(debug);
  }
  PostedError(const PostedError &) = delete;
  PostedError &operator=(const PostedError &) = delete;
  std::string text() const { return error ? error->message : ""; }
  std::string debug_text() const { return debug ? debug : ""; }
};
