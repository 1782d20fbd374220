// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// GEnum types over the engine's kernel variants, so gst-inspect lists them by the engine's own
// names ("shared-atomics", "brent-kung", ...).

#include <glib-object.h>

GType gst_cuda_hist_eq_histogram_method_get_type();
GType gst_cuda_hist_eq_scan_method_get_type();
