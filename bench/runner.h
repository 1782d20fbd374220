// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Verifies and times contenders on one test case and adds their rows to the results: first
// output whose bytes are compared with the CPU reference, then the timed repeats.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "check.h"
#include "contenders.h"
#include "frames.h"
#include "planes.h"
#include "results.h"
#include "timing.h"

namespace bench {

struct TestCase {
  const HostFrame &frame;
  const std::vector<std::uint8_t> &reference;  // histeq::CpuEqualizer's output
  Content content;
};

// The D2D copy of the same plane measured in this run, both ways of launching.
struct CopyTimes {
  double graph_us;
  double launched_us;
};

// Device-resident: graph-replayed (unless the contender cannot be captured) and, for headline
// contenders or those that cannot be captured, launched call by call.
void measure_device(const DeviceContender &contender, const DevicePlanes &planes,
                    const TestCase &test, const Repeats &repeats, CopyTimes copy,
                    cudaStream_t stream, Results *results);

// Called from a catch block: a contender that fails (an NPP status, an engine error) gets an
// ERROR row and the run goes on; a sticky CUDA error (the context is lost) rethrows and ends it.
void record_failure(Section section, const std::string &name, const TestCase &test,
                    const Failure &failure, Results *results);

// The PCIe floor the end-to-end rows are measured against: `measure_us` times it once (H2D and
// D2H at once, per frame), in each of `rounds` rounds.
struct EndToEndFloor {
  std::string name;  // its row
  int rounds;
  std::function<double()> measure_us;
};

// End to end, in rounds: the floor, then every contender once (each verified in the first).
// Each row is the median over the rounds and its ratio is taken against the floor's median, so
// a drift of the host's transfers during the section moves the floor and the rows alike.
// Adds the floor's row and then the contenders'; returns the floor's median us per frame.
double measure_end_to_end(const std::vector<EndToEndContender> &contenders, const TestCase &test,
                          const Repeats &repeats, const EndToEndFloor &floor, Results *results);

}  // namespace bench
