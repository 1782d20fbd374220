// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Timing for histeq-cpu-bench: contenders timed in turns on their own frames, and the frames
// the packed layouts are timed on.

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace bench {

using Equalize = std::function<void(std::uint8_t *)>;

// The idle time before every turn: longer than any pool here stays awake after a frame
// (RowPool's kMaxLinger, OpenCV's with its active wait off).
inline constexpr std::chrono::milliseconds kIdleBeforeTurn{1};

// Frames per second of the median of frame times `seconds` (not empty).
double median_fps(std::vector<double> seconds);

// A contender and the frame it equalizes.
struct Timed {
  Equalize equalize;
  const std::vector<std::uint8_t> *frame;
};

// Median frames per second of each contender over `runs` runs each after one warm-up, taken in
// turns so that whatever else the machine does weighs on all alike; each contender's frame is
// restored before each run, outside the timed region. Each round starts one contender further
// on, so that none always follows the same one: a contender timed just after OpenCV's threads
// pays for them (on the GPU machine's host, 15-30% of a 720p frame on all cores). Every turn
// starts after 1 ms idle, as a live stream's frames find the machine, so that no contender's
// threads are still awake from the one before.
std::vector<double> fps_side_by_side(const std::vector<Timed> &contenders, int runs);

// The same with one frame for all.
std::vector<double> fps_side_by_side(const std::vector<Equalize> &contenders,
                                     const std::vector<std::uint8_t> &frame, int runs);

// The natural luma as packed pixels: YUY2 with neutral chroma, and RGB of that luma tinted
// pixel by pixel (the tint cancels in the luma to within rounding).
std::vector<std::uint8_t> packed_frame(const std::vector<std::uint8_t> &luma, int pixel_bytes,
                                       bool rgb);

// The same luma at 10 bits (two low bits of noise below each level), as the bytes of a plane of
// little-endian words.
std::vector<std::uint8_t> ten_bit_words(const std::vector<std::uint8_t> &luma);

}  // namespace bench
