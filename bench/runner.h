// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Verifies and times one contender on one test case and adds its row to the results:
// first one frame whose bytes are compared with the CPU reference, then the timed repeats.

#include <cstdint>
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

// End to end: `floor_us` is the PCIe floor per frame (H2D and D2H at once) from this run.
void measure_end_to_end(const EndToEndContender &contender, const TestCase &test,
                        const Repeats &repeats, double floor_us, Results *results);

}  // namespace bench
