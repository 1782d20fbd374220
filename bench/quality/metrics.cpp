// SPDX-License-Identifier: LGPL-2.1-or-later
#include "metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "tone_steps.h"

namespace quality {

namespace {

struct Moments {
  double mean = 0;
  double std = 0;
};

Moments roi_moments(const Clip &clip, const Frame &frame, const Rect &roi) {
  double sum = 0, squares = 0;
  for (int y = roi.y; y < roi.y + roi.height; ++y) {
    const std::uint8_t *row = frame.data() + std::size_t(y) * clip.width;
    for (int x = roi.x; x < roi.x + roi.width; ++x) {
      sum += row[x];
      squares += double(row[x]) * row[x];
    }
  }
  const double n = double(roi.width) * roi.height;
  Moments m;
  m.mean = sum / n;
  m.std = std::sqrt(std::max(0.0, squares / n - m.mean * m.mean));
  return m;
}

}  // namespace

std::vector<double> roi_means(const Clip &clip, const std::vector<Frame> &frames) {
  std::vector<double> means;
  for (std::size_t t = 0; t < frames.size(); ++t)
    means.push_back(roi_moments(clip, frames[t], clip.roi[t]).mean);
  return means;
}

double flicker_index(const std::vector<double> &means, int cut) {
  double sum = 0;
  int steps = 0;
  for (std::size_t t = 1; t < means.size(); ++t) {
    if (int(t) == cut) continue;
    sum += std::fabs(means[t] - means[t - 1]);
    ++steps;
  }
  return steps ? sum / steps : 0;
}

double noise_gain(const Clip &clip, const std::vector<Frame> &output) {
  double sum = 0;
  for (std::size_t t = 0; t < output.size(); ++t) {
    const double in = roi_moments(clip, clip.frames[t], clip.roi[t]).std;
    const double out = roi_moments(clip, output[t], clip.roi[t]).std;
    sum += in > 0 ? out / in : 1.0;
  }
  return output.empty() ? 0 : sum / double(output.size());
}

int settle_frames(const std::vector<double> &means, int cut, double tolerance, int span) {
  if (cut < 0 || cut >= int(means.size())) return -1;
  const std::size_t last = std::min(means.size() - std::size_t(cut), std::size_t(span));
  double settled = 0;
  for (std::size_t t = means.size() - last; t < means.size(); ++t) settled += means[t];
  settled /= double(last);
  int last_off = cut - 1;
  for (int t = cut; t < int(means.size()); ++t)
    if (std::fabs(means[std::size_t(t)] - settled) > tolerance) last_off = t;
  return last_off + 1 - cut;
}

Distribution normalized_histogram(const Frame &frame) {
  Distribution p{};
  for (std::uint8_t v : frame) p[v] += 1;
  for (double &v : p) v /= double(frame.size());
  return p;
}

double tv_distance(const Distribution &p, const Distribution &q) {
  double bands[histeq::kSceneBands] = {};
  for (std::size_t v = 0; v < p.size(); ++v)
    bands[histeq::scene_band(int(v), int(p.size()))] += p[v] - q[v];
  double sum = 0;
  for (double band : bands) sum += std::fabs(band);
  return 0.5 * sum;
}

}  // namespace quality
