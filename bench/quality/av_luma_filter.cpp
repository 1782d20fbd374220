// SPDX-License-Identifier: LGPL-2.1-or-later
#include "av_luma_filter.h"

#include <cstdint>
#include <memory>

extern "C" {
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace quality {

namespace {

struct FrameFreer {
  void operator()(AVFrame *f) const { av_frame_free(&f); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;
struct GraphFreer {
  void operator()(AVFilterGraph *g) const { avfilter_graph_free(&g); }
};
using GraphPtr = std::unique_ptr<AVFilterGraph, GraphFreer>;

struct Graph {
  GraphPtr graph;
  AVFilterContext *source = nullptr;
  AVFilterContext *sink = nullptr;
};

// A graph that takes and gives `format` only: automatic conversion is off, so a filter that
// cannot work on it fails here instead of seeing frames swscale converted (and range-scaled).
bool open_graph(const std::string &filter, const std::string &options, AVPixelFormat format,
                int width, int height, Graph &g) {
  g.graph.reset(avfilter_graph_alloc());
  if (!g.graph) return false;
  avfilter_graph_set_auto_convert(g.graph.get(), AVFILTER_AUTO_CONVERT_NONE);
  const std::string args = "video_size=" + std::to_string(width) + "x" + std::to_string(height) +
                           ":pix_fmt=" + std::to_string(int(format)) +
                           ":time_base=1/30:pixel_aspect=1/1";
  AVFilterContext *middle = nullptr;
  return avfilter_graph_create_filter(&g.source, avfilter_get_by_name("buffer"), "in", args.c_str(),
                                      nullptr, g.graph.get()) >= 0 &&
         avfilter_graph_create_filter(&middle, avfilter_get_by_name(filter.c_str()), "filter",
                                      options.empty() ? nullptr : options.c_str(), nullptr,
                                      g.graph.get()) >= 0 &&
         avfilter_graph_create_filter(&g.sink, avfilter_get_by_name("buffersink"), "out", nullptr,
                                      nullptr, g.graph.get()) >= 0 &&
         avfilter_link(g.source, 0, middle, 0) >= 0 && avfilter_link(middle, 0, g.sink, 0) >= 0 &&
         avfilter_graph_config(g.graph.get(), nullptr) >= 0;
}

// GRAY8 is the luma itself; RGB24 with R = G = B = luma for the RGB-only filters.
FramePtr pack(const Clip &clip, const Frame &luma, AVPixelFormat format, std::int64_t pts) {
  FramePtr frame(av_frame_alloc());
  frame->format = format;
  frame->width = clip.width;
  frame->height = clip.height;
  frame->pts = pts;
  frame->color_range = AVCOL_RANGE_JPEG;
  if (av_frame_get_buffer(frame.get(), 0) < 0) return nullptr;
  const int step = format == AV_PIX_FMT_RGB24 ? 3 : 1;
  for (int y = 0; y < clip.height; ++y) {
    const std::uint8_t *in = luma.data() + std::size_t(y) * clip.width;
    std::uint8_t *out = frame->data[0] + std::ptrdiff_t(y) * frame->linesize[0];
    for (int x = 0; x < clip.width; ++x)
      for (int c = 0; c < step; ++c) out[x * step + c] = in[x];
  }
  return frame;
}

// Back to luma; for RGB, BT.601 weights that sum to 256, so a grey pixel reads as its level.
Frame unpack(const Clip &clip, const AVFrame &frame) {
  Frame luma(std::size_t(clip.width) * clip.height);
  const bool rgb = frame.format == AV_PIX_FMT_RGB24;
  for (int y = 0; y < clip.height; ++y) {
    const std::uint8_t *in = frame.data[0] + std::ptrdiff_t(y) * frame.linesize[0];
    std::uint8_t *out = luma.data() + std::size_t(y) * clip.width;
    for (int x = 0; x < clip.width; ++x) {
      const std::uint8_t *p = in + x * (rgb ? 3 : 1);
      out[x] = rgb ? std::uint8_t((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8) : p[0];
    }
  }
  return luma;
}

// Takes every frame the sink has ready; false on an error other than "none yet" or "done".
bool drain(const Clip &clip, Graph &g, AvResult &result) {
  FramePtr out(av_frame_alloc());
  for (;;) {
    const int status = av_buffersink_get_frame(g.sink, out.get());
    if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return true;
    if (status < 0) return false;
    const std::int64_t index = out->pts;
    if (index < 0 || index >= std::int64_t(result.frames.size()) ||
        (out->format != AV_PIX_FMT_GRAY8 && out->format != AV_PIX_FMT_RGB24))
      return false;
    result.frames[std::size_t(index)] = unpack(clip, *out);
    av_frame_unref(out.get());
  }
}

}  // namespace

AvResult run_av_filter(const std::string &filter, const std::string &options, const Clip &clip) {
  AvResult result;
  if (!avfilter_get_by_name(filter.c_str())) {
    result.error = "not available";
    return result;
  }
  Graph g;
  AVPixelFormat format = AV_PIX_FMT_NONE;
  for (AVPixelFormat f : {AV_PIX_FMT_GRAY8, AV_PIX_FMT_RGB24}) {
    if (open_graph(filter, options, f, clip.width, clip.height, g)) {
      format = f;
      break;
    }
  }
  if (format == AV_PIX_FMT_NONE) {
    result.error = "not available (takes neither gray nor rgb24, or bad options)";
    return result;
  }
  result.pixel_format = format == AV_PIX_FMT_GRAY8 ? "gray" : "rgb24 R=G=B";
  result.frames.resize(clip.frames.size());
  for (std::size_t t = 0; t < clip.frames.size(); ++t) {
    FramePtr in = pack(clip, clip.frames[t], format, std::int64_t(t));
    if (!in || av_buffersrc_add_frame(g.source, in.get()) < 0 || !drain(clip, g, result)) {
      result.error = "failed at frame " + std::to_string(t);
      return result;
    }
  }
  if (av_buffersrc_add_frame(g.source, nullptr) < 0 || !drain(clip, g, result)) {
    result.error = "failed at the end of the clip";
    return result;
  }
  for (const Frame &f : result.frames) {
    if (f.empty()) {
      result.error = "gave fewer frames than it got";
      return result;
    }
  }
  result.ok = true;
  return result;
}

}  // namespace quality
