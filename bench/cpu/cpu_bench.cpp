// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-cpu-bench: the CPU core against OpenCV's cv::equalizeHist in one process, on the same
// frames (natural, uniform, constant; 720p, 1080p, 4K), one thread and all threads. Prints
// frames per second (median of runs), our ratio to OpenCV, the core with every option and what
// the options cost (its time over the defaults'), and whether the bytes are identical. On more
// than one core, a table of frames back to back follows: one thread against all. The next
// table times 10-bit words and the packed layouts (YUY2, RGBx, RGB) against the 8-bit planar
// luma of the same pixels, one thread, natural content: the cost of such a pixel over a planar
// byte. Then it times each layout's count and map apart (passes_table.h), and CLAHE mode (8x8
// tiles, clip limit 2) against OpenCV's createCLAHE on the same frames. --widest-target
// caps the core's SIMD at a Highway target, to compare targets on one host.
//   histeq-cpu-bench [--runs N] [--widest-target avx3_dl|avx3|avx2|sse4|neon|scalar]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <hwy/targets.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "cpu_equalizer.h"
#include "every_option.h"
#include "frame_a_thread.h"
#include "frame_stats.h"
#include "frames.h"
#include "lut_map.h"
#include "params.h"
#include "passes_table.h"
#include "side_by_side.h"
#include "usable_cores.h"

namespace {

using bench::Equalize;
using bench::fps_side_by_side;
using bench::packed_frame;
using bench::ten_bit_words;

// Where read_then_rewrite's sum goes, so that its reading pass is not optimized away.
volatile std::uint64_t read_sum_sink;

// The memory traffic a packed frame's equalization cannot avoid: one pass that reads every byte
// (the count needs each pixel's luma), one that reads and writes every byte in place (the map).
void read_then_rewrite(std::uint8_t *bytes, std::size_t size) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    sum += word;
  }
  read_sum_sink = sum;
  for (std::size_t i = 0; i < size; ++i) bytes[i] = std::uint8_t(bytes[i] ^ 0x80u);
}

void packed_table(int runs) {
  std::printf(
      "\n10-bit words and packed layouts against the 8-bit planar luma of the same pixels, "
      "natural content, 1 thread, frames per second; floor: RGBx bytes only read, then read and "
      "written, and its time over the plane's\n");
  std::printf("%-10s %10s %10s %7s %10s %7s %10s %7s %10s %7s %10s %7s\n", "size", "planar",
              "10-bit", "cost", "YUY2", "cost", "RGBx", "cost", "RGB", "cost", "floor", "cost");
  const bench::FrameSize sizes[] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  for (const bench::FrameSize size : sizes) {
    const bench::HostFrame host = bench::make_frame(bench::Content::kNatural, size, size.width, 7u);
    histeq::CpuEqualizer planar(1), yuy2(1), rgbx(1), rgb(1);
    histeq::DeepCpuEqualizer deep(1, histeq::SampleLayout{10, 0});
    const auto run_deep = [&](std::uint8_t *p) {
      deep.equalize(histeq::LumaPlane16{reinterpret_cast<std::uint16_t *>(p), size.width,
                                        size.height, 2 * std::ptrdiff_t(size.width)},
                    histeq::full_range(10));
    };
    const std::vector<std::uint8_t> words = ten_bit_words(host.bytes);
    const auto run_planar = [&](std::uint8_t *p) {
      planar.equalize(histeq::LumaPlane8{p, size.width, size.height, size.width},
                      histeq::full_range(8));
    };
    const auto run_yuy2 = [&](std::uint8_t *p) {
      yuy2.equalize(histeq::PackedYuvView{p, size.width, size.height, 2 * size.width, 0},
                    histeq::full_range(8));
    };
    const auto run_rgb = [&](histeq::CpuEqualizer &engine, int pixel_bytes) {
      return [&engine, pixel_bytes, size](std::uint8_t *p) {
        engine.equalize(
            histeq::RgbView{p, size.width, size.height, pixel_bytes * size.width, pixel_bytes, 0, 1,
                            2, histeq::luma_matrix(histeq::LumaStandard::kBt709)},
            histeq::full_range(8));
      };
    };
    const std::vector<std::uint8_t> yuy2_frame = packed_frame(host.bytes, 2, false),
                                    rgbx_frame = packed_frame(host.bytes, 4, true),
                                    rgb_frame = packed_frame(host.bytes, 3, true);
    const auto run_floor = [size](std::uint8_t *p) {
      read_then_rewrite(p, 4 * std::size_t(size.width) * std::size_t(size.height));
    };
    // In turns, so that every cost is a ratio of times taken side by side.
    const std::vector<double> fps = fps_side_by_side({{run_planar, &host.bytes},
                                                      {run_deep, &words},
                                                      {run_yuy2, &yuy2_frame},
                                                      {run_rgb(rgbx, 4), &rgbx_frame},
                                                      {run_rgb(rgb, 3), &rgb_frame},
                                                      {run_floor, &rgbx_frame}},
                                                     runs);
    const double fps_planar = fps[0], fps_deep = fps[1], fps_yuy2 = fps[2], fps_rgbx = fps[3],
                 fps_rgb = fps[4], fps_floor = fps[5];
    std::printf(
        "%-10s %10.0f %10.0f %6.2fx %10.0f %6.2fx %10.0f %6.2fx %10.0f %6.2fx %10.0f %6.2fx\n",
        size.label().c_str(), fps_planar, fps_deep, fps_planar / fps_deep, fps_yuy2,
        fps_planar / fps_yuy2, fps_rgbx, fps_planar / fps_rgbx, fps_rgb, fps_planar / fps_rgb,
        fps_floor, fps_planar / fps_floor);
  }
}

