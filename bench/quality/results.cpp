// SPDX-License-Identifier: LGPL-2.1-or-later
#include "results.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "metrics.h"
#include "usable_cores.h"

namespace quality {

namespace {

// The output's ROI mean counts as settled within one code of its final value, taken as its
// mean over the last 10 frames so that one frame's noise does not move the target.
constexpr double kSettleTolerance = 1.0;
constexpr int kSettledSpan = 10;

void study_scene_distance(const Clip &clip, ClipResult &result) {
  Distribution previous = normalized_histogram(clip.frames[0]);
  for (std::size_t t = 1; t < clip.frames.size(); ++t) {
    const Distribution now = normalized_histogram(clip.frames[t]);
    const double tv = tv_distance(previous, now);
    if (int(t) == clip.cut) {
      result.cut_tv = tv;
    } else if (tv > result.max_tv) {
      result.max_tv = tv;
      result.max_tv_frame = int(t);
    }
    previous = now;
  }
}

RowResult measure_row(const Clip &clip, const Contender &contender) {
  const Output out = contender.run(clip);
  RowResult row;
  row.label = contender.label;
  row.ok = out.ok;
  row.note = out.note;
  row.restarts = out.restarts;
  if (out.ok) {
    const std::vector<double> means = roi_means(clip, out.frames);
    row.flicker = flicker_index(means, clip.cut);
    if (clip.flat_roi) row.noise_gain = noise_gain(clip, out.frames);
    if (clip.cut >= 0) row.settle = settle_frames(means, clip.cut, kSettleTolerance, kSettledSpan);
  }
  return row;
}

}  // namespace

ClipResult measure(const Clip &clip, const std::vector<Contender> &contenders) {
  ClipResult result;
  result.name = clip.name;
  result.has_cut = clip.cut >= 0;
  result.flat_roi = clip.flat_roi;
  study_scene_distance(clip, result);
  // The rows are independent streams (each its own equalizer or filter graph), so they run
  // side by side on the cores; each result depends on its own row only, never on the order.
  result.rows.resize(contenders.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < contenders.size();)
      result.rows[i] = measure_row(clip, contenders[i]);
  };
  std::vector<std::thread> helpers;
  const unsigned cores = histeq::usable_cores();
  for (unsigned k = 1; k < std::min<std::size_t>(cores, contenders.size()); ++k)
    helpers.emplace_back(work);
  work();
  for (std::thread &helper : helpers) helper.join();
  return result;
}

const RowResult *find_row(const ClipResult &result, const std::string &label) {
  for (const RowResult &row : result.rows)
    if (row.label == label && row.ok) return &row;
  return nullptr;
}

}  // namespace quality
