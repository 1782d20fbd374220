// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What both elements need to turn a GStreamer buffer into the engines' views of it: the formats
// they take (luma planes, packed YUV, packed RGB), the output range the caps ask for, and a frame
// mapping that fails with a sentence a user understands.

#include <gst/video/video.h>

#include "equalization.h"
#include "packed_views.h"
#include "plane.h"
#include "sample_layout.h"

#define HISTEQ_LUMA_FORMATS "GRAY8, I420, YV12, NV12, NV21, Y41B, Y42B, Y444"
// 10, 12 and 16-bit luma in 16-bit little-endian words, LSB-aligned except P010 and P012.
#define HISTEQ_DEEP_LUMA_FORMATS                                                             \
  "GRAY16_LE, I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, " \
  "P010_10LE, P012_LE, P016_LE"

// Packed 4:2:2 YUV: a luma byte every second byte.
#define HISTEQ_PACKED_YUV_FORMATS "YUY2, UYVY, YVYU"
// Packed 8-bit RGB, with or without alpha or a padding byte: equalized by a luma of R, G and B.
#define HISTEQ_RGB_FORMATS "RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR, RGB, BGR"

// How a format keeps its luma.
enum class HistEqPacking { kLumaPlane, kPackedYuv, kRgb };
HistEqPacking histeq_packing(const GstVideoInfo *info);

// The raw-video sink and src templates of an element over `formats` (a comma-separated list);
// with `memory_feature` (e.g. "memory:CUDAMemory") those caps come first, then system memory's.
void histeq_add_pad_templates(GstElementClass *element_class, const char *formats,
                              const char *memory_feature = nullptr);

// Where the luma bits of the caps' format sit in its samples (8 bits: a byte).
histeq::SampleLayout histeq_sample_layout(const GstVideoInfo *info);

// Limited-range video (colorimetry range 16_235) stays inside 16..235, scaled to the format's
// depth (64..940 at 10 bits); anything else uses every code.
histeq::OutputRange histeq_output_range(const GstVideoInfo *info);

// Checks that the GstVideoMeta of `buffer`, if any, agrees with `info` and keeps every plane
// inside the buffer with a positive stride no shorter than its rows, and that its
// GstVideoCropMeta, if any, shows a non-empty part of the frame; else posts a
// GST_ELEMENT_ERROR on `element` naming the plane (or the rectangle) and the sizes, and returns
// FALSE.
gboolean histeq_check_frame_layout(GstElement *element, const GstVideoInfo *info,
                                   GstBuffer *buffer);

// Maps `buffer` as a writable frame of `info`, or posts a GST_ELEMENT_ERROR on `element` saying
// why it cannot be (a layout histeq_check_frame_layout refuses, too small for its caps,
// unmappable) and returns FALSE.
gboolean histeq_map_frame(GstElement *element, const GstVideoInfo *info, GstBuffer *buffer,
                          GstVideoFrame *frame);

// Checks that the luma plane of a mapped frame (host or device pointers) starts on a whole
// sample and has a stride of whole samples (16-bit formats: even addresses); else posts a
// GST_ELEMENT_ERROR on `element`, unmaps the frame and returns FALSE.
gboolean histeq_check_luma_alignment(GstElement *element, GstVideoFrame *frame);

// The luma plane of a mapped frame (host or device pointers, as mapped) as far as it is visible:
// the rectangle of the buffer's GstVideoCropMeta (checked by histeq_check_frame_layout), else
// all of it. The elements count and rewrite exactly these pixels; the rest stays as it was.
histeq::LumaPlane8 histeq_luma_plane(GstVideoFrame *frame);
// The same for formats of 16-bit words.
histeq::LumaPlane16 histeq_luma_plane16(GstVideoFrame *frame);
// The same for packed 4:2:2 YUV (HISTEQ_PACKED_YUV_FORMATS) and packed RGB (HISTEQ_RGB_FORMATS,
// its luma made with `matrix`).
histeq::PackedYuvView histeq_packed_yuv_view(GstVideoFrame *frame);
histeq::RgbView histeq_rgb_view(GstVideoFrame *frame, histeq::LumaMatrix matrix);
