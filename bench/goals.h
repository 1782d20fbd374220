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
  // The same two with every option on (cpu_peer.h's every_option()).
  std::string engine_device_options;
  std::string engine_depth2_options;
  std::string cub_device;
  std::string seed_device;
  std::string seed_end_to_end;
  std::string one_kernel_floor;  // read, grid barrier, write back (one_kernel_floor.h)
  // The ring's chain at depth 2 without equalization (ring_chain_floor.h).
  std::string ring_chain_no_kernel;
  std::string ring_chain_empty_kernel;
};

// Prints the summary, then what the floors bound: no single kernel of the engine's shape
// (one_kernel_floor.h) can go below the floor's ratio to the copy, nor beat CUB by more than
// CUB's time over the floor; no ring of the engine's design (ring_chain_floor.h) can come
// closer to the PCIe floor at depth 2 than its chain does without equalizing.
// Returns the number of goals missed (goals with no data count as missed).
int print_goals(const Results &results, const GoalRows &rows, std::ostream &out);

}  // namespace bench
