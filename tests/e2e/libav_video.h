// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Reads a video file with FFmpeg's libavformat/libavcodec, independently of GStreamer, so the
// end-to-end tests check what any player would see.

#include <array>
#include <cstdint>
#include <string>

struct DecodedVideo {
  int width = 0;
  int height = 0;
  int frames = 0;
  double duration_seconds = 0.0;
  std::array<std::uint64_t, 256> luma_histogram{};  // over every decoded frame

  // The luma level below which `fraction` of all decoded pixels lie.
  int luma_percentile(double fraction) const;
};

// Decodes every frame of the first video stream. Returns false and fills `error` on failure.
bool decode_video(const std::string &path, DecodedVideo &video, std::string &error);
