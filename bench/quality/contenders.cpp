// SPDX-License-Identifier: LGPL-2.1-or-later
#include "contenders.h"

#include "av_luma_filter.h"
#include "cpu_equalizer.h"
#include "params.h"

namespace quality {

const char kPerFrame[] = "histeq per-frame (defaults)";
const char kClip2[] = "histeq clip-limit=2";
const char kSmoothing10[] = "histeq smoothing=10";
const char kSmoothing30[] = "histeq smoothing=30";

namespace {

// One stream through CpuEqualizer, frame after frame, as the element runs it.
Output ours(const histeq::Settings &settings, const Clip &clip) {
  const histeq::Params params = histeq::to_params(settings);
  histeq::CpuEqualizer equalizer(1);
  Output out;
  out.restarts = params.keep_history ? 0 : -1;
  for (std::size_t t = 0; t < clip.frames.size(); ++t) {
    Frame frame = clip.frames[t];
    equalizer.equalize({frame.data(), clip.width, clip.height, clip.width}, histeq::full_range(8),
                       params);
    if (params.keep_history && t > 0 && equalizer.restarted()) ++out.restarts;
    out.frames.push_back(std::move(frame));
  }
  out.ok = true;
  return out;
}

Contender our_row(const std::string &label, const histeq::Settings &settings) {
  return {label, [settings](const Clip &clip) { return ours(settings, clip); }};
}

Contender peer_row(const std::string &label, const std::string &filter,
                   const std::string &options) {
  return {label, [filter, options](const Clip &clip) {
            AvResult r = run_av_filter(filter, options, clip);
            Output out;
            out.ok = r.ok;
            out.note = r.ok ? r.pixel_format : r.error;
            out.frames = std::move(r.frames);
            return out;
          }};
}

histeq::Settings with(double strength, double clip_limit, double smoothing) {
  histeq::Settings s;  // scene_threshold and the rest stay at the element's defaults
  s.strength = strength;
  s.clip_limit = clip_limit;
  s.smoothing = smoothing;
  return s;
}

}  // namespace

std::vector<Contender> contenders() {
  std::vector<Contender> rows;
  rows.push_back({"input (no filter)", [](const Clip &clip) {
                    Output out;
                    out.ok = true;
                    out.frames = clip.frames;
                    return out;
                  }});
  rows.push_back(our_row(kPerFrame, histeq::Settings{}));
  rows.push_back(our_row("histeq strength=0.5", with(0.5, 0, 0)));
  rows.push_back(our_row(kClip2, with(1, 2, 0)));
  rows.push_back(our_row(kSmoothing10, with(1, 0, 10)));
  rows.push_back(our_row(kSmoothing30, with(1, 0, 30)));
  rows.push_back(our_row("histeq smoothing=10 clip-limit=2", with(1, 2, 10)));
  histeq::Settings clahe = with(1, 2, 0);
  clahe.mode = histeq::Mode::kClahe;
  rows.push_back(our_row("histeq clahe clip-limit=2", clahe));
  clahe.smoothing = 10;
  rows.push_back(our_row("histeq clahe clip-limit=2 smoothing=10", clahe));
  // FFmpeg's histeq scales strength and intensity by 1000 and then mixes over 255: its
  // defaults (0.2, 0.21) are a partial equalization onto 0..~220, and 0.2555 for both gives
  // the plain cdf * 255 / N mapping, the nearest to our per-frame row (1 and 1 would push
  // most levels to 255).
  rows.push_back(peer_row("ffmpeg histeq (defaults)", "histeq", ""));
  rows.push_back(peer_row("ffmpeg histeq strength=intensity=0.2555", "histeq",
                          "strength=0.2555:intensity=0.2555"));
  rows.push_back(peer_row("ffmpeg normalize smoothing=10", "normalize", "smoothing=10"));
  rows.push_back(peer_row("ffmpeg tmidequalizer (defaults)", "tmidequalizer", ""));
  return rows;
}

}  // namespace quality