// Frames back to back, as a transcode hands them over (eight a turn, the first two untimed): the
// core on one thread and on all, and, for what this machine gives threads that share no data, a
// frame of its own on each thread.
void back_to_back_table(int runs, unsigned cores) {
  std::printf(
      "\nFrames back to back, eight a turn, natural and uniform content, the core alone, frames "
      "per second: one thread, all on each frame, and each thread on a frame of its own (threads "
      "that share no data)\n");
  std::printf("%-10s %-9s %10s %10s %8s %10s %8s\n", "size", "content", "1 thread", "all",
              "scaling", "own frame", "scaling");
  const bench::FrameSize sizes[] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  for (const bench::FrameSize size : sizes) {
    for (bench::Content content : {bench::Content::kNatural, bench::Content::kUniform}) {
      const bench::HostFrame host = bench::make_frame(content, size, size.width, 0x1234u);
      const auto on = [size](unsigned threads) {
        return [size, threads]() -> Equalize {
          auto engine = std::make_shared<histeq::CpuEqualizer>(threads);
          return [engine, size](std::uint8_t *p) {
            engine->equalize(histeq::LumaPlane8{p, size.width, size.height, size.width},
                             histeq::full_range(8));
          };
        };
      };
      const std::vector<double> fps = bench::fps_frame_a_thread(
          {{on(1), 1}, {on(cores), 1}, {on(1), cores}}, host.bytes, runs, 8);
      std::printf("%-10s %-9s %10.0f %10.0f %7.2fx %10.0f %7.2fx\n", size.label().c_str(),
                  bench::content_name(content), fps[0], fps[1], fps[1] / fps[0], fps[2],
                  fps[2] / fps[0]);
    }
  }
}

void clahe_table(int runs, unsigned cores) {
  std::printf(
      "\nCLAHE, 8x8 tiles, clip limit 2, natural content, frames per second; RGBx: histeq on "
      "RGBx pixels of the same luma, and its time over the plane's\n");
  std::printf("%-10s %-8s %10s %10s %7s  %-9s %8s %7s\n", "size", "threads", "histeq", "OpenCV",
              "ratio", "bytes", "RGBx", "cost");
  const bench::FrameSize sizes[] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  histeq::Settings settings;
  settings.mode = histeq::Mode::kClahe;
  settings.clip_limit = 2;
  const histeq::Params params = histeq::to_params(settings);
  for (const bench::FrameSize size : sizes) {
    const bench::HostFrame host = bench::make_frame(bench::Content::kNatural, size, size.width, 9u);
    for (unsigned threads : {1u, cores}) {
      histeq::CpuEqualizer ours(threads), ours_rgbx(threads);
      cv::setNumThreads(int(threads));
      const cv::Ptr<cv::CLAHE> clahe = cv::createCLAHE(2.0, cv::Size(8, 8));
      const auto run_ours = [&](std::uint8_t *p) {
        ours.equalize(histeq::LumaPlane8{p, size.width, size.height, size.width},
                      histeq::full_range(8), params, true);
      };
      cv::Mat out(size.height, size.width, CV_8UC1);
      const auto run_opencv = [&](std::uint8_t *p) {
        clahe->apply(cv::Mat(size.height, size.width, CV_8UC1, p), out);
      };
      std::vector<std::uint8_t> a = host.bytes, b = host.bytes;
      run_ours(a.data());
      run_opencv(b.data());
      const bool same = std::equal(a.begin(), a.end(), out.data);
      const auto run_rgbx = [&](std::uint8_t *p) {
        ours_rgbx.equalize(histeq::RgbView{p, size.width, size.height, 4 * size.width, 4, 0, 1, 2},
                           histeq::full_range(8), params, true);
      };
      const std::vector<double> fps = fps_side_by_side({run_ours, run_opencv}, host.bytes, runs);
      const double fps_rgbx =
          fps_side_by_side({run_rgbx}, packed_frame(host.bytes, 4, true), runs)[0];
      std::printf("%-10s %-8u %10.0f %10.0f %7.2f  %-9s %8.0f %6.2fx\n", size.label().c_str(),
                  threads, fps[0], fps[1], fps[0] / fps[1], same ? "identical" : "DIFFER", fps_rgbx,
                  fps[0] / fps_rgbx);
      if (cores == 1) break;
    }
  }
}

