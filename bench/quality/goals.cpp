// SPDX-License-Identifier: LGPL-2.1-or-later
#include "goals.h"

#include <cstdio>
#include <string>

#include "contenders.h"

namespace quality {

namespace {

constexpr double kFlickerCut = 5.0;
constexpr int kSettleFrames = 2;
constexpr double kNoiseGain = 3.0;

const ClipResult *find_clip(const std::vector<ClipResult> &results, const std::string &name) {
  for (const ClipResult &r : results)
    if (r.name == name) return &r;
  return nullptr;
}

const char *verdict(bool met) {
  return met ? "met" : "NOT met";
}

int flicker_goal(const ClipResult *clip, const char *smoothing) {
  const RowResult *base = clip ? find_row(*clip, kPerFrame) : nullptr;
  const RowResult *row = clip ? find_row(*clip, smoothing) : nullptr;
  std::printf("goal: %s cuts the blinking-light flicker at least %.0fx against per-frame : ",
              smoothing, kFlickerCut);
  if (!base || !row) return std::printf("NOT met (no result)\n"), 1;
  const double factor = row->flicker > 0 ? base->flicker / row->flicker : 1e9;
  const bool met = factor >= kFlickerCut;
  std::printf("%s (per-frame %.3f, smoothed %.3f codes: %.1fx)\n", verdict(met), base->flicker,
              row->flicker, factor);
  return met ? 0 : 1;
}

int settle_goal(const ClipResult *clip) {
  const RowResult *row = clip ? find_row(*clip, kSmoothing10) : nullptr;
  std::printf("goal: after a cut the picture settles within %d frames (%s) : ", kSettleFrames,
              kSmoothing10);
  if (!row) return std::printf("NOT met (no result)\n"), 1;
  const bool met = row->settle >= 0 && row->settle <= kSettleFrames;
  std::printf("%s (%s frames; history restarts: %d)\n", verdict(met),
              row->settle >= 0 ? std::to_string(row->settle).c_str() : "-", row->restarts);
  return met ? 0 : 1;
}

int noise_goal(const ClipResult *clip) {
  const RowResult *base = clip ? find_row(*clip, kPerFrame) : nullptr;
  const RowResult *row = clip ? find_row(*clip, kClip2) : nullptr;
  std::printf("goal: %s keeps the low-light noise gain at or under %.0fx : ", kClip2, kNoiseGain);
  if (!base || !row) return std::printf("NOT met (no result)\n"), 1;
  const bool met = row->noise_gain <= kNoiseGain;
  std::printf("%s (%.2fx; per-frame %.2fx)\n", verdict(met), row->noise_gain, base->noise_gain);
  return met ? 0 : 1;
}

}  // namespace

int print_goals(const std::vector<ClipResult> &results) {
  std::printf("\n");
  int missed = 0;
  missed += flicker_goal(find_clip(results, "blinking light"), kSmoothing10);
  missed += flicker_goal(find_clip(results, "blinking light"), kSmoothing30);
  missed += settle_goal(find_clip(results, "scene cut"));
  missed += noise_goal(find_clip(results, "dark noise"));
  return missed;
}

}  // namespace quality
