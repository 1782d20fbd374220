// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer harness over histeq's input, through GstHarness: caps built from fuzzed fields (or
// their fields taken as text from the input), any option, and a few buffers of any size and bytes,
// with or without a GstVideoMeta of fuzzed offsets and strides and a GstVideoCropMeta of a fuzzed
// rectangle, with DISCONT and GAP flags and flushes between them. Whatever comes in, the
// element must not crash or read or write outside the buffer (ASan), every buffer it accepts
// comes out as one buffer of the same size, and a refused buffer or caps is an error return,
// never an abort. Only luma (or packed RGB's R, G and B) may change: chroma, alpha and padding of a
// buffer without a meta come out as they went in.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "fuzz_input.h"
#include "gsthisteq.h"

namespace {

// The formats histeq takes, and some it must refuse.
constexpr const char *kFormats[] = {
    "GRAY8", "I420",      "YV12",      "NV12",      "NV21",      "Y41B",      "Y42B",
    "Y444",  "GRAY16_LE", "I420_10LE", "I422_12LE", "Y444_16LE", "P010_10LE", "P016_LE",
    "YUY2",  "UYVY",      "YVYU",      "RGBx",      "xBGR",      "RGBA",      "ARGB",
    "RGB",   "BGR",       "RGB16",     "v210",      "GRAY16_BE", "BOGUS"};
constexpr const char *kColorimetry[] = {"bt601", "bt709", "bt2020", "sRGB", "1:4:0:0", "2:4:7:1"};

// Sizes around the edges: tiny, odd, wide, and too large for any buffer.
int fuzzed_dimension(fuzz::Bytes &in) {
  switch (in.byte() % 8) {
    case 0:
      return 0;
    case 1:
      return int(in.dword() & 0x7fffffff);
    case 2:
      return 1 + in.word() % 4096;
    default:
      return 1 + in.byte() % 80;
  }
}

std::string fuzzed_caps(fuzz::Bytes &in) {
  // Fields as raw text (GStreamer's parser itself complains of a bad structure name).
  if (in.chance(16)) {
    std::string raw = "video/x-raw,";
    for (int n = in.byte() % 96; n > 0; --n) {
      const char c = char(in.byte() % 95 + 32);
      raw += c == ';' ? ',' : c;  // one structure: a second one's name would be the raw text
    }
    return raw;
  }
  const char *format = kFormats[in.byte() % G_N_ELEMENTS(kFormats)];
  char caps[256];
  std::snprintf(caps, sizeof caps,
                "video/x-raw,format=%s,width=%d,height=%d,framerate=%d/1,colorimetry=%s", format,
                fuzzed_dimension(in), fuzzed_dimension(in), in.byte() % 121,
                kColorimetry[in.byte() % G_N_ELEMENTS(kColorimetry)]);
  return caps;
}

// Grids up to 64 tiles a side now and then; mostly small ones, whose tiles hold enough pixels
// to matter and whose state (a histogram history per tile) keeps the fuzzer fast.
guint fuzzed_tiles(fuzz::Bytes &in) {
  return guint(1 + in.byte() % (in.chance(8) ? 64 : 8));
}

void set_fuzzed_options(GstElement *element, fuzz::Bytes &in) {
  g_object_set(element, "strength", in.fraction(), "clip-limit",
               in.chance(2) ? 0.0 : in.fraction() * 40, "smoothing",
               in.chance(2) ? 0.0 : in.fraction() * 60, "scene-threshold", in.fraction(),
               "post-messages", gboolean(in.byte() & 1), "n-threads", guint(in.byte() % 4),
               "luma-matrix", int(in.byte() % 3), "mode", int(in.chance(3)), "tiles-x",
               fuzzed_tiles(in), "tiles-y", fuzzed_tiles(in), nullptr);
}

// A meta that may lie about the buffer: offsets and strides anywhere, negative or zero.
void add_fuzzed_video_meta(GstBuffer *buffer, const GstVideoInfo &info, fuzz::Bytes &in) {
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    const bool honest = in.chance(2);
    offsets[p] = honest ? GST_VIDEO_INFO_PLANE_OFFSET(&info, p) : gsize(in.word());
    strides[p] = honest ? GST_VIDEO_INFO_PLANE_STRIDE(&info, p) : gint(std::int16_t(in.word()));
  }
  const guint width = in.chance(4) ? in.word() : GST_VIDEO_INFO_WIDTH(&info);
  const guint height = in.chance(4) ? in.word() : GST_VIDEO_INFO_HEIGHT(&info);
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                 width, height, GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
}

void add_fuzzed_crop_meta(GstBuffer *buffer, fuzz::Bytes &in) {
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(buffer);
  crop->x = in.chance(2) ? in.byte() % 16 : in.dword();
  crop->y = in.chance(2) ? in.byte() % 16 : in.dword();
  crop->width = in.chance(2) ? in.byte() % 96 : in.dword();
  crop->height = in.chance(2) ? in.byte() % 96 : in.dword();
}

