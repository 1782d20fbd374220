// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The test frames every contender sees: the same bytes for the GPU engine, the peers and the
// CPU reference.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

enum class Content { kNatural, kUniform, kConstant };

const char *content_name(Content content);

struct FrameSize {
  int width;
  int height;
  std::string label() const;
  std::uint64_t pixels() const { return std::uint64_t(width) * std::uint64_t(height); }
};

// A host frame of `height` rows of `pitch` bytes; the bytes past `width` in each row are a
// fixed pattern that no contender may change (they are not part of the picture).
struct HostFrame {
  FrameSize size;
  std::ptrdiff_t pitch = 0;
  std::vector<std::uint8_t> bytes;
};

// natural: a smooth diagonal gradient with noise, squeezed into 60..140 (a foggy,
//          low-contrast picture, the element's everyday input);
// uniform: independent uniform random bytes (no spatial coherence, every bin busy);
// constant: one level everywhere (worst case for atomics on a single bin).
HostFrame make_frame(Content content, FrameSize size, std::ptrdiff_t pitch, std::uint32_t seed);

// "ok", or "MISMATCH <n> of <N> bytes, first at (x,y): got G want W" comparing the visible
// bytes of `out` (rows of `out_pitch`) with `reference` (laid out like `frame`).
std::string check_output(const std::uint8_t *out, std::ptrdiff_t out_pitch, const HostFrame &frame,
                         const std::vector<std::uint8_t> &reference);

// Number of visible bytes that differ between two frames of the same geometry; `first` gets
// the index (y * width + x) of the first one.
std::uint64_t count_mismatches(const std::uint8_t *a, std::ptrdiff_t a_pitch, const std::uint8_t *b,
                               std::ptrdiff_t b_pitch, FrameSize size, std::uint64_t *first);

}  // namespace bench
