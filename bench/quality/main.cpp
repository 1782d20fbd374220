// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-quality: what the equalization options do to the picture on synthetic clips of
// real-video problems (a blinking light, a bright object crossing, a slow pan, low-light noise,
// a scene cut), next to FFmpeg's own filters run through libavfilter on the same frames.
//
//   build/bench/quality/histeq-quality [--frames N] [--width W --height H]
//
// Deterministic: the clips come from fixed seeds and every metric from the output bytes, so
// the same build prints the same table. The goal lines report; the exit status is 0 either
// way (2 for bad arguments), as this is a measurement, not a test.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include <libavfilter/avfilter.h>
#include <libavutil/log.h>
}

#include "clips.h"
#include "contenders.h"
#include "goals.h"
#include "params.h"
#include "report.h"
#include "results.h"

namespace {

struct Options {
  int frames = 90;
  int width = 640;
  int height = 360;
};

bool parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const int value = std::atoi(argv[++i]);
    if (arg == "--frames")
      options.frames = value;
    else if (arg == "--width")
      options.width = value;
    else if (arg == "--height")
      options.height = value;
    else
      return false;
  }
  // Enough frames for a cut a third of the way in and a held second shot; enough pixels for
  // the clips' regions to be more than a few rows.
  return options.frames >= 24 && options.width >= 64 && options.height >= 64 &&
         options.width <= 7680 && options.height <= 4320;
}

}  // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parse(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: %s [--frames N] [--width W --height H]\n"
                 "  defaults 90 frames of 640x360; at least 24 frames of 64x64\n",
                 argv[0]);
    return 2;
  }
  // Trying a filter on a pixel format it lacks is expected (av_luma_filter.cpp); its log
  // lines would only clutter the table. Failures are reported in the rows.
  av_log_set_level(AV_LOG_FATAL);

  const unsigned version = avfilter_version();
  std::printf(
      "histeq-quality: %d frames of %dx%d at 30 fps, 8-bit luma, full range (synthetic)\n"
      "ours:  histeq::CpuEqualizer with histeq::to_params(settings), output range 0..255;\n"
      "       scene-threshold %.2f (histeq::Settings{} default) in every row\n"
      "peers: FFmpeg filters through libavfilter %u.%u.%u on the same frames\n",
      options.frames, options.width, options.height, histeq::Settings{}.scene_threshold,
      version >> 16, (version >> 8) & 0xff, version & 0xff);
  quality::print_legend();

  const std::vector<quality::Contender> contenders = quality::contenders();
  std::vector<quality::ClipResult> results;
  for (quality::ClipMaker make : quality::clip_makers()) {
    const quality::Clip clip = make(options.width, options.height, options.frames);
    results.push_back(quality::measure(clip, contenders));
    quality::print_clip(clip, results.back());
  }
  quality::print_goals(results);
  return 0;
}