// The Highway target of a --widest-target name, or 0.
std::int64_t simd_target_named(const char *name) {
  const std::pair<const char *, std::int64_t> targets[] = {
      {"avx3_dl", HWY_AVX3_DL}, {"avx3", HWY_AVX3}, {"avx2", HWY_AVX2},
      {"sse4", HWY_SSE4},       {"neon", HWY_NEON}, {"scalar", HWY_SCALAR}};
  for (const auto &[target_name, target] : targets)
    if (!std::strcmp(name, target_name)) return target;
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  // OpenCV's pool threads spin for a while after each call. Timed in turns with ours, they
  // would hold the cores our threads wake up on; without the spin both pools sleep between
  // calls alike. Read before OpenCV's first parallel call; a value set outside is kept.
  setenv("OPENCV_THREAD_POOL_ACTIVE_WAIT_WORKER", "0", 0);
  setenv("OPENCV_THREAD_POOL_ACTIVE_WAIT_MAIN", "0", 0);
  int runs = 41;
  std::int64_t widest = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--widest-target") && i + 1 < argc &&
               (widest = simd_target_named(argv[i + 1]))) {
      ++i;
      // Highway's better targets have the lower bits: every one better than this is set aside.
      // Highway 1.0's SupportedTargets() chooses the dispatch target again from every target
      // the CPU has, so nothing here calls it after this.
      hwy::DisableTargets(widest - 1);
    } else {
      std::fprintf(stderr,
                   "usage: histeq-cpu-bench [--runs N] [--widest-target "
                   "avx3_dl|avx3|avx2|sse4|neon|scalar]\n");
      return 2;
    }
  }
  const unsigned cores = histeq::usable_cores();
  std::printf(
      "histeq-cpu-bench: CPU core against OpenCV %s cv::equalizeHist, frames per second "
      "(median of %d runs), %u cores, SIMD target %s\n",
      CV_VERSION, runs, cores, histeq::simd_target_name());
  std::printf("%-10s %-9s %-8s %10s %10s %7s %10s %8s  %s\n", "size", "content", "threads",
              "histeq", "OpenCV", "ratio", "+options", "cost", "bytes");
  int mismatches = 0;
  const bench::FrameSize sizes[] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  for (const bench::FrameSize size : sizes) {
    for (bench::Content content :
         {bench::Content::kNatural, bench::Content::kUniform, bench::Content::kConstant}) {
      const bench::HostFrame host = bench::make_frame(content, size, size.width, 0x1234u);
      for (unsigned threads : {1u, cores}) {
        histeq::CpuEqualizer ours(threads), ours_rgbx(threads);
        histeq::CpuEqualizer ours_with_options(threads);
        const histeq::Params options = bench::every_option();
        cv::setNumThreads(int(threads));
        const auto run_ours = [&](std::uint8_t *p) {
          ours.equalize(histeq::LumaPlane8{p, size.width, size.height, size.width},
                        histeq::full_range(8));
        };
        // The statistics are taken from each frame's histogram, as the element's messages are.
        const auto run_ours_with_options = [&](std::uint8_t *p) {
          ours_with_options.equalize(histeq::LumaPlane8{p, size.width, size.height, size.width},
                                     histeq::full_range(8), options, false);
          const histeq::FrameStats stats =
              histeq::frame_stats(ours_with_options.histogram().data(), histeq::kLevels8);
          static_cast<void>(stats);
        };
        const auto run_opencv = [&](std::uint8_t *p) {
          cv::Mat plane(size.height, size.width, CV_8UC1, p);
          cv::equalizeHist(plane, plane);
        };
        std::vector<std::uint8_t> a = host.bytes, b = host.bytes;
        run_ours(a.data());
        run_opencv(b.data());
        const bool same = a == b;
        mismatches += !same;
        const std::vector<double> fps =
            fps_side_by_side({run_ours, run_opencv, run_ours_with_options}, host.bytes, runs);
        std::printf("%-10s %-9s %-8u %10.0f %10.0f %7.2f %10.0f %7.2fx  %s\n", size.label().c_str(),
                    bench::content_name(content), threads, fps[0], fps[1], fps[0] / fps[1], fps[2],
                    fps[0] / fps[2], same ? "identical" : "DIFFER");
        if (cores == 1) break;
      }
    }
  }
  if (cores > 1) back_to_back_table(runs, cores);
  packed_table(runs);
  bench::passes_table(runs);
  clahe_table(runs, cores);
  return mismatches ? 1 : 0;
}
