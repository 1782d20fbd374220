// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frames.h"

#include <algorithm>
#include <cstring>

namespace bench {

namespace {

// xorshift32: fast, deterministic on every platform, good enough for test pictures.
struct Random {
  std::uint32_t state;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

}  // namespace

const char *content_name(Content content) {
  switch (content) {
    case Content::kNatural:
      return "natural";
    case Content::kUniform:
      return "uniform";
    case Content::kConstant:
      return "constant";
  }
  return "?";
}

std::string FrameSize::label() const {
  return std::to_string(width) + "x" + std::to_string(height);
}

HostFrame make_frame(Content content, FrameSize size, std::ptrdiff_t pitch, std::uint32_t seed) {
  HostFrame frame;
  frame.size = size;
  frame.pitch = pitch;
  frame.bytes.assign(std::size_t(pitch) * std::size_t(size.height), 0xA5);
  Random random{seed | 1u};
  const double diagonal = double(size.width) + double(size.height);
  for (int y = 0; y < size.height; ++y) {
    std::uint8_t *row = frame.bytes.data() + std::ptrdiff_t(y) * pitch;
    for (int x = 0; x < size.width; ++x) {
      switch (content) {
        case Content::kNatural: {
          const double ramp = 60.0 + 70.0 * (double(x) + double(y)) / diagonal;
          const int noise = int(random.next() % 11u) - 5;
          row[x] = std::uint8_t(std::clamp(int(ramp) + noise, 0, 255));
          break;
        }
        case Content::kUniform:
          row[x] = std::uint8_t(random.next() >> 24);
          break;
        case Content::kConstant:
          row[x] = 97;
          break;
      }
    }
  }
  return frame;
}

std::uint64_t count_mismatches(const std::uint8_t *a, std::ptrdiff_t a_pitch, const std::uint8_t *b,
                               std::ptrdiff_t b_pitch, FrameSize size, std::uint64_t *first) {
  std::uint64_t count = 0;
  for (int y = 0; y < size.height; ++y) {
    const std::uint8_t *ra = a + std::ptrdiff_t(y) * a_pitch;
    const std::uint8_t *rb = b + std::ptrdiff_t(y) * b_pitch;
    if (std::memcmp(ra, rb, std::size_t(size.width)) == 0) continue;
    for (int x = 0; x < size.width; ++x) {
      if (ra[x] == rb[x]) continue;
      if (count == 0 && first) *first = std::uint64_t(y) * std::uint64_t(size.width) + x;
      ++count;
    }
  }
  return count;
}

std::string check_output(const std::uint8_t *out, std::ptrdiff_t out_pitch, const HostFrame &frame,
                         const std::vector<std::uint8_t> &reference) {
  std::uint64_t first = 0;
  const std::uint64_t bad =
      count_mismatches(out, out_pitch, reference.data(), frame.pitch, frame.size, &first);
  if (bad == 0) return "ok";
  const int x = int(first % std::uint64_t(frame.size.width));
  const int y = int(first / std::uint64_t(frame.size.width));
  return "MISMATCH " + std::to_string(bad) + " of " + std::to_string(frame.size.pixels()) +
         " bytes, first at (" + std::to_string(x) + "," + std::to_string(y) + "): got " +
         std::to_string(out[std::ptrdiff_t(y) * out_pitch + x]) + " want " +
         std::to_string(reference[std::size_t(std::ptrdiff_t(y) * frame.pitch + x)]);
}

}  // namespace bench
