// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Test frames built from GstVideoInfo, so strides and plane offsets are GStreamer's own, and
// the expected output computed with the core on a copy of the luma plane.

#include <cstdint>
#include <random>
#include <vector>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "equalization.h"

GstVideoInfo video_info(GstVideoFormat format, int width, int height,
                        GstVideoColorRange range = GST_VIDEO_COLOR_RANGE_0_255);

// A frame of low-contrast content (gradient plus noise) in every plane.
GstBuffer *natural_frame(const GstVideoInfo &info, std::mt19937 &rng);

// Every plane of `buffer` as tightly packed rows (padding dropped), read through GstVideoFrame.
std::vector<std::vector<std::uint8_t>> visible_planes(const GstVideoInfo &info, GstBuffer *buffer);

// The bytes of `buffer` outside every plane's visible rows: stride padding, gaps between planes
// and the tail, in buffer order. Empty when the buffer cannot be mapped as `info`.
std::vector<std::uint8_t> padding_bytes(const GstVideoInfo &info, GstBuffer *buffer);

// The output range the caps' colorimetry asks for (limited for 16_235, else full).
histeq::OutputRange range_of(const GstVideoInfo &info);

// Unrefs every buffer and empties the vector.
void unref_all(std::vector<GstBuffer *> &buffers);

// The luma plane (tightly packed) after the core equalizes it.
std::vector<std::uint8_t> core_equalized_luma(const std::vector<std::uint8_t> &luma, int width,
                                              int height, histeq::OutputRange range);

// A crop rectangle, in pixels of the luma plane.
struct CropRect {
  int x, y, width, height;
};

// Adds a GstVideoCropMeta showing `r`.
void add_crop(GstBuffer *buffer, CropRect r);

// A packed luma plane `width` pixels wide after the core equalizes rectangle `r` of it alone (its
// histogram, its pixels); everything outside `r` as it was.
std::vector<std::uint8_t> core_equalized_inside(std::vector<std::uint8_t> luma, int width,
                                                CropRect r, histeq::OutputRange range);
