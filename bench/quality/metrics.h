// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What the table reports, measured on output frames in doubles (measurements, not the
// engine's fixed-point arithmetic).

#include <array>
#include <vector>

#include "clip.h"

namespace quality {

// Mean of each frame's region of interest.
std::vector<double> roi_means(const Clip &clip, const std::vector<Frame> &frames);

// Mean over frames of |m[t] - m[t-1]|, leaving out the step into frame `cut` (a real cut is
// meant to change the picture); luma codes.
double flicker_index(const std::vector<double> &means, int cut);

// std(ROI of output) / std(ROI of input), averaged over frames.
double noise_gain(const Clip &clip, const std::vector<Frame> &output);

// Frames after `cut` until the ROI mean stays within `tolerance` codes of where it ends (its
// mean over the last `span` frames); 0: the cut frame is already there.
int settle_frames(const std::vector<double> &means, int cut, double tolerance, int span);

using Distribution = std::array<double, 256>;

Distribution normalized_histogram(const Frame &frame);
// Total variation distance 0.5 * sum |p - q| over the engine's tonal bands (tone_steps.h), as
// scene-threshold is judged: 0 for equal histograms, 1 for disjoint ones.
double tv_distance(const Distribution &p, const Distribution &q);

}  // namespace quality
