// SPDX-License-Identifier: LGPL-2.1-or-later
#include "luma_frame.h"

void histeq_add_pad_templates(GstElementClass *element_class, const char *formats,
                              const char *memory_feature) {
  gchar *description = g_strdup_printf(GST_VIDEO_CAPS_MAKE("{ %s }"), formats);
  GstCaps *caps = gst_caps_from_string(description);
  g_free(description);
  if (memory_feature) {
    GstCaps *preferred = gst_caps_copy(caps);
    gst_caps_set_features_simple(preferred, gst_caps_features_new(memory_feature, nullptr));
    caps = gst_caps_merge(preferred, caps);
  }
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);
}

HistEqPacking histeq_packing(const GstVideoInfo *info) {
  if (GST_VIDEO_INFO_IS_RGB(info)) return HistEqPacking::kRgb;
  // Luma and chroma in one plane.
  if (GST_VIDEO_INFO_IS_YUV(info) && GST_VIDEO_INFO_N_PLANES(info) == 1)
    return HistEqPacking::kPackedYuv;
  return HistEqPacking::kLumaPlane;
}

histeq::SampleLayout histeq_sample_layout(const GstVideoInfo *info) {
  return histeq::SampleLayout{int(GST_VIDEO_INFO_COMP_DEPTH(info, 0)),
                              int(GST_VIDEO_FORMAT_INFO_SHIFT(info->finfo, 0))};
}

histeq::OutputRange histeq_output_range(const GstVideoInfo *info) {
  const int bits = histeq_sample_layout(info).bits;
  return info->colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235 ? histeq::limited_range(bits)
                                                                 : histeq::full_range(bits);
}

// gst_video_frame_map() refuses such a meta with a g_return_val_if_fail critical; checked here
// first, it becomes an ordinary error message.
static bool histeq_meta_contradicts_caps(const GstVideoMeta *meta, const GstVideoInfo *info) {
  return meta && (meta->format != GST_VIDEO_INFO_FORMAT(info) ||
                  int(meta->width) < GST_VIDEO_INFO_WIDTH(info) ||
                  int(meta->height) < GST_VIDEO_INFO_HEIGHT(info) ||
                  meta->n_planes != GST_VIDEO_INFO_N_PLANES(info));
}

// Where plane `p` of a frame described by `meta` lies: its first byte, its row pitch, its rows
// and the bytes of each row that hold samples.
struct PlaneExtent {
  guint64 offset;
  gint stride;
  guint64 rows;
  guint64 row_bytes;
};

static PlaneExtent histeq_plane_extent(const GstVideoMeta *meta, guint p) {
  const GstVideoFormatInfo *finfo = gst_video_format_get_info(meta->format);
  gint components[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component(finfo, p, components);
  const gint c = components[0];
  return PlaneExtent{meta->offset[p], meta->stride[p],
                     guint64(GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(finfo, c, meta->height)),
                     guint64(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(finfo, c, meta->width)) *
                         guint64(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c))};
}

// A crop rectangle must be a non-empty part of the frame: the elements equalize exactly it.
static gboolean histeq_check_crop(GstElement *element, const GstVideoInfo *info,
                                  GstBuffer *buffer) {
  const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(buffer);
  if (!crop) return TRUE;
  // The rectangle lies in the buffer's frame, which its GstVideoMeta describes when it has one
  // (upstream may crop by metadata and announce the cropped size in its caps).
  const GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  const guint64 width = meta ? meta->width : guint64(GST_VIDEO_INFO_WIDTH(info));
  const guint64 height = meta ? meta->height : guint64(GST_VIDEO_INFO_HEIGHT(info));
  if (crop->width > 0 && crop->height > 0 && guint64(crop->x) + crop->width <= width &&
      guint64(crop->y) + crop->height <= height)
    return TRUE;
  GST_ELEMENT_ERROR(
      element, STREAM, FORMAT,
      ("The video buffer's crop metadata shows the rectangle %ux%u at (%u, %u), "
       "which is not a part of its %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT " frame.",
       crop->width, crop->height, crop->x, crop->y, width, height),
      ("GstVideoCropMeta on buffer %" GST_PTR_FORMAT, buffer));
  return FALSE;
}

gboolean histeq_check_frame_layout(GstElement *element, const GstVideoInfo *info,
                                   GstBuffer *buffer) {
  if (!histeq_check_crop(element, info, buffer)) return FALSE;
  const GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  if (!meta) return TRUE;
  const gchar *format = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(info));
  if (histeq_meta_contradicts_caps(meta, info)) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("The video buffer's metadata describes a %ux%u %s frame, but the caps say "
                       "%dx%d %s.",
                       meta->width, meta->height, gst_video_format_to_string(meta->format),
                       GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info), format),
                      ("GstVideoMeta on buffer %" GST_PTR_FORMAT, buffer));
    return FALSE;
  }
  // Every plane must lie inside the buffer, rows apart by at least their own length, before
  // anything reads it: gst_video_frame_map takes the meta's offsets and strides as they are.
  const guint64 size = gst_buffer_get_size(buffer);
  for (guint p = 0; p < meta->n_planes; ++p) {
    const PlaneExtent plane = histeq_plane_extent(meta, p);
    if (plane.rows == 0 || plane.row_bytes == 0) continue;
    if (plane.stride <= 0 || guint64(plane.stride) < plane.row_bytes) {
      GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                        ("The video buffer's metadata gives plane %u of a %ux%u %s frame a stride "
                         "of %d bytes, but its rows are %" G_GUINT64_FORMAT " bytes long.",
                         p, meta->width, meta->height, format, plane.stride, plane.row_bytes),
                        ("GstVideoMeta on buffer %" GST_PTR_FORMAT, buffer));
      return FALSE;
    }
    const guint64 end = plane.offset + guint64(plane.stride) * (plane.rows - 1) + plane.row_bytes;
    if (end > size) {
      GST_ELEMENT_ERROR(
          element, STREAM, FORMAT,
          ("The video buffer's metadata places plane %u of a %ux%u %s frame at "
           "bytes %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
           " (stride %d), but the buffer holds %" G_GUINT64_FORMAT " bytes.",
           p, meta->width, meta->height, format, plane.offset, end, plane.stride, size),
          ("GstVideoMeta on buffer %" GST_PTR_FORMAT, buffer));
      return FALSE;
    }
  }
  return TRUE;
}

