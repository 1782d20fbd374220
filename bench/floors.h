// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The physical floors each contender is divided by, measured in the same run on the same
// plane: a device-to-device copy (what any device-resident pass must at least cost) and the
// PCIe transfers of the luma plane (what any end-to-end pipeline must at least cost).

#include <string>
#include <utility>
#include <vector>

#include "planes.h"
#include "timing.h"

namespace bench {

// cudaMemcpy2DAsync device to device of the plane, same pitch, rotating through `planes`.
double d2d_copy_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r,
                   Launch launch);

struct PcieFloor {
  double h2d_us;    // one plane host to device, alone
  double d2h_us;    // one plane device to host, alone
  double both_us;   // per frame, uploads and downloads running at the same time
  std::string how;  // the fastest way found of doing both at once
  // Every way tried and its us per frame, for the notes: the ring copies as the first does.
  std::vector<std::pair<std::string, double>> ways;
  double fps() const { return both_us > 0 ? 1e6 / both_us : 0; }
};

// From and to pinned host memory. "Both at once" is the fastest of: one stream per direction
// with 2D copies (as the engine issues them), the same with 1D copies, and two streams per
// direction taking alternate frames.
PcieFloor pcie_floor(FrameSize size, std::ptrdiff_t pitch, const Repeats &r);

// The floor of a run of `frames` frames, taken as such a run is: the packed plane up and down at
// once, one stream per direction with linear copies (as FrameEngine issues a packed plane),
// cycling `host_buffers` pinned buffers each way, all in one stretch from the first copy to the
// last. Unlike pcie_floor's median of short batches, it keeps the slower stretches a long run of
// the host's PCIe goes through. Microseconds per frame.
double pcie_stretch_us(FrameSize size, int frames, int host_buffers);

}  // namespace bench
