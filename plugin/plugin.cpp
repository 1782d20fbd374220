// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gst/gst.h>

#include "gsthisteq.h"

static gboolean plugin_init(GstPlugin *plugin) {
  return GST_ELEMENT_REGISTER(histeq, plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, histeq,
                  "Luma histogram equalization of video frames", plugin_init, PACKAGE_VERSION,
                  "LGPL", "gst-histeq", "https://gstreamer.freedesktop.org/")