// Samples wider than a byte are read and written as whole words, so the luma plane must start
// and step on a multiple of its sample size. A meta's odd offset or stride, or memory at an odd
// address, would otherwise make every load a misaligned one.
gboolean histeq_check_luma_alignment(GstElement *element, GstVideoFrame *frame) {
  const guint sample_bytes = (GST_VIDEO_FORMAT_INFO_DEPTH(frame->info.finfo, 0) + 7) / 8;
  const auto address = reinterpret_cast<guintptr>(GST_VIDEO_FRAME_PLANE_DATA(frame, 0));
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0);
  if (address % sample_bytes == 0 && guint(stride) % sample_bytes == 0) return TRUE;
  GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                    ("The video buffer's luma plane starts %u bytes past a multiple of %u or has "
                     "a stride of %d bytes, but %s samples are %u bytes wide and must start on "
                     "multiples of %u bytes.",
                     guint(address % sample_bytes), sample_bytes, stride,
                     GST_VIDEO_INFO_NAME(&frame->info), sample_bytes, sample_bytes),
                    ("misaligned luma plane in buffer %" GST_PTR_FORMAT, frame->buffer));
  gst_video_frame_unmap(frame);
  return FALSE;
}

gboolean histeq_map_frame(GstElement *element, const GstVideoInfo *info, GstBuffer *buffer,
                          GstVideoFrame *frame) {
  if (!histeq_check_frame_layout(element, info, buffer)) return FALSE;
  const GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
  const gchar *format = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(info));
  if (gst_video_frame_map(frame, info, buffer, GstMapFlags(GST_MAP_READWRITE)))
    return histeq_check_luma_alignment(element, frame);

  const gsize size = gst_buffer_get_size(buffer);
  if (!meta && size < GST_VIDEO_INFO_SIZE(info)) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("The video buffer is smaller than its caps say: %" G_GSIZE_FORMAT
                       " bytes, but a %dx%d %s frame needs %" G_GSIZE_FORMAT " bytes.",
                       size, GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info), format,
                       GST_VIDEO_INFO_SIZE(info)),
                      ("gst_video_frame_map failed on buffer %" GST_PTR_FORMAT, buffer));
  } else {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("The video buffer does not match its caps (%dx%d %s, %" G_GSIZE_FORMAT
                       " bytes) and cannot be read as a frame.",
                       GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info), format, size),
                      ("gst_video_frame_map failed on buffer %" GST_PTR_FORMAT, buffer));
  }
  return FALSE;
}

histeq::LumaPlane8 histeq_luma_plane(GstVideoFrame *frame) {
  auto *data = static_cast<std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(frame, 0));
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0);
  if (const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(frame->buffer)) {
    // The crop's x counts samples, GST_VIDEO_FRAME_COMP_PSTRIDE bytes each.
    return histeq::LumaPlane8{
        data + std::ptrdiff_t(crop->y) * stride + crop->x * GST_VIDEO_FRAME_COMP_PSTRIDE(frame, 0),
        int(crop->width), int(crop->height), stride};
  }
  return histeq::LumaPlane8{data, GST_VIDEO_FRAME_COMP_WIDTH(frame, 0),
                            GST_VIDEO_FRAME_COMP_HEIGHT(frame, 0), stride};
}

histeq::LumaPlane16 histeq_luma_plane16(GstVideoFrame *frame) {
  const histeq::LumaPlane8 bytes = histeq_luma_plane(frame);
  return histeq::LumaPlane16{reinterpret_cast<std::uint16_t *>(bytes.data), bytes.width,
                             bytes.height, bytes.stride};
}

histeq::PackedYuvView histeq_packed_yuv_view(GstVideoFrame *frame) {
  const histeq::LumaPlane8 pixels = histeq_luma_plane(frame);
  return histeq::PackedYuvView{pixels.data, pixels.width, pixels.height, pixels.stride,
                               int(GST_VIDEO_FORMAT_INFO_POFFSET(frame->info.finfo, 0))};
}

histeq::RgbView histeq_rgb_view(GstVideoFrame *frame, histeq::LumaMatrix matrix) {
  const histeq::LumaPlane8 pixels = histeq_luma_plane(frame);
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  return histeq::RgbView{pixels.data,
                         pixels.width,
                         pixels.height,
                         pixels.stride,
                         int(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, GST_VIDEO_COMP_R)),
                         int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_R)),
                         int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_G)),
                         int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_B)),
                         matrix};
}
