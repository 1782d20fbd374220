// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Test content for the GPU engine and the CPU oracle it must match.

#include <cstdint>
#include <string>
#include <vector>

#include "equalization.h"

// kFlatTiles: flat 24x24 tiles of random levels, so that some 16-byte chunks are flat and
// some straddle two levels, and a warp sees both kinds at once.
enum class Content { kUniform, kNatural, kConstant, kTwoValues, kAllLevels, kFlatTiles };

std::string content_name(Content content);

// A tightly packed width x height luma frame.
std::vector<std::uint8_t> make_frame(Content content, int width, int height, unsigned seed);

// The CPU core's output for the same frame: the oracle.
std::vector<std::uint8_t> cpu_equalized(std::vector<std::uint8_t> frame, int width, int height,
                                        histeq::OutputRange range);
