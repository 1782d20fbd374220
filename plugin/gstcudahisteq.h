// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include "gsthisteqbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_HIST_EQ (gst_cuda_hist_eq_get_type())
G_DECLARE_FINAL_TYPE(GstCudaHistEq, gst_cuda_hist_eq, GST, CUDA_HIST_EQ, GstHistEqBase)

GST_ELEMENT_REGISTER_DECLARE(cudahisteq);

G_END_DECLS
