// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// GstHistEqBase: what histeq and cudahisteq share. The equalization properties (declared once
// here, controllable, changeable while playing), their per-frame copy as fixed-point Params, the
// output range from the caps, passthrough at strength 0, the history restarts (flush, segment,
// caps, DISCONT) and the statistics messages. Subclasses equalize:
//
//   before_transform (or the subclass's own submit): gst_hist_eq_base_prepare(base, buffer)
//   for a frame to equalize: HistEqFrame f = gst_hist_eq_base_begin_frame(base, buffer);
//     ...equalize with f.params, f.reset, f.range...
//     gst_hist_eq_base_post_statistics(base, f, histogram, bins, restarted);
//
// Lock order: the object lock guards the settings and the pending restart; nothing else is
// taken while it is held.

#include <cstdint>

#include <gst/video/gstvideofilter.h>

#include "equalization.h"
#include "params.h"
#include "rgb.h"
#include "sample_layout.h"

G_BEGIN_DECLS

#define GST_TYPE_HIST_EQ_BASE (gst_hist_eq_base_get_type())
// The luma-matrix property's enum: histeq::LumaStandard's values.
GType gst_hist_eq_luma_matrix_get_type();
// The mode property's enum: histeq::Mode's values.
GType gst_hist_eq_mode_get_type();
G_DECLARE_DERIVABLE_TYPE(GstHistEqBase, gst_hist_eq_base, GST, HIST_EQ_BASE, GstVideoFilter)

struct _GstHistEqBaseClass {
  GstVideoFilterClass parent_class;
  // Called from set_info once the base has taken the caps' range; FALSE refuses the caps.
  gboolean (*configure)(GstHistEqBase *base, GstCaps *incaps, GstVideoInfo *in_info);
};

G_END_DECLS

// One frame as the subclass equalizes it.
struct HistEqFrame {
  histeq::Params params;
  bool reset = false;  // the stream's history restarts with this frame
  bool statistics = false;
  histeq::OutputRange range = histeq::full_range(8);
  // The luma of packed RGB.
  histeq::LumaMatrix luma_matrix = histeq::luma_matrix(histeq::LumaStandard::kBt709);
  // For the statistics message, as of the frame's arrival.
  GstClockTime timestamp = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
};

// Brings controlled properties to the buffer's stream time and sets passthrough when the
// frame needs no work (strength 0, no history to keep). The base class's before_transform.
void gst_hist_eq_base_prepare(GstHistEqBase *base, GstBuffer *buffer);

// The settings for `buffer` (not passthrough), and whether its history restarts.
HistEqFrame gst_hist_eq_base_begin_frame(GstHistEqBase *base, GstBuffer *buffer);

// Whether an engine can keep CLAHE's tiles for the frame's grid at the samples' depth (at most
// kMaxClaheTileBins tiles x bins); otherwise posts the element error that says how many tiles
// fit, and the frame is not equalized.
gboolean gst_hist_eq_base_check_grid(GstHistEqBase *base, const HistEqFrame &frame,
                                     histeq::SampleLayout layout);

// Posts the frame's statistics message when the frame asked for one.
void gst_hist_eq_base_post_statistics(GstHistEqBase *base, const HistEqFrame &frame,
                                      const std::uint64_t *histogram, int bins, bool restarted);

// The next frame restarts the history (what a flush or a new segment does).
void gst_hist_eq_base_restart_history(GstHistEqBase *base);