// The bytes of a buffer laid out as `info` that the element must leave as they are: the planes
// after the luma plane; in packed YUV every byte but the luma samples; in packed RGB the fourth
// byte of each pixel; and the padding at the end of each packed row.
std::vector<std::uint8_t> untouched_bytes(GstBuffer *buffer, const GstVideoInfo &info) {
  GstMapInfo map;
  FUZZ_CHECK(gst_buffer_map(buffer, &map, GST_MAP_READ));
  std::vector<std::uint8_t> kept;
  const GstVideoFormatInfo *finfo = info.finfo;
  if (GST_VIDEO_INFO_N_PLANES(&info) > 1) {
    const gsize start = GST_VIDEO_INFO_PLANE_OFFSET(&info, 1);
    if (start < map.size) kept.assign(map.data + start, map.data + map.size);
  } else if (!GST_VIDEO_FORMAT_INFO_IS_GRAY(finfo)) {
    const int width = GST_VIDEO_INFO_WIDTH(&info);
    const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
    const int pixel_bytes = GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, 0);
    const bool rgb = GST_VIDEO_FORMAT_INFO_IS_RGB(finfo);
    const int luma = int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0));
    int fourth = -1;
    if (rgb && pixel_bytes == 4)
      fourth = 6 - int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0) +
                       GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 1) +
                       GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 2));
    for (int y = 0; y < GST_VIDEO_INFO_HEIGHT(&info); ++y) {
      for (int x = 0; x < stride; ++x) {
        const bool in_pixels = x < width * pixel_bytes;
        const bool changes =
            in_pixels && (rgb ? x % pixel_bytes != fourth : x % pixel_bytes == luma);
        const gsize at = gsize(y) * stride + x;
        if (!changes && at < map.size) kept.push_back(map.data[at]);
      }
    }
  }
  gst_buffer_unmap(buffer, &map);
  return kept;
}

void push_segment(GstHarness *harness) {
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  gst_harness_push_event(harness, gst_event_new_segment(&segment));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Only the element under test: no scan of the system's plugins, no registry file.
  g_setenv("GST_REGISTRY_DISABLE", "yes", TRUE);
  g_setenv("GST_PLUGIN_SYSTEM_PATH_1_0", "", TRUE);
  g_setenv("GST_PLUGIN_PATH_1_0", "", TRUE);
  gst_init(nullptr, nullptr);
  // A critical is a misuse of an API, the element's or the harness's: as bad as a crash.
  g_log_set_always_fatal(GLogLevelFlags(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR));
  FUZZ_CHECK(GST_ELEMENT_REGISTER(histeq, nullptr));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  fuzz::Bytes in(data, size);
  GstHarness *harness = gst_harness_new("histeq");
  set_fuzzed_options(harness->element, in);
  const std::string caps_string = fuzzed_caps(in);
  GstCaps *caps = gst_caps_from_string(caps_string.c_str());
  GstVideoInfo info;
  const bool valid_caps = caps && gst_caps_is_fixed(caps) && gst_video_info_from_caps(&info, caps);
  // The element may refuse the caps: pushed as an event, not with gst_harness_set_src_caps,
  // which asserts that they are taken.
  if (caps && gst_caps_is_fixed(caps)) gst_harness_push_event(harness, gst_event_new_caps(caps));
  if (caps) gst_caps_unref(caps);
  push_segment(harness);

  for (int frames = 1 + in.byte() % 3; frames > 0; --frames) {
    if (in.chance(8)) {
      gst_harness_push_event(harness, gst_event_new_flush_start());
      gst_harness_push_event(harness, gst_event_new_flush_stop(TRUE));
      push_segment(harness);
    }
    const gsize natural = valid_caps ? GST_VIDEO_INFO_SIZE(&info) : 0;
    gsize bytes = natural;
    if (in.chance(3) || natural > (gsize(1) << 22)) bytes = in.word() % 8192;
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
    GstMapInfo map;
    FUZZ_CHECK(gst_buffer_map(buffer, &map, GST_MAP_WRITE));
    const std::uint8_t seed = in.byte();
    for (gsize i = 0; i < map.size; ++i) map.data[i] = std::uint8_t(seed + i * 131 + (i >> 7));
    gst_buffer_unmap(buffer, &map);
    const bool with_meta = valid_caps && in.chance(3);
    if (with_meta) add_fuzzed_video_meta(buffer, info, in);
    if (in.chance(4)) add_fuzzed_crop_meta(buffer, in);
    if (in.chance(4)) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
    if (in.chance(8)) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_GAP);
    GST_BUFFER_PTS(buffer) = GST_SECOND / 30 * frames;

    const bool whole = valid_caps && bytes == natural && !with_meta;
    const std::vector<std::uint8_t> kept =
        whole ? untouched_bytes(buffer, info) : std::vector<std::uint8_t>{};
    const GstFlowReturn ret = gst_harness_push(harness, buffer);
    if (ret != GST_FLOW_OK) {
      FUZZ_CHECK(gst_harness_buffers_in_queue(harness) == 0);
      continue;
    }
    GstBuffer *out = gst_harness_try_pull(harness);
    FUZZ_CHECK(out != nullptr);
    FUZZ_CHECK(gst_buffer_get_size(out) == bytes);
    if (whole) FUZZ_CHECK(untouched_bytes(out, info) == kept);
    FUZZ_CHECK(gst_harness_buffers_in_queue(harness) == 0);
    gst_buffer_unref(out);
  }
  gst_harness_teardown(harness);
  return 0;
}
