// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A GstAllocator of page-locked host memory (cudaHostAlloc). cudahisteq offers upstream a
// buffer pool built on it, so frames arrive in memory the copy engines DMA from directly,
// without a staging copy.

#include <gst/gst.h>

G_BEGIN_DECLS

#define HISTEQ_PINNED_MEMORY_TYPE "HistEqCudaPinnedHost"

#define GST_TYPE_HIST_EQ_PINNED_ALLOCATOR (gst_hist_eq_pinned_allocator_get_type())
G_DECLARE_FINAL_TYPE(GstHistEqPinnedAllocator, gst_hist_eq_pinned_allocator, GST,
                     HIST_EQ_PINNED_ALLOCATOR, GstAllocator)

// A new reference to the allocator.
GstAllocator *gst_hist_eq_pinned_allocator_new(void);

G_END_DECLS
