// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Real pipelines for the element tests: `SOURCE ! MIDDLE ! appsink`, run to EOS, every frame's
// timestamp and luma kept, so two pipelines (cudahisteq's and histeq's) can be compared.

#include <cstdint>
#include <string>
#include <vector>

#include <gst/gst.h>

struct PulledFrame {
  GstClockTime pts;
  std::vector<std::uint8_t> luma;
};

struct PulledStream {
  std::vector<PulledFrame> frames;
  std::string error;    // the first ERROR message's text, if any
  std::string eq_caps;  // the caps on the sink pad of the element named "eq", if any
  bool eos = false;     // EOS reached the sink
};

// A moving test scene at 30 fps; endless when num_buffers is 0.
std::string test_scene(int num_buffers, const std::string &format = "NV12", int width = 1280,
                       int height = 720);

// With seek_after > 0, a flushing seek to [1 s, 2 s) follows the first seek_after frames, and
// only the frames after it are kept.
PulledStream pull_frames(const std::string &source, const std::string &middle, int seek_after = 0);

// Same count, timestamps and luma bytes (GoogleTest failures otherwise).
void expect_same_frames(const std::vector<PulledFrame> &actual,
                        const std::vector<PulledFrame> &expected);
