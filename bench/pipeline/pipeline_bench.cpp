// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-pipeline-bench: frames per second of `appsrc ! ELEMENT ! fakesink sync=false` at 1080p
// and 4K NV12, each as a fraction of the PCIe floors of the same luma plane measured just before.
//
// The application pushes into appsrc from its own thread, cycling a buffer pool of prepared
// natural frames: the element's own pinned pool (what it answers to the allocation query) or
// an ordinary system-memory video pool (an upstream that ignores the proposal). Run on the GPU
// machine with the plugin on GST_PLUGIN_PATH:
//   histeq-pipeline-bench [--frames N] [--rounds N] [--rows TEXT] [--intervals]
// --rows runs only the rows whose name contains TEXT (e.g. "pinned pool" for an A/B of the
// element alone), next to the floor as always. --intervals prints, for every run, how the times
// between frames reaching the sink spread (a steady rate and one broken by stalls can average
// alike).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

#include "floors.h"
#include "frames.h"
#include "planes.h"
#include "resources.h"
#include "run_watch.h"

namespace {

// kCudaPool: frames already in device memory (GstCudaMemory), as nvh264dec or cudaupload hand
// them on, in a context the pipeline shares.
enum class Source { kPinnedPool, kSystemPool, kCudaPool };

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

// More than appsrc's queue, the frames in flight and the one being pushed together, so the
// pool recycles prepared frames instead of allocating new ones.
constexpr guint kPrepared = 12;
constexpr guint kQueued = 4;  // appsrc max-buffers: pushing blocks beyond this

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

// One timed run of a row moved by up to 1.5x between back-to-back runs on the H100 (1080p
// depth 2: 11710 and 17210 fps), and so did the floor over a run's stretch (4K: 0.79 to 1.00 of
// the bursts' in one call): each figure is the median of this many rounds (--rounds).
constexpr int kDefaultRounds = 7;

// The rows with every option on: the options' cost in a pipeline, statistics messages included.
const std::string kEveryOption = " strength=0.8 clip-limit=2 smoothing=10 post-messages=true";

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

bool g_intervals = false;  // --intervals

// Frames per second through `appsrc ! element ! fakesink sync=false`, from the first timed push
// to the EOS message (so the frames in flight are drained and counted), or negative on failure.
// `label` names the run in what it prints on stderr.
double run(const std::string &label, const std::string &element, const GstVideoInfo &info,
           Source source, int frames) {
  const std::string description =
      "appsrc name=src format=time block=true max-bytes=0 "
      "max-buffers=" +
      std::to_string(kQueued) + " ! " + element + " ! fakesink name=sink sync=false";
  GstElement *pipeline = gst_parse_launch(description.c_str(), nullptr);
  if (!pipeline) return -1;
  std::vector<Clock::time_point> arrivals;
  if (g_intervals) {
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
      print_intervals(label, arrivals, frames);
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

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  int frames = 600;
  int rounds = kDefaultRounds;
  std::string row_filter;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--frames")) frames = std::max(2, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--rows")) row_filter = argv[i + 1];
  }
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--intervals")) g_intervals = true;

  struct Size {
    int width, height;
  };
  std::printf(
      "pipeline: NV12 frames per second, median of %d rounds, and the fraction of each "
      "PCIe floor measured just before the run\n",
      rounds);
  std::printf("%-50s%25s%25s\n", "", "1920x1080", "3840x2160");
  std::printf("%-50s", "");
  for (int s = 0; s < 2; ++s) std::printf(" %8s %7s %7s", "fps", "stretch", "bursts");
  std::printf("\n");
  struct Row {
    std::string name, element;
    Source source;
  };
  std::vector<Row> rows = {
      {"identity", "identity", Source::kSystemPool},
      {"histeq (all cores)", "histeq", Source::kSystemPool},
      {"cudahisteq depth=1, pinned pool", "cudahisteq depth=1", Source::kPinnedPool},
      {"cudahisteq depth=2, pinned pool", "cudahisteq depth=2", Source::kPinnedPool},
      {"cudahisteq depth=3, pinned pool", "cudahisteq depth=3", Source::kPinnedPool},
      {"cudahisteq depth=2, pinned pool, every option", "cudahisteq depth=2" + kEveryOption,
       Source::kPinnedPool},
      {"histeq (all cores), every option", "histeq" + kEveryOption, Source::kSystemPool},
      {"cudahisteq depth=2, system-memory pool", "cudahisteq depth=2", Source::kSystemPool},
      // The capsfilter keeps the frames in CUDA memory: alone, both elements would pass through.
      {"cudaupload ! cudadownload", "cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload",
       Source::kSystemPool},
      {"cudaupload ! cudahisteq ! cudadownload", "cudaupload ! cudahisteq ! cudadownload",
       Source::kSystemPool},
      {"identity, frames in CUDA memory", "identity", Source::kCudaPool},
      {"cudahisteq, frames in CUDA memory", "cudahisteq", Source::kCudaPool},
      {"cudahisteq, frames in CUDA memory, every option", "cudahisteq" + kEveryOption,
       Source::kCudaPool},
  };
  // The two rows before the last differ by cudahisteq on device memory alone (issue 5); the
  // two before them by the same plus noise of whole frames crossing PCIe from pageable memory.
  const bool every_row = row_filter.empty();
  const std::size_t identity_row = rows.size() - 3, zero_copy_row = rows.size() - 2;
  rows.erase(std::remove_if(
                 rows.begin(), rows.end(),
                 [&](const Row &row) { return row.name.find(row_filter) == std::string::npos; }),
             rows.end());
  const Size sizes[] = {{1920, 1080}, {3840, 2160}};
  // Rounds: in each, every row at both sizes once, each run right after two measurements of the
  // PCIe floor at its size, and a row's ratio is the median over the rounds of its runs' ratios
  // to the floors measured just before them: the H100s lent here are VMs on shared hosts, whose
  // PCIe rate drifts within minutes (in one call the 4K floor read 5828 frames per second in
  // histeq-ring-shapes and 4941 in this benchmark right after).
  // The two floors: the *stretch*, the run's own frame count of the luma plane crossing both
  // ways in one stretch, timed whole as the run is; and the *bursts*, bench::pcie_floor's
  // fastest way's median of 20-frame batches (the only floor before the stretch was added),
  // which leaves out the slower stretches a run of thousands of frames cannot.
  struct Floors {
    double stretch, bursts;  // frames per second; 0 where not measured
  };
  using Runs = std::vector<double>;
  std::array<std::vector<Floors>, 2> floors;
  std::vector<std::array<Runs, 2>> runs_of(rows.size()), stretch_ratios(rows.size()),
      burst_ratios(rows.size());
  for (int round = 0; round < rounds; ++round) {
    std::fprintf(stderr, "round %d of %d\n", round + 1, rounds);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (int s = 0; s < 2; ++s) {
        const int run_frames = s ? frames / 2 : frames;
        const bench::FrameSize size{sizes[s].width, sizes[s].height};
        // Without a usable GPU the floors are unknown (0) and the CPU rows still run.
        Floors floor{0, 0};
        try {
          floor.bursts = bench::pcie_floor(size, sizes[s].width, bench::Repeats{1, 9, 20}).fps();
          floor.stretch = 1e6 / bench::pcie_stretch_us(size, run_frames, int(kPrepared));
        } catch (const std::exception &e) {
          std::fprintf(stderr, "PCIe floor not measured: %s\n", e.what());
        }
        floors[s].push_back(floor);
        GstVideoInfo info;
        gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, guint(sizes[s].width),
                                  guint(sizes[s].height));
        GST_VIDEO_INFO_FPS_N(&info) = 30;
        GST_VIDEO_INFO_FPS_D(&info) = 1;
        const std::string label = rows[r].name + " at " + std::to_string(sizes[s].width) + "x" +
                                  std::to_string(sizes[s].height);
        const double fps = run(label, rows[r].element, info, rows[r].source, run_frames);
        const auto ratio = [&](double floor_fps) {
          return floor_fps > 0 && fps > 0 ? fps / floor_fps : 0;
        };
        runs_of[r][s].push_back(fps);
        stretch_ratios[r][s].push_back(ratio(floor.stretch));
        burst_ratios[r][s].push_back(ratio(floor.bursts));
        std::fprintf(stderr,
                     "%s: %.0f fps, %.3f of the stretch (%.0f), %.3f of the bursts (%.0f)\n",
                     label.c_str(), fps, ratio(floor.stretch), floor.stretch, ratio(floor.bursts),
                     floor.bursts);
      }
    }
  }
  // A failed run (-1, or 0 for an unmeasured floor) sorts first and fails the figure.
  auto median = [](std::vector<double> runs) {
    if (runs.empty()) return 0.0;
    std::sort(runs.begin(), runs.end());
    return runs[0] <= 0 ? runs[0] : runs[runs.size() / 2];
  };
  const auto floor_median = [&](int s, double Floors::*which) {
    std::vector<double> fps;
    for (const Floors &f : floors[s]) fps.push_back(f.*which);
    return std::max(0.0, median(fps));
  };
  std::printf("%-50s", "PCIe floor, the run's frames in one stretch");
  for (int s = 0; s < 2; ++s)
    std::printf(" %8.0f %7.2f %7s", floor_median(s, &Floors::stretch), 1.0, "");
  std::printf("\n%-50s", "PCIe floor, median of 20-frame bursts");
  for (int s = 0; s < 2; ++s)
    std::printf(" %8.0f %7s %7.2f", floor_median(s, &Floors::bursts), "", 1.0);
  std::printf("\n");
  std::vector<std::array<double, 2>> fps_of(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::printf("%-50s", rows[r].name.c_str());
    for (int s = 0; s < 2; ++s) {
      fps_of[r][s] = median(runs_of[r][s]);
      std::printf(" %8.0f %7.2f %7.2f", fps_of[r][s], std::max(0.0, median(stretch_ratios[r][s])),
                  std::max(0.0, median(burst_ratios[r][s])));
    }
    std::printf("\n");
  }
  std::fflush(stdout);

  // cudahisteq's own cost per frame in CUDA memory (launch, kernel, wait), next to a D2D copy
  // of the same luma plane launched call by call and as GPU time, measured now.
  for (int s = 0; s < 2 && every_row; ++s) {
    const double with = fps_of[zero_copy_row][s], without = fps_of[identity_row][s];
    if (with <= 0 || without <= 0) continue;
    const double element_us = 1e6 / with - 1e6 / without;
    try {
      const bench::FrameSize size{sizes[s].width, sizes[s].height};
      const bench::HostFrame frame =
          bench::make_frame(bench::Content::kNatural, size, sizes[s].width, 1);
      const bench::DevicePlanes planes(frame, std::size_t(200) << 20, 64);
      const bench::Stream stream;
      const bench::Repeats repeats{2, 9, 32};
      const double copy_launched =
          bench::d2d_copy_us(planes, stream.get(), repeats, bench::Launch::kStream);
      const double copy_gpu =
          bench::d2d_copy_us(planes, stream.get(), repeats, bench::Launch::kGraph);
      std::printf(
          "%dx%d: cudahisteq on CUDA memory adds %.1f us per frame; a D2D copy of the "
          "luma plane takes %.1f us launched call by call (%.2fx), %.1f us of GPU time "
          "(%.2fx)\n",
          sizes[s].width, sizes[s].height, element_us, copy_launched, element_us / copy_launched,
          copy_gpu, element_us / copy_gpu);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "D2D copy not measured: %s\n", e.what());
    }
  }
  int failed = 0;
  for (const auto &fps : fps_of) failed += (fps[0] < 0) + (fps[1] < 0);
  if (failed) std::printf("%d figure(s) failed (-1 above; the reasons are on stderr)\n", failed);
  return failed ? 1 : 0;
}
