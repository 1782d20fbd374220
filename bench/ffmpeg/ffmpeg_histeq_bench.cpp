// SPDX-License-Identifier: LGPL-2.1-or-later
// FFmpeg's histeq filter (libavfilter, RGB only, so fed RGBA with R = G = B = luma) against the
// CPU core of our histeq element on the same frames, as the same RGBA bytes and as their GRAY8
// luma plane: one timed run of each, frames per second side by side.
//
//   build/bench/ffmpeg/histeq-ffmpeg-bench                      # 720p, 1080p, 4K, 60 frames each
//   build/bench/ffmpeg/histeq-ffmpeg-bench --frames 200 --size 1920x1080
//
// Each timed frame starts from an untouched source: FFmpeg's filter gets a reference it may not
// write (KEEP_REF), so it allocates and fills a new frame; ours copies the plane into a work
// buffer and equalizes that in place (the copy is counted). FFmpeg's filter is single-threaded;
// ours is shown on RGBA on one thread, and on GRAY8 on one thread and on every core.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include "cpu_equalizer.h"
#include "usable_cores.h"
#include "frames.h"

namespace {

constexpr char kFfmpegFilter[] = "histeq=strength=1:intensity=1:antibanding=none";
constexpr int kDistinctFrames = 8;  // cycled, so no contender sees one frame over and over

struct FrameFreer {
  void operator()(AVFrame *f) const { av_frame_free(&f); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;
struct GraphFreer {
  void operator()(AVFilterGraph *g) const { avfilter_graph_free(&g); }
};

// "lo..hi": the 5th and 95th percentile of `width` x `height` bytes `step` apart in rows of
// `pitch`, to show that each contender really stretched the frame.
std::string spread(const std::uint8_t *data, std::ptrdiff_t pitch, int step, int width,
                   int height) {
  std::uint64_t histogram[256] = {};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) histogram[data[y * pitch + x * step]]++;
  const std::uint64_t total = std::uint64_t(width) * std::uint64_t(height);
  int lo = -1, hi = -1;
  std::uint64_t running = 0;
  for (int v = 0; v < 256; ++v) {
    running += histogram[v];
    if (lo < 0 && running * 20 >= total) lo = v;
    if (hi < 0 && running * 20 >= total * 19) hi = v;
  }
  return std::to_string(lo) + ".." + std::to_string(hi);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// buffer -> histeq -> buffersink for RGBA frames of one size.
class FfmpegHisteq {
 public:
  bool open(int width, int height, std::string &error) {
    graph_.reset(avfilter_graph_alloc());
    const std::string args = "video_size=" + std::to_string(width) + "x" + std::to_string(height) +
                             ":pix_fmt=" + std::to_string(int(AV_PIX_FMT_RGBA)) + ":time_base=1/30";
    AVFilterContext *histeq = nullptr;
    if (avfilter_graph_create_filter(&source_, avfilter_get_by_name("buffer"), "in", args.c_str(),
                                     nullptr, graph_.get()) < 0 ||
        avfilter_graph_create_filter(&histeq, avfilter_get_by_name("histeq"), "histeq",
                                     std::strchr(kFfmpegFilter, '=') + 1, nullptr,
                                     graph_.get()) < 0 ||
        avfilter_graph_create_filter(&sink_, avfilter_get_by_name("buffersink"), "out", nullptr,
                                     nullptr, graph_.get()) < 0 ||
        avfilter_link(source_, 0, histeq, 0) < 0 || avfilter_link(histeq, 0, sink_, 0) < 0 ||
        avfilter_graph_config(graph_.get(), nullptr) < 0) {
      error = "cannot build the libavfilter graph buffer -> " + std::string(kFfmpegFilter);
      return false;
    }
    return true;
  }

  // Filters one frame into `out` (a reference the caller unrefs); false on any error.
  bool filter(AVFrame *in, AVFrame *out) {
    if (av_buffersrc_add_frame_flags(source_, in, AV_BUFFERSRC_FLAG_KEEP_REF) < 0) return false;
    return av_buffersink_get_frame(sink_, out) >= 0;
  }

 private:
  std::unique_ptr<AVFilterGraph, GraphFreer> graph_;
  AVFilterContext *source_ = nullptr;
  AVFilterContext *sink_ = nullptr;
};

// The RGBA bytes of a luma frame: R = G = B = luma, alpha 255.
void fill_rgba(const bench::HostFrame &luma, std::uint8_t *rgba, std::ptrdiff_t pitch) {
  for (int y = 0; y < luma.size.height; ++y) {
    const std::uint8_t *in = luma.bytes.data() + y * luma.pitch;
    std::uint8_t *out = rgba + y * pitch;
    for (int x = 0; x < luma.size.width; ++x, out += 4) {
      out[0] = out[1] = out[2] = in[x];
      out[3] = 255;
    }
  }
}

FramePtr rgba_from_luma(const bench::HostFrame &luma, std::int64_t pts) {
  FramePtr frame(av_frame_alloc());
  frame->format = AV_PIX_FMT_RGBA;
  frame->width = luma.size.width;
  frame->height = luma.size.height;
  frame->pts = pts;
  if (av_frame_get_buffer(frame.get(), 0) < 0) return nullptr;
  fill_rgba(luma, frame->data[0], frame->linesize[0]);
  return frame;
}

// Frames per second of FFmpeg's filter over `count` frames; negative on failure. `check` gets
// the luma spread of the first frame's output.
double time_ffmpeg(const std::vector<bench::HostFrame> &frames, int count, std::string &check) {
  const bench::FrameSize size = frames[0].size;
  FfmpegHisteq filter;
  std::string error;
  if (!filter.open(size.width, size.height, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return -1;
  }
  std::vector<FramePtr> rgba;
  for (std::size_t i = 0; i < frames.size(); ++i) rgba.push_back(rgba_from_luma(frames[i], 0));
  FramePtr out(av_frame_alloc());
  std::int64_t pts = 0;
  rgba[0]->pts = pts++;
  if (!filter.filter(rgba[0].get(), out.get())) return -1;  // warm-up: first allocations
  check = spread(out->data[0], out->linesize[0], 4, size.width, size.height);
  av_frame_unref(out.get());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    AVFrame *in = rgba[std::size_t(i) % rgba.size()].get();
    in->pts = pts++;
    if (!filter.filter(in, out.get())) return -1;
    av_frame_unref(out.get());
  }
  return count / seconds_since(start);
}

// Frames per second of `equalize` over `count` frames, each copied from `sources` (cycled) into
// one work buffer and equalized there in place (the copy counted); `check` gets the spread of the
// first output's bytes `step` apart in rows of `pitch` bytes.
template <class Equalize>
double time_in_place(const std::vector<const std::vector<std::uint8_t> *> &sources, int count,
                     bench::FrameSize size, std::ptrdiff_t pitch, int step,
                     const Equalize &equalize, std::string &check) {
  std::vector<std::uint8_t> work(sources[0]->size());
  auto one = [&](const std::vector<std::uint8_t> &source) {
    std::memcpy(work.data(), source.data(), work.size());
    equalize(work.data());
  };
  one(*sources[0]);  // warm-up: wakes the pool
  check = spread(work.data(), pitch, step, size.width, size.height);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) one(*sources[std::size_t(i) % sources.size()]);
  return count / seconds_since(start);
}

// CpuEqualizer on `threads` threads (0: every core) on the GRAY8 luma planes; `check` gets the
// luma spread of the first frame's output.
double time_histeq(const std::vector<bench::HostFrame> &frames, int count, unsigned threads,
                   std::string &check) {
  const bench::FrameSize size = frames[0].size;
  std::vector<const std::vector<std::uint8_t> *> planes;
  for (const bench::HostFrame &frame : frames) planes.push_back(&frame.bytes);
  histeq::CpuEqualizer equalizer(threads);
  return time_in_place(
      planes, count, size, size.width, 1,
      [&](std::uint8_t *p) {
        equalizer.equalize(histeq::LumaPlane8{p, size.width, size.height, size.width},
                           histeq::full_range(8));
      },
      check);
}

// CpuEqualizer on one thread on the RGBA bytes FFmpeg's filter gets (packed RGB, equalized by
// its luma); `check` gets the spread of the first frame's red channel.
double time_histeq_rgba(const std::vector<bench::HostFrame> &frames, int count,
                        std::string &check) {
  const bench::FrameSize size = frames[0].size;
  const std::ptrdiff_t pitch = 4 * std::ptrdiff_t(size.width);
  std::vector<std::vector<std::uint8_t>> rgba;
  for (const bench::HostFrame &frame : frames) {
    rgba.emplace_back(std::size_t(pitch) * std::size_t(size.height));
    fill_rgba(frame, rgba.back().data(), pitch);
  }
  std::vector<const std::vector<std::uint8_t> *> sources;
  for (const std::vector<std::uint8_t> &frame : rgba) sources.push_back(&frame);
  histeq::CpuEqualizer equalizer(1);
  return time_in_place(
      sources, count, size, pitch, 4,
      [&](std::uint8_t *p) {
        equalizer.equalize(histeq::RgbView{p, size.width, size.height, pitch},
                           histeq::full_range(8));
      },
      check);
}

void usage(const char *program) {
  std::fprintf(stderr, "usage: %s [--frames N] [--size WxH]...\n", program);
}

}  // namespace

int main(int argc, char **argv) {
  int count = 60;
  std::vector<bench::FrameSize> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    int w = 0, h = 0;
    if (arg == "--frames" && i + 1 < argc) {
      count = std::atoi(argv[++i]);
    } else if (arg == "--size" && i + 1 < argc && std::sscanf(argv[++i], "%dx%d", &w, &h) == 2 &&
               w > 0 && h > 0) {
      sizes.push_back({w, h});
    } else {
      usage(argv[0]);
      return 2;
    }
  }
  if (count <= 0) {
    usage(argv[0]);
    return 2;
  }
  if (sizes.empty()) sizes = {{1280, 720}, {1920, 1080}, {3840, 2160}};

