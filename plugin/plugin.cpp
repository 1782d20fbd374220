// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gst/gst.h>

#include "gsthisteq.h"
#if HISTEQ_HAVE_CUDA
#include "gstcudahisteq.h"
#endif

// cudahisteq is registered whenever it was built, GPU or not, so gst-inspect documents it; on
// a machine without a usable device it fails to start with an error that names histeq.
static gboolean plugin_init(GstPlugin *plugin) {
  gboolean ok = GST_ELEMENT_REGISTER(histeq, plugin);
#if HISTEQ_HAVE_CUDA
  ok &= GST_ELEMENT_REGISTER(cudahisteq, plugin);
#endif
  return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, histeq,
                  "Luma histogram equalization of video frames", plugin_init, PACKAGE_VERSION,
                  "LGPL", "gst-histeq", "https://gstreamer.freedesktop.org/")
