// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The equalization settings as the engines use them: fixed-point integers, converted once per
// frame from the elements' properties (doubles), so that the CPU and every GPU kernel compute
// with the very same numbers and no floating-point rounding can tell them apart.

#include <cstdint>

#include "host_device.h"

namespace histeq {

// Q16: 1.0 is 65536.
constexpr std::uint32_t kQ16One = 1u << 16;

// How the LUT is made: one for the frame (the classic mapping), or one per tile of a grid,
// interpolated between the nearest four for each pixel (CLAHE, clahe.h).
enum class Mode : std::uint8_t { kGlobal, kClahe };

constexpr int kMaxTiles = 64;

struct Params {
  // The LUT blended with identity: lut'[v] = v + (lut[v] - v) * strength. 0 leaves every
  // sample as it is, kQ16One is the full equalization.
  std::uint32_t strength = kQ16One;
  // OpenCV's contrast limit: a bin holds at most clip_limit * pixels / bins; 0 = no limit.
  std::uint32_t clip_limit = 0;
  // Weight of the stream's smoothed histogram against the new frame's in the exponential
  // average (exp(-1 / smoothing frames)); 0 equalizes every frame on its own.
  std::uint32_t history_weight = 0;
  // Total variation distance (0..1) between a frame's normalized histogram and the smoothed
  // one above which the history restarts from that frame (a scene cut).
  std::uint32_t scene_threshold = kQ16One;
  // Follow the stream's histogram (smoothing, scene cuts and statistics need it).
  bool keep_history = false;
  Mode mode = Mode::kGlobal;
  // The CLAHE grid: tiles across and down (1..kMaxTiles).
  int tiles_x = 8;
  int tiles_y = 8;

  HISTEQ_HOST_DEVICE bool is_identity() const { return strength == 0; }
  // The LUT is the classic one of this frame alone, OpenCV's equalizeHist.
  HISTEQ_HOST_DEVICE bool is_classic() const {
    return strength == kQ16One && clip_limit == 0 && history_weight == 0 && !keep_history &&
           mode == Mode::kGlobal;
  }
};

// The properties as users set them.
struct Settings {
  double strength = 1.0;          // 0..1
  double clip_limit = 0.0;        // 0 (off) or 1 and up, at most kMaxClipLimit
  double smoothing = 0.0;         // frames (time constant); 0 = per frame
  double scene_threshold = 0.25;  // 0..1
  bool statistics = false;        // the element posts per-frame statistics
  Mode mode = Mode::kGlobal;
  int tiles_x = 8;  // 1..kMaxTiles
  int tiles_y = 8;
};

constexpr double kMaxClipLimit = 1000.0;
constexpr double kMaxSmoothing = 1000.0;

// Rounds each setting to its fixed-point value; out-of-range values are clamped.
Params to_params(const Settings &settings);

}  // namespace histeq
