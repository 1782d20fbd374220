// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-pipeline-bench: frames per second of `SOURCE ! ELEMENT ! fakesink sync=false` at 1080p
// and 4K NV12, next to the PCIe floor of the same luma plane measured in the same run.
//
// The source is a GstHarness pushing from the streaming thread as appsrc would, cycling a
// buffer pool of prepared natural frames: the element's own pinned pool (what it proposes in
// the allocation query) or an ordinary system-memory video pool (an upstream that ignores the
// proposal). Run on the GPU machine with the plugin on GST_PLUGIN_PATH:
//   histeq-pipeline-bench [--frames N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "floors.h"

namespace {

enum class Source { kPinnedPool, kSystemPool };

// Enough buffers for every frame in flight plus the one being pushed, so the pool recycles
// prepared frames instead of allocating new ones.
constexpr guint kPrepared = 12;

// A pool for `caps`: the one the pipeline proposes (pinned) or a plain system-memory one.
GstBufferPool *make_pool(GstHarness *h, GstCaps *caps, const GstVideoInfo &info, Source source) {
  GstBufferPool *pool = nullptr;
  if (source == Source::kPinnedPool) {
    // GstBaseTransform answers the allocation query only once it has negotiated, which it
    // completes on the first buffer: push one ordinary frame first.
    gst_harness_push(h, gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    if (gst_pad_peer_query(h->srcpad, query) && gst_query_get_n_allocation_pools(query) > 0)
      gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
    gst_query_unref(query);
    if (!pool) return nullptr;
  } else {
    pool = gst_video_buffer_pool_new();
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, guint(GST_VIDEO_INFO_SIZE(&info)), kPrepared,
                                      0);
    gst_buffer_pool_set_config(pool, config);
  }
  return gst_buffer_pool_set_active(pool, TRUE) ? pool : nullptr;
}

// Fills kPrepared of the pool's buffers once with a low-contrast gradient plus noise.
void prefill(GstBufferPool *pool, const GstVideoInfo &info) {
  std::vector<GstBuffer *> all;
  std::mt19937 rng(1);
  GstBuffer *buffer = nullptr;
  while (all.size() < kPrepared &&
         gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr) == GST_FLOW_OK) {
    GstVideoFrame frame;
    gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
      auto *data = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
      const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
      for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p); ++y)
        for (int x = 0; x < stride; ++x)
          data[y * stride + x] = guint8(90 + 40 * x / stride + 20 * y / info.height + rng() % 9);
    }
    gst_video_frame_unmap(&frame);
    all.push_back(buffer);
  }
  for (GstBuffer *b : all) gst_buffer_unref(b);
}

// Frames per second through `element ! fakesink sync=false`, or a negative value on failure.
double run(const std::string &element, const GstVideoInfo &info, Source source, int frames) {
  GstHarness *h = gst_harness_new_parse((element + " ! fakesink sync=false").c_str());
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_harness_set_src_caps(h, gst_caps_ref(caps));
  GstBufferPool *pool = make_pool(h, caps, info, source);
  gst_caps_unref(caps);
  if (!pool) {
    std::fprintf(stderr, "%s: no %s pool\n", element.c_str(),
                 source == Source::kPinnedPool ? "pinned" : "system");
    gst_harness_teardown(h);
    return -1;
  }
  prefill(pool, info);
  const int warmup = 20;
  double fps = -1;
  std::chrono::steady_clock::time_point start;
  for (int i = 0; i < warmup + frames; ++i) {
    if (i == warmup) start = std::chrono::steady_clock::now();
    GstBuffer *buffer = nullptr;
    if (gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr) != GST_FLOW_OK) break;
    GST_BUFFER_PTS(buffer) = GstClockTime(i) * GST_SECOND / 30;
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    if (gst_harness_push(h, buffer) != GST_FLOW_OK) break;
    if (i + 1 == warmup + frames) {
      gst_harness_push_event(h, gst_event_new_eos());  // drains the frames in flight
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fps = frames / s;
    }
  }
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
  gst_harness_teardown(h);
  return fps;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  int frames = 600;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--frames")) frames = std::atoi(argv[i + 1]);

  struct Size {
    int width, height;
  };
  std::printf("%-52s %14s %14s\n", "pipeline (NV12, fps; ratio to the PCIe floor)", "1920x1080",
              "3840x2160");
  struct Row {
    std::string name, element;
    Source source;
  };
  const std::vector<Row> rows = {
      {"identity", "identity", Source::kSystemPool},
      {"histeq (all cores)", "histeq", Source::kSystemPool},
      {"cudahisteq depth=1, pinned pool", "cudahisteq depth=1", Source::kPinnedPool},
      {"cudahisteq depth=2, pinned pool", "cudahisteq depth=2", Source::kPinnedPool},
      {"cudahisteq depth=3, pinned pool", "cudahisteq depth=3", Source::kPinnedPool},
      {"cudahisteq depth=2, system-memory pool", "cudahisteq depth=2", Source::kSystemPool},
  };
  const Size sizes[] = {{1920, 1080}, {3840, 2160}};
  // Without a usable GPU the floor is unknown (0) and the CPU rows still run.
  double floor_fps[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    try {
      floor_fps[s] = bench::pcie_floor(bench::FrameSize{sizes[s].width, sizes[s].height},
                                       sizes[s].width, bench::Repeats{1, 9, 20})
                         .fps();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "PCIe floor not measured: %s\n", e.what());
    }
  }
  std::printf("%-52s %8.0f  1.00 %8.0f  1.00\n", "PCIe floor (luma plane up and down at once)",
              floor_fps[0], floor_fps[1]);
  std::fflush(stdout);
  for (const Row &row : rows) {
    std::printf("%-52s", row.name.c_str());
    for (int s = 0; s < 2; ++s) {
      GstVideoInfo info;
      gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, guint(sizes[s].width),
                                guint(sizes[s].height));
      GST_VIDEO_INFO_FPS_N(&info) = 30;
      GST_VIDEO_INFO_FPS_D(&info) = 1;
      const double fps = run(row.element, info, row.source, s ? frames / 2 : frames);
      std::printf(" %8.0f %5.2f", fps, floor_fps[s] > 0 ? fps / floor_fps[s] : 0.0);
      std::fflush(stdout);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
