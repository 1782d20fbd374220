// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Command line of histeq-bench.

#include <string>
#include <vector>

#include "frames.h"
#include "timing.h"

namespace bench {

struct Options {
  std::string csv_path;  // empty: no CSV
  bool quick = false;
  // Every engine histogram x scan x LUT combination; else those that differ from the default in
  // one factor only.
  bool all_variants = true;
  int device = 0;
  std::vector<FrameSize> sizes{{1280, 720}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
  std::vector<Content> contents{Content::kNatural, Content::kUniform, Content::kConstant};

  Repeats device_repeats(FrameSize size) const;
  Repeats end_to_end_repeats(FrameSize size) const;
  // Rounds of the end-to-end section (the PCIe floor, then every contender), medians taken: in
  // one pass the same tree read 4K depth 2 at 0.93 and at 1.00 of the floor in two runs.
  int end_to_end_rounds() const { return quick ? 1 : 5; }
  int cpu_runs() const { return quick ? 2 : 7; }
};

// Parses argv; on error or --help returns false with the message (usage) in `message`.
bool parse_options(int argc, char **argv, Options *options, std::string *message);

}  // namespace bench
