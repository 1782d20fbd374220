// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pipeline_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "run_watch.h"

namespace {

const char *source_name(Source source) {
  switch (source) {
    case Source::kPinnedPool:
      return "pinned";
    case Source::kSystemPool:
      return "system";
    case Source::kCudaPool:
      return "CUDA";
  }
  return "unknown";
}

// The pool the element proposes. GstBaseTransform answers the allocation query only once it
// has negotiated, which it completes on its first buffer: push one ordinary frame first.
GstBufferPool *proposed_pool(GstAppSrc *appsrc, GstCaps *caps, const GstVideoInfo &info) {
  gst_app_src_push_buffer(appsrc,
                          gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
  GstPad *pad = gst_element_get_static_pad(GST_ELEMENT(appsrc), "src");
  GstBufferPool *pool = nullptr;
  for (int attempt = 0; attempt < 5000 && !pool; ++attempt) {
    GstQuery *query = gst_query_new_allocation(caps, TRUE);
    if (gst_pad_peer_query(pad, query) && gst_query_get_n_allocation_pools(query) > 0)
      gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
    gst_query_unref(query);
    if (!pool) g_usleep(1000);
  }
  gst_object_unref(pad);
  return pool;
}

GstBufferPool *cuda_pool(GstCudaContext *context, GstCaps *caps) {
  GstBufferPool *pool = gst_cuda_buffer_pool_new(context);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, 0, kPrepared, 0);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  // The pool settles on its own pitched size and asks for the adjusted config back.
  if (!gst_buffer_pool_set_config(pool, config) &&
      !gst_buffer_pool_set_config(pool, gst_buffer_pool_get_config(pool))) {
    gst_object_unref(pool);
    return nullptr;
  }
  return pool;
}

GstBufferPool *system_pool(GstCaps *caps, const GstVideoInfo &info) {
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, guint(GST_VIDEO_INFO_SIZE(&info)), kPrepared, 0);
  gst_buffer_pool_set_config(pool, config);
  return pool;
}

// The error the pipeline posted, if any, as ": message", for a run that never got its pool.
std::string posted_error(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  if (!message) return {};
  const std::string text = ": " + error_text(message);
  gst_message_unref(message);
  return text;
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

using Clock = std::chrono::steady_clock;

// Records when each frame reaches the sink.
GstPadProbeReturn record_arrival(GstPad *, GstPadProbeInfo *, gpointer arrivals) {
  static_cast<std::vector<Clock::time_point> *>(arrivals)->push_back(Clock::now());
  return GST_PAD_PROBE_OK;
}

// The spread of the times between the last `frames` arrivals, on stderr.
void print_intervals(const std::string &label, const std::vector<Clock::time_point> &arrivals,
                     int frames) {
  if (arrivals.size() < std::size_t(frames) + 1 || frames < 2) return;
  std::vector<double> us;
  for (std::size_t i = arrivals.size() - std::size_t(frames); i < arrivals.size(); ++i)
    us.push_back(std::chrono::duration<double, std::micro>(arrivals[i] - arrivals[i - 1]).count());
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[std::size_t(q * double(us.size() - 1))]; };
  double stalled = 0;  // time lost in intervals over twice the median, beyond the median
  for (double t : us)
    if (t > 2 * at(0.5)) stalled += t - at(0.5);
  double total = 0;
  for (double t : us) total += t;
  std::fprintf(stderr,
               "%s: frame intervals (us) p10 %.1f, median %.1f, p90 %.1f, p99 %.1f, max %.1f; "
               "mean %.1f; %.1f%% of the time in stalls over 2x the median\n",
               label.c_str(), at(0.1), at(0.5), at(0.9), at(0.99), us.back(), total / us.size(),
               100 * stalled / total);
}

}  // namespace

double run_pipeline(const std::string &label, const std::string &element, const GstVideoInfo &info,
                    Source source, int frames, bool intervals) {
  const std::string description =
      "appsrc name=src format=time block=true max-bytes=0 "
      "max-buffers=" +
      std::to_string(kQueued) + " ! " + element + " ! fakesink name=sink sync=false";
  GstElement *pipeline = gst_parse_launch(description.c_str(), nullptr);
  if (!pipeline) return -1;
  std::vector<Clock::time_point> arrivals;
  if (intervals) {
    arrivals.reserve(std::size_t(frames) + 64);
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, record_arrival, &arrivals, nullptr);
    gst_object_unref(pad);
    gst_object_unref(sink);
  }
  GstAppSrc *appsrc = GST_APP_SRC(gst_bin_get_by_name(GST_BIN(pipeline), "src"));
  GstCaps *caps = gst_video_info_to_caps(&info);
  GstCudaContext *context = nullptr;
  if (source == Source::kCudaPool) {
    gst_caps_set_features_simple(
        caps, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, nullptr));
    if (gst_cuda_load_library()) {
      gst_cuda_memory_init_once();
      context = gst_cuda_context_new(0);
    }
    if (context) {
      GstContext *shared = gst_context_new_cuda_context(context);
      gst_element_set_context(pipeline, shared);
      gst_context_unref(shared);
    }
  }
  gst_app_src_set_caps(appsrc, caps);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);

  GstBufferPool *pool = nullptr;
  if (source == Source::kPinnedPool) {
    pool = proposed_pool(appsrc, caps, info);
  } else if (source == Source::kCudaPool) {
    pool = context ? cuda_pool(context, caps) : nullptr;
  } else {
    pool = system_pool(caps, info);
  }
  gst_caps_unref(caps);
  double fps = -1;
  if (pool && gst_buffer_pool_set_active(pool, TRUE)) {
    prefill(pool, info);
    RunWatch watch(pipeline, appsrc, pool, label, std::chrono::seconds(60));
    const int warmup = 20;
    std::chrono::steady_clock::time_point start;
    int pushed = 0;
    for (; pushed < warmup + frames && !watch.gave_up(); ++pushed) {
      if (pushed == warmup) start = std::chrono::steady_clock::now();
      GstBuffer *buffer = nullptr;
      GstFlowReturn flow = gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr);
      const char *step = "acquiring a frame from the pool";
      if (flow == GST_FLOW_OK) {
        GST_BUFFER_PTS(buffer) = GstClockTime(pushed) * GST_SECOND / 30;
        GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
        flow = gst_app_src_push_buffer(appsrc, buffer);
        step = "pushing into appsrc";
      }
      if (flow != GST_FLOW_OK) {
        // When the watch gave up, it said why; otherwise the flow return is the only reason.
        if (!watch.gave_up())
          std::fprintf(stderr, "%s: %s failed at frame %d: %s\n", label.c_str(), step, pushed,
                       gst_flow_get_name(flow));
        break;
      }
    }
    gst_app_src_end_of_stream(appsrc);
    RunWatch::Clock::time_point end;
    if (watch.wait_for_eos(&end) && pushed == warmup + frames) {
      fps = frames / std::chrono::duration<double>(end - start).count();
      if (intervals) print_intervals(label, arrivals, frames);
    }
  } else {
    std::fprintf(stderr, "%s: no %s pool%s\n", label.c_str(), source_name(source),
                 posted_error(pipeline).c_str());
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  if (pool) {
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  }
  gst_object_unref(appsrc);
  gst_object_unref(pipeline);
  if (context) gst_object_unref(context);
  return fps;
}

GstVideoInfo nv12_info(int width, int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, guint(width), guint(height));
  GST_VIDEO_INFO_FPS_N(&info) = 30;
  GST_VIDEO_INFO_FPS_D(&info) = 1;
  return info;
}
