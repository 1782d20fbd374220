// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include "gsthisteqbase.h"

G_BEGIN_DECLS

#define GST_TYPE_HIST_EQ (gst_hist_eq_get_type())
G_DECLARE_FINAL_TYPE(GstHistEq, gst_hist_eq, GST, HIST_EQ, GstHistEqBase)

GST_ELEMENT_REGISTER_DECLARE(histeq);

G_END_DECLS
