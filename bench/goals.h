// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The goals of issue 3, checked against the rows of one run and printed as PASS/MISS lines.

#include <iosfwd>
#include <string>

#include "results.h"

namespace bench {

// Which rows the goals compare (variant names as added to Results).
struct GoalRows {
  std::string engine_device;  // the engine's default, device-resident
  std::string engine_depth1;  // end to end, pinned, ring depth 1
  std::string engine_depth2;  // end to end, pinned, ring depth 2
  std::string cub_device;
  std::string seed_device;
  std::string seed_end_to_end;
};

// Prints the summary; returns the number of goals missed (goals with no data count as missed).
int print_goals(const Results &results, const GoalRows &rows, std::ostream &out);

}  // namespace bench
