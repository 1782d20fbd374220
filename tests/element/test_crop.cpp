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

class CropMeta : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_UNLESS_RUNS(GetParam()); }
};

}  // namespace

TEST_P(CropMeta, OnlyTheVisibleRectangleIsCountedAndRewritten) {
  const int width = 97, height = 61;
  for (GstVideoFormat format :
       {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
    for (CropRect r : {CropRect{13, 7, 50, 31}, CropRect{0, 0, 1, 1}, CropRect{96, 60, 1, 1},
                       CropRect{1, 0, 96, 61}, CropRect{0, 0, width, height}}) {
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
      EXPECT_EQ(planes_out[0], core_equalized_inside(planes_in[0], width, r, range_of(info)));
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
  for (CropRect r : {CropRect{60, 0, 8, 8}, CropRect{0, 40, 8, 9}, CropRect{0, 0, 0, 8},
                     CropRect{10, 10, 8, 0}}) {
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
  const CropRect r{8, 4, width - 8 - 20, height - 4 - 10};
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
  EXPECT_EQ(planes_out[0], core_equalized_inside(planes_in[0], width, r, range_of(info)));
  EXPECT_EQ(planes_out[1], planes_in[1]);
  gst_buffer_unref(output);
  gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Elements, CropMeta, ::testing::Values("histeq", "cudahisteq"));
