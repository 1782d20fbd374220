// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Reads a video file with FFmpeg's libavformat/libavcodec, independently of GStreamer, so the
// end-to-end tests check what any player would see.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

struct DecodedVideo {
  std::string codec;         // FFmpeg's short codec name, e.g. "h264"
  std::string pixel_format;  // FFmpeg's name, e.g. "yuv420p"
  int width = 0;
  int height = 0;
  int frames = 0;
  double duration_seconds = 0.0;
  std::array<std::uint64_t, 256> luma_histogram{};  // over every decoded frame, at 8 bits
  int luma_bits = 8;                                // the decoded luma's own depth
  std::vector<std::uint64_t> deep_luma_histogram;   // 2^luma_bits bins, every decoded frame

  // How many of the 2^luma_bits levels occur.
  int distinct_luma_levels() const;

  // The luma level below which `fraction` of all decoded pixels lie.
  int luma_percentile(double fraction) const;

  // How widely the luma is spread: the 95th minus the 5th percentile.
  int luma_spread() const { return luma_percentile(0.95) - luma_percentile(0.05); }
};

// Decodes every frame of the first video stream. Returns false and fills `error` on failure.
bool decode_video(const std::string &path, DecodedVideo &video, std::string &error);

// The compressed packets of the best audio stream, read (not decoded), to tell a copied stream
// from a re-encoded one.
struct AudioPackets {
  bool present = false;
  std::string codec;  // FFmpeg's short codec name, e.g. "aac"
  int sample_rate = 0;
  int channels = 0;
  int packets = 0;
  std::uint64_t bytes = 0;
  std::uint64_t digest = 0;  // FNV-1a over every packet's payload, in file order
  double duration_seconds = 0.0;
};

// Fills `audio` (present == false when the file has no audio stream). False on a read error.
bool read_audio_packets(const std::string &path, AudioPackets &audio, std::string &error);
