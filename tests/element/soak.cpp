// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-soak: a long stream through cudahisteq with smoothing and statistics messages on, in
// system memory (the element's pinned allocator) or in CUDA memory (cudaupload ! cudahisteq !
// cudadownload). It checks what a long run can break and a short test cannot:
//  - host and device memory stay flat from a tenth of the run to its end: readings at 1000,
//    2000, 5000, ... frames and every tenth of the run (device memory is the card's, so the
//    soak must have the GPU to itself);
//  - frames in = frames out, in order, and one statistics message per frame;
//  - every sampled frame equals histeq's output for it (a sample carries DISCONT, so both
//    elements restart their history with it and its output depends on it alone).
// A few buffers cycle through the element, each output going back in as a later input, so the
// source costs nothing and the content keeps changing.
//   histeq-soak [--frames N] [--cuda-memory] [--width W --height H] [--sample-every K]
// Exits 0 when every check holds, 1 when one fails, 77 (skipped) without a CUDA device or, for
// --cuda-memory, without nvcodec.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <unistd.h>

#include "video_frames.h"

namespace {

constexpr int kSkipped = 77;
constexpr long kFirstReading = 1000;
// What counts as flat from the settled reading to the last: the allocator's and the driver's
// own slack.
constexpr double kHostGrowthMiB = 16.0;
constexpr double kDeviceGrowthMiB = 2.0;

struct Options {
  long frames = 1000000;
  bool cuda_memory = false;
  int width = 1920;
  int height = 1080;
  long sample_every = 10000;
};

bool parse(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--frames" && has_value) {
      o->frames = std::atol(argv[++i]);
    } else if (arg == "--cuda-memory") {
      o->cuda_memory = true;
    } else if (arg == "--width" && has_value) {
      o->width = std::atoi(argv[++i]);
    } else if (arg == "--height" && has_value) {
      o->height = std::atoi(argv[++i]);
    } else if (arg == "--sample-every" && has_value) {
      o->sample_every = std::atol(argv[++i]);
    } else {
      return false;
    }
  }
  return o->frames > 0 && o->width > 0 && o->height > 0 && o->sample_every > 0;
}

double host_rss_mib() {
  long pages = 0, resident = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double device_used_mib() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return -1;
  return double(total - free) / (1 << 20);
}

struct Reading {
  long frame;
  double host_mib;
  double device_mib;
};

// Posted ERROR messages fail the run; statistics messages are counted.
struct BusWatch {
  GstBus *bus = gst_bus_new();
  long statistics = 0;
  std::string error;

  ~BusWatch() {
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
  }
  void drain() {
    while (GstMessage *m = gst_bus_pop(bus)) {
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && gst_message_has_name(m, "histeq")) {
        ++statistics;
      } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR && error.empty()) {
        GError *e = nullptr;
        gst_message_parse_error(m, &e, nullptr);
        error = e->message;
        g_error_free(e);
      }
      gst_message_unref(m);
    }
  }
};

