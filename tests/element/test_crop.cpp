// SPDX-License-Identifier: LGPL-2.1-or-later
// GstVideoCropMeta on both elements: exactly the visible rectangle is counted and equalized,
// everything outside it stays as it was, the metadata travels on, and upstream may crop by
// metadata where downstream takes it. cudahisteq's cases skip without a GPU.
#include <random>
#include <string>
#include <vector>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include "element_availability.h"
#include "posted_error.h"
#include "video_frames.h"

namespace {

struct Rect {
  int x, y, width, height;
};

// Rectangle `r` of a packed luma plane `stride` bytes wide, as packed rows.
std::vector<std::uint8_t> luma_rect(const std::vector<std::uint8_t> &luma, int stride, Rect r) {
  std::vector<std::uint8_t> rows;
  for (int y = r.y; y < r.y + r.height; ++y)
    rows.insert(rows.end(), luma.begin() + y * stride + r.x,
                luma.begin() + y * stride + r.x + r.width);
  return rows;
}

// The packed luma plane of a `width`-wide frame after the core equalizes rectangle `r` of it.
std::vector<std::uint8_t> equalized_inside(std::vector<std::uint8_t> luma, int width, Rect r,
                                           histeq::OutputRange range) {
  const auto inside = core_equalized_luma(luma_rect(luma, width, r), r.width, r.height, range);
  for (int y = 0; y < r.height; ++y)
    std::copy(inside.begin() + y * r.width, inside.begin() + (y + 1) * r.width,
              luma.begin() + (r.y + y) * width + r.x);
  return luma;
}

void add_crop(GstBuffer *buffer, Rect r) {
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(buffer);
  crop->x = guint(r.x);
  crop->y = guint(r.y);
  crop->width = guint(r.width);
  crop->height = guint(r.height);
}

class CropMeta : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(GetParam()); }
};

}  // namespace

TEST_P(CropMeta, OnlyTheVisibleRectangleIsCountedAndRewritten) {
  const int width = 97, height = 61;
  for (GstVideoFormat format :
       {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
    for (Rect r : {Rect{13, 7, 50, 31}, Rect{0, 0, 1, 1}, Rect{96, 60, 1, 1}, Rect{1, 0, 96, 61},
                   Rect{0, 0, width, height}}) {
      SCOPED_TRACE(std::string(gst_video_format_to_string(format)) + " crop " +
                   std::to_string(r.width) + "x" + std::to_string(r.height) + " at " +
                   std::to_string(r.x) + "," + std::to_string(r.y));
      const GstVideoInfo info = video_info(format, width, height);
      GstHarness *h = gst_harness_new(GetParam().c_str());
      gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
      std::mt19937 rng(r.x * 7 + r.width);
      // A gradient: counted, the pixels outside the rectangle would move its levels.
      GstBuffer *input = natural_frame(info, rng);
      add_crop(input, r);
      const auto planes_in = visible_planes(info, input);
      GstBuffer *output = gst_harness_push_and_pull(h, input);
      ASSERT_NE(output, nullptr);
      const auto planes_out = visible_planes(info, output);
      EXPECT_EQ(planes_out[0], equalized_inside(planes_in[0], width, r, range_of(info)));
      for (std::size_t p = 1; p < planes_in.size(); ++p)
        EXPECT_EQ(planes_out[p], planes_in[p]) << "plane " << p;
      const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(output);
      ASSERT_NE(crop, nullptr) << "the crop metadata travels on";
      EXPECT_EQ(int(crop->x), r.x);
      EXPECT_EQ(int(crop->width), r.width);
      gst_buffer_unref(output);
      gst_harness_teardown(h);
    }
  }
}

TEST_P(CropMeta, ARectangleOutsideTheFrameIsAClearError) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  for (Rect r : {Rect{60, 0, 8, 8}, Rect{0, 40, 8, 9}, Rect{0, 0, 0, 8}, Rect{10, 10, 8, 0}}) {
    GstHarness *h = gst_harness_new(GetParam().c_str());
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
    std::mt19937 rng(1);
    GstBuffer *input = natural_frame(info, rng);
    add_crop(input, r);
    EXPECT_EQ(gst_harness_push(h, input), GST_FLOW_ERROR);
    const PostedError posted(bus);
    EXPECT_NE(posted.text().find("crop metadata shows the rectangle"), std::string::npos)
        << posted.text();
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
  }
}

// videocrop crops by metadata when everything downstream of it takes GstVideoCropMeta: the
// element says it does where its own downstream does, and equalizes what is shown.
TEST_P(CropMeta, VideocropUpstreamCropsByMetadataThroughTheElement) {
  GstElementFactory *factory = gst_element_factory_find("videocrop");
  if (!factory) GTEST_SKIP() << "videocrop (gst-plugins-good) is not installed";
  gst_object_unref(factory);
  const int width = 96, height = 64;
  const Rect r{8, 4, width - 8 - 20, height - 4 - 10};
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, width, height);
  const std::string description = "videocrop left=8 top=4 right=20 bottom=10 ! " + GetParam();
  GstHarness *h = gst_harness_new_parse(description.c_str());
  gst_harness_add_propose_allocation_meta(h, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  gst_harness_add_propose_allocation_meta(h, GST_VIDEO_META_API_TYPE, nullptr);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  std::mt19937 rng(5);
  GstBuffer *input = natural_frame(info, rng);
  const auto planes_in = visible_planes(info, input);
  GstBuffer *output = gst_harness_push_and_pull(h, input);
  ASSERT_NE(output, nullptr);
  const GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(output);
  ASSERT_NE(crop, nullptr) << "videocrop copied instead of cropping by metadata";
  EXPECT_EQ(int(crop->x), r.x);
  EXPECT_EQ(int(crop->y), r.y);
  EXPECT_EQ(int(crop->width), r.width);
  EXPECT_EQ(int(crop->height), r.height);
  const auto planes_out = visible_planes(info, output);
  EXPECT_EQ(planes_out[0], equalized_inside(planes_in[0], width, r, range_of(info)));
  EXPECT_EQ(planes_out[1], planes_in[1]);
  gst_buffer_unref(output);
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Elements, CropMeta, ::testing::Values("histeq", "cudahisteq"));