  const unsigned cores = histeq::usable_cores();
  std::printf(
      "FFmpeg %s (RGBA, 1 thread) vs histeq CpuEqualizer (RGBA and GRAY8): one run of %d "
      "frames\n",
      kFfmpegFilter, count);
  std::printf("frames: natural content (bench/frames.h), %d distinct frames cycled; %u cores\n\n",
              kDistinctFrames, cores);
  std::printf("%-10s %10s %18s %18s %18s %18s  %s\n", "size", "input", "ffmpeg histeq RGBA",
              "histeq RGBA 1 th.", "histeq GRAY8 1 th.",
              ("histeq GRAY8 " + std::to_string(cores) + " th.").c_str(),
              "output 5..95% (ffmpeg / RGBA / GRAY8)");
  for (const bench::FrameSize &size : sizes) {
    std::vector<bench::HostFrame> frames;
    for (int i = 0; i < kDistinctFrames; ++i)
      frames.push_back(
          bench::make_frame(bench::Content::kNatural, size, size.width, std::uint32_t(1000 + i)));
    std::string ffmpeg_check, rgba_check, histeq_check;
    const double ffmpeg = time_ffmpeg(frames, count, ffmpeg_check);
    const double rgba = time_histeq_rgba(frames, count, rgba_check);
    const double one = time_histeq(frames, count, 1, histeq_check);
    const double all = time_histeq(frames, count, 0, histeq_check);
    if (ffmpeg < 0) {
      std::fprintf(stderr, "FFmpeg's histeq filter failed at %s\n", size.label().c_str());
      return 1;
    }
    const bench::HostFrame &first = frames[0];
    std::printf("%-10s %10s %18.1f %18.1f %18.1f %18.1f  %s / %s / %s\n", size.label().c_str(),
                spread(first.bytes.data(), first.pitch, 1, size.width, size.height).c_str(), ffmpeg,
                rgba, one, all, ffmpeg_check.c_str(), rgba_check.c_str(), histeq_check.c_str());
  }
  return 0;
}