// histeq's output for one frame that restarts its history.
std::vector<std::uint8_t> histeq_luma(GstHarness *reference, const GstVideoInfo &info,
                                      GstBuffer *frame) {
  if (gst_harness_push(reference, frame) != GST_FLOW_OK) return {};
  GstBuffer *out = gst_harness_pull(reference);
  if (!out) return {};
  std::vector<std::uint8_t> luma = visible_planes(info, out)[0];
  gst_buffer_unref(out);
  return luma;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  Options o;
  if (!parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: histeq-soak [--frames N] [--cuda-memory] [--width W --height H] "
                 "[--sample-every K]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("histeq-soak: no CUDA device; skipped\n");
    return kSkipped;
  }
  GstElementFactory *upload = o.cuda_memory ? gst_element_factory_find("cudaupload") : nullptr;
  if (upload) gst_object_unref(upload);
  if (o.cuda_memory && !upload) {
    std::printf("histeq-soak: GStreamer's nvcodec (cudaupload) is not installed; skipped\n");
    return kSkipped;
  }
  const char *element = "cudahisteq smoothing=10 post-messages=true";
  const std::string description = o.cuda_memory
                                      ? std::string("cudaupload ! ") + element + " ! cudadownload"
                                      : std::string(element);
  std::printf("histeq-soak: %ld frames of %dx%d NV12 through \"%s\" (%s)\n", o.frames, o.width,
              o.height, description.c_str(),
              o.cuda_memory ? "CUDA memory" : "system memory, the element's pinned allocator");

  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, o.width, o.height);
  GstHarness *h = gst_harness_new_parse(description.c_str());
  BusWatch watch;
  gst_element_set_bus(h->element, watch.bus);
  gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
  GstHarness *reference = gst_harness_new("histeq");
  g_object_set(reference->element, "smoothing", 10.0, nullptr);
  gst_harness_set_src_caps(reference, gst_video_info_to_caps(&info));

  // Enough buffers to keep the element's frames in flight: two per slot of depth 2, and two
  // more on their way.
  constexpr int kBuffers = 6;
  std::mt19937 rng(1);
  std::deque<GstBuffer *> ready;
  for (int i = 0; i < kBuffers; ++i) {
    GstBuffer *natural = natural_frame(info, rng);
    GstBuffer *buffer = gst_harness_create_buffer(h, gst_buffer_get_size(natural));
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    gst_buffer_extract(natural, 0, map.data, map.size);
    gst_buffer_unmap(buffer, &map);
    gst_buffer_unref(natural);
    ready.push_back(buffer);
  }

  const GstClockTime duration = GST_SECOND / 30;
  long pushed = 0, pulled = 0, compared = 0, mismatched = 0;
  std::string failure;
  std::map<long, std::vector<std::uint8_t>> expected;  // sampled frames' histeq luma
  std::vector<Reading> readings;
  // Readings at 1000, 2000, 5000, 10000, ... frames show where start-up ends; then one every
  // tenth of the run. Growth counts from the reading at a tenth of the run (the settled one):
  // cudaupload's and cudadownload's pools and the driver grow their own caches before that.
  const long reading_every = std::max(1L, o.frames / 10);
  const auto is_reading_frame = [&](long frame) {
    if (frame < kFirstReading) return false;
    if (frame % reading_every == 0 || frame == o.frames) return true;
    for (long decade = kFirstReading; decade < reading_every; decade *= 10)
      if (frame == decade || frame == 2 * decade || frame == 5 * decade) return true;
    return false;
  };
  while (pulled < o.frames && failure.empty()) {
    while (pushed < o.frames && !ready.empty()) {
      GstBuffer *buffer = ready.front();
      ready.pop_front();
      GST_BUFFER_PTS(buffer) = GstClockTime(pushed) * duration;
      GST_BUFFER_DURATION(buffer) = duration;
      if (pushed % o.sample_every == 0) {
        GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
        expected[pushed] = histeq_luma(reference, info, gst_buffer_copy_deep(buffer));
      } else {
        GST_BUFFER_FLAG_UNSET(buffer, GST_BUFFER_FLAG_DISCONT);
      }
      const GstFlowReturn ret = gst_harness_push(h, buffer);
      if (ret != GST_FLOW_OK) {
        failure = std::string("push of frame ") + std::to_string(pushed) + " returned " +
                  gst_flow_get_name(ret);
        break;
      }
      ++pushed;
    }
    GstBuffer *out = gst_harness_pull(h);
    if (!out) {
      failure = "frame " + std::to_string(pulled) + " did not come out within 60 s";
      break;
    }
    if (GST_BUFFER_PTS(out) != GstClockTime(pulled) * duration)
      failure = "frame " + std::to_string(pulled) + " came out of order";
    const auto sample = expected.find(pulled);
    if (sample != expected.end()) {
      ++compared;
      if (sample->second.empty() || visible_planes(info, out)[0] != sample->second) ++mismatched;
      expected.erase(sample);
    }
    ++pulled;
    watch.drain();
    if (!watch.error.empty()) failure = "ERROR message: " + watch.error;
    // None before kFirstReading, whatever the run's length: the first frames' allocations
    // (pools, staging, lazily loaded kernels) are start-up, not growth.
    if (is_reading_frame(pulled)) readings.push_back({pulled, host_rss_mib(), device_used_mib()});
    ready.push_back(out);
  }
  for (GstBuffer *buffer : ready) gst_buffer_unref(buffer);
  gst_harness_push_event(h, gst_event_new_eos());
  watch.drain();

  std::printf("%-8s %10s %16s %18s\n", "reading", "frame", "host RSS (MiB)", "device used (MiB)");
  for (std::size_t i = 0; i < readings.size(); ++i) {
    const char *label = i == 0 ? "first" : i + 1 == readings.size() ? "last" : "";
    std::printf("%-8s %10ld %16.1f %18.1f\n", label, readings[i].frame, readings[i].host_mib,
                readings[i].device_mib);
  }
  // The settled reading: the first at or after a tenth of the run.
  std::size_t settled = 0;
  while (settled + 1 < readings.size() && readings[settled].frame < reading_every) ++settled;
  const bool have_readings = readings.size() >= 2 && settled + 1 < readings.size();
  const auto growth = [&](std::size_t from, double Reading::*field) {
    return readings.back().*field - readings[from].*field;
  };
  const double host_growth = have_readings ? growth(settled, &Reading::host_mib) : 0;
  const double device_growth = have_readings ? growth(settled, &Reading::device_mib) : 0;
  const bool flat = host_growth <= kHostGrowthMiB && device_growth <= kDeviceGrowthMiB;
  std::printf(
      "frames in %ld, frames out %ld, statistics messages %ld; samples compared with histeq %ld, "
      "different %ld\n",
      pushed, pulled, watch.statistics, compared, mismatched);
  if (have_readings) {
    std::printf(
        "from frame %ld to %ld (start-up): host memory %+.1f MiB, device memory %+.1f MiB\n",
        readings[0].frame, readings[settled].frame,
        readings[settled].host_mib - readings[0].host_mib,
        readings[settled].device_mib - readings[0].device_mib);
    std::printf("from frame %ld to %ld: host memory %+.1f MiB, device memory %+.1f MiB (%s)\n",
                readings[settled].frame, readings.back().frame, host_growth, device_growth,
                flat ? "flat" : "NOT flat");
  }
  gst_harness_teardown(reference);
  gst_element_set_bus(h->element, nullptr);
  gst_harness_teardown(h);

  bool ok = failure.empty() && pushed == o.frames && pulled == o.frames &&
            watch.statistics == o.frames && mismatched == 0 && compared > 0 && have_readings &&
            flat;
  if (!failure.empty()) std::printf("FAILED: %s\n", failure.c_str());
  std::printf("histeq-soak: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
