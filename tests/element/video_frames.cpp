// SPDX-License-Identifier: LGPL-2.1-or-later
#include "video_frames.h"

#include <algorithm>

#include "cpu_equalizer.h"

GstVideoInfo video_info(GstVideoFormat format, int width, int height, GstVideoColorRange range) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, guint(width), guint(height));
  info.colorimetry.range = range;
  GST_VIDEO_INFO_FPS_N(&info) = 30;
  GST_VIDEO_INFO_FPS_D(&info) = 1;
  return info;
}

GstBuffer *natural_frame(const GstVideoInfo &info, std::mt19937 &rng) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame frame;
  gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
  std::normal_distribution<double> noise(0.0, 5.0);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
    auto *data = static_cast<std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
    const int height = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);
    // The whole row, padding included, so unexpected writes anywhere would show.
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < stride; ++x) {
        const double base = 100.0 + 30.0 * x / std::max(1, stride) + 20.0 * y / height + 11 * p;
        data[y * stride + x] = std::uint8_t(std::clamp(base + noise(rng), 0.0, 255.0));
      }
  }
  gst_video_frame_unmap(&frame);
  return buffer;
}

namespace {

// Where plane `p` of a mapped frame starts (bytes from the start of the buffer), how many of
// its rows are visible and how many bytes of each row: semi-planar chroma interleaves two
// samples a pixel, and YV12 keeps its components in another order than its planes.
struct PlaneLayout {
  gsize offset;
  int stride;
  int rows;
  int row_bytes;
};

PlaneLayout plane_layout(const GstVideoFrame &frame, guint p) {
  gint components[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component(frame.info.finfo, p, components);
  const int c = components[0];
  return PlaneLayout{
      frame.info.offset[p], GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p),
      GST_VIDEO_FRAME_COMP_HEIGHT(&frame, c),
      GST_VIDEO_FRAME_COMP_WIDTH(&frame, c) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c)};
}

}  // namespace

std::vector<std::vector<std::uint8_t>> visible_planes(const GstVideoInfo &info, GstBuffer *buffer) {
  GstVideoFrame frame;
  std::vector<std::vector<std::uint8_t>> planes;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) return planes;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
    const auto *data = static_cast<const std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    const PlaneLayout layout = plane_layout(frame, p);
    std::vector<std::uint8_t> plane;
    for (int y = 0; y < layout.rows; ++y)
      plane.insert(plane.end(), data + y * layout.stride,
                   data + y * layout.stride + layout.row_bytes);
    planes.push_back(std::move(plane));
  }
  gst_video_frame_unmap(&frame);
  return planes;
}

std::vector<std::uint8_t> padding_bytes(const GstVideoInfo &info, GstBuffer *buffer) {
  std::vector<std::uint8_t> bytes(gst_buffer_get_size(buffer));
  gst_buffer_extract(buffer, 0, bytes.data(), bytes.size());
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) return {};
  std::vector<bool> visible(bytes.size(), false);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
    const PlaneLayout layout = plane_layout(frame, p);
    for (int y = 0; y < layout.rows; ++y) {
      const gsize row = layout.offset + gsize(y) * gsize(layout.stride);
      std::fill_n(visible.begin() + row, layout.row_bytes, true);
    }
  }
  gst_video_frame_unmap(&frame);
  std::vector<std::uint8_t> padding;
  for (gsize i = 0; i < bytes.size(); ++i)
    if (!visible[i]) padding.push_back(bytes[i]);
  return padding;
}

std::vector<std::uint8_t> core_equalized_luma(const std::vector<std::uint8_t> &luma, int width,
                                              int height, histeq::OutputRange range) {
  std::vector<std::uint8_t> out = luma;
  histeq::CpuEqualizer equalizer(1);
  equalizer.equalize(histeq::LumaPlane8{out.data(), width, height, width}, range);
  return out;
}

void add_crop(GstBuffer *buffer, CropRect r) {
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(buffer);
  crop->x = guint(r.x);
  crop->y = guint(r.y);
  crop->width = guint(r.width);
  crop->height = guint(r.height);
}

std::vector<std::uint8_t> core_equalized_inside(std::vector<std::uint8_t> luma, int width,
                                                CropRect r, histeq::OutputRange range) {
  std::vector<std::uint8_t> inside;
  for (int y = r.y; y < r.y + r.height; ++y)
    inside.insert(inside.end(), luma.begin() + y * width + r.x,
                  luma.begin() + y * width + r.x + r.width);
  inside = core_equalized_luma(inside, r.width, r.height, range);
  for (int y = 0; y < r.height; ++y)
    std::copy(inside.begin() + y * r.width, inside.begin() + (y + 1) * r.width,
              luma.begin() + (r.y + y) * width + r.x);
  return luma;
}

histeq::OutputRange range_of(const GstVideoInfo &info) {
  return info.colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235 ? histeq::limited_range(8)
                                                                : histeq::full_range(8);
}

void unref_all(std::vector<GstBuffer *> &buffers) {
  for (GstBuffer *b : buffers) gst_buffer_unref(b);
  buffers.clear();
}
